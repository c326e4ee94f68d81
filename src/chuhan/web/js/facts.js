// The rule facts the server decides and the pages show (GET /api/facts, server/http/facts.py):
// janggi's piece points (J8), the draw-offer gap (R5) and the clock choices (B7, R4). Loaded
// once as a page starts (app.js waits for it), then read synchronously; nothing here keeps a
// copy of them.
import { kindOf, placementFromFen, sideOf } from "./position.js";

let facts = { janggi: { points: {}, han_bonus: 0 }, draw_offer_gap: 0, clocks: { turn: "turn", controls: [] } };

/** Fetch the facts (a page that cannot reach the server shows what it can without them). */
export async function loadFacts() {
  try {
    const response = await fetch("/api/facts", { credentials: "same-origin" });
    if (response.ok) facts = await response.json();
  } catch {
    // offline: no clock choice beyond the turn clock, no janggi totals
  }
}

/** R5: the half-moves between one player's draw offers. */
export function drawOfferGap() {
  return facts.draw_offer_gap;
}

/** B7, R4: {turn, controls: [{id, base_minutes, increment, periods, period_seconds, variants}]}. */
export function clockFacts() {
  return facts.clocks;
}

/** {cho, han}: each side's points on a janggi board, Han's bonus for moving second included (J8). */
export function janggiTotals(fen) {
  const byKind = {};
  for (const [letter, points] of Object.entries(facts.janggi.points)) byKind[kindOf(letter)] = points;
  const totals = { cho: 0, han: facts.janggi.han_bonus };
  for (const letter of placementFromFen(fen).values()) {
    totals[sideOf(letter, "janggi")] += byKind[kindOf(letter)] ?? 0;
  }
  return totals;
}
