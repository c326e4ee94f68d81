// The SVG board (SPEC U1–U5, U9): drawn by our code, one focusable element per point.
// The board only shows things and reports which point the player activated; it never
// decides what a move is, and dragging or zooming never activates a point (U5).
import { GLYPHS } from "./glyphs.js";
import { PIECE_DEFS, pieceRadius, pieceSvg } from "./pieces.js";
import { FILES, POINTS, parsePoint } from "./position.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const STEP = 100;
const MARGIN = 112;
const FRAME = 56; // the outer frame sits this far outside the outermost lines
const WIDTH = 8 * STEP + 2 * MARGIN;
const HEIGHT = 9 * STEP + 2 * MARGIN;
const DRAG_THRESHOLD = 8; // pixels before a press counts as a drag instead of a tap
const MAX_ZOOM = 3;

function svgElement(name, attributes = {}) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

export class BoardView {
  /**
   * container: element to draw into.
   * options.onActivate(point): a point was tapped/clicked/entered.
   * options.onCancel(): Escape was pressed.
   * options.describe(point, letter): the accessible name of a point.
   */
  constructor(container, options) {
    this.options = options;
    this.variant = "xiangqi";
    this.style = "characters";
    this.flipped = false;
    this.pieces = new Map();
    this.marks = { selected: null, destinations: new Set(), lastMove: null, check: null, hint: null };
    this.focused = "e1";
    this.view = { x: 0, y: 0, w: WIDTH, h: HEIGHT };
    this.svg = svgElement("svg", {
      class: "board",
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "group",
      "data-board": "",
      // Chromium makes the board a tab stop of its own (a scroller); one stop, its focused
      // point, is enough (U4).
      tabindex: "-1",
    });
    this.svg.innerHTML = `<defs>${PIECE_DEFS}
      <linearGradient id="board-wood" x1="0" y1="0" x2="1" y2="1">
        <stop offset="0" stop-color="#f0cf95"/><stop offset="1" stop-color="#dcae6b"/>
      </linearGradient></defs>`;
    this.staticLayer = svgElement("g", { class: "static", "aria-hidden": "true" });
    this.pointLayer = svgElement("g", { class: "points" });
    // An engine's suggestion drawn over the pieces (the review's best move); never a target.
    this.arrowLayer = svgElement("g", { class: "arrows", "aria-hidden": "true", "data-arrows": "" });
    this.arrow = null;
    this.svg.append(this.staticLayer, this.pointLayer, this.arrowLayer);
    this.pointElements = new Map();
    for (const name of POINTS) {
      const group = svgElement("g", {
        "data-point": name,
        role: "button",
        tabindex: name === this.focused ? "0" : "-1",
        class: "point",
      });
      group.innerHTML = `<rect class="hit" width="${STEP}" height="${STEP}" fill="transparent"/>
        <g class="under"></g><g class="slot"></g><g class="over"></g>
        <rect class="focus-ring" width="${STEP - 8}" height="${STEP - 8}" rx="14"/>`;
      this.pointElements.set(name, group);
      this.pointLayer.append(group);
    }
    container.append(this.svg);
    this.bindPointer();
    this.bindKeyboard();
    this.layout();
  }

  /** The screen position (in board units) of a point's centre, after flipping. */
  centre(name) {
    const { file, rank } = parsePoint(name);
    const column = this.flipped ? 8 - file : file;
    const row = this.flipped ? rank : 9 - rank;
    return { x: MARGIN + column * STEP, y: MARGIN + row * STEP };
  }

  setVariant(variant) {
    if (variant === this.variant && this.staticLayer.childElementCount) return;
    this.variant = variant;
    this.layout();
  }

  setStyle(style) {
    this.style = style;
    this.drawPieces(true);
  }

  setFlipped(flipped) {
    this.flipped = flipped;
    this.layout();
  }

  setLabel(label) {
    this.svg.setAttribute("aria-label", label);
  }

  /** Show a placement (Map point → FEN letter). */
  setPieces(pieces) {
    this.pieces = pieces;
    this.drawPieces(false);
  }

