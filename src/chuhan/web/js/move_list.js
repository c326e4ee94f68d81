// The game's history beside the board (N1–N3, Q5): the move list in the notation the player
// chose (written by the server; coordinates where it has not), the marks of a judged
// repetition, and the pieces each side has lost.
import { api } from "./connection.js";
import { t } from "./i18n.js";
import { pieceSvg } from "./pieces.js";
import { placementFromFen, sideNames, sideOf } from "./position.js";
import { settings } from "./settings.js";
import { el } from "./ui.js";
import { chosenNotation, formatCoordinates, pieceName } from "./wording.js";

// Chinese and Korean notations are read out by a voice of their language.
const LANGUAGES = { chinese: "zh", korean: "ko" };

/** {text, exact, lang} of the move at ``index`` in the player's notation; not exact: the
 * server has not written it, coordinates stand in. */
export function notationOf(state, variant, index, move) {
  const wanted = chosenNotation(variant);
  if (wanted && wanted !== "coordinates") {
    const list = state.notation?.[wanted];
    if (Array.isArray(list) && list[index]) return { text: list[index], exact: true, lang: wanted };
    return { text: formatCoordinates(move), exact: false };
  }
  return { text: formatCoordinates(move), exact: true };
}

/** N1–N3: ``move`` (not yet played) of game ``id`` as the move list will write it in the
 * player's notation, written by the server, which alone writes notations; null for
 * coordinates or when the server does not answer. */
export async function writtenMove(id, variant, move) {
  const wanted = chosenNotation(variant);
  if (!wanted || wanted === "coordinates" || !id) return null;
  try {
    const answer = await api("GET", `/api/games/${encodeURIComponent(id)}/notation?move=${encodeURIComponent(move)}`);
    return answer.notation?.[wanted] || null;
  } catch {
    return null;
  }
}

/** Fill ``heading``, ``list`` (an ol, two plies an item) and ``note`` (shown when a move is
 * not in the chosen notation) from ``state``. */
export function renderMoves({ heading, list, note }, state, variant) {
  const moves = state?.moves || [];
  heading.textContent = t("moves.heading");
  list.setAttribute("aria-label", t("moves.heading"));
  list.innerHTML = "";
  let missing = false;
  // The moves of a judged repetition that checked or chased carry a mark.
  const marks = new Map((state?.ruling?.marks || []).map((mark) => [mark.ply, mark]));
  for (let i = 0; i < moves.length; i += 2) {
    const item = el("li", {});
    for (const index of [i, i + 1]) {
      if (index >= moves.length) break;
      const { text, exact, lang } = notationOf(state, variant, index, moves[index]);
      missing ||= !exact;
      if (index % 2) item.append(" ");
      const span = el("span", { class: "move", "data-ply": String(index + 1), lang: LANGUAGES[lang] ?? null }, text);
      const mark = marks.get(index + 1);
      const kind = mark?.check ? "check" : mark?.chases?.length ? "chase" : null;
      if (kind) {
        span.dataset.repetition = kind;
        span.append(el("span", { class: "repetition-mark", title: t(`moves.mark_${kind}`), "aria-hidden": "true" },
          kind === "check" ? "+" : "→"), el("span", { class: "sr-only" }, ` ${t(`moves.mark_${kind}`)}`));
      }
      item.append(span);
    }
    list.append(item);
  }
  if (!moves.length) list.append(el("li", { class: "empty" }, t("moves.none")));
  note.hidden = !missing;
  note.textContent = missing ? t("moves.notation_missing") : "";
  list.scrollTop = list.scrollHeight;
}

// Lost pieces per side (FEN letters). Jieqi gets them from the server, which alone knows
// what a captured face-down piece was ("?" when this viewer may not know, Q5); the other
// variants compare the starting placement with the current one.
function lostPieces(state, variant) {
  const [first, second] = sideNames(variant);
  if (variant === "jieqi") {
    const captured = state.captured || {};
    const letters = (side, hidden) => (captured[side] || []).map((l) => (l === "?" ? hidden : l));
    return { [first]: letters(first, "X"), [second]: letters(second, "x") };
  }
  const count = (fen) => {
    const counts = new Map();
    for (const letter of placementFromFen(fen).values()) counts.set(letter, (counts.get(letter) || 0) + 1);
    return counts;
  };
  const before = count(state.start_fen);
  const now = count(state.fen);
  const lost = { [first]: [], [second]: [] };
  for (const [letter, number] of before) {
    for (let i = now.get(letter) || 0; i < number; i++) lost[sideOf(letter, variant)].push(letter);
  }
  return lost;
}

/** Fill ``box`` with each side's lost pieces, small, and their names for a screen reader. */
export function renderCaptured(box, state, variant) {
  box.innerHTML = "";
  if (!state) return;
  const lost = lostPieces(state, variant);
  if (Object.values(lost).some((letters) => letters.length)) {
    box.append(el("h2", { class: "panel-heading" }, t("captured.heading")));
  }
  for (const side of sideNames(variant)) {
    const letters = lost[side] || [];
    if (!letters.length) continue;
    const label = t("captured.of", { side: t(`side.${side}`) });
    const row = el("div", {
      class: "captured-row", role: "img", "data-captured-side": side,
      "data-letters": letters.join(""),
      "aria-label": `${label}: ${letters.map((letter) => pieceName(letter, variant)).join(", ")}`,
    });
    for (const letter of letters) {
      const holder = el("span", { class: "mini-piece", "aria-hidden": "true" });
      holder.innerHTML = `<svg viewBox="-50 -50 100 100">${pieceSvg(letter, variant, settings.pieceStyle)}</svg>`;
      row.append(holder);
    }
    box.append(row);
  }
}
