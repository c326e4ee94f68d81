// After the game (SPEC U6, U9, N1–N4, Q5, Q7): step through any game of the play
// view, copy the FEN of the position shown, download the record, copy a share link, and run
// the engine analysis of a finished game (evaluation graph, best move, marked moves), which
// explains itself: the evaluation of the position shown in pawns or "mate in N",
// the engine's line in the player's notation, and for a marked move the better one.
//
// The review plugs into play.js's PlayView: the view asks shown() what to draw (a past
// position, or null for the present), tells onUpdate() about every confirmed state and
// calls afterRender() at the end of each render. Stepping back never sends anything, and
// a new move of a live game brings the view back to the present.
import { api, ApiError } from "./connection.js";
import { apiErrorText } from "./errors.js";
import { t } from "./i18n.js";
import { kindOf, parseMove, placementFromFen, sideNames } from "./position.js";
import { settings } from "./settings.js";
import { announce, el } from "./ui.js";

const SVG_NS = "http://www.w3.org/2000/svg";
// The graph's scale: ±5 pawns (a mate or more is drawn at the edge), gridlines labelled.
const GRAPH = { width: 300, height: 120, cap: 500, pad: 8 };
const GRID_PAWNS = [5, 2.5, 0, -2.5, -5];
const VOICES = { chinese: "zh", korean: "ko" }; // Chinese and Korean moves read by their voice
const CLASS_MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const CLASS_NAMES = { inaccuracy: "analysis.inaccuracy", mistake: "analysis.mistake", blunder: "analysis.blunder" };
const POLL_MS = 500;

export function loadStyles() {
  if (document.querySelector("link[data-review-css]")) return;
  document.head.append(el("link", { rel: "stylesheet", href: "/static/css/review.css", "data-review-css": "" }));
}

/** A number of pawns as shown: "+1.3", "−0.4" (a true minus sign), "0.0". */
export function pawnsText(pawns) {
  const text = Math.abs(pawns).toFixed(1);
  if (text === "0.0") return text;
  return `${pawns > 0 ? "+" : "\u2212"}${text}`;
}

// N4: the record formats other programs read, by variant (coordinates are our own).
export const RECORD_FORMATS = { xiangqi: ["iccs", "wxf", "chinese"], jieqi: ["iccs", "wxf", "chinese"], janggi: ["korean", "iccs"] };

/** The record format offered first: the notation the player chose when other programs read
 * it (WXF, Chinese, Korean), else ICCS (janggi: its own Korean). */
export function recordNotation(variant) {
  const formats = RECORD_FORMATS[variant] || RECORD_FORMATS.xiangqi;
  const chosen = variant === "janggi" ? settings.janggiNotation : settings.notation;
  return formats.includes(chosen) ? chosen : formats[0];
}

/** The notation of an analysis line: the one of the player's move list (coordinates unless
 * they chose WXF, Chinese or Korean). */
function lineNotation(variant) {
  const chosen = variant === "janggi" ? settings.janggiNotation : settings.notation;
  return !chosen || chosen === "coordinates" ? "coords" : chosen;
}

function typingInto(target) {
  return target instanceof HTMLElement
    && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName));
}

export class Review {
  /** view: the PlayView; its host may say share (a share token: a read-only review). */
  constructor(view) {
    loadStyles();
    this.view = view;
    this.ply = null; // the ply shown; null: the present
    this.positions = null; // [{ply, fen, turn, in_check, move}] from the server
    this.analysis = null;
    this.polling = null;
    this.loadedFor = null;
    this.build();
    this.onKey = (event) => this.key(event);
    document.addEventListener("keydown", this.onKey);
  }

  get state() {
    return this.view.state;
  }

  get total() {
    return this.state ? (this.state.ply ?? (this.state.moves || []).length) : 0;
  }

  get reviewing() {
    return this.ply !== null && this.ply < this.total;
  }

