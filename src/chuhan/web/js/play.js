// The play view (SPEC U1–U9, N1–N3, Q5, Q7, J6, J8): one module draws and drives a game of
// every kind — against the AI, on one device, in a room. It shows the state the server
// confirmed (the socket hands it over after events.js applied each event), turns taps and
// keys into moves, and keeps the player informed: last move, check, the move list in the
// chosen notation, captured pieces, announcements, the result with its reason, and in jieqi
// the face-up board and the commitment check at the end.
//
// What differs by kind comes from the host (game.js, room.js): how to send, the players'
// names, clocks, its own buttons and panels.
import { boardDiagram, BoardView } from "./board.js";
import { api } from "./connection.js";
import { refusal } from "./errors.js";
import { hasText, t } from "./i18n.js";
import { pieceSvg } from "./pieces.js";
import { kindOf, parseMove, placementFromFen, sideNames, sideOf } from "./position.js";
import { onSettingsChange, settings } from "./settings.js";
import { ratingChange } from "./archive.js";
import { Review } from "./review.js";
import { playSound } from "./sound.js";
import { announce, confirmDialog, el } from "./ui.js";

/** "red chariot", "face-down black piece": a piece as the player reads it. */
export function pieceName(letter, variant) {
  const kind = kindOf(letter);
  const side = t(`owner.${sideOf(letter, variant)}`);
  if (kind === "hidden") return t("piece.hidden", { side });
  return t("piece.named", { side, piece: t(`kind.${kind}`) });
}

/** N1: "h3-e3" (a pass: "pass"). */
export function formatCoordinates(move) {
  const parsed = parseMove(move);
  if (!parsed) return move;
  return parsed.pass ? t("move.pass") : `${parsed.from}-${parsed.to}`;
}

/** The notation the player chose for a variant: janggi has its own setting (Korean). */
export function chosenNotation(variant) {
  return variant === "janggi" ? settings.janggiNotation : settings.notation;
}

// J8: janggi material points, and Han's 1.5 for moving second.
const JANGGI_POINTS = { chariot: 13, cannon: 7, horse: 5, elephant: 3, advisor: 3, soldier: 2, general: 0 };

/** {cho, han}: each side's points on a janggi board (J8). */
export function janggiTotals(fen) {
  const totals = { cho: 0, han: 1.5 };
  for (const letter of placementFromFen(fen).values()) {
    totals[sideOf(letter, "janggi")] += JANGGI_POINTS[kindOf(letter)] ?? 0;
  }
  return totals;
}

/** Map point → letter of a jieqi arrangement text ("a1=P b1=R …", Q7). */
export function parseArrangement(text) {
  const placement = new Map();
  for (const item of String(text || "").split(/\s+/)) {
    const [point, letter] = item.split("=");
    if (point && letter) placement.set(point, letter);
  }
  return placement;
}

/** "You lost" → "You lost."; "You won!" stays as it is (no "You won!."). */
export function sentenceEnd(text) {
  return /[.!?。！？]$/.test(text) ? text : `${text}.`;
}