  /** Slide the piece now on move.to from move.from (skipped when the player prefers less motion). */
  animateMove(move) {
    if (!move || window.matchMedia?.("(prefers-reduced-motion: reduce)").matches) return;
    const slot = this.pointElements.get(move.to)?.querySelector(".slot");
    if (!slot || !slot.firstChild) return;
    const from = this.centre(move.from);
    const to = this.centre(move.to);
    slot.style.transition = "none";
    slot.style.transform = `translate(${from.x - to.x}px, ${from.y - to.y}px)`;
    requestAnimationFrame(() => {
      requestAnimationFrame(() => {
        slot.style.transition = "transform 180ms ease-out";
        slot.style.transform = "";
      });
    });
  }

  /** marks: {selected, destinations: Set, lastMove: {from, to}, check: point, hint: {from, to}} */
  setMarks(marks) {
    this.marks = { ...this.marks, ...marks };
    this.drawMarks();
  }

  /** Draw an arrow for move ({from, to}) over the board, or none (null). */
  setArrow(move) {
    this.arrow = move && move.from && move.to ? { from: move.from, to: move.to } : null;
    this.drawArrow();
  }

  drawArrow() {
    if (!this.arrow) {
      this.arrowLayer.innerHTML = "";
      return;
    }
    const a = this.centre(this.arrow.from);
    const b = this.centre(this.arrow.to);
    const length = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const ux = (b.x - a.x) / length;
    const uy = (b.y - a.y) / length;
    const head = 34;
    const tip = { x: b.x - ux * 18, y: b.y - uy * 18 };
    const base = { x: tip.x - ux * head, y: tip.y - uy * head };
    const wing = (sign) => `${base.x - uy * sign * 20},${base.y + ux * sign * 20}`;
    this.arrowLayer.innerHTML = `<g class="best-arrow" data-arrow="${this.arrow.from}${this.arrow.to}">
      <line x1="${a.x + ux * 22}" y1="${a.y + uy * 22}" x2="${base.x}" y2="${base.y}"/>
      <polygon points="${tip.x},${tip.y} ${wing(1)} ${wing(-1)}"/></g>`;
  }

  layout() {
    for (const [name, group] of this.pointElements) {
      const { x, y } = this.centre(name);
      group.setAttribute("transform", `translate(${x} ${y})`);
      group.querySelector(".hit").setAttribute("x", -STEP / 2);
      group.querySelector(".hit").setAttribute("y", -STEP / 2);
      const ring = group.querySelector(".focus-ring");
      ring.setAttribute("x", -(STEP - 8) / 2);
      ring.setAttribute("y", -(STEP - 8) / 2);
    }
    this.drawStatic();
    this.drawPieces(true);
    this.drawMarks();
    if (this.arrowLayer) this.drawArrow();
  }

  drawStatic() {
    const lines = [];
    const line = (a, b) => {
      const p = this.centre(a);
      const q = this.centre(b);
      lines.push(`M${p.x} ${p.y}L${q.x} ${q.y}`);
    };
    const river = this.variant !== "janggi";
    for (let rank = 1; rank <= 10; rank++) line(`a${rank}`, `i${rank}`);
    for (const file of FILES) {
      if (river && file !== "a" && file !== "i") {
        line(`${file}1`, `${file}5`);
        line(`${file}6`, `${file}10`);
      } else {
        line(`${file}1`, `${file}10`);
      }
    }
    line("d1", "f3");
    line("f1", "d3");
    line("d8", "f10");
    line("f8", "d10");
    const corner = this.centre("a1");
    const far = this.centre("i10");
    const left = Math.min(corner.x, far.x);
    const top = Math.min(corner.y, far.y);
    let markup = `<rect width="${WIDTH}" height="${HEIGHT}" rx="18" fill="url(#board-wood)"/>
      <rect x="${left - FRAME}" y="${top - FRAME}" width="${8 * STEP + 2 * FRAME}"
        height="${9 * STEP + 2 * FRAME}" rx="8" fill="none" stroke="#5b3a17" stroke-width="5"/>
      <path d="${lines.join("")}" stroke="#5b3a17" stroke-width="2.4" fill="none"
        stroke-linecap="square"/>`;
    if (river) markup += this.riverText();
    if (this.variant !== "janggi") markup += this.positionMarks();
    markup += this.coordinates();
    this.staticLayer.innerHTML = markup;
  }

