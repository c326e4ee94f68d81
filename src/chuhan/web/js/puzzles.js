// Puzzles (SPEC B9): "/puzzles?variant=…" gives a puzzle near the player's puzzle rating
// ("&daily=1": the puzzle of the day; "&id=…": that puzzle). The board is the play view's
// (board.js with the same point names, keys, touch and screen-reader labels); the server
// judges every move and answers with the opponent's reply from the stored line, so this page
// never knows the solution before the puzzle is over.
import { boardDiagram, BoardView } from "./board.js";
import { VARIANTS } from "./choices.js";
import { api, ApiError } from "./connection.js";
import { apiErrorText } from "./errors.js";
import { hasText, t } from "./i18n.js";
import { MoveInput } from "./move_input.js";
import { parseMove, placementFromFen, sideNames } from "./position.js";
import { onSettingsChange, settings } from "./settings.js";
import { playSound } from "./sound.js";
import { announce, el } from "./ui.js";
import { chosenNotation, formatCoordinates, pieceName, pointLabel } from "./wording.js";

const REPLY_DELAY_MS = 450; // the solver's move stays on its own this long before the reply

function loadStyles() {
  if (document.querySelector("link[data-puzzles-css]")) return;
  document.head.append(el("link", { rel: "stylesheet", href: "/static/css/puzzles.css", "data-puzzles-css": "" }));
}

/** "mateIn2" → "Mate in 2" in the player's language (a theme without a text: as it is). */
export function themeText(theme) {
  const key = `puzzle.theme_${theme}`;
  return hasText(key) ? t(key) : theme;
}

/** "1520" or "1520?" while the rating is still uncertain, as the game ratings are shown. */
function ratingText(rating) {
  return rating ? `${rating.rating}${rating.provisional ? "?" : ""}` : "—";
}

class PuzzleScreen {
  constructor(root, variant) {
    this.root = root;
    this.variant = variant;
    this.attempt = null;
    this.hint = null;
    this.sending = false;
    this.shownFen = null; // a position drawn before the server's (the solver's move alone)
    this.lastShown = null;
    this.message = "";
    this.build();
    this.unsubscribe = onSettingsChange(() => this.render());
  }

  get over() {
    return this.attempt && this.attempt.status !== "playing";
  }

  get ready() {
    const position = this.attempt?.position;
    return Boolean(position && !this.over && !this.sending && position.legal_moves.length);
  }

  build() {
    loadStyles();
    this.root.innerHTML = "";
    const layout = el("div", { class: "game-layout puzzle-layout", "data-puzzle": "" });
    this.layout = layout;
    this.heading = el("h1", { class: "puzzle-title" });
    const tabs = el("nav", { class: "puzzle-variants", "aria-label": t("puzzle.variants") });
    this.tabs = tabs;
    this.statusLine = el("p", { class: "status-line", role: "status", "data-puzzle-status": "" });
    this.boardBox = el("div", { class: "board-box" });
    this.confirmBar = el("div", { class: "confirm-bar", hidden: "" });
    const main = el("div", { class: "game-main" });
    main.append(this.heading, tabs, this.statusLine, this.boardBox, this.confirmBar);

    const side = el("aside", { class: "side-panel puzzle-panel" });
    this.info = el("div", { class: "puzzle-info", "data-puzzle-info": "" });
    this.controls = el("div", { class: "controls", "data-controls": "" });
    this.hintButton = this.button("puzzle.hint", () => this.askHint(), "hint");
    this.passButton = this.button("action.pass", () => this.ready && this.play("pass"), "pass");
    this.solutionButton = this.button("puzzle.show_solution", () => this.askSolution(), "solution");
    this.nextButton = this.button("puzzle.next", () => this.start({}), "next", "button primary");
    this.analyseButton = this.button("puzzle.analyse", () => this.analyse(), "analyse");
    this.controls.append(this.passButton, this.hintButton, this.solutionButton, this.nextButton, this.analyseButton);
    this.endBox = el("section", { class: "end-box", "data-puzzle-end": "", hidden: "" });
    this.movesHeading = el("h2", { class: "panel-heading" });
    this.moveList = el("ol", { class: "move-list", "data-puzzle-moves": "" });
    this.credit = el("p", { class: "note puzzle-credit", "data-credit": "", hidden: "" });
    side.append(this.info, this.controls, this.endBox, this.movesHeading, this.moveList, this.credit);
    layout.append(main, side);
    this.root.append(layout);

    this.board = new BoardView(this.boardBox, {
      onActivate: (point) => this.input.activate(point),
      onCancel: () => this.input.cancel(),
      describe: (point, letter, flags) => {
        const label = pointLabel(point, letter, this.variant, flags);
        return this.hint?.from === point ? `${label}, ${t("puzzle.hint_mark")}` : label;
      },
    });
    // The play view's move input (U3, U4); the server judges each move.
    this.input = new MoveInput(this.board, this.confirmBar, {
      variant: () => this.variant,
      legalMoves: () => (this.ready ? this.attempt.position.legal_moves : []),
      refusal: () => {
        if (!this.attempt) return "";
        if (this.over) return t("puzzle.over");
        return this.ready ? null : t("status.sending");
      },
      pieceAt: (point) => placementFromFen(this.attempt.position.fen).get(point),
      play: (move) => this.play(move),
      render: () => this.render(),
    });
    this.board.setStyle(settings.pieceStyle);
  }