  query(extra = {}) {
    const params = new URLSearchParams(extra);
    if (this.view.host.share) params.set("share", this.view.host.share);
    const text = params.toString();
    return text ? `?${text}` : "";
  }

  // ------------------------------------------------------------------ layout

  button(key, handler, attributes = {}) {
    const button = el("button", { type: "button", class: "button", "data-i18n-key": key, ...attributes }, t(key));
    button.addEventListener("click", handler);
    return button;
  }

  build() {
    const view = this.view;
    this.first = this.button("review.first", () => this.go(0), { "data-review": "first", class: "icon-button" });
    this.previous = this.button("review.previous", () => this.go(this.shownPly() - 1), {
      "data-review": "previous", class: "icon-button",
    });
    this.next = this.button("review.next", () => this.go(this.shownPly() + 1), { "data-review": "next", class: "icon-button" });
    this.last = this.button("review.last", () => this.go(this.total), { "data-review": "last", class: "icon-button" });
    this.counter = el("span", { class: "review-counter", "data-review-ply": "" });
    this.present = this.button("review.back_to_game", () => this.go(this.total), {
      "data-review": "present", class: "button primary", hidden: "",
    });
    this.bar = el("nav", { class: "review-bar", "data-review-bar": "" },
      this.first, this.previous, this.counter, this.next, this.last, this.present);
    view.boardBox.after(this.bar);

    this.copyFen = this.button("review.copy_fen", () => this.copyFenText(), { "data-review": "copy-fen" });
    this.download = el("a", { class: "button", "data-review": "download", download: "" });
    this.formatLabel = el("label", { for: "record-format", class: "sr-only" });
    this.format = el("select", { id: "record-format", "data-review": "record-format" });
    this.format.addEventListener("change", () => {
      this.formatChosen = this.format.value;
      this.renderTools();
    });
    this.downloadGib = el("a", { class: "button", "data-review": "download-gib", download: "", hidden: "" });
    this.shareButton = this.button("review.copy_share", () => this.copyShare(), { "data-review": "share" });
    this.output = el("output", { class: "review-output", "data-review-output": "" });
    this.tools = el("div", { class: "review-tools", "data-review-tools": "" },
      this.copyFen, el("div", { class: "record-download" }, this.formatLabel, this.format, this.download),
      this.downloadGib, this.shareButton);

    this.analyse = this.button("analysis.start", () => this.startAnalysis(), { "data-analysis": "start" });
    this.progress = el("progress", { max: "1", value: "0", "data-analysis-progress": "", hidden: "" });
    this.analysisNote = el("p", { class: "note", "data-analysis-note": "", hidden: "" });
    this.graph = document.createElementNS(SVG_NS, "svg");
    for (const [name, value] of Object.entries({
      class: "eval-graph", viewBox: `0 0 ${GRAPH.width} ${GRAPH.height}`, "data-analysis-graph": "",
      role: "img", preserveAspectRatio: "none",
    })) this.graph.setAttribute(name, value);
    this.graph.addEventListener("click", (event) => this.graphClick(event));
    this.graphScale = el("div", { class: "graph-scale", "aria-hidden": "true" });
    for (const pawns of GRID_PAWNS) {
      const sign = pawns > 0 ? "+" : pawns < 0 ? "\u2212" : "";
      const label = el("span", { "data-grid-pawns": String(pawns) }, `${sign}${Math.abs(pawns)}`);
      label.style.top = `${((this.graphY(pawns * 100) / GRAPH.height) * 100).toFixed(2)}%`; // CSSOM: the CSP allows it
      this.graphScale.append(label);
    }
    this.graphLegend = el("p", { class: "note graph-legend", "data-analysis-legend": "" });
    this.graphBox = el("div", { class: "graph-box", hidden: "" });
    this.graphBox.append(this.graphScale, this.graph);
    this.explain = this.buildExplain();
    this.heading = el("h2", { class: "review-heading" }, t("review.heading"));
    this.section = el("section", { class: "review-panel", "data-review-panel": "" },
      this.heading, this.tools, this.output, this.analyse, this.progress, this.analysisNote, this.graphBox,
      this.graphLegend);
    this.bar.after(this.explain); // beside the position shown, under the step buttons
    view.moveList.after(this.section);
    view.moveList.addEventListener("click", (event) => {
      const move = event.target.closest?.(".move[data-ply]");
      if (move) this.go(Number(move.dataset.ply));
    });
    view.moveList.addEventListener("keydown", (event) => {
      const move = event.target.closest?.(".move[data-ply]");
      if (!move || (event.key !== "Enter" && event.key !== " ")) return;
      event.preventDefault();
      this.go(Number(move.dataset.ply));
    });
  }

