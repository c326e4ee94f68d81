// What the player reads for a piece, a point, a move and a sentence (U7, U9, N1): the same
// words on the play view, its announcements and the puzzles.
import { t } from "./i18n.js";
import { kindOf, parseMove, sideOf } from "./position.js";
import { settings } from "./settings.js";

/** "red chariot", "face-down black piece": a piece as the player reads it. */
export function pieceName(letter, variant) {
  const kind = kindOf(letter);
  const side = t(`owner.${sideOf(letter, variant)}`);
  if (kind === "hidden") return t("piece.hidden", { side });
  return t("piece.named", { side, piece: t(`kind.${kind}`) });
}

/** U9: a board point as a screen reader names it: "e1, red general, selected". */
export function pointLabel(point, letter, variant, { selected, destination }) {
  let label = `${point}, ${letter ? pieceName(letter, variant) : t("point.empty")}`;
  if (selected) label += `, ${t("point.selected")}`;
  if (destination) label += `, ${t("point.destination")}`;
  return label;
}

/** N1: "h3-e3" (a pass: "pass"). */
export function formatCoordinates(move) {
  const parsed = parseMove(move);
  if (!parsed) return move;
  return parsed.pass ? t("move.pass") : `${parsed.from}-${parsed.to}`;
}

/** The notation the player chose for a variant: janggi has its own setting (Korean). */
export function chosenNotation(variant) {
  return variant === "janggi" ? settings.janggiNotation : settings.notation;
}

/** "You lost" → "You lost."; "You won!" stays as it is (no "You won!."). */
export function sentenceEnd(text) {
  return /[.!?。！？]$/.test(text) ? text : `${text}.`;
}

/** A text that may start with "your friend": its first letter capitalised. */
export function sentence(text) {
  return text ? text[0].toLocaleUpperCase() + text.slice(1) : text;
}
