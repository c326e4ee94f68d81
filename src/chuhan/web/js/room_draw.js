// A room's draw offers (SPEC R5, R7): the Draw button, which says why an offer is not possible
// now (not one's turn, an offer open, the gap between one's offers, sent by the server)
// instead of letting the server refuse, and the opponent's offer kept in view under the
// board, answered only on the device that holds the seat.
import { drawOfferGap } from "./facts.js";
import { t } from "./i18n.js";
import { el } from "./ui.js";
import { sentence } from "./wording.js";

export class DrawOffer {
  /** screen: the RoomScreen (its view, state, player, seat and act). */
  constructor(screen) {
    this.screen = screen;
    this.bar = el("div", { class: "confirm-bar room-offer", "data-offer": "", hidden: "", role: "alert" });
    this.button = screen.view.button("action.draw", () => screen.act("draw_offer"), { "data-action": "draw" });
  }

  /** Show ``draw`` (the game's draw options: the open offer, each side's last offer). */
  render(draw) {
    const screen = this.screen;
    const { view, state: s, ongoing, you: me, holds } = screen;
    const myTurn = view.myTurn;
    const last = draw.last_offer_ply?.[me];
    const wait = ongoing && last !== null && last !== undefined ? drawOfferGap() - (s.ply - last) : 0;
    this.button.hidden = !ongoing;
    this.button.disabled = !(myTurn && !draw.offer_by && wait <= 0);
    let note = "";
    if (ongoing && holds) {
      if (draw.offer_by === me) note = t("room.offer_open");
      else if (draw.offer_by) note = "";
      else if (!myTurn) note = t("room.draw_own_turn");
      else if (wait > 0) note = t("room.draw_wait", { count: wait });
    }
    const control = view.controlNote;
    control.textContent = note;
    control.hidden = !note;
    control.toggleAttribute("data-offer-open", draw.offer_by === me && Boolean(me));
    this.bar.innerHTML = "";
    // Only the device that holds the seat may answer (R7): the others show the way to it.
    this.bar.hidden = !(draw.offer_by && draw.offer_by !== me) || !holds || screen.detached;
    if (!this.bar.hidden) {
      const name = screen.opponentName();
      this.bar.append(el("span", {}, sentence(t(myTurn ? "room.offer_received" : "room.offer_received_wait", { name }))));
      const accept = view.button("room.accept_draw", () => screen.act("draw_accept"), {
        "data-action": "accept-draw", class: "button primary", disabled: myTurn ? null : "",
      });
      this.bar.append(accept);
    }
  }
}