  riverText() {
    const top = this.centre("a6").y;
    const bottom = this.centre("a5").y;
    const middle = (top + bottom) / 2;
    const size = 46;
    const at = (character, x) =>
      `<path d="${GLYPHS[character]}" fill="#6b4320" opacity="0.85"
        transform="translate(${x - size / 2} ${middle - size / 2}) scale(${size / 1000})"/>`;
    const xs = [1.5, 2.5, 5.5, 6.5].map((column) => MARGIN + column * STEP);
    return at("楚", xs[0]) + at("河", xs[1]) + at("漢", xs[2]) + at("界", xs[3]);
  }

  // The small corner marks on the cannon and soldier starting points of a xiangqi board.
  positionMarks() {
    const points = ["b3", "h3", "b8", "h8", "a4", "c4", "e4", "g4", "i4", "a7", "c7", "e7", "g7", "i7"];
    const gap = 7;
    const arm = 14;
    let d = "";
    for (const name of points) {
      const { x, y } = this.centre(name);
      for (const sx of [-1, 1]) {
        const outward = x + sx * gap;
        if (outward < MARGIN || outward > MARGIN + 8 * STEP) continue;
        for (const sy of [-1, 1]) {
          const cx = x + sx * gap;
          const cy = y + sy * gap;
          d += `M${cx + sx * arm} ${cy}H${cx}V${cy + sy * arm}`;
        }
      }
    }
    return `<path d="${d}" stroke="#5b3a17" stroke-width="2" fill="none"/>`;
  }

  coordinates() {
    let markup = "";
    const style = `font-size="30" font-family="system-ui, sans-serif" fill="#3f2812" text-anchor="middle"`;
    const edge = (MARGIN - FRAME) / 2;
    for (let file = 0; file < 9; file++) {
      const name = `${FILES[file]}1`;
      const { x } = this.centre(name);
      markup += `<text x="${x}" y="${HEIGHT - edge + 10}" ${style}>${FILES[file]}</text>`;
      markup += `<text x="${x}" y="${edge + 10}" ${style}>${FILES[file]}</text>`;
    }
    for (let rank = 1; rank <= 10; rank++) {
      const { y } = this.centre(`a${rank}`);
      markup += `<text x="${edge}" y="${y + 10}" ${style}>${rank}</text>`;
      markup += `<text x="${WIDTH - edge}" y="${y + 10}" ${style}>${rank}</text>`;
    }
    return markup;
  }

  drawPieces(force) {
    for (const [name, group] of this.pointElements) {
      const slot = group.querySelector(".slot");
      const letter = this.pieces.get(name) || null;
      const key = letter ? `${letter}|${this.variant}|${this.style}` : "";
      if (!force && slot.dataset.key === key) continue;
      slot.dataset.key = key;
      if (letter) {
        const drawing = pieceSvg(letter, this.variant, this.style);
        slot.innerHTML = `<g data-piece="${letter}" data-at="${name}">${drawing}</g>`;
      } else {
        slot.innerHTML = "";
      }
      this.describe(name);
    }
  }

  drawMarks() {
    const { selected, destinations, lastMove, check, hint } = this.marks;
    for (const [name, group] of this.pointElements) {
      const letter = this.pieces.get(name);
      const radius = letter ? pieceRadius(letter, this.variant) : 30;
      let under = "";
      let over = "";
      if (lastMove && (lastMove.from === name || lastMove.to === name)) {
        under += `<rect class="mark-last" x="-46" y="-46" width="92" height="92" rx="10"/>`;
      }
      if (check === name) under += `<circle class="mark-check" r="${radius + 8}"/>`;
      if (selected === name) under += `<circle class="mark-selected" r="${radius + 6}"/>`;
      if (hint && (hint.from === name || hint.to === name)) {
        over += `<circle class="mark-hint" r="${radius + 4}"/>`;
      }
      if (destinations.has(name)) {
        over += letter
          ? `<circle class="mark-capture" r="${radius + 3}"/>`
          : `<circle class="mark-destination" r="13"/>`;
      }
      group.querySelector(".under").innerHTML = under;
      group.querySelector(".over").innerHTML = over;
      group.classList.toggle("is-destination", destinations.has(name));
      group.classList.toggle("is-selected", selected === name);
      this.describe(name);
    }
  }

  describe(name) {
    const group = this.pointElements.get(name);
    const label = this.options.describe(name, this.pieces.get(name) || null, {
      selected: this.marks.selected === name,
      destination: this.marks.destinations.has(name),
    });
    if (group.getAttribute("aria-label") !== label) group.setAttribute("aria-label", label);
  }