  button(key, handler, action, cls = "button") {
    const button = el("button", { type: "button", class: cls, "data-action": action, "data-i18n-key": key }, t(key));
    button.addEventListener("click", handler);
    return button;
  }

  // ------------------------------------------------------------------ talking to the server

  async start(body) {
    this.selected = null;
    this.hint = null;
    this.shownFen = null;
    this.tried = null; // the wrong move that ended the attempt, shown beside the solution
    this.message = "";
    try {
      this.attempt = await api("POST", "/api/puzzles/attempts", { variant: this.variant, ...body });
    } catch (error) {
      this.attempt = null;
      this.message = error instanceof ApiError && error.code === "not_found" ? t("puzzle.none") : apiErrorText(error);
    }
    this.render();
    if (this.attempt) {
      announce(`${this.heading.textContent}. ${this.statusLine.textContent}`);
      this.board.focusPoint(this.board.focused, { move: false });
    }
  }

  async send(path) {
    try {
      return await api("POST", `/api/puzzles/attempts/${encodeURIComponent(this.attempt.id)}/${path}`);
    } catch (error) {
      this.message = apiErrorText(error);
      announce(this.message);
      return null;
    }
  }

  async play(move) {
    const position = this.attempt.position;
    this.selected = null;
    this.sending = true;
    this.hint = null;
    this.shownFen = fenAfter(position.fen, move);
    this.message = "";
    this.render();
    const answer = await this.sendMove(position.moves.length, move);
    this.sending = false;
    if (!answer) {
      this.shownFen = null;
      this.render();
      return;
    }
    playSound("move");
    if (answer.verdict === "right") {
      // The solver's move alone, then the stored reply.
      await new Promise((resolve) => setTimeout(resolve, REPLY_DELAY_MS));
      this.shownFen = null;
      this.attempt = answer;
      this.message = t("puzzle.right");
      this.render();
      playSound(answer.position.in_check ? "check" : "move");
      announce(`${t("puzzle.right")} ${this.replyText(answer.reply)}`);
      return;
    }
    this.shownFen = null;
    this.attempt = answer;
    this.tried = answer.verdict === "wrong" ? answer.tried : null;
    this.message = "";
    this.render();
    playSound("end");
    announce(this.statusLine.textContent);
  }

  async sendMove(ply, move) {
    try {
      return await api("POST", `/api/puzzles/attempts/${encodeURIComponent(this.attempt.id)}/moves`, { ply, move });
    } catch (error) {
      this.message = apiErrorText(error);
      announce(this.message);
      return null;
    }
  }

  replyText(reply) {
    const moves = this.attempt.position.moves;
    const index = moves.length - 1;
    return t("puzzle.reply", { move: this.moveText(index, moves[index] ?? reply) });
  }