  /** The evaluation of the position shown, its line and a marked move's better one: text,
   * for every reader. */
  buildExplain() {
    const part = (name) => el("span", { [`data-eval-${name}`]: "" });
    this.evalLabel = el("span", { class: "eval-label" });
    this.evalValue = el("strong", { class: "eval-value", "data-eval-value": "" });
    this.evalLegend = el("span", { class: "note", "data-eval-legend": "" });
    this.lineLabel = el("span", { class: "eval-label" });
    this.lineText = part("line");
    this.playedText = part("played");
    this.betterLabel = el("span", { class: "eval-label" });
    this.betterMove = part("better-move");
    this.betterGain = part("better-gain");
    this.betterLineLabel = el("span", { class: "eval-label" });
    this.betterLine = part("better-line");
    this.evalRow = el("p", { class: "eval-row", "data-eval": "" }, this.evalLabel, " ", this.evalValue, " ", this.evalLegend);
    this.lineRow = el("p", { class: "eval-row", "data-eval-line-row": "" }, this.lineLabel, " ", this.lineText);
    this.betterRow = el("p", { class: "eval-row eval-better", "data-eval-better": "" },
      this.playedText, " ", this.betterLabel, " ", this.betterMove, " ", this.betterGain,
      el("br"), this.betterLineLabel, " ", this.betterLine);
    return el("section", { class: "eval-explain", "data-analysis-explain": "", hidden: "" },
      this.evalRow, this.lineRow, this.betterRow);
  }

  // ------------------------------------------------------------------ what the view shows

  shownPly() {
    return this.ply === null ? this.total : Math.min(this.ply, this.total);
  }

  /** The past position to draw instead of the present: {ply, fen, last, in_check, turn}. */
  shown() {
    if (!this.reviewing || !this.positions?.[this.ply]) return null;
    const position = this.positions[this.ply];
    return { ply: this.ply, fen: position.fen, last: position.move, in_check: position.in_check, turn: position.turn };
  }

  /** A confirmed state arrived: a new move of a live game brings the view back (U6). */
  onUpdate(state, event, sameGame) {
    if (!sameGame) {
      this.ply = null;
      this.positions = null;
      this.analysis = null;
      this.loadedFor = null;
      clearTimeout(this.polling);
    }
    if (event?.type === "move" && this.ply !== null) {
      this.ply = null;
      announce(t("review.back_announce"));
    }
    if (this.positions && this.positions.length !== (state.ply ?? 0) + 1) this.positions = null;
    if (state.status !== "ongoing" && this.loadedFor !== state.id) this.loadAnalysis();
  }

  async loadPositions() {
    if (this.positions && this.positions.length === this.total + 1) return this.positions;
    const answer = await api("GET", `/api/games/${encodeURIComponent(this.state.id)}/positions${this.query()}`);
    this.positions = answer.positions;
    return this.positions;
  }

  async go(ply) {
    if (!this.state) return;
    const target = Math.max(0, Math.min(this.total, ply));
    if (target < this.total) {
      try {
        await this.loadPositions();
      } catch (error) {
        this.say(apiErrorText(error));
        return;
      }
    }
    this.ply = target >= this.total ? null : target;
    this.view.render();
    this.announcePly(target);
  }

