// What every learn screen shares: the learn texts in the chosen language, piece names for
// the accessible board, and a board (the web client's BoardView) set up for teaching. The
// languages, their choice, placeholders, elements and announcements are the web client's own
// (i18n.js, ui.js): one way to do each.
import { BoardView } from "/static/js/board.js";
import { detectLanguage, fill, LANGUAGES } from "/static/js/i18n.js";
import { kindOf, sideOf } from "/static/js/position.js";
import { settings } from "/static/js/settings.js";

export { LANGUAGES };
export { announce, el } from "/static/js/ui.js";
export const VARIANTS = ["xiangqi", "janggi", "jieqi"];

let texts = {};
let fallbackTexts = {};
export let language = "en";

/** The language: ?lang=, else the player's saved choice, else the browser's, else English. */
export function chooseLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && asked in LANGUAGES) return asked;
  return detectLanguage();
}

async function fetchJson(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

/** Load the learn texts of a language (English fills any gap). */
export async function loadTexts(code) {
  if (!Object.keys(fallbackTexts).length) fallbackTexts = await fetchJson("/static/learn/text/en.json");
  texts = code === "en" ? fallbackTexts : await fetchJson(`/static/learn/text/${code}.json`);
  language = code;
  document.documentElement.lang = code;
}

/** A text by dotted key ("ui.hub_title", "rules.xiangqi"), with {name} placeholders filled. */
export function tx(key, params = {}) {
  const find = (root) => key.split(".").reduce((node, part) => (node == null ? node : node[part]), root);
  const value = find(texts) ?? find(fallbackTexts) ?? key;
  if (typeof value !== "string") return value;
  return fill(value, params);
}

let diagrams = {};

/** Load the piece diagrams (diagrams.json): per variant and piece kind, {fen, from}. */
export async function loadDiagrams() {
  diagrams = await fetchJson("/static/learn/diagrams.json");
}

/** The diagram of a piece kind in a variant, or null. */
export function diagramFor(variant, kind) {
  return diagrams?.[variant]?.[kind] ?? null;
}

/** A lesson field in the current language ({"es": …, "pt": …, "en": …}). */
export function local(field) {
  if (field == null || typeof field === "string") return field ?? "";
  return field[language] ?? field.en ?? "";
}

/** "e4, red soldier" / "e4, soldado de las rojas" — the accessible name of a point (U9). */
export function describePoint(variant, name, letter) {
  if (!letter) return name;
  const side = tx(`ui.side_${sideOf(letter, variant)}`);
  const piece = tx(`ui.piece_${kindOf(letter)}`);
  return tx("ui.point_label", { point: name, side, piece });
}

/** A teaching board in container: onActivate(point) is called for a tap, click or Enter. */
export function teachingBoard(container, variant, onActivate, onCancel = () => {}) {
  const board = new BoardView(container, {
    onActivate,
    onCancel,
    describe: (name, letter) => describePoint(variant, name, letter),
  });
  board.setVariant(variant);
  board.setStyle(settings.pieceStyle || "characters");
  board.setLabel(tx("ui.board_label"));
  return board;
}
