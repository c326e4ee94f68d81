// What comes after a room's game (SPEC U6, B2, B4, B5, R8): the end in a dialog (result,
// reason, points, rating change) that follows the room until the next game begins; the
// rematch (offer, accept, decline, cancel), said when the opponent offers or answers; the
// opponent gone, and after a paired game the way on: someone new (the same seek again) or
// the computer.
import { api } from "./connection.js";
import { t } from "./i18n.js";
import { unnamed } from "./room_people.js";
import { announce, el, showDialog } from "./ui.js";
import { sentence } from "./wording.js";

export class NextGame {
  /** screen: the RoomScreen (its room, state, view, socket and act). */
  constructor(screen) {
    this.screen = screen;
    this.rematchNote = null; // "withdrawn": the opponent took their offer back (B5)
    this.leftName = null; // the name of the opponent who left (B5)
    this.endBody = null; // the open result dialog's body
    this.endRated = null;
  }

  /** B4: a game is over and both seats are its players (each had a side): the next game is
   * a rematch with the colours swapped, not Ready with colours drawn (R3). */
  get rematchable() {
    const seats = this.screen.room.seats;
    return Boolean(this.screen.state) && !this.screen.ongoing && !this.screen.room.setup && seats.length === 2
      && seats.every((seat) => seat.side);
  }

  // B4: offer a rematch; the opponent's offer is accepted or declined; one's own cancelled.
  renderRematch(into) {
    const mine = this.screen.room.seats.find((seat) => seat.you)?.rematch;
    const theirs = this.screen.room.seats.find((seat) => !seat.you)?.rematch;
    const name = this.screen.opponentName();
    const phase = theirs === "offered" ? "received" : mine === "offered" ? "offered" : "none";
    const box = el("div", { class: "room-rematch", "data-rematch": phase, role: "group", "aria-label": t("room.rematch") });
    const act = (action) => () => this.screen.act("rematch", { action });
    const actions = el("div", { class: "room-rematch-actions" });
    if (phase === "received") {
      box.append(el("p", { "data-rematch-offer": "" }, sentence(t("room.rematch_received", { name }))));
      actions.append(
        this.screen.view.button("room.rematch_accept", act("accept"), { "data-action": "rematch-accept", class: "button primary" }),
        this.screen.view.button("room.rematch_decline", act("decline"), { "data-action": "rematch-decline" }));
    } else if (phase === "offered") {
      box.append(el("p", { "data-rematch-waiting": "" }, t("room.rematch_offered", { name })));
      actions.append(this.screen.view.button("room.rematch_cancel", act("cancel"), { "data-action": "rematch-cancel" }));
    } else {
      if (mine === "declined") box.append(el("p", { "data-rematch-declined": "" }, sentence(t("room.rematch_declined", { name }))));
      if (theirs === "declined") box.append(el("p", { class: "muted" }, t("room.rematch_you_declined")));
      if (this.rematchNote === "withdrawn") box.append(el("p", { "data-rematch-withdrawn": "" }, sentence(t("room.rematch_withdrawn", { name }))));
      box.append(el("p", { class: "muted" }, t("room.rematch_lead", { name })));
      actions.append(this.screen.view.button("room.rematch", act("offer"), { "data-action": "rematch-offer", class: "button primary" }));
    }
    // B5: after a paired game, someone new (the same seek again) beside the rematch.
    if (this.screen.room.options?.paired) actions.append(this.newOpponentButton());
    box.append(actions);
    into.append(box); // below the board, in view when the game ends (phone too)
  }

  /** U6: a room game ends as an AI game does, in a dialog: the result, its reason, the
   * points and the rating change (B2), all in view on a phone, with what comes next beside
   * them: the rematch and, after a paired game, a new opponent (B4, B5), as under the board. */
  async showEnd() {
    this.endBody = el("div", { "data-room-end": "" }, this.screen.view.endSummary({ title: false }));
    this.endRated = JSON.stringify(this.screen.state.options?.rated ?? null);
    const actions = [];
    if (this.rematchable) {
      actions.push({ label: t("room.rematch"), value: "rematch", primary: true, attributes: { "data-action": "end-rematch" } });
    }
    if (this.screen.room.options?.paired) {
      actions.push({ label: t("room.new_opponent"), value: "new-opponent", primary: !actions.length, attributes: { "data-action": "end-new-opponent" } });
    }
    actions.push({ label: t("end.review"), value: "close", attributes: { "data-action": "end-close" } });
    const choice = await showDialog({ title: this.screen.view.result().title, body: this.endBody, attributes: { "data-end-dialog": "" }, actions });
    this.endBody = null;
    if (choice === "rematch") this.screen.act("rematch", { action: "offer" }); // accepts one already made
    else if (choice === "new-opponent") this.leaveFor(this.seekAddress());
  }