  announcePly(ply) {
    const total = this.total;
    if (ply === 0) {
      announce(t("review.at_start", { total }));
      return;
    }
    const move = this.positions?.[ply]?.move ?? this.state.moves?.[ply - 1];
    const parsed = parseMove(move);
    const names = sideNames(this.view.variant);
    const first = this.positions?.[0]?.turn ?? names[0];
    const mover = names[(names.indexOf(first) + ply - 1) % 2];
    let text;
    if (parsed?.pass) text = t("announce.pass", { side: t(`side.${mover}`) });
    else if (parsed) {
      const before = this.positions?.[ply - 1]?.fen;
      const letter = before ? placementFromFen(before).get(parsed.from) : null;
      text = t("announce.move", {
        side: t(`side.${mover}`), piece: letter ? t(`kind.${kindOf(letter)}`) : "", from: parsed.from, to: parsed.to,
      });
    } else text = String(move ?? "");
    const checked = ply === total ? this.state.in_check : this.positions?.[ply]?.in_check;
    if (checked) text += `, ${t("status.check")}`;
    const judged = this.plyAnalysis(ply)?.class;
    if (judged) text += `, ${t(CLASS_NAMES[judged])}`;
    const evaluation = this.plyAnalysis(ply);
    if (evaluation) text += `. ${t("analysis.evaluation")} ${this.evaluationText(evaluation)}`;
    announce(t("review.at_ply", { ply, total, move: text }));
  }

