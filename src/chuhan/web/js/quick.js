// Quick messages in rooms (SPEC B8): five words a seated player may send the other seat, by
// id (the room socket's "say"), each shown in the reader's own language; no free text between
// strangers. The server sends "said" to both seats ({phrase, you}); the mute is this
// browser's own choice, remembered in localStorage: the other's words still arrive, and are
// neither shown nor read out.
import { t } from "./i18n.js";
import { announce, el } from "./ui.js";

export const QUICK_MESSAGES = ["good_luck", "good_game", "thanks", "well_played", "oops"];
const MUTE_KEY = "chuhan.quick_mute";
const SHOWN = 3; // the last lines said, newest last

function remembered() {
  try {
    return localStorage.getItem(MUTE_KEY) === "1";
  } catch {
    return false;
  }
}

export class QuickMessages {
  /** send(type, fields): the room's request; opponentName(): how the other seat is called. */
  constructor({ send, opponentName }) {
    this.send = send;
    this.opponentName = opponentName;
    this.lines = []; // {phrase, you}: what is shown
    this.received = 0; // the other's messages that arrived, shown or muted
    this.muted = remembered();
    this.box = el("section", { class: "room-board-slot quick", "data-quick": "", "aria-labelledby": "quick-heading", hidden: "" });
    this.render();
  }

  /** Shown while there is someone to talk to and this device holds the seat. */
  setActive(active) {
    this.box.hidden = !active;
  }

  /** A "said" notice from the room socket. */
  heard(message) {
    if (!QUICK_MESSAGES.includes(message.phrase)) return;
    if (!message.you) {
      this.received += 1;
      this.box.dataset.received = String(this.received);
      if (this.muted) return;
      announce(t("quick.says", { name: this.opponentName(), message: t(`quick.${message.phrase}`) }));
    }
    this.lines = [...this.lines, { phrase: message.phrase, you: Boolean(message.you) }].slice(-SHOWN);
    this.renderLines();
  }

  setMuted(muted) {
    this.muted = muted;
    try {
      localStorage.setItem(MUTE_KEY, muted ? "1" : "0");
    } catch {
      // private browsing: muted for this page only
    }
    if (muted) this.lines = this.lines.filter((line) => line.you);
    this.render();
  }

  /** Everything again (the language changed). */
  render() {
    this.box.innerHTML = "";
    const buttons = QUICK_MESSAGES.map((phrase) => {
      const button = el("button", { type: "button", class: "button quick-say", "data-quick-say": phrase }, t(`quick.${phrase}`));
      button.addEventListener("click", () => this.send("say", { phrase }));
      return button;
    });
    const mute = el("input", { type: "checkbox", id: "quick-mute", "data-action": "quick-mute" });
    mute.checked = this.muted;
    mute.addEventListener("change", () => this.setMuted(mute.checked));
    this.log = el("ul", { class: "quick-log", "data-quick-log": "" });
    this.box.append(
      el("h2", { id: "quick-heading", class: "sr-only" }, t("quick.heading")),
      this.log,
      el("div", { class: "quick-actions", role: "group", "aria-label": t("quick.heading") }, ...buttons),
      el("label", { class: "quick-mute", for: "quick-mute" }, mute, " ", t("quick.mute")),
    );
    this.box.dataset.muted = String(this.muted);
    this.renderLines();
  }

  renderLines() {
    this.log.innerHTML = "";
    for (const line of this.lines) {
      const words = t(`quick.${line.phrase}`);
      const text = line.you ? t("quick.you_said", { message: words }) : t("quick.says", { name: this.opponentName(), message: words });
      this.log.append(el("li", { class: line.you ? "quick-line mine" : "quick-line", "data-quick-line": line.you ? "you" : "them", "data-phrase": line.phrase }, text));
    }
  }
}
