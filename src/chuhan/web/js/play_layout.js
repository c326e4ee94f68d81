// The play view's page (U1, U5): the status line and notices, the board with the question
// under it and the view controls, and beside it the panel: players, badges, controls, the
// end of the game, the move list, captured pieces and the rules link. Slots (topSlot,
// panelTop, panelMiddle) are where a host puts its own parts. Elements only: play.js fills them.
import { el } from "./ui.js";

/** The elements of the layout, by name (``layout`` holds them all); ``kind``: the host's
 * ("ai", "local", "room"), ``attributes``: data attributes of the layout. */
export function playLayout(kind, attributes) {
  const layout = el("div", { class: "game-layout", "data-play": kind, ...(attributes || {}) });
  const heading = el("h1", { class: "sr-only" });
  const statusText = el("span", {});
  const clock = el("span", { class: "turn-clock", "data-clock": "", hidden: "" });
  const statusLine = el("p", { class: "status-line", role: "status" }, statusText, clock);
  const noticeLine = el("p", { class: "notice", "data-notice": "", hidden: "" });
  const topSlot = el("div", { class: "play-slot" });
  const boardBox = el("div", { class: "board-box" });
  const confirmBar = el("div", { class: "confirm-bar", hidden: "" });
  const viewControls = el("div", { class: "view-controls" });
  const main = el("div", { class: "game-main" });
  main.append(statusLine, noticeLine, topSlot, boardBox, confirmBar, viewControls);

  const side = el("aside", { class: `side-panel${kind === "room" ? " room-panel" : ""}` });
  const panelTop = el("div", { class: "play-slot" });
  const players = el("div", { class: "players", "data-players": "" });
  const badges = el("div", { class: "badges" });
  const controls = el("div", { class: "controls", "data-controls": "" });
  const controlNote = el("p", { class: "note", "data-control-note": "", hidden: "" });
  const panelMiddle = el("div", { class: "play-slot" });
  const endBox = el("section", { class: "end-box", "data-end": "", hidden: "", "aria-label": "" });
  const movesHeading = el("h2", { class: "panel-heading" });
  const notationNote = el("p", { class: "note", "data-notation-note": "", hidden: "" });
  const moveList = el("ol", { class: "move-list", "aria-label": "" });
  const captured = el("div", { class: "captured", "data-captured": "" });
  const rulesLink = el("a", {
    href: "", target: "_blank", rel: "noopener", class: "rules-link", "data-action": "rules",
  });
  side.append(panelTop, players, badges, controls, controlNote,
    panelMiddle, endBox, movesHeading, notationNote, moveList,
    captured, rulesLink);
  layout.append(heading, main, side);
  return {
  layout, heading, statusText, clock, statusLine, noticeLine, topSlot, boardBox, confirmBar, viewControls, panelTop, players, badges, controls, controlNote, panelMiddle, endBox, movesHeading, notationNote, moveList, captured, rulesLink,
  };
}