  key(event) {
    if (!this.state || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (typingInto(event.target) || document.querySelector("dialog[open]")) return;
    if (this.view.board.svg.contains(event.target)) return; // the arrows move over the points (U4)
    const moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (event.key in moves) {
      event.preventDefault();
      this.go(this.shownPly() + moves[event.key]);
    } else if (event.key === "Home") {
      event.preventDefault();
      this.go(0);
    } else if (event.key === "End") {
      event.preventDefault();
      this.go(this.total);
    }
  }

  say(text) {
    this.output.textContent = text;
    announce(text);
  }

  // ------------------------------------------------------------------ after each render

  afterRender() {
    const s = this.state;
    this.section.hidden = !s;
    // No "Move 0 of 0" before the first move: there is nothing to step through yet.
    this.bar.hidden = !s || !this.total;
    if (!s) return;
    const shown = this.shownPly();
    const total = this.total;
    this.counter.textContent = t("review.counter", { ply: shown, total });
    this.first.disabled = this.previous.disabled = shown === 0;
    this.next.disabled = this.last.disabled = shown >= total;
    this.present.hidden = !(this.reviewing && s.status === "ongoing");
    this.view.layout.dataset.reviewPly = String(shown);
    this.view.boardBox.classList.toggle("reviewing", this.reviewing);
    for (const button of [...this.bar.querySelectorAll("[data-i18n-key]"), ...this.section.querySelectorAll("[data-i18n-key]")]) {
      const label = t(button.dataset.i18nKey);
      if (button.classList.contains("icon-button")) {
        button.setAttribute("aria-label", label);
        button.title = label;
        button.textContent = { first: "|◀", previous: "◀", next: "▶", last: "▶|" }[button.dataset.review] ?? label;
      } else button.textContent = label;
    }
    this.heading.textContent = t("review.heading");
    this.markMoves(shown);
    this.renderTools();
    this.renderAnalysis(shown);
  }

  markMoves(shown) {
    for (const move of this.view.moveList.querySelectorAll(".move[data-ply]")) {
      const ply = Number(move.dataset.ply);
      move.setAttribute("tabindex", "0");
      move.setAttribute("role", "button");
      const current = ply === shown;
      move.classList.toggle("is-current", current);
      if (current) move.setAttribute("aria-current", "step");
      else move.removeAttribute("aria-current");
      const judged = this.plyAnalysis(ply)?.class;
      for (const name of Object.keys(CLASS_MARKS)) move.classList.toggle(`is-${name}`, judged === name);
      if (judged && !move.querySelector(".move-mark")) {
        move.append(el("span", { class: "move-mark", "aria-hidden": "true" }, CLASS_MARKS[judged]),
          el("span", { class: "sr-only" }, ` (${t(CLASS_NAMES[judged])})`));
        move.title = t(CLASS_NAMES[judged]);
      }
      if (current && this.reviewing) move.scrollIntoView?.({ block: "nearest" });
    }
  }

  renderTools() {
    const s = this.state;
    const id = encodeURIComponent(s.id);
    const formats = RECORD_FORMATS[s.variant] || RECORD_FORMATS.xiangqi;
    const key = `${formats.join()}|${document.documentElement.lang}`;
    if (this.formatKey !== key) {
      this.formatKey = key;
      this.format.replaceChildren(...formats.map((f) => el("option", { value: f }, t(`review.format_${f}`))));
      this.formatLabel.textContent = t("review.format");
      this.format.setAttribute("title", t("review.format"));
    }
    const notation = formats.includes(this.formatChosen) ? this.formatChosen : recordNotation(s.variant);
    this.format.value = notation;
    this.download.href = `/api/games/${id}/record${this.query({ notation })}`;
    this.download.setAttribute("download", `chuhan-${s.id}.pgn`);
    this.download.textContent = t("review.download");
    this.downloadGib.hidden = s.variant !== "janggi";
    this.downloadGib.href = `/api/games/${id}/record${this.query({ format: "gib" })}`;
    this.downloadGib.setAttribute("download", `chuhan-${s.id}.gib`);
    this.downloadGib.textContent = t("review.download_gib");
  }

  currentFen() {
    if (this.reviewing && this.positions?.[this.ply]) return this.positions[this.ply].fen;
    return this.state.fen;
  }

  async copyFenText() {
    const fen = this.currentFen();
    this.output.dataset.fen = fen;
    await this.copy(fen, t("review.fen_copied"));
  }

  async copyShare() {
    let address = location.href;
    if (!this.view.host.share) {
      try {
        const answer = await api("POST", `/api/games/${encodeURIComponent(this.state.id)}/share`);
        address = new URL(answer.path, location.origin).href;
      } catch (error) {
        this.say(apiErrorText(error));
        return;
      }
    }
    this.output.dataset.share = address;
    const note = this.state.status === "ongoing" ? t("review.share_later") : t("review.share_copied");
    await this.copy(address, note);
  }

  async copy(text, done) {
    try {
      await navigator.clipboard.writeText(text);
      this.say(`${done} ${text}`);
    } catch {
      this.say(`${t("review.copy_this")} ${text}`); // no clipboard here: the text to copy by hand
    }
  }

  // ------------------------------------------------------------------ analysis

  plyAnalysis(ply) {
    return this.analysis?.plies?.find((entry) => entry.ply === ply) ?? null;
  }

  async loadAnalysis(force = false) {
    if (!this.state || (!force && this.loadedFor === this.state.id)) return;
    this.loadedFor = this.state.id;
    try {
      this.analysis = await api("GET", `/api/games/${encodeURIComponent(this.state.id)}/analysis${this.query()}`);
    } catch {
      this.analysis = null;
    }
    if (this.analysis && ["queued", "running"].includes(this.analysis.status)) this.poll();
    this.view.render();
  }

  async startAnalysis() {
    try {
      this.analysis = await api("POST", `/api/games/${encodeURIComponent(this.state.id)}/analysis${this.query()}`);
      announce(t("analysis.started"));
    } catch (error) {
      this.say(error instanceof ApiError ? apiErrorText(error) : t("error.network"));
      return;
    }
    this.view.render();
    this.poll();
  }

  poll() {
    clearTimeout(this.polling);
    this.polling = setTimeout(async () => {
      const id = this.state?.id;
      if (!id) return;
      try {
        this.analysis = await api("GET", `/api/games/${encodeURIComponent(id)}/analysis${this.query()}`);
      } catch {
        this.poll();
        return;
      }
      if (this.state?.id !== id) return;
      this.view.render();
      if (["queued", "running"].includes(this.analysis.status)) this.poll();
      else if (this.analysis.status === "done") announce(t("analysis.done"));
    }, POLL_MS);
  }

  renderAnalysis(shown) {
    const s = this.state;
    const a = this.analysis;
    const finished = s.status !== "ongoing";
    const status = a?.status ?? "none";
    this.analyse.hidden = !finished || status !== "none" || !this.total; // nothing to analyse
    this.analyse.disabled = !finished;
    const running = status === "queued" || status === "running";
    this.progress.hidden = !running;
    this.progress.value = a?.progress ?? 0;
    this.progress.setAttribute("aria-label", t("analysis.progress", { percent: Math.round((a?.progress ?? 0) * 100) }));
    this.view.layout.dataset.analysis = status;
    let note = "";
    if (running) note = t(status === "queued" ? "analysis.queued" : "analysis.running", {
      percent: Math.round((a.progress ?? 0) * 100),
    });
    else if (status === "failed") note = t("analysis.failed");
    else if (status === "done") note = t("analysis.engine", { engine: a.engine || "?" });
    this.analysisNote.textContent = note;
    this.analysisNote.hidden = !note;
    const plies = a?.plies || [];
    this.graphBox.hidden = this.graphLegend.hidden = plies.length < 2;
    if (plies.length >= 2) this.drawGraph(plies, shown);
    const best = status === "done" || plies.length ? this.plyAnalysis(shown)?.best : null;
    const move = parseMove(best);
    this.view.board.setArrow(move && !move.pass ? move : null);
    this.renderExplain(shown);
  }

  /** The evaluation as shown: "+1.3", "Red mates in 3", "Game over: Black wins". */
  evaluationText(entry) {
    const names = sideNames(this.view.variant);
    const side = (index) => t(`side.${names[index]}`);
    if (entry.mate === 0) return t("analysis.won", { side: side(entry.score > 0 ? 0 : 1) });
    if (entry.mate) return t("analysis.mate", { side: side(entry.mate > 0 ? 0 : 1), moves: Math.abs(entry.mate) });
    return pawnsText(entry.pawns ?? entry.score / 100);
  }

  /** A line in the player's notation (coordinates when it was not written in theirs). */
  lineOf(written) {
    const wanted = lineNotation(this.view.variant);
    const texts = written?.[wanted] ?? written?.coords;
    return { text: (texts ?? []).join(" "), lang: written?.[wanted] ? VOICES[wanted] ?? null : null };
  }

  setLine(target, written) {
    const { text, lang } = this.lineOf(written);
    target.textContent = text;
    if (lang) target.setAttribute("lang", lang);
    else target.removeAttribute("lang");
  }

  renderExplain(shown) {
    const entry = this.plyAnalysis(shown);
    this.explain.hidden = !entry;
    if (!entry) return;
    const names = sideNames(this.view.variant);
    this.evalLabel.textContent = `${t("analysis.evaluation")}:`;
    this.evalValue.textContent = this.evaluationText(entry);
    this.evalLegend.textContent = t(this.legendKey("analysis.legend"), { first: t(`side.${names[0]}`), second: t(`side.${names[1]}`) });
    this.evalLegend.hidden = entry.mate !== null && entry.mate !== undefined; // a mate names its side
    this.lineRow.hidden = !entry.line || !Object.keys(entry.line).length;
    this.lineLabel.textContent = `${t("analysis.line")}:`;
    this.setLine(this.lineText, entry.line);
    const better = entry.class && entry.better;
    this.betterRow.hidden = !better;
    this.betterRow.dataset.class = entry.class ?? "";
    if (!better) return;
    const played = this.view.notationOf(shown - 1, this.state.moves?.[shown - 1]);
    this.playedText.textContent = `${played.text}${CLASS_MARKS[entry.class]} (${t(CLASS_NAMES[entry.class])}).`;
    this.betterLabel.textContent = `${t("analysis.better")}:`;
    this.setLine(this.betterMove, Object.fromEntries(Object.entries(better).map(([name, text]) => [name, [text]])));
    this.betterGain.textContent = this.gainText(entry, this.plyAnalysis(shown - 1));
    this.betterLineLabel.textContent = `${t("analysis.better_line")}:`;
    this.setLine(this.betterLine, this.plyAnalysis(shown - 1)?.line);
  }

  /** A legend's key: in janggi our engine's scores count Han's 1.5 points for moving second
   * (J8), and its legends say so; another engine's may not. */
  legendKey(key) {
    return this.view.variant === "janggi" && this.analysis?.engine === "chuhan" ? `${key}_janggi` : key;
  }

  /** The side (0: Red/Cho) that played move ``ply``: a game from a FEN may start with either. */
  moverOf(ply) {
    const now = sideNames(this.view.variant).indexOf(this.state.turn);
    return (((now < 0 ? this.total : now) - this.total + ply - 1) % 2 + 2) % 2;
  }

  /** What the better move keeps over the move played: a mate it gives or one the move played
   * allowed (a mate is past any number of pawns), else the pawns. */
  gainText(entry, before) {
    const sign = this.moverOf(entry.ply) === 0 ? 1 : -1; // mates are signed for Red/Cho
    if (before?.mate && before.mate * sign > 0) return t("analysis.keeps_mate", { moves: Math.abs(before.mate) });
    if (entry.mate && entry.mate * sign < 0) return t("analysis.avoids_mate", { moves: Math.abs(entry.mate) });
    return t("analysis.keeps", { pawns: (entry.gain / 100).toFixed(1) });
  }

  graphY(score) {
    const { height, cap, pad } = GRAPH;
    return height / 2 - (Math.max(-cap, Math.min(cap, score)) / cap) * (height / 2 - pad);
  }

  drawGraph(plies, shown) {
    const { width, height } = GRAPH;
    const last = Math.max(1, this.total);
    const x = (ply) => (ply / last) * width;
    const y = (score) => this.graphY(score);
    const grid = GRID_PAWNS.map((pawns) => `<line class="graph-grid${pawns ? "" : " graph-axis"}" data-grid-pawns="${pawns}" `
      + `x1="0" y1="${y(pawns * 100).toFixed(1)}" x2="${width}" y2="${y(pawns * 100).toFixed(1)}"/>`).join("");
    const points = plies.map((p) => `${x(p.ply).toFixed(1)},${y(p.score).toFixed(1)}`);
    const area = `0,${height / 2} ${points.join(" ")} ${x(plies[plies.length - 1].ply).toFixed(1)},${height / 2}`;
    const marks = plies
      .filter((p) => p.class)
      .map((p) => `<circle class="graph-mark is-${p.class}" cx="${x(p.ply).toFixed(1)}" cy="${y(p.score).toFixed(1)}" r="2.6"/>`)
      .join("");
    const [first, second] = sideNames(this.view.variant);
    this.graph.setAttribute("aria-label", t("analysis.graph", { side: t(`side.${first}`) }));
    this.graphLegend.textContent = t(this.legendKey("analysis.scale"), { first: t(`side.${first}`), second: t(`side.${second}`) });
    this.graph.innerHTML = `<rect class="graph-back" width="${width}" height="${height}"/>
      <polygon class="graph-area" points="${area}"/>${grid}
      <polyline class="graph-line" points="${points.join(" ")}"/>${marks}
      <line class="graph-cursor" data-graph-cursor="${shown}" x1="${x(shown)}" y1="0" x2="${x(shown)}" y2="${height}"/>`;
  }

  graphClick(event) {
    const box = this.graph.getBoundingClientRect();
    if (!box.width) return;
    const ply = Math.round(((event.clientX - box.left) / box.width) * Math.max(1, this.total));
    this.go(ply);
  }

  destroy() {
    clearTimeout(this.polling);
    document.removeEventListener("keydown", this.onKey);
  }
}