function hexOf(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export class PlayView {
  /**
   * root: the element to draw into. host (all optional but send):
   *   kind: "ai" | "local" | "room"; attributes: data attributes of the layout;
   *   send(type, fields) → Promise<reply>; resync(): ask the server for what was missed;
   *   mayAct() → bool: this screen may play (a room: it holds the seat);
   *   playerName(side) → text; clockText(side) → text or ""; playerBadges(side) → [nodes];
   *   statusText() → text or null (null: the view's own); waitingText(): the other side to move;
   *   pointsText(state) → text or "": what the game earned; heading() → text;
   *   onRender(): after every render; onEnd(state): the game just ended.
   */
  constructor(root, host) {
    this.root = root;
    this.host = host;
    this.state = null;
    this.pending = null; // {move, ply} sent but not yet confirmed
    this.selected = null;
    this.hint = null;
    this.preview = null; // a move waiting for "Play?" (U4), shown on the board
    this.thinking = false;
    this.link = "connecting";
    this.notice = "";
    this.flippedByPlayer = false;
    this.build();
    this.review = new Review(this); // stepping through the game, records, analysis (N4)
    this.unsubscribe = onSettingsChange((_, patch) => {
      if ("pieceStyle" in patch) this.board.setStyle(settings.pieceStyle);
      this.render();
    });
  }

  get variant() {
    return this.state?.variant ?? this.host.variant;
  }

  get ongoing() {
    return this.state?.status === "ongoing";
  }

  get isLocal() {
    return this.state?.kind === "local";
  }

  /** True when the viewer may move now (a local game: always, while it goes on). */
  get myTurn() {
    const s = this.state;
    if (!s || s.status !== "ongoing" || this.host.mayAct?.() === false) return false;
    return s.you === null || s.you === undefined || s.you === s.turn;
  }

  get ready() {
    return this.myTurn && !this.pending && !this.review?.reviewing;
  }

  // ------------------------------------------------------------------ layout

  build() {
    this.root.innerHTML = "";
    const layout = el("div", { class: "game-layout", "data-play": this.host.kind, ...(this.host.attributes || {}) });
    this.layout = layout;
    this.heading = el("h1", { class: "sr-only" });
    this.statusText = el("span", {});
    this.clock = el("span", { class: "turn-clock", "data-clock": "", hidden: "" });
    this.statusLine = el("p", { class: "status-line", role: "status" }, this.statusText, this.clock);
    this.noticeLine = el("p", { class: "notice", "data-notice": "", hidden: "" });
    this.topSlot = el("div", { class: "play-slot" });
    this.boardBox = el("div", { class: "board-box" });
    this.confirmBar = el("div", { class: "confirm-bar", hidden: "" });
    this.confirmBar.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      this.cancel();
    });
    this.viewControls = el("div", { class: "view-controls" });
    const main = el("div", { class: "game-main" });
    main.append(this.statusLine, this.noticeLine, this.topSlot, this.boardBox, this.confirmBar, this.viewControls);

    const side = el("aside", { class: `side-panel${this.host.kind === "room" ? " room-panel" : ""}` });
    this.panelTop = el("div", { class: "play-slot" });
    this.players = el("div", { class: "players", "data-players": "" });
    this.badges = el("div", { class: "badges" });
    this.controls = el("div", { class: "controls", "data-controls": "" });
    this.controlNote = el("p", { class: "note", "data-control-note": "", hidden: "" });
    this.panelMiddle = el("div", { class: "play-slot" });
    this.endBox = el("section", { class: "end-box", "data-end": "", hidden: "", "aria-label": "" });
    this.movesHeading = el("h2", { class: "panel-heading" });
    this.notationNote = el("p", { class: "note", "data-notation-note": "", hidden: "" });
    this.moveList = el("ol", { class: "move-list", "aria-label": "" });
    this.captured = el("div", { class: "captured", "data-captured": "" });
    this.rulesLink = el("a", {
      href: "", target: "_blank", rel: "noopener", class: "rules-link", "data-action": "rules",
    });
    side.append(this.panelTop, this.players, this.badges, this.controls, this.controlNote,
      this.panelMiddle, this.endBox, this.movesHeading, this.notationNote, this.moveList,
      this.captured, this.rulesLink);
    layout.append(this.heading, main, side);
    this.root.append(layout);

    this.board = new BoardView(this.boardBox, {
      onActivate: (point) => this.activate(point),
      onCancel: () => this.cancel(),
      describe: (point, letter, flags) => this.describePoint(point, letter, flags),
    });
    this.board.setVariant(this.variant);
    this.board.setStyle(settings.pieceStyle);
    this.buildControls();
  }

  describePoint(point, letter, { selected, destination }) {
    let label = `${point}, ${letter ? pieceName(letter, this.variant) : t("point.empty")}`;
    if (selected) label += `, ${t("point.selected")}`;
    if (destination) label += `, ${t("point.destination")}`;
    return label;
  }

  /** A text button that follows the language; made once, so keyboard focus survives renders. */
  button(key, handler, extra = {}) {
    const button = el("button", { type: "button", class: "button", "data-i18n-key": key, ...extra }, t(key));
    button.addEventListener("click", handler);
    return button;
  }

  iconButton(key, icon, handler) {
    const button = el("button", {
      type: "button", class: "icon-button", "aria-label": t(key), title: t(key), "data-i18n-key": key,
    });
    button.textContent = icon;
    button.addEventListener("click", handler);
    return button;
  }

  buildControls() {
    this.passButton = this.button("action.pass", () => this.pass(), { "data-action": "pass" });
    this.resignButton = this.button("action.resign", () => this.resign(), {
      "data-action": "resign", class: "button danger",
    });
    this.controls.append(this.passButton, this.resignButton);
    this.viewControls.append(
      this.iconButton("view.zoom_in", "+", () => this.board.zoom(1.4)),
      this.iconButton("view.zoom_out", "−", () => this.board.zoom(1 / 1.4)),
      this.iconButton("view.full", "⤢", () => this.board.resetView()),
      this.iconButton("view.flip", "⇅", () => {
        this.flippedByPlayer = !this.flippedByPlayer;
        this.render();
      }),
    );
  }

  /** The host's own buttons, before Pass and Resign. */
  addControls(...buttons) {
    for (const button of buttons) this.controls.insertBefore(button, this.passButton);
  }

  // ------------------------------------------------------------------ the state

  /**
   * Show a state the server confirmed; event: the event that led to it (null for a full
   * state). Announces moves and the end of the game.
   */
  update(state, event = null) {
    const before = this.state;
    const sameGame = before && state && before.id === state.id;
    this.state = state;
    if (!sameGame) {
      this.pending = null;
      this.selected = null;
      this.hint = null;
      this.preview = null;
      this.shownLastMove = undefined;
      this.shownPly = undefined;
      this.endShown = Boolean(state && state.status !== "ongoing");
    }
    if (!state) {
      this.render();
      return;
    }
    this.review?.onUpdate(state, event, sameGame);
    if (this.pending && (state.ply ?? 0) >= this.pending.ply) this.pending = null;
    if ("thinking" in state) this.thinking = Boolean(state.thinking) && state.status === "ongoing";
    if (!sameGame || state.ply !== before.ply || state.status !== "ongoing") this.hint = null;
    if (state.ply !== before?.ply || state.status !== "ongoing") this.hidePreview();
    if (this.selected && !this.legalFrom(this.selected).length) this.selected = null;
    if (event?.type === "move") {
      this.thinking = false;
      this.notice = "";
      if (sameGame) this.announceMove(event.move, before);
    }
    this.render();
    if (state.status !== "ongoing" && !this.endShown) {
      this.endShown = true;
      this.thinking = false;
      playSound("end");
      const { title, reason } = this.result();
      announce([sentenceEnd(title), reason].filter(Boolean).join(" "));
      this.host.onEnd?.(state);
    }
  }

  setThinking(on) {
    this.thinking = on && this.ongoing;
    if (this.thinking) announce(t("status.thinking"));
    this.render();
  }

  setLink(status) {
    const before = this.link;
    this.link = status;
    if (status === "offline") announce(t("notice.offline"));
    if (status === "online" && before === "offline") announce(t("notice.back_online"));
    this.render();
  }

  say(text) {
    this.notice = text || "";
    if (text) announce(text);
    this.render();
  }

  // ------------------------------------------------------------------ what is shown

  /** The pieces to draw: the confirmed position, a move on its way, a move to confirm, and
   * at the end of a jieqi game every face-down piece face up (Q5). */
  displayedPlacement() {
    if (!this.state && this.host.placeholder) return this.host.placeholder();
    const past = this.review?.shown(); // a position the player stepped back to
    const pieces = placementFromFen(past?.fen ?? this.state?.fen ?? "");
    const moving = past ? null : this.preview || (this.pending && this.link === "online" ? this.pending.move : null);
    const move = parseMove(moving);
    if (move && !move.pass) {
      pieces.set(move.to, pieces.get(move.from));
      pieces.delete(move.from);
    }
    if (this.state?.arrangement && this.state.status !== "ongoing") {
      // A face-down piece never moved (moving turns it up), so it stands on its start point.
      const arrangement = parseArrangement(this.state.arrangement);
      for (const [point, letter] of pieces) {
        if (kindOf(letter) === "hidden" && arrangement.has(point)) pieces.set(point, arrangement.get(point));
      }
    }
    return pieces;
  }

  legalFrom(point) {
    if (!this.ready) return [];
    return (this.state.legal_moves || [])
      .map(parseMove)
      .filter((move) => move && !move.pass && move.from === point)
      .map((move) => move.to);
  }

  checkPoint(pieces) {
    // Also after the game ends, so that a mated general stays marked.
    const shown = this.review?.shown() ?? this.state;
    if (!shown?.in_check) return null;
    const first = sideNames(this.variant)[0] === shown.turn;
    const general = first ? "K" : "k";
    for (const [point, letter] of pieces) if (letter === general) return point;
    return null;
  }

  flipped() {
    const [, second] = sideNames(this.variant);
    const you = this.state?.you ?? this.host.you?.();
    return (you === second) !== this.flippedByPlayer;
  }

  render() {
    const s = this.state;
    const pieces = this.displayedPlacement();
    // Stable hooks for tests and tools: what the confirmed state is right now.
    Object.assign(this.layout.dataset, {
      ply: String(s ? (s.ply ?? (s.moves || []).length) : ""),
      turn: s?.turn || "",
      status: s?.status || "",
      reason: s?.result?.reason || "",
      winner: s?.result?.winner || "",
      myTurn: String(this.ready),
      link: this.link,
    });
    if (this.board.variant !== this.variant) this.board.setVariant(this.variant);
    const flipped = this.flipped();
    if (flipped !== this.board.flipped) this.board.setFlipped(flipped);
    this.board.setLabel(t("board.label", { variant: t(`variant.${this.variant}`) }));
    this.heading.textContent = this.host.heading?.() ?? t(`variant.${this.variant}`);
    this.board.setPieces(pieces);
    this.boardBox.classList.toggle("waiting", !s);
    this.boardBox.classList.toggle("previewing", Boolean(this.preview));
    const onItsWay = this.pending && this.link === "online" ? this.pending.move : null;
    const past = this.review?.shown();
    const last = past ? past.last : this.preview || onItsWay || s?.last_move || null;
    const lastMove = parseMove(last);
    const shownPly = past ? past.ply : (s?.ply ?? 0) + (onItsWay ? 1 : 0);
    if (!this.preview && last !== this.shownLastMove) {
      const forward = this.shownPly !== undefined && shownPly > this.shownPly;
      if (forward && lastMove && !lastMove.pass) this.board.animateMove(lastMove);
      this.shownLastMove = last;
      this.shownPly = shownPly;
    }
    this.board.setMarks({
      selected: this.preview ? null : this.selected,
      destinations: new Set(this.selected && !this.preview ? this.legalFrom(this.selected) : []),
      lastMove: lastMove && !lastMove.pass ? lastMove : null,
      check: this.preview ? null : this.checkPoint(pieces),
      hint: this.hint,
    });
    this.renderStatus();
    this.renderPlayers();
    this.renderBadges();
    this.renderControls();
    this.renderEnd();
    this.renderMoves();
    this.renderCaptured();
    this.rulesLink.textContent = t("home.rules");
    this.rulesLink.href = `/static/learn/index.html#/rules/${this.variant}`;
    this.host.onRender?.();
    this.review?.afterRender();
  }

  renderStatus() {
    const s = this.state;
    let text = this.host.statusText?.() ?? null;
    if (text === null) {
      if (!s) text = "";
      else if (s.status !== "ongoing") text = this.result().title;
      else if (this.pending) text = t("status.sending");
      else if (this.thinking) text = t("status.thinking");
      else if (this.isLocal) text = t("status.turn_of", { side: t(`side.${s.turn}`) });
      else if (this.myTurn) text = t("status.your_turn");
      else text = this.host.waitingText?.() ?? t("status.their_turn");
      if (s?.in_check && s.status === "ongoing") text += ` — ${t("status.check")}`;
    }
    this.statusText.textContent = text;
    this.statusLine.classList.toggle("thinking", this.thinking && this.ongoing);
    const clock = s && this.ongoing ? this.host.clockText?.(s.turn) ?? "" : this.host.clockText?.(null) ?? "";
    this.clock.textContent = clock ? ` · ${clock}` : "";
    this.clock.hidden = !clock;
    let notice = this.notice;
    if (this.link === "offline") notice = t("notice.offline");
    else if (this.link === "connecting" && this.pending) notice = t("notice.reconnecting");
    this.noticeLine.textContent = notice;
    this.noticeLine.hidden = !notice;
  }

  playerName(side) {
    const named = this.host.playerName?.(side);
    if (named) return named;
    const s = this.state;
    if (this.isLocal || !s) return t(`side.${side}`);
    return side === s.you ? t("player.you", { side: t(`side.${side}`) }) : t(`side.${side}`);
  }

  renderPlayers() {
    const s = this.state;
    this.players.hidden = !s;
    this.players.innerHTML = "";
    if (!s) return;
    const [first, second] = sideNames(this.variant);
    const totals = this.variant === "janggi" && s.fen ? janggiTotals(s.fen) : null;
    this.players.toggleAttribute("data-janggi-points", Boolean(totals));
    for (const side of this.flipped() ? [first, second] : [second, first]) {
      const toMove = s.turn === side && s.status === "ongoing";
      const row = el("div", {
        class: `player side-${side}${toMove ? " to-move" : ""}`, "data-side": side,
        "data-you": String(side === s.you),
      });
      row.append(el("span", { class: "dot", "aria-hidden": "true" }),
        el("span", { class: "name", "data-name": "" }, this.playerName(side)));
      for (const badge of this.host.playerBadges?.(side) || []) row.append(badge);
      // R4: the mover's turn clock; B7: a game clock shows both sides' time, the mover's running.
      const clock = this.host.clockText?.(side) ?? "";
      if (clock) row.append(el("span", { class: "player-clock", "data-player-clock": "", "data-running": String(toMove) }, clock));
      if (totals) {
        // J8: points decide janggi games; each side's running total (Han's with its 1.5).
        row.append(el("span", { class: "player-points", title: t("janggi.points_title") },
          el("span", { class: "points-label" }, `${t("janggi.points")} `),
          el("span", { "data-points-side": side }, String(totals[side]))));
      }
      if (toMove && this.thinking && side !== s.you && !this.isLocal) {
        row.append(el("span", { class: "thinking-dots", "data-thinking": "" }, t("status.thinking")));
      }
      this.players.append(row);
    }
  }

  renderBadges() {
    const s = this.state;
    this.badges.innerHTML = "";
    if (!s) return;
    this.badges.append(el("span", { class: "badge" }, t(`variant.${this.variant}`)));
    if (s.practice) {
      this.badges.append(el("span", { class: "badge practice", "data-practice": "" }, t("badge.practice")));
    }
    if (s.commitment) {
      this.badges.append(el("span", { class: "badge commitment", title: String(s.commitment) }, t("badge.commitment")));
    }
  }

  renderControls() {
    const s = this.state;
    this.controls.hidden = !s || this.host.mayAct?.() === false;
    this.passButton.hidden = this.variant !== "janggi" || !this.ongoing;
    this.passButton.disabled = !(this.ready && (s?.legal_moves || []).includes("pass"));
    this.resignButton.hidden = !this.ongoing;
    for (const button of [...this.controls.querySelectorAll("[data-i18n-key]"), ...this.viewControls.children]) {
      const key = button.dataset.i18nKey;
      if (!key) continue;
      if (button.classList.contains("icon-button")) {
        button.setAttribute("aria-label", t(key));
        button.title = t(key);
      } else button.textContent = t(key);
    }
  }

  notationOf(index, move) {
    const wanted = chosenNotation(this.variant);
    if (wanted && wanted !== "coordinates") {
      const list = this.state.notation?.[wanted];
      if (Array.isArray(list) && list[index]) return { text: list[index], exact: true, lang: wanted };
      return { text: formatCoordinates(move), exact: false };
    }
    return { text: formatCoordinates(move), exact: true };
  }

  renderMoves() {
    const moves = this.state?.moves || [];
    this.movesHeading.textContent = t("moves.heading");
    this.moveList.setAttribute("aria-label", t("moves.heading"));
    this.moveList.innerHTML = "";
    let missing = false;
    // The moves of a judged repetition that checked or chased carry a mark.
    const marks = new Map((this.state?.ruling?.marks || []).map((mark) => [mark.ply, mark]));
    // Chinese and Korean notations are read out by a voice of their language.
    const languages = { chinese: "zh", korean: "ko" };
    for (let i = 0; i < moves.length; i += 2) {
      const item = el("li", {});
      for (const index of [i, i + 1]) {
        if (index >= moves.length) break;
        const { text, exact, lang } = this.notationOf(index, moves[index]);
        missing ||= !exact;
        if (index % 2) item.append(" ");
        const span = el("span", { class: "move", "data-ply": String(index + 1), lang: languages[lang] ?? null }, text);
        const mark = marks.get(index + 1);
        const kind = mark?.check ? "check" : mark?.chases?.length ? "chase" : null;
        if (kind) {
          span.dataset.repetition = kind;
          span.append(el("span", { class: "repetition-mark", title: t(`moves.mark_${kind}`), "aria-hidden": "true" },
            kind === "check" ? "+" : "→"), el("span", { class: "sr-only" }, ` ${t(`moves.mark_${kind}`)}`));
        }
        item.append(span);
      }
      this.moveList.append(item);
    }
    if (!moves.length) this.moveList.append(el("li", { class: "empty" }, t("moves.none")));
    this.notationNote.hidden = !missing;
    this.notationNote.textContent = missing ? t("moves.notation_missing") : "";
    this.moveList.scrollTop = this.moveList.scrollHeight;
  }

  // Lost pieces per side (FEN letters). Jieqi gets them from the server, which alone knows
  // what a captured face-down piece was ("?" when this viewer may not know, Q5); the other
  // variants compare the starting placement with the current one.
  lostPieces() {
    const [first, second] = sideNames(this.variant);
    const s = this.state;
    if (this.variant === "jieqi") {
      const captured = s.captured || {};
      const letters = (side, hidden) => (captured[side] || []).map((l) => (l === "?" ? hidden : l));
      return { [first]: letters(first, "X"), [second]: letters(second, "x") };
    }
    const count = (fen) => {
      const counts = new Map();
      for (const letter of placementFromFen(fen).values()) counts.set(letter, (counts.get(letter) || 0) + 1);
      return counts;
    };
    const before = count(s.start_fen);
    const now = count(s.fen);
    const lost = { [first]: [], [second]: [] };
    for (const [letter, number] of before) {
      for (let i = now.get(letter) || 0; i < number; i++) lost[sideOf(letter, this.variant)].push(letter);
    }
    return lost;
  }

  renderCaptured() {
    this.captured.innerHTML = "";
    if (!this.state) return;
    const lost = this.lostPieces();
    if (Object.values(lost).some((letters) => letters.length)) {
      this.captured.append(el("h2", { class: "panel-heading" }, t("captured.heading")));
    }
    for (const side of sideNames(this.variant)) {
      const letters = lost[side] || [];
      if (!letters.length) continue;
      const label = t("captured.of", { side: t(`side.${side}`) });
      const row = el("div", {
        class: "captured-row", role: "img", "data-captured-side": side,
        "data-letters": letters.join(""),
        "aria-label": `${label}: ${letters.map((letter) => pieceName(letter, this.variant)).join(", ")}`,
      });
      for (const letter of letters) {
        const holder = el("span", { class: "mini-piece", "aria-hidden": "true" });
        holder.innerHTML = `<svg viewBox="-50 -50 100 100">${pieceSvg(letter, this.variant, settings.pieceStyle)}</svg>`;
        row.append(holder);
      }
      this.captured.append(row);
    }
  }

  // ------------------------------------------------------------------ the end (U6, Q5, Q7)

  /** {title, reason}: who won, and why (E5). */
  result() {
    const s = this.state || {};
    const result = s.result || {};
    let title;
    if (result.reason === "interrupted") title = t("result.interrupted");
    else if (result.reason === "abandoned" || result.reason === "expired") title = t(`status.${result.reason}`);
    else if (result.reason === "unfinished") title = t("result.unfinished"); // an imported "*" record
    else if (!result.winner) title = t("result.draw");
    else if (this.isLocal || !s.you) title = t("result.side_wins", { side: t(`side.${result.winner}`) });
    else title = result.winner === s.you ? t("result.you_win") : t("result.you_lose");
    // An imported record may name its own ending (its Termination tag): shown as written.
    let reason = "";
    if (result.reason) reason = hasText(`reason.${result.reason}`) ? t(`reason.${result.reason}`) : String(result.reason);
    if (result.points && typeof result.points === "object") {
      const parts = Object.entries(result.points).map(([side, value]) => `${t(`side.${side}`)} ${value}`);
      reason += ` (${parts.join(" – ")})`;
    }
    const ruling = s.ruling; // A repetition verdict names its evidence
    if (ruling?.rule === "perpetual_chase" && result.reason === "perpetual_chase") {
      reason += ` ${t("ruling.perpetual_chase", {
        piece: t(`kind.${ruling.piece}`), square: ruling.square, target: t(`kind.${ruling.target}`),
        target_square: ruling.target_square, move: ruling.chase_move })}`;
    } else if (ruling?.rule === "perpetual_check" && result.reason === "perpetual_check") {
      reason += ` ${t("ruling.perpetual_check", { move: ruling.from_move })}`;
    }
    return { title, reason };
  }

  /** The end of the game as a block: result, reason, points, and in jieqi the arrangement
   * as a board and its check against the commitment. A new element each call; a dialog
   * that shows the title itself asks for the rest only. */
  endSummary({ title: withTitle = true } = {}) {
    const s = this.state;
    const { title, reason } = this.result();
    const box = el("div", { class: "end-summary" });
    const points = this.host.pointsText?.(s) || "";
    const words = [withTitle ? sentenceEnd(title) : "", reason, points].filter(Boolean).join(" ");
    box.append(el("p", { class: "end-result", [withTitle ? "data-result" : "data-result-reason"]: "" }, words));
    if (s.practice) box.append(el("p", {}, t("result.practice")));
    if (s.options?.rated) box.append(ratingChange(s));
    if (s.commitment && s.arrangement && s.salt) box.append(this.commitmentCheck());
    return box;
  }

  renderEnd() {
    const finished = this.state && this.state.status !== "ongoing";
    this.endBox.hidden = !finished;
    if (!finished) {
      this.endBox.innerHTML = "";
      this.endKey = null;
      return;
    }
    // Built once per game and language: the commitment check is asynchronous.
    const key = `${this.state.id}|${this.state.seq}|${document.documentElement.lang}`;
    if (this.endKey === key) return;
    this.endKey = key;
    this.endBox.innerHTML = "";
    this.endBox.setAttribute("aria-label", t("end.heading"));
    this.endBox.append(el("h2", { class: "panel-heading" }, t("end.heading")), this.endSummary());
  }

  // Q7: anyone can check that the face-down arrangement was fixed before the first move:
  // SHA-256 of "arrangement|salt" must equal the commitment shown during the game.
  commitmentCheck() {
    const { commitment, arrangement, salt } = this.state;
    const verdict = el("p", { class: "commitment-verdict", "data-commitment": "pending" }, t("end.commitment_unchecked"));
    const placement = parseArrangement(arrangement);
    const listed = [...placement].map(([point, letter]) => `${point} ${pieceName(letter, "jieqi")}`).join(", ");
    const figure = el("figure", { class: "arrangement", "data-arrangement": "" });
    figure.innerHTML = boardDiagram(placement, "jieqi", settings.pieceStyle, {
      flipped: this.flipped(), label: `${t("end.arrangement")}: ${listed}`,
    });
    figure.append(el("figcaption", {}, t("end.arrangement")));
    const details = el("details", {}, el("summary", {}, t("end.commitment_details")),
      el("pre", { class: "commitment-text" }, `${arrangement}\n${salt}\n${commitment}`));
    const box = el("div", { class: "commitment" }, verdict, figure, details);
    if (window.crypto?.subtle) {
      const data = new TextEncoder().encode(`${arrangement}|${salt}`);
      window.crypto.subtle.digest("SHA-256", data).then((digest) => {
        const ok = hexOf(digest) === String(commitment).trim().toLowerCase();
        verdict.textContent = t(ok ? "end.commitment_ok" : "end.commitment_bad");
        verdict.dataset.commitment = ok ? "ok" : "bad";
      });
    }
    return box;
  }

  // ------------------------------------------------------------------ input

  activate(point) {
    this.hint = null;
    if (this.preview) {
      this.hidePreview();
      this.render();
    }
    if (!this.ongoing) {
      announce(t("announce.game_over"));
      return;
    }
    if (this.review?.reviewing) {
      announce(t("review.not_now")); // stepping back never sends a move (N4)
      return;
    }
    if (!this.myTurn || this.pending) {
      announce(this.pending ? t("status.sending") : t("announce.not_your_turn"));
      return;
    }
    if (this.selected && this.legalFrom(this.selected).includes(point)) {
      const move = this.selected + point;
      if (settings.confirmMove) this.askConfirm(move);
      else this.play(move);
      return;
    }
    if (this.selected === point) {
      this.cancel();
      return;
    }
    const destinations = this.legalFrom(point);
    if (destinations.length) {
      this.selected = point;
      this.render();
      const letter = this.displayedPlacement().get(point);
      announce(t("announce.selected", {
        piece: pieceName(letter, this.variant), point, count: destinations.length,
      }));
    } else {
      if (this.selected) this.cancel();
      const letter = this.displayedPlacement().get(point);
      if (letter) announce(t("announce.no_moves", { point }));
    }
  }

  cancel() {
    const previewing = Boolean(this.preview);
    this.hidePreview();
    if (this.selected || previewing) {
      this.selected = null;
      this.render();
      announce(t("announce.cancelled"));
    }
  }

  // U4 "Confirm before move": the move is drawn on the board while the question waits.
  askConfirm(move) {
    this.preview = move;
    this.render();
    this.confirmBar.innerHTML = "";
    const text = el("span", { "data-confirm-text": "" }, t("confirm.move", { move: formatCoordinates(move) }));
    const yes = this.button("confirm.play", () => {
      this.hidePreview();
      this.play(move);
    }, { "data-action": "confirm-move", class: "button primary" });
    const no = this.button("confirm.cancel", () => this.cancel(), { "data-action": "cancel-move" });
    this.confirmBar.append(text, yes, no);
    this.confirmBar.hidden = false;
    yes.focus();
    this.writeConfirm(move, text);
  }

  // U4 with N1–N3: the question names the move as the move list will (WXF, Chinese, Korean),
  // written by the server, which alone writes notations; coordinates until it answers.
  async writeConfirm(move, span) {
    const wanted = chosenNotation(this.variant);
    const id = this.state?.id;
    if (!wanted || wanted === "coordinates" || !id) return;
    try {
      const answer = await api("GET", `/api/games/${encodeURIComponent(id)}/notation?move=${encodeURIComponent(move)}`);
      const written = answer.notation?.[wanted];
      if (written && this.preview === move) span.textContent = t("confirm.move", { move: written });
    } catch {
      // the coordinates stay
    }
  }

  hidePreview() {
    this.preview = null;
    if (this.confirmBar.hidden) return;
    const hadFocus = this.confirmBar.contains(document.activeElement);
    this.confirmBar.hidden = true;
    this.confirmBar.innerHTML = "";
    if (hadFocus) this.board.focusPoint(this.board.focused);
  }

  async play(move) {
    const ply = this.state.ply ?? (this.state.moves || []).length;
    this.selected = null;
    this.pending = { move, ply: ply + 1 };
    this.notice = "";
    this.render();
    const reply = await this.host.send("move", { ply, move });
    // The acknowledgement may overtake the move event: keep showing the move until the
    // state that contains it arrives (update clears it), so the piece never jumps back.
    const confirmed = reply.type === "ack" && (this.state.ply ?? 0) < ply + 1;
    if (this.pending?.move === move && !confirmed) this.pending = null;
    if (confirmed) {
      setTimeout(() => {
        if (this.pending?.move === move) this.host.resync?.();
      }, 2000);
    }
    if (reply.type === "error") this.notice = refusal(reply);
    if (this.notice) announce(this.notice);
    this.render();
    if (this.board.svg.contains(document.activeElement) || document.activeElement === document.body) {
      this.board.focusPoint(this.board.focused);
    }
  }

  // J6, J8: two passes in a row end the game by points. Passing lets the opponent end it at
  // once (or ends it, after the opponent's pass): say so, with the current totals.
  async pass() {
    if (!this.ready) return;
    const totals = janggiTotals(this.state.fen);
    const leader = totals.cho > totals.han ? "cho" : "han";
    const ends = this.state.last_move === "pass";
    const ok = await confirmDialog(t("pass.title"), t(ends ? "pass.ends" : "pass.reply_ends", {
      cho: totals.cho, han: totals.han, leader: t(`side.${leader}`),
    }), t("pass.confirm"));
    if (ok && this.ready) await this.play("pass");
  }

  async resign() {
    if (!this.ongoing) return;
    const ok = await confirmDialog(t("resign.title"), t("resign.question"), t("resign.confirm"));
    if (!ok) return;
    const reply = await this.host.send("resign");
    if (reply?.type === "error") this.say(refusal(reply));
  }

  // ------------------------------------------------------------------ announcements (U7, U9)

  announceMove(move, beforeState) {
    const parsed = parseMove(move);
    if (!parsed) return;
    const names = sideNames(this.variant);
    const side = t(`side.${names[this.state.turn === names[0] ? 1 : 0]}`);
    if (parsed.pass) {
      announce(t("announce.pass", { side }));
      playSound("move");
      return;
    }
    const beforePieces = placementFromFen(beforeState?.fen || "");
    const after = placementFromFen(this.state.fen);
    const moved = after.get(parsed.to);
    const taken = beforePieces.get(parsed.to);
    // A jieqi piece is named as it was when it set off (face down), then what it turned out to be.
    const before = beforePieces.get(parsed.from);
    const revealed = before && kindOf(before) === "hidden" && moved && kindOf(moved) !== "hidden";
    const mover = revealed ? before : moved;
    let text = t("announce.move", {
      side, piece: mover ? t(`kind.${kindOf(mover)}`) : "", from: parsed.from, to: parsed.to,
    });
    if (taken) text += `, ${t("announce.captures", { piece: this.takenName(taken, beforeState) })}`;
    if (revealed) text += `, ${t("announce.revealed", { piece: t(`kind.${kindOf(moved)}`) })}`;
    if (this.state.in_check) text += `, ${t("status.check")}`;
    announce(text);
    playSound(this.state.in_check ? "check" : taken ? "capture" : "move");
  }

  // Q5: a face-down piece taken is named as the capturer learnt it (the newest capture).
  takenName(taken, beforeState) {
    if (kindOf(taken) === "hidden" && this.variant === "jieqi") {
      const side = sideOf(taken, this.variant);
      const now = this.state.captured?.[side] || [];
      const then = beforeState?.captured?.[side] || [];
      const letter = now.length > then.length ? now[now.length - 1] : "?";
      if (letter !== "?") return pieceName(letter, this.variant);
    }
    return pieceName(taken, this.variant);
  }

  destroy() {
    this.review?.destroy();
    this.unsubscribe();
  }
}