  /** The open result dialog follows the room: the rating change once it comes (a "rated"
   * event after the end), closed when the next game begins. */
  renderEndDialog() {
    const body = this.endBody;
    if (!body) return;
    if (this.screen.ongoing || this.screen.room.setup) {
      body.closest("dialog")?.querySelector("[data-action=end-close]")?.click();
      return;
    }
    const rated = JSON.stringify(this.screen.state?.options?.rated ?? null);
    if (rated === this.endRated) return;
    this.endRated = rated;
    body.replaceChildren(this.screen.view.endSummary({ title: false }));
  }

  /** B5: a game was played here and the opponent has gone (R8): nobody to rematch. */
  get opponentLeft() {
    return Boolean(this.screen.state) && !this.screen.room.setup && this.screen.room.seats.length < 2;
  }

  // B5: said, with the way on: in a paired room a new opponent (the same seek again) or the
  // computer; in a private room the invite above still brings another friend (then Ready).
  renderOpponentLeft(into) {
    const name = this.leftName || t(unnamed(this.screen.room, "room.friend_name"));
    const box = el("div", { class: "room-rematch", "data-opponent-left": "", role: "group", "aria-label": t("room.rematch") },
      el("p", { class: "notice" }, sentence(t("room.opponent_left", { name }))));
    if (this.screen.room.options?.paired) {
      box.append(el("p", { class: "muted" }, t("room.opponent_left_lead")),
        el("div", { class: "room-rematch-actions" }, this.newOpponentButton(),
          this.screen.view.button("room.play_ai", () => this.leaveFor(this.computerAddress()), { "data-action": "play-ai" })));
    }
    into.append(box);
  }

  newOpponentButton() {
    const primary = this.opponentLeft ? " primary" : "";
    return this.screen.view.button("room.new_opponent", () => this.leaveFor(this.seekAddress()), {
      "data-action": "new-opponent", class: `button${primary}`,
    });
  }

  /** The seek that made this paired room, for the home page to make again (B1). */
  seekAddress() {
    const options = this.screen.room.options || {};
    const query = new URLSearchParams({ seek: this.screen.room.variant });
    if (options.rules === "wxf") query.set("rules", "wxf");
    if (options.bikjang === "points") query.set("bikjang", "points");
    if (typeof options.clock === "string") query.set("clock", options.clock); // B7
    return `/?${query}`;
  }

  /** A game against the computer with this room's game and rule option. */
  computerAddress() {
    const options = this.screen.room.options || {};
    const query = new URLSearchParams({ variant: this.screen.room.variant, level: "intermediate", color: "random" });
    if (options.rules === "wxf") query.set("rules", "wxf");
    if (options.bikjang === "points") query.set("bikjang", "points");
    return `/play/ai?${query}`;
  }

  /** Leave the room between games (R8) and go to ``address``. */
  async leaveFor(address) {
    this.screen.socket.stop();
    try {
      await api("POST", `/api/rooms/${encodeURIComponent(this.screen.room.id)}/leave`);
    } catch {
      // the seat is given up when its socket has gone anyway: go on
    }
    location.href = address;
  }

  /** B4: an offer from the opponent, or the answer to one's own, is said at once. */
  announceRematch(before, after) {
    const of = (room, you) => room?.seats?.find((seat) => seat.you === you)?.rematch ?? null;
    const name = after.seats.find((seat) => !seat.you)?.name || t(unnamed(after, "room.friend_name"));
    if (of(after, false) === "offered" && of(before, false) !== "offered") announce(sentence(t("room.rematch_received", { name })));
    if (of(after, true) === "declined" && of(before, true) !== "declined") announce(sentence(t("room.rematch_declined", { name })));
  }

  /** B5: what the opponent did without a word: left the room, or withdrew their rematch
   * offer. Kept until the room moves on, and said at once. */
  noticeDeparture(before, after) {
    const theirs = (room) => room?.seats?.find((seat) => !seat.you);
    const was = theirs(before);
    const now = theirs(after);
    if (now) this.leftName = null;
    else if (was && this.screen.state) {
      this.leftName = was.name || null;
      const name = was.name || t(unnamed(after, "room.friend_name"));
      announce(sentence(t("room.opponent_left", { name })));
    }
    const sameGame = before?.game_id === after.game_id;
    if (sameGame && was?.rematch === "offered" && now && !now.rematch) {
      this.rematchNote = "withdrawn";
      announce(sentence(t("room.rematch_withdrawn", { name: now.name || t(unnamed(after, "room.friend_name")) })));
    } else if (!sameGame || now?.rematch || !now) this.rematchNote = null;
  }
}