  async askHint() {
    if (!this.ready) return;
    const answer = await this.send("hint");
    if (!answer) return this.render();
    this.attempt = answer;
    this.hint = { from: answer.hint, to: null };
    this.render();
    if (answer.hint === "pass") {
      announce(t("puzzle.hint_pass"));
      return;
    }
    const letter = placementFromFen(answer.position.fen).get(answer.hint);
    announce(t("puzzle.hint_text", { piece: letter ? pieceName(letter, this.variant) : "", point: answer.hint }));
  }

  async askSolution() {
    if (!this.attempt || this.over || this.sending) return;
    const answer = await this.send("solution");
    if (!answer) return this.render();
    this.attempt = answer;
    this.hint = null;
    this.selected = null;
    this.render();
    announce(this.statusLine.textContent);
  }

  async analyse() {
    const answer = await this.send("analysis");
    if (answer?.review) location.href = answer.review;
    else this.render();
  }

  get selected() {
    return this.input.selected;
  }

  set selected(point) {
    this.input.selected = point;
  }

  legalFrom(point) {
    return this.input.legalFrom(point);
  }

  // ------------------------------------------------------------------ drawing

  moveText(index, move) {
    const wanted = chosenNotation(this.variant);
    const source = this.over ? this.attempt.solution?.notation : this.attempt.position.notation;
    const written = wanted && wanted !== "coordinates" ? source?.[wanted]?.[index] : null;
    return written || formatCoordinates(move);
  }

  statusText() {
    const a = this.attempt;
    if (!a) return this.message;
    const side = t(`side.${a.solver}`);
    if (a.status === "solved") return t(a.hinted ? "puzzle.solved_hinted" : "puzzle.solved");
    if (a.status === "failed") return t(a.shown ? "puzzle.shown" : "puzzle.wrong");
    if (this.sending) return t("status.sending");
    const find = t("puzzle.find", { side });
    return this.message ? `${this.message} ${find}` : find;
  }

  render() {
    const a = this.attempt;
    const variant = this.variant;
    Object.assign(this.layout.dataset, {
      puzzle: a?.puzzle.id ?? "",
      attempt: a?.id ?? "",
      status: a?.status ?? "",
      ply: String(a?.position.moves.length ?? 0),
      myTurn: String(this.ready),
      hinted: String(Boolean(a?.hinted)),
    });
    document.title = `${t("puzzle.title")} — ${t(`variant.${variant}`)} — Chu-Han`;
    this.heading.textContent = `${t("puzzle.title")} · ${t(`variant.${variant}`)}${a?.daily ? ` · ${t("puzzle.daily")}` : ""}`;
    this.tabs.innerHTML = "";
    for (const each of VARIANTS) {
      const link = el("a", { href: `/puzzles?variant=${each}`, class: `tab${each === variant ? " current" : ""}`,
        "aria-current": each === variant ? "page" : null, "data-variant": each }, t(`variant.${each}`));
      this.tabs.append(link);
    }
    this.tabs.setAttribute("aria-label", t("puzzle.variants"));
    this.statusLine.textContent = this.statusText();
    this.statusLine.dataset.verdict = a?.status === "playing" && this.message ? "right" : a?.status ?? "";

    this.board.setVariant(variant);
    const [, second] = sideNames(variant);
    const flipped = a?.solver === second;
    if (flipped !== this.board.flipped) this.board.setFlipped(flipped);
    this.board.setLabel(t("board.label", { variant: t(`variant.${variant}`) }));
    const fen = this.shownFen ?? (this.over ? a.solution.fen : a?.position.fen) ?? "";
    this.board.setPieces(placementFromFen(fen));
    const moves = this.over ? a.solution.moves : a?.position.moves ?? [];
    const last = this.shownFen ? null : moves[moves.length - 1];
    const lastMove = parseMove(last);
    if (last && last !== this.lastShown && lastMove && !lastMove.pass) this.board.animateMove(lastMove);
    this.lastShown = last;
    this.board.setMarks({
      selected: this.selected,
      destinations: new Set(this.selected ? this.legalFrom(this.selected) : []),
      lastMove: lastMove && !lastMove.pass ? lastMove : null,
      check: null,
      hint: this.hint,
    });
    this.renderInfo();
    this.renderControls();
    this.renderMoves();
    this.renderEnd();
    const credit = a?.puzzle.credit;
    this.credit.hidden = !credit;
    this.credit.textContent = credit ? t("puzzle.credit", { credit }) : "";
  }

