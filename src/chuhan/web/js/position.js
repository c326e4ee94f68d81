// Board coordinates, FEN and move text: the vocabulary shared by every other module.
// Points are named "a1" … "i10": files a–i from the first mover's left, ranks 1–10 from
// the first mover's side (SPEC §0).

export const FILES = "abcdefghi";
export const RANKS = 10;

/** Every point name, rank 1 first. */
export const POINTS = [];
for (let rank = 1; rank <= RANKS; rank++) {
  for (const file of FILES) POINTS.push(file + rank);
}

/** {file: 0–8, rank: 0–9} of a point name, or null when the name is not a point. */
export function parsePoint(name) {
  const match = /^([a-i])(10|[1-9])$/.exec(name || "");
  if (!match) return null;
  return { file: FILES.indexOf(match[1]), rank: Number(match[2]) - 1 };
}

export function pointName(file, rank) {
  return FILES[file] + (rank + 1);
}

/** {from, to} of a canonical move ("h3e3", "a10a9"), {pass: true} for "pass", else null. */
export function parseMove(text) {
  if (text === "pass") return { pass: true };
  const match = /^([a-i](?:10|[1-9]))([a-i](?:10|[1-9]))$/.exec(text || "");
  return match ? { from: match[1], to: match[2] } : null;
}

/** Map point name → FEN letter for the placement field of a FEN. */
export function placementFromFen(fen) {
  const pieces = new Map();
  const rows = (fen || "").split(" ")[0].split("/");
  rows.forEach((row, index) => {
    const rank = RANKS - 1 - index;
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) file += Number(ch);
      else {
        if (file < 9) pieces.set(pointName(file, rank), ch);
        file += 1;
      }
    }
  });
  return pieces;
}

/** True when the letter belongs to the first mover (Red / Cho). */
export function isFirstMover(letter) {
  return letter === letter.toUpperCase();
}

/** The side names of a variant, first mover first. */
export function sideNames(variant) {
  return variant === "janggi" ? ["cho", "han"] : ["red", "black"];
}

/** The side ("red", "black", "cho", "han") owning a FEN letter in this variant. */
export function sideOf(letter, variant) {
  return sideNames(variant)[isFirstMover(letter) ? 0 : 1];
}

/** The piece kind of a FEN letter: king advisor elephant horse chariot cannon soldier hidden. */
export function kindOf(letter) {
  return {
    k: "general", a: "advisor", b: "elephant", e: "elephant", n: "horse", h: "horse",
    r: "chariot", c: "cannon", p: "soldier", x: "hidden",
  }[letter.toLowerCase()];
}
