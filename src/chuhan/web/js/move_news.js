// A move said aloud (U7, U9, Q5): who moved what where, what it took, what a face-down piece
// turned out to be, check; with its sound.
import { t } from "./i18n.js";
import { kindOf, parseMove, placementFromFen, sideNames, sideOf } from "./position.js";
import { playSound } from "./sound.js";
import { announce } from "./ui.js";
import { pieceName } from "./wording.js";

/** Announce ``move`` of ``variant``, which led from ``before`` (a state) to ``state``. */
export function announceMove(move, state, before, variant) {
  const parsed = parseMove(move);
  if (!parsed) return;
  const names = sideNames(variant);
  const side = t(`side.${names[state.turn === names[0] ? 1 : 0]}`);
  if (parsed.pass) {
    announce(t("announce.pass", { side }));
    playSound("move");
    return;
  }
  const beforePieces = placementFromFen(before?.fen || "");
  const after = placementFromFen(state.fen);
  const moved = after.get(parsed.to);
  const taken = beforePieces.get(parsed.to);
  // A jieqi piece is named as it was when it set off (face down), then what it turned out to be.
  const started = beforePieces.get(parsed.from);
  const revealed = started && kindOf(started) === "hidden" && moved && kindOf(moved) !== "hidden";
  const mover = revealed ? started : moved;
  let text = t("announce.move", {
    side, piece: mover ? t(`kind.${kindOf(mover)}`) : "", from: parsed.from, to: parsed.to,
  });
  if (taken) text += `, ${t("announce.captures", { piece: takenName(taken, state, before, variant) })}`;
  if (revealed) text += `, ${t("announce.revealed", { piece: t(`kind.${kindOf(moved)}`) })}`;
  if (state.in_check) text += `, ${t("status.check")}`;
  announce(text);
  playSound(state.in_check ? "check" : taken ? "capture" : "move");
}

// Q5: a face-down piece taken is named as the capturer learnt it (the newest capture).
function takenName(taken, state, before, variant) {
  if (kindOf(taken) === "hidden" && variant === "jieqi") {
    const side = sideOf(taken, variant);
    const now = state.captured?.[side] || [];
    const then = before?.captured?.[side] || [];
    const letter = now.length > then.length ? now[now.length - 1] : "?";
    if (letter !== "?") return pieceName(letter, variant);
  }
  return pieceName(taken, variant);
}