  renderInfo() {
    const a = this.attempt;
    this.info.innerHTML = "";
    if (!a) return;
    const rating = el("p", { "data-puzzle-rating": "" }, t("puzzle.your_rating", { rating: ratingText(a.rating) }));
    const streak = el("p", { "data-streak": String(a.rating.streak) }, t("puzzle.streak", { count: a.rating.streak }));
    const puzzle = el("p", { class: "note" }, t("puzzle.puzzle_rating", { rating: a.puzzle.rating }));
    this.info.append(rating, streak, puzzle);
  }

  renderControls() {
    for (const button of this.controls.querySelectorAll("[data-i18n-key]")) button.textContent = t(button.dataset.i18nKey);
    const over = this.over;
    this.passButton.hidden = over || this.variant !== "janggi" || !this.attempt;
    this.passButton.disabled = !this.ready || !this.attempt.position.legal_moves.includes("pass");
    this.hintButton.hidden = over || !this.attempt;
    this.hintButton.disabled = !this.ready || Boolean(this.hint);
    this.solutionButton.hidden = over || !this.attempt;
    this.solutionButton.disabled = this.sending;
    this.nextButton.hidden = Boolean(this.attempt) && !over;
    this.analyseButton.hidden = !over;
  }

  renderMoves() {
    const a = this.attempt;
    this.moveList.innerHTML = "";
    const moves = this.over ? a.solution.moves : a?.position.moves ?? [];
    this.movesHeading.textContent = t(this.over ? "puzzle.solution" : "moves.heading");
    this.moveList.setAttribute("aria-label", this.movesHeading.textContent);
    this.moveList.toggleAttribute("data-solution", Boolean(this.over));
    moves.forEach((move, index) => {
      this.moveList.append(el("li", { class: "move", "data-ply": String(index + 1), "data-move": move },
        this.moveText(index, move)));
    });
    if (!moves.length) this.moveList.append(el("li", { class: "empty" }, t("moves.none")));
  }

  renderEnd() {
    const a = this.attempt;
    this.endBox.hidden = !this.over;
    this.endBox.innerHTML = "";
    if (!this.over) return;
    const words = [];
    if (a.change !== null && a.change !== undefined) {
      words.push(t("puzzle.change", { change: `${a.change >= 0 ? "+" : "−"}${Math.abs(a.change)}` }));
    } else if (!a.rated) words.push(t("puzzle.not_rated"));
    this.endBox.append(el("p", { class: "end-result", "data-change": String(a.change ?? "") }, words.join(" ")));
    if (this.tried) this.endBox.append(el("p", { "data-tried": this.tried }, t("puzzle.tried", { move: formatCoordinates(this.tried) })));
    const themes = el("ul", { class: "puzzle-themes", "data-themes": (a.themes || []).join(" ") });
    for (const theme of a.themes || []) themes.append(el("li", {}, themeText(theme)));
    this.endBox.append(el("h2", { class: "panel-heading" }, t("puzzle.themes")), themes);
  }

  destroy() {
    this.unsubscribe();
  }
}

/** The FEN's placement after a move (for showing the solver's move before the reply). */
function fenAfter(fen, move) {
  const parsed = parseMove(move);
  const [placement, ...rest] = fen.split(" ");
  if (!parsed || parsed.pass) return fen;
  const rows = placement.split("/").map((row) => {
    const cells = [];
    for (const ch of row) {
      if (/\d/.test(ch)) for (let i = 0; i < Number(ch); i++) cells.push("");
      else cells.push(ch);
    }
    return cells;
  });
  const at = (point) => ({ row: 10 - Number(point.slice(1)), file: point.charCodeAt(0) - 97 });
  const from = at(parsed.from);
  const to = at(parsed.to);
  rows[to.row][to.file] = rows[from.row][from.file];
  rows[from.row][from.file] = "";
  const text = rows.map((cells) => {
    let out = "";
    let empty = 0;
    for (const cell of cells) {
      if (!cell) empty += 1;
      else {
        if (empty) out += String(empty);
        empty = 0;
        out += cell;
      }
    }
    return out + (empty ? String(empty) : "");
  }).join("/");
  return [text, ...rest].join(" ");
}

