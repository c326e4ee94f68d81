// Piece drawings (SPEC U1, U2): embossed wooden discs for xiangqi and jieqi, octagons sized
// by rank for janggi, face-down backs for jieqi; the face shows a Chinese character (shipped
// as SVG paths, so no CJK font is needed) or one of our own illustrations.
import { GLYPHS } from "./glyphs.js";
import { isFirstMover, kindOf } from "./position.js";

export const INK = {
  red: "#a50e28",
  black: "#1c1c1c",
  cho: "#14479a",
  han: "#a50e28",
};

const XIANGQI_CHARACTERS = {
  K: "帥", A: "仕", B: "相", N: "傌", R: "俥", C: "炮", P: "兵",
  k: "將", a: "士", b: "象", n: "馬", r: "車", c: "砲", p: "卒",
};
const JANGGI_CHARACTERS = {
  K: "楚", A: "士", B: "象", N: "馬", R: "車", C: "包", P: "卒",
  k: "漢", a: "士", b: "象", n: "馬", r: "車", c: "包", p: "兵",
};

// Janggi pieces are sized by importance (U1): general, the major pieces, then the minor ones.
const JANGGI_RADIUS = {
  general: 46, chariot: 40, cannon: 40, horse: 40, elephant: 40, advisor: 31, soldier: 31,
};
const ROUND_RADIUS = 42;

/** SVG <defs> the pieces refer to: wood gradients and the emboss shadow. */
export const PIECE_DEFS = `
  <radialGradient id="wood-face" cx="40%" cy="35%" r="75%">
    <stop offset="0" stop-color="#fbe9c6"/><stop offset="0.7" stop-color="#ecc98f"/>
    <stop offset="1" stop-color="#d4a461"/>
  </radialGradient>
  <radialGradient id="back-first" cx="40%" cy="35%" r="75%">
    <stop offset="0" stop-color="#c8463a"/><stop offset="1" stop-color="#7a1410"/>
  </radialGradient>
  <radialGradient id="back-second" cx="40%" cy="35%" r="75%">
    <stop offset="0" stop-color="#5a5550"/><stop offset="1" stop-color="#1e1c1a"/>
  </radialGradient>
  <filter id="emboss" x="-30%" y="-30%" width="160%" height="160%">
    <feDropShadow dx="0" dy="3" stdDeviation="2.5" flood-color="#3b2410" flood-opacity="0.5"/>
  </filter>`;

