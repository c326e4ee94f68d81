// A room's janggi setup choice (SPEC J3, R4): Han chooses first, then Cho, who sees Han's
// choice; the four setups as pictures, on the turn clock (its countdown beside the button),
// and the board showing the janggi start with each setup known so far.
import { t } from "./i18n.js";
import { sideNames } from "./position.js";
import { setupChoice } from "./screens.js";
import { el } from "./ui.js";

export class RoomSetup {
  /** screen: the RoomScreen (its room, state, view, setupBox and act). */
  constructor(screen) {
    this.screen = screen;
    this.clock = null; // the turn's countdown, while this player chooses
    this.shownFor = null; // the turn whose choice was brought into view
  }

  /** Draw the choice (``lobby``: who chose what, who is choosing; ``box``: the form). */
  render(lobby, box) {
    const { room, view } = this.screen;
    const setup = room.setup;
    if (setup.han) {
      lobby.append(el("p", { "data-han-setup": "" }, t("room.han_chose", { setup: t(`setup.${setup.han}`), code: setup.han })));
    }
    if (setup.turn !== room.you) {
      lobby.append(el("p", {}, t("room.setup_waiting", { side: t(`side.${setup.turn}`) })));
      return;
    }
    const form = el("form", { class: "play-form is-janggi room-setup", "data-form": "room-setup" });
    const [cho] = sideNames("janggi");
    const choice = setupChoice("room-setup", "room.setup_heading", "room", room.you === cho);
    choice.dataset.setup = "";
    // The turn's countdown beside the button: the status line above the board is scrolled
    // off a phone's screen while the choice is in view.
    this.clock = el("p", { class: "room-setup-clock", "data-setup-clock": "" });
    form.append(choice, this.clock,
      el("button", { type: "submit", class: "button primary", "data-action": "choose-setup" }, t("room.choose_setup")));
    form.addEventListener("change", () => view.board.setPieces(this.preview()));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.screen.act("setup", { setup: new FormData(form).get("room-setup") });
    });
    box.append(form);
    if (!this.screen.state) view.board.setPieces(this.preview());
    // The choice runs on the turn clock: once per turn it is brought into view.
    if (this.shownFor !== setup.deadline) {
      this.shownFor = setup.deadline;
      form.scrollIntoView({ block: "nearest" });
    }
  }

  /** J3: while the setups are chosen, the board shows the janggi start with each setup
   * known so far (Han's once chosen, and the one this player is picking). */
  preview() {
    const pieces = new Map();
    const room = this.screen.room;
    const setup = room.setup;
    if (!setup) return pieces;
    const back = "RNBAKABNR";
    for (const [index, file] of [..."abcdefghi"].entries()) {
      const letter = back[index];
      if (letter === "K") continue;
      if ("RA".includes(letter)) {
        pieces.set(`${file}1`, letter);
        pieces.set(`${file}10`, letter.toLowerCase());
      }
    }
    pieces.set("e2", "K").set("e9", "k").set("b3", "C").set("h3", "C").set("b8", "c").set("h8", "c");
    for (const file of "acegi") pieces.set(`${file}4`, "P").set(`${file}7`, "p");
    const picking = this.screen.setupBox?.querySelector("input[name=room-setup]:checked")?.value;
    const mine = setup.turn === room.you ? picking : null;
    const han = setup.han || (room.you === "han" ? mine : null);
    const cho = room.you === "cho" ? mine : null;
    const letter = (kind) => (kind === "H" ? "N" : "B");
    // Read from each player's own left: Cho's from file a, Han's from file i.
    if (cho) ["b1", "c1", "g1", "h1"].forEach((point, i) => pieces.set(point, letter(cho[i])));
    if (han) ["h10", "g10", "c10", "b10"].forEach((point, i) => pieces.set(point, letter(han[i]).toLowerCase()));
    return pieces;
  }
}
