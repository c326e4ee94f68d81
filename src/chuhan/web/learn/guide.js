// The interactive piece guide (SPEC U8): choose a piece, place it and some blockers, and see
// where it may go. The destinations are the server's legal moves for the position, so the
// horse's leg, the elephant's eye, cannon screens, palace lines and janggi bridges are the
// real rules, never a copy of them.
import { placementFromFen } from "/static/js/position.js";
import { diagramFor, el, tx, teachingBoard, VARIANTS } from "./common.js";
import { analyse, destinationsFrom, fenOf, RulesRequestError } from "./rules.js";

const KIND_LETTERS = {
  general: "K", advisor: "A", elephant: "B", horse: "N", chariot: "R", cannon: "C", soldier: "P",
  hidden: "X",
};
const TOOLS = ["piece", "own", "enemy", "enemy_cannon", "erase"];
// A blocker is any piece the rules accept on that point: the first of these that fits.
const BLOCKER_LETTERS = { own: ["P", "N", "R", "C", "B", "A"], enemy: ["p", "n", "r", "c", "b", "a"], enemy_cannon: ["c"] };

/** What the rules page says of a piece kind (the guide explains with the same words). */
function pieceText(variant, kind) {
  for (const section of tx(`rules.${variant}`).sections || []) {
    for (const piece of section.pieces || []) if (piece.kind === kind) return piece.text;
  }
  return "";
}

export function kindsOf(variant) {
  const kinds = ["general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier"];
  return variant === "jieqi" ? [...kinds, "hidden"] : kinds;
}

class PieceGuide {
  constructor(root, variant, params) {
    this.root = root;
    this.variant = variant;
    this.tool = "piece";
    this.generation = 0; // counts position requests: only the newest one's answer is shown
    this.kind = kindsOf(variant).includes(params.get("piece")) ? params.get("piece") : "chariot";
    this.loadDiagram(params.get("fen"), params.get("at"));
  }

  loadDiagram(fen = null, at = null) {
    const spec = diagramFor(this.variant, this.kind);
    this.pieces = placementFromFen(fen || spec.fen);
    this.studied = at || spec.from;
    this.showsDiagram = !fen; // the diagram's note explains its blockers until the first edit
  }

  render() {
    const page = el("div", { class: "guide", "data-guide": this.variant });
    page.append(el("h1", {}, tx("ui.guide_title", { variant: tx(`ui.variant_${this.variant}`) })));
    page.append(el("p", { class: "lead" }, tx("ui.guide_lead")));
    const switcher = el("p", { class: "variant-switch" });
    for (const variant of VARIANTS) {
      const attributes = { href: `#/guide/${variant}`, "data-link": `guide-${variant}` };
      if (variant === this.variant) attributes["aria-current"] = "page";
      switcher.append(el("a", attributes, tx(`ui.variant_${variant}`)), " ");
    }
    page.append(switcher);

    const layout = el("div", { class: "learn-layout" });
    const boardBox = el("div", { class: "learn-board" });
    const panel = el("div", { class: "learn-panel" });
    layout.append(boardBox, panel);
    page.append(layout);

    const kinds = el("fieldset", { class: "choice" }, el("legend", {}, tx("ui.guide_piece")));
    for (const kind of kindsOf(this.variant)) {
      const button = el("button", {
        type: "button", class: "pill", "data-guide-kind": kind, "aria-pressed": String(kind === this.kind),
      }, tx(`ui.piece_${kind}`));
      button.addEventListener("click", () => this.chooseKind(kind));
      kinds.append(button);
    }
    const tools = el("fieldset", { class: "choice" }, el("legend", {}, tx("ui.guide_tool")));
    for (const tool of TOOLS) {
      const button = el("button", {
        type: "button", class: "pill", "data-tool": tool, "aria-pressed": String(tool === this.tool),
      }, tx(`ui.tool_${tool}`));
      button.addEventListener("click", () => this.chooseTool(tool));
      tools.append(button);
    }
    const reset = el("button", { type: "button", class: "button", "data-action": "reset" }, tx("ui.reset"));
    reset.addEventListener("click", () => {
      this.loadDiagram();
      this.refresh();
    });
    this.explanation = el("p", { class: "guide-explanation", "data-guide-explanation": "" });
    this.status = el("p", { class: "status-line", role: "status", "data-guide-status": "" });
    panel.append(kinds, tools, reset, this.explanation, this.status);
    this.root.append(page);
    this.board = teachingBoard(boardBox, this.variant, (point) => this.activate(point));
    this.kindButtons = kinds.querySelectorAll("[data-guide-kind]");
    this.toolButtons = tools.querySelectorAll("[data-tool]");
  }