function octagon(radius) {
  const points = [];
  for (let i = 0; i < 8; i++) {
    const angle = Math.PI / 8 + (i * Math.PI) / 4;
    points.push(`${(radius * Math.cos(angle)).toFixed(1)},${(radius * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

function outline(variant, kind, radius, fill, rim) {
  if (variant === "janggi") {
    return `<polygon points="${octagon(radius)}" fill="${fill}" stroke="${rim}" stroke-width="2.5"/>`;
  }
  return `<circle r="${radius}" fill="${fill}" stroke="${rim}" stroke-width="2.5"/>`;
}

function innerRing(variant, radius, ink) {
  const inner = radius - 6;
  if (variant === "janggi") {
    return `<polygon points="${octagon(inner)}" fill="none" stroke="${ink}" stroke-width="2" opacity="0.8"/>`;
  }
  return `<circle r="${inner}" fill="none" stroke="${ink}" stroke-width="2" opacity="0.8"/>`;
}

function glyph(character, size, ink) {
  const scale = size / 1000;
  const d = GLYPHS[character];
  const place = `translate(${-size / 2} ${-size / 2}) scale(${scale})`;
  return `<path class="glyph" d="${d}" fill="${ink}" transform="${place}"/>`;
}

// Our own illustrations, drawn in a box of about ±26 units around the centre.
const ILLUSTRATIONS = {
  general: (ink) => `
    <path d="M-22 10 L-25 -14 L-12 -3 L0 -21 L12 -3 L25 -14 L22 10 Z" fill="${ink}"/>
    <rect x="-23" y="13" width="46" height="8" rx="2" fill="${ink}"/>
    <circle cy="-24" r="3.5" fill="${ink}"/>`,
  advisor: (ink) => `
    <path d="M0 -25 L20 -17 C20 5 12 17 0 25 C-12 17 -20 5 -20 -17 Z" fill="none"
      stroke="${ink}" stroke-width="5" stroke-linejoin="round"/>
    <path d="M0 -13 V13 M-9 -2 H9" stroke="${ink}" stroke-width="4.5" stroke-linecap="round"/>`,
  elephant: (ink) => `
    <ellipse cx="-15" cy="-6" rx="10" ry="13" fill="${ink}"/>
    <ellipse cx="15" cy="-6" rx="10" ry="13" fill="${ink}"/>
    <circle cy="-8" r="12" fill="${ink}" stroke="#f7e4bf" stroke-width="2"/>
    <path d="M0 0 C-1 10 0 18 6 22" stroke="${ink}" stroke-width="8" fill="none" stroke-linecap="round"/>
    <path d="M-7 2 L-11 12 M7 2 L11 12" stroke="${ink}" stroke-width="3.5" stroke-linecap="round"/>
    <circle cx="-5" cy="-11" r="2.2" fill="#f7e4bf"/><circle cx="5" cy="-11" r="2.2" fill="#f7e4bf"/>`,
  horse: (ink) => `
    <path d="M-14 25 L-10 4 C-15 -6 -10 -18 0 -21 L3 -28 L8 -20 C18 -16 24 -6 24 3
      L19 8 L10 2 C7 10 10 18 15 25 Z" fill="${ink}"/>
    <circle cx="8" cy="-10" r="2.6" fill="#f7e4bf"/>`,
  chariot: (ink) => `
    <circle r="20" fill="none" stroke="${ink}" stroke-width="5"/>
    <circle r="5.5" fill="${ink}"/>
    <path d="M0 -20 V20 M-17.3 -10 L17.3 10 M-17.3 10 L17.3 -10" stroke="${ink}" stroke-width="3"/>`,
  cannon: (ink) => `
    <path d="M-24 -2 L14 -18 L18 -9 L-20 7 Z" fill="${ink}"/>
    <circle cx="18" cy="-14" r="4" fill="${ink}"/>
    <circle cx="-6" cy="10" r="11" fill="none" stroke="${ink}" stroke-width="4.5"/>
    <circle cx="-6" cy="10" r="3" fill="${ink}"/>
    <circle cx="17" cy="15" r="5" fill="${ink}"/>`,
  soldier: (ink) => `
    <path d="M-17 6 A17 17 0 0 1 17 6 Z" fill="${ink}"/>
    <rect x="-22" y="7" width="44" height="6" rx="3" fill="${ink}"/>
    <path d="M0 -11 L0 -24" stroke="${ink}" stroke-width="4" stroke-linecap="round"/>
    <path d="M-9 17 L9 17 L0 26 Z" fill="${ink}"/>`,
};

// The backs tell the sides apart at a glance (Q2): red lacquer for the first mover's pieces,
// black for the second's, each with a gold pattern.
function back(variant, radius, first) {
  const rim = "#3d240c";
  const gold = first ? "#ffd9a0" : "#e2bf79";
  const shape = outline(variant, "hidden", radius, first ? "url(#back-first)" : "url(#back-second)", rim);
  return `${shape}
    ${innerRing(variant, radius, gold)}
    <path d="M0 -15 L15 0 L0 15 L-15 0 Z" fill="none" stroke="${gold}" stroke-width="2.5"/>
    <circle r="4" fill="${gold}"/>`;
}

/** The radius of the piece drawn for a FEN letter in a variant. */
export function pieceRadius(letter, variant) {
  if (variant === "janggi") return JANGGI_RADIUS[kindOf(letter)] ?? ROUND_RADIUS;
  return ROUND_RADIUS;
}

/**
 * SVG markup of one piece centred on (0, 0).
 * letter: FEN letter (X/x face down); variant: "xiangqi" | "janggi" | "jieqi";
 * style: "characters" | "illustrations".
 */
export function pieceSvg(letter, variant, style) {
  const kind = kindOf(letter);
  const radius = pieceRadius(letter, variant);
  const first = isFirstMover(letter);
  if (kind === "hidden") return `<g filter="url(#emboss)">${back(variant, radius, first)}</g>`;
  const ink = variant === "janggi" ? (first ? INK.cho : INK.han) : first ? INK.red : INK.black;
  let face;
  if (style === "illustrations") {
    const scale = radius / ROUND_RADIUS;
    face = `<g transform="scale(${scale.toFixed(3)})">${ILLUSTRATIONS[kind](ink)}</g>`;
  } else {
    const table = variant === "janggi" ? JANGGI_CHARACTERS : XIANGQI_CHARACTERS;
    face = glyph(table[letter], radius * 0.95, ink);
  }
  return `<g filter="url(#emboss)">${outline(variant, kind, radius, "url(#wood-face)", "#6f4518")}
    ${innerRing(variant, radius, ink)}</g>${face}`;
}