  relabel() {
    for (const name of POINTS) this.describe(name);
  }

  // ------------------------------------------------------------------ focus and keys

  focusPoint(name, { move = true } = {}) {
    const previous = this.pointElements.get(this.focused);
    if (previous) previous.setAttribute("tabindex", "-1");
    this.focused = name;
    const group = this.pointElements.get(name);
    group.setAttribute("tabindex", "0");
    if (move) {
      this.keepInView(name);
      group.focus();
    }
  }

  /** Pan a zoomed-in view just enough that the point and its piece are on screen. */
  keepInView(name) {
    const { x, y } = this.centre(name);
    const half = STEP / 2;
    const v = this.view;
    const before = `${v.x} ${v.y}`;
    if (x - half < v.x) v.x = x - half;
    else if (x + half > v.x + v.w) v.x = x + half - v.w;
    if (y - half < v.y) v.y = y - half;
    else if (y + half > v.y + v.h) v.y = y + half - v.h;
    if (`${v.x} ${v.y}` === before) return;
    this.clampView();
    this.applyView();
  }

  bindKeyboard() {
    this.svg.addEventListener("keydown", (event) => {
      const point = parsePoint(this.focused);
      const screen = { up: [0, 1], down: [0, -1], left: [-1, 0], right: [1, 0] };
      const direction = {
        ArrowUp: screen.up, ArrowDown: screen.down, ArrowLeft: screen.left, ArrowRight: screen.right,
      }[event.key];
      if (direction) {
        event.preventDefault();
        const sign = this.flipped ? -1 : 1;
        const file = Math.min(8, Math.max(0, point.file + sign * direction[0]));
        const rank = Math.min(9, Math.max(0, point.rank + sign * direction[1]));
        this.focusPoint(FILES[file] + (rank + 1));
      } else if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        this.options.onActivate(this.focused);
      } else if (event.key === "Escape") {
        event.preventDefault();
        this.options.onCancel();
      }
    });
    this.svg.addEventListener("focusin", (event) => {
      const group = event.target.closest?.("[data-point]");
      if (group && group.dataset.point !== this.focused) {
        this.focusPoint(group.dataset.point, { move: false });
      }
    });
  }

  // ------------------------------------------------------------------ pan and zoom (U5)

  get zoomLevel() {
    return WIDTH / this.view.w;
  }

  applyView() {
    const { x, y, w, h } = this.view;
    const box = [x, y, w, h].map((value) => Number(value.toFixed(1)));
    this.svg.setAttribute("viewBox", box.join(" "));
    this.svg.classList.toggle("is-zoomed", this.zoomLevel > 1.01);
  }

  clampView() {
    const v = this.view;
    v.w = Math.min(WIDTH, Math.max(WIDTH / MAX_ZOOM, v.w));
    v.h = (v.w * HEIGHT) / WIDTH;
    v.x = Math.min(WIDTH - v.w, Math.max(0, v.x));
    v.y = Math.min(HEIGHT - v.h, Math.max(0, v.y));
  }

  /** Zoom by factor (>1 zooms in) around a point in board units (default: view centre). */
  zoom(factor, around) {
    const v = this.view;
    const cx = around ? around.x : v.x + v.w / 2;
    const cy = around ? around.y : v.y + v.h / 2;
    const w = v.w / factor;
    const h = v.h / factor;
    this.view = { x: cx - ((cx - v.x) * w) / v.w, y: cy - ((cy - v.y) * h) / v.h, w, h };
    this.clampView();
    this.applyView();
  }

  resetView() {
    this.view = { x: 0, y: 0, w: WIDTH, h: HEIGHT };
    this.applyView();
  }

  toBoardUnits(clientX, clientY) {
    const rect = this.svg.getBoundingClientRect();
    const scale = Math.max(this.view.w / rect.width, this.view.h / rect.height);
    const offsetX = (rect.width - this.view.w / scale) / 2;
    const offsetY = (rect.height - this.view.h / scale) / 2;
    return {
      x: this.view.x + (clientX - rect.left - offsetX) * scale,
      y: this.view.y + (clientY - rect.top - offsetY) * scale,
      scale,
    };
  }

  bindPointer() {
    const pointers = new Map();
    let gesture = null; // {moved, startView, start, distance}
    this.svg.addEventListener("pointerdown", (event) => {
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      try {
        this.svg.setPointerCapture(event.pointerId);
      } catch {
        // capture is a nicety; a synthetic pointer may not allow it
      }
      const points = [...pointers.values()];
      gesture = {
        moved: pointers.size > 1 || (gesture?.moved ?? false),
        startView: { ...this.view },
        start: points[0],
        distance: points.length > 1 ? Math.hypot(points[0].x - points[1].x, points[0].y - points[1].y) : 0,
        target: event.target.closest?.("[data-point]")?.dataset.point ?? null,
      };
    });
    this.svg.addEventListener("pointermove", (event) => {
      if (!pointers.has(event.pointerId) || !gesture) return;
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      const points = [...pointers.values()];
      if (points.length > 1) {
        const distance = Math.hypot(points[0].x - points[1].x, points[0].y - points[1].y);
        if (gesture.distance > 0) {
          const mid = this.toBoardUnits((points[0].x + points[1].x) / 2, (points[0].y + points[1].y) / 2);
          const factor = distance / gesture.distance;
          gesture.distance = distance;
          this.zoom(factor, mid);
        }
        gesture.moved = true;
        return;
      }
      const dx = event.clientX - gesture.start.x;
      const dy = event.clientY - gesture.start.y;
      if (!gesture.moved && Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
      gesture.moved = true;
      const { scale } = this.toBoardUnits(event.clientX, event.clientY);
      const start = gesture.startView;
      this.view = { ...start, x: start.x - dx * scale, y: start.y - dy * scale };
      this.clampView();
      this.applyView();
    });
    const release = (event) => {
      if (!pointers.has(event.pointerId)) return;
      pointers.delete(event.pointerId);
      if (pointers.size > 0 || !gesture) return;
      const tapped = !gesture.moved && event.type === "pointerup" ? gesture.target : null;
      gesture = null;
      if (tapped) {
        this.focusPoint(tapped, { move: false });
        this.options.onActivate(tapped);
      }
    };
    this.svg.addEventListener("pointerup", release);
    this.svg.addEventListener("pointercancel", release);
    this.svg.addEventListener(
      "wheel",
      (event) => {
        event.preventDefault();
        const factor = Math.exp(-event.deltaY * 0.0015);
        this.zoom(factor, this.toBoardUnits(event.clientX, event.clientY));
      },
      { passive: false },
    );
  }
}

