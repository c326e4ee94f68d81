// The players beside the board (R4, B7, J8): a row per side, the mover marked, with its name,
// the host's badges, its clock, in janggi its running points and, against the AI, the AI
// thinking; and above them the game's own badges (variant, practice, commitment).
import { janggiTotals } from "./facts.js";
import { t } from "./i18n.js";
import { sideNames } from "./position.js";
import { el } from "./ui.js";

/**
 * Fill ``box`` with a row per side, the viewer's side at the bottom (``flipped``: the second
 * mover's). name(side), badges(side) → [nodes], clock(side) → text or "" come from the view.
 */
export function renderPlayers(box, { state, variant, flipped, thinking, local, name, badges, clock }) {
  const s = state;
  box.hidden = !s;
  box.innerHTML = "";
  if (!s) return;
  const [first, second] = sideNames(variant);
  const totals = variant === "janggi" && s.fen ? janggiTotals(s.fen) : null;
  box.toggleAttribute("data-janggi-points", Boolean(totals));
  for (const side of flipped ? [first, second] : [second, first]) {
    const toMove = s.turn === side && s.status === "ongoing";
    const row = el("div", {
      class: `player side-${side}${toMove ? " to-move" : ""}`, "data-side": side,
      "data-you": String(side === s.you),
    });
    row.append(el("span", { class: "dot", "aria-hidden": "true" }),
      el("span", { class: "name", "data-name": "" }, name(side)));
    for (const badge of badges(side)) row.append(badge);
    // R4: the mover's turn clock; B7: a game clock shows both sides' time, the mover's running.
    const time = clock(side);
    if (time) row.append(el("span", { class: "player-clock", "data-player-clock": "", "data-running": String(toMove) }, time));
    if (totals) {
      // J8: points decide janggi games; each side's running total (Han's with its bonus).
      row.append(el("span", { class: "player-points", title: t("janggi.points_title") },
        el("span", { class: "points-label" }, `${t("janggi.points")} `),
        el("span", { "data-points-side": side }, String(totals[side]))));
    }
    if (toMove && thinking && side !== s.you && !local) {
      row.append(el("span", { class: "thinking-dots", "data-thinking": "" }, t("status.thinking")));
    }
    box.append(row);
  }
}

/** The game's badges: its variant, a practice game, a jieqi commitment (Q7). */
export function renderBadges(box, state, variant) {
  box.innerHTML = "";
  if (!state) return;
  box.append(el("span", { class: "badge" }, t(`variant.${variant}`)));
  if (state.practice) {
    box.append(el("span", { class: "badge practice", "data-practice": "" }, t("badge.practice")));
  }
  if (state.commitment) {
    box.append(el("span", { class: "badge commitment", title: String(state.commitment) }, t("badge.commitment")));
  }
}