  chooseKind(kind) {
    this.kind = kind;
    this.tool = "piece";
    for (const button of this.kindButtons) button.setAttribute("aria-pressed", String(button.dataset.guideKind === kind));
    for (const button of this.toolButtons) button.setAttribute("aria-pressed", String(button.dataset.tool === "piece"));
    this.loadDiagram();
    this.refresh();
  }

  chooseTool(tool) {
    this.tool = tool;
    for (const button of this.toolButtons) button.setAttribute("aria-pressed", String(button.dataset.tool === tool));
  }

  /** The fixed pieces a click may not remove: the studied piece and both generals. */
  isFixed(point) {
    const letter = this.pieces.get(point);
    return point === this.studied || letter === "K" || letter === "k";
  }

  /** Candidate placements for a click, best first (each one is checked by the server). */
  candidates(point) {
    const letter = this.pieces.get(point);
    if (this.tool === "piece") {
      if (point === this.studied || (letter && this.isFixed(point))) return [];
      const next = new Map(this.pieces);
      next.delete(this.studied);
      next.set(point, KIND_LETTERS[this.kind]);
      return [{ pieces: next, studied: point }];
    }
    if (this.isFixed(point)) return [];
    const cleared = new Map(this.pieces);
    cleared.delete(point);
    if (this.tool === "erase") return letter ? [{ pieces: cleared, studied: this.studied }] : [];
    // Tapping a piece the tool would add removes it; any other piece is replaced.
    if (letter && BLOCKER_LETTERS[this.tool].includes(letter)) return [{ pieces: cleared, studied: this.studied }];
    return BLOCKER_LETTERS[this.tool].map((blocker) => {
      const next = new Map(this.pieces);
      next.set(point, blocker);
      return { pieces: next, studied: this.studied };
    });
  }

  async activate(point) {
    if (this.busy) return; // one edit at a time: each is checked by the server before it shows
    this.busy = true;
    try {
      await this.edit(point);
    } finally {
      this.busy = false;
    }
  }

  async edit(point) {
    const options = this.candidates(point);
    if (!options.length) {
      this.say(tx("ui.guide_fixed"));
      return;
    }
    let lastError = null;
    const generation = ++this.generation;
    for (const option of options) {
      try {
        const result = await analyse(this.variant, fenOf(option.pieces));
        if (generation !== this.generation) return; // the player chose another piece meanwhile
        this.pieces = option.pieces;
        this.studied = option.studied;
        this.showsDiagram = false;
        this.show(result);
        return;
      } catch (error) {
        if (!(error instanceof RulesRequestError)) throw error;
        lastError = error;
      }
    }
    if (generation === this.generation) this.say(tx("ui.guide_refused", { reason: lastError.message }));
  }

  /** Asks for the current position's moves; an answer overtaken by a newer request is dropped. */
  async refresh() {
    const generation = ++this.generation;
    try {
      const result = await analyse(this.variant, fenOf(this.pieces));
      if (generation === this.generation) this.show(result);
    } catch (error) {
      if (generation === this.generation) this.say(tx("ui.guide_refused", { reason: error.message }));
    }
  }

  show({ legalMoves, inCheck }) {
    const destinations = destinationsFrom(legalMoves, this.studied);
    this.board.setPieces(this.pieces);
    this.board.setMarks({ selected: this.studied, destinations });
    const note = this.showsDiagram ? ` ${tx(`diagram_notes.${this.variant}.${this.kind}`)}` : "";
    this.explanation.textContent = pieceText(this.variant, this.kind) + note;
    const byFileThenRank = (a, b) => a[0].localeCompare(b[0]) || Number(a.slice(1)) - Number(b.slice(1));
    const names = [...destinations].sort(byFileThenRank);
    const summary = names.length
      ? tx("ui.guide_moves", { piece: tx(`ui.piece_${this.kind}`), point: this.studied, count: names.length, points: names.join(", ") })
      : tx("ui.guide_no_moves", { piece: tx(`ui.piece_${this.kind}`), point: this.studied });
    this.say(inCheck ? `${summary} ${tx("ui.guide_in_check")}` : summary);
    Object.assign(this.root.querySelector("[data-guide]").dataset, {
      fen: fenOf(this.pieces), studied: this.studied, kind: this.kind,
    });
  }

  say(text) {
    this.status.textContent = text;
  }
}

export async function showGuide(root, variant, params) {
  document.title = `${tx("ui.guide_title", { variant: tx(`ui.variant_${variant}`) })} · Chu-Han`;
  const guide = new PieceGuide(root, variant, params);
  guide.render();
  await guide.refresh();
}