/** "/puzzles?variant=…[&daily=1][&id=…]" */
export async function showPuzzles(root, params) {
  const variant = VARIANTS.includes(params.get("variant")) ? params.get("variant") : "xiangqi";
  const screen = new PuzzleScreen(root, variant);
  const body = {};
  if (params.get("daily")) body.daily = true;
  else if (params.get("id")) body.puzzle = params.get("id");
  await screen.start(body);
  return screen;
}

/** The home page's block (B9): each variant's puzzle of the day as a small board that opens
 * it, and the way to more puzzles. Filled once the server answers; hidden without puzzles. */
export function dailyCard() {
  loadStyles();
  const card = el("section", { class: "card", "aria-labelledby": "daily-heading", "data-daily": "", hidden: "" });
  const list = el("div", { class: "daily-puzzles" });
  card.append(el("h2", { id: "daily-heading" }, t("puzzle.daily")), el("p", { class: "note" }, t("puzzle.home_lead")), list,
    el("a", { class: "button", href: "/puzzles?variant=xiangqi", "data-action": "puzzles" }, t("puzzle.home_more")));
  api("GET", "/api/puzzles/daily").then((answer) => {
    for (const variant of VARIANTS) {
      const puzzle = answer.puzzles?.[variant];
      if (!puzzle) continue;
      const label = t("puzzle.home_turn", { variant: t(`variant.${variant}`), side: t(`side.${puzzle.turn}`) });
      const link = el("a", { class: "daily-puzzle", href: `/puzzles?variant=${variant}&daily=1`, "data-daily-variant": variant });
      const [, second] = sideNames(variant);
      link.innerHTML = boardDiagram(placementFromFen(puzzle.fen), variant, settings.pieceStyle,
        { flipped: puzzle.turn === second, label });
      link.append(el("span", {}, label));
      list.append(link);
    }
    card.hidden = !list.childElementCount;
  }).catch(() => {});
  return card;
}

function attemptOutcome(attempt) {
  if (attempt.status === "solved") return t(attempt.hinted ? "puzzle.history_solved_hinted" : "puzzle.history_solved");
  if (attempt.status === "failed") return t(attempt.shown ? "puzzle.history_shown" : "puzzle.history_failed");
  return t("puzzle.history_playing");
}

/** My games' puzzles (B9): the player's latest attempts, newest first, each opening its
 * puzzle again (a puzzle tried before is not rated again). */
export function puzzleHistoryCard() {
  loadStyles();
  const list = el("ul", { class: "archive-list puzzle-history", "data-puzzle-history": "" });
  const card = el("section", { class: "card", "aria-labelledby": "puzzle-history-heading" },
    el("h2", { id: "puzzle-history-heading" }, t("puzzle.history")), list);
  api("GET", "/api/puzzles/history?limit=20").then((answer) => {
    for (const attempt of answer.attempts) {
      const when = new Date(attempt.created_at).toLocaleDateString(document.documentElement.lang);
      const change = attempt.rating_before !== null && attempt.rating_after !== null
        ? attempt.rating_after - attempt.rating_before : null;
      const words = [t(`variant.${attempt.variant}`), attemptOutcome(attempt), when];
      if (change !== null) words.push(t("puzzle.change", { change: `${change >= 0 ? "+" : "−"}${Math.abs(change)}` }));
      const item = el("li", { class: "attempt", "data-attempt-status": attempt.status, "data-variant": attempt.variant },
        el("span", {}, words.join(" · ")),
        el("a", { href: `/puzzles?variant=${attempt.variant}&id=${encodeURIComponent(attempt.puzzle)}` }, t("puzzle.history_open")));
      list.append(item);
    }
    if (!answer.attempts.length) list.append(el("li", { class: "muted" }, t("puzzle.history_none")));
    card.dataset.loaded = "true";
  }).catch(() => {
    card.hidden = true;
  });
  return card;
}
