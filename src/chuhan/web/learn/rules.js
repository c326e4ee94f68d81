// The real rules for the learn pages: every legal move comes from the server
// (POST /api/analysis/moves, the same rules the games use); this module only edits FEN
// placements and judges a lesson's goal from the server's answers (SPEC U8).
import { parseMove, placementFromFen, pointName } from "/static/js/position.js";

export class RulesRequestError extends Error {}

/**
 * The legal moves of a position: {legalMoves: string[], inCheck: boolean}.
 * Throws RulesRequestError with the server's message when the position is not valid.
 */
export async function analyse(variant, fen) {
  const response = await fetch("/api/analysis/moves", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ variant, fen }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new RulesRequestError(body?.error?.message || `HTTP ${response.status}`);
  return { legalMoves: body.legal_moves, inCheck: body.in_check };
}

/** The FEN of a placement (Map point → letter) with side "w" or "b" to move. */
export function fenOf(pieces, side = "w") {
  const rows = [];
  for (let rank = 9; rank >= 0; rank--) {
    let row = "";
    let empty = 0;
    for (let file = 0; file < 9; file++) {
      const letter = pieces.get(pointName(file, rank));
      if (!letter) {
        empty += 1;
        continue;
      }
      if (empty) row += String(empty);
      empty = 0;
      row += letter;
    }
    rows.push(empty ? row + String(empty) : row);
  }
  return `${rows.join("/")} ${side} - - 0 1`;
}

export function sideToMove(fen) {
  return (fen.split(" ")[1] || "w") === "b" ? "b" : "w";
}

/**
 * The FEN after a plain move (no promotion or castling exists in these games).
 * A face-down jieqi piece (X/x) turns face up as `reveal` (the lesson's scripted identity).
 */
export function fenAfter(fen, moveText, reveal = null) {
  const pieces = placementFromFen(fen);
  const side = sideToMove(fen) === "w" ? "b" : "w";
  if (moveText === "pass") return fenOf(pieces, side);
  const { from, to } = parseMove(moveText);
  let letter = pieces.get(from);
  if ((letter === "X" || letter === "x") && reveal) {
    letter = letter === "X" ? reveal.toUpperCase() : reveal.toLowerCase();
  }
  pieces.delete(from);
  pieces.set(to, letter);
  return fenOf(pieces, side);
}

/** Destinations (point names) of the piece on `from` among legal move texts. */
export function destinationsFrom(legalMoves, from) {
  const points = new Set();
  for (const text of legalMoves) {
    const move = parseMove(text);
    if (move && move.from === from) points.add(move.to);
  }
  return points;
}

/**
 * Does a legal move reach a lesson's goal? goal: {move?} (an exact move, e.g. janggi "pass"),
 * or {from?, to?, then?: "check"|"mate"|"stalemate"}.
 * The position after the move is judged by the server's rules. Returns
 * {solved: boolean, reason: "wrong_move"|"wrong_piece"|"wrong_point"|"not_check"|"not_mate"|"not_stalemate"|null}.
 */
export async function judgeGoal(variant, fen, moveText, goal, reveal = null) {
  if (goal.move || moveText === "pass") {
    const solved = moveText === goal.move;
    return { solved, reason: solved ? null : "wrong_move" };
  }
  const move = parseMove(moveText);
  if (goal.from && move.from !== goal.from) return { solved: false, reason: "wrong_piece" };
  if (goal.to && move.to !== goal.to) return { solved: false, reason: "wrong_point" };
  if (!goal.then) return { solved: true, reason: null };
  const after = await analyse(variant, fenAfter(fen, moveText, reveal));
  const replies = after.legalMoves.filter((text) => text !== "pass");
  const outcome = {
    check: after.inCheck,
    mate: after.inCheck && replies.length === 0,
    stalemate: !after.inCheck && after.legalMoves.length === 0,
  }[goal.then];
  return { solved: Boolean(outcome), reason: outcome ? null : `not_${goal.then}` };
}