/**
 * A small picture of a placement (Map point → FEN letter), Red / Cho at the bottom unless
 * flipped: the jieqi arrangement shown at the end of a game (Q7). Not interactive.
 */
export function boardDiagram(placement, variant, style, { flipped = false, label = "" } = {}) {
  const step = 40;
  const margin = 24;
  const width = 8 * step + 2 * margin;
  const height = 9 * step + 2 * margin;
  const at = (name) => {
    const { file, rank } = parsePoint(name);
    return {
      x: margin + (flipped ? 8 - file : file) * step,
      y: margin + (flipped ? rank : 9 - rank) * step,
    };
  };
  const lines = [];
  const line = (a, b) => {
    const p = at(a);
    const q = at(b);
    lines.push(`M${p.x} ${p.y}L${q.x} ${q.y}`);
  };
  const river = variant !== "janggi";
  for (let rank = 1; rank <= 10; rank++) line(`a${rank}`, `i${rank}`);
  for (const file of FILES) {
    if (river && file !== "a" && file !== "i") {
      line(`${file}1`, `${file}5`);
      line(`${file}6`, `${file}10`);
    } else line(`${file}1`, `${file}10`);
  }
  line("d1", "f3");
  line("f1", "d3");
  line("d8", "f10");
  line("f8", "d10");
  let pieces = "";
  for (const [name, letter] of placement) {
    const { x, y } = at(name);
    pieces += `<g transform="translate(${x} ${y}) scale(${(step * 0.46) / 46})">${pieceSvg(letter, variant, style)}</g>`;
  }
  return `<svg class="diagram" viewBox="0 0 ${width} ${height}" role="img" aria-label="${label}">
    <rect width="${width}" height="${height}" rx="8" fill="#e9c58a"/>
    <path d="${lines.join("")}" stroke="#5b3a17" stroke-width="1.2" fill="none"/>${pieces}</svg>`;
}
