// The play view (SPEC U1–U9, N1–N3, Q5, Q7, J6, J8): one module draws and drives a game of
// every kind — against the AI, on one device, in a room. It shows the state the server
// confirmed (the socket hands it over after events.js applied each event), turns taps and
// keys into moves, and keeps the player informed: last move, check, the move list in the
// chosen notation, captured pieces, announcements, the result with its reason, and in jieqi
// the face-up board and the commitment check at the end.
//
// What differs by kind comes from the host (game.js, room.js): how to send, the players'
// names, clocks, its own buttons and panels. Its parts, each a module of its own: the page
// (play_layout.js), the move input (move_input.js, shared with the puzzles), the players
// (players_panel.js), the move list and captured pieces (move_list.js), a move said aloud
// (move_news.js), the end of the game (game_end.js); janggi's points come from the server
// (facts.js).
import { BoardView } from "./board.js";
import { refusal } from "./errors.js";
import { janggiTotals } from "./facts.js";
import { endSummary, parseArrangement, renderEndBox, resultOf } from "./game_end.js";
import { t } from "./i18n.js";
import { MoveInput } from "./move_input.js";
import { notationOf, renderCaptured, renderMoves, writtenMove } from "./move_list.js";
import { announceMove } from "./move_news.js";
import { kindOf, parseMove, placementFromFen, sideNames } from "./position.js";
import { renderBadges, renderPlayers } from "./players_panel.js";
import { onSettingsChange, settings } from "./settings.js";
import { Review } from "./review.js";
import { playLayout } from "./play_layout.js";
import { playSound } from "./sound.js";
import { announce, confirmDialog, iconButton, textButton } from "./ui.js";
import { pointLabel, sentenceEnd } from "./wording.js";

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
    this.hint = null;
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

  /** The point selected to move from (the move input's). */
  get selected() {
    return this.input.selected;
  }

  set selected(point) {
    this.input.selected = point;
  }

  /** A move waiting for "Play?" (U4), shown on the board. */
  get preview() {
    return this.input.preview;
  }

  // ------------------------------------------------------------------ layout

  build() {
    this.root.innerHTML = "";
    Object.assign(this, playLayout(this.host.kind, this.host.attributes));
    this.root.append(this.layout);

    this.board = new BoardView(this.boardBox, {
      onActivate: (point) => this.activate(point),
      onCancel: () => this.input.cancel(),
      describe: (point, letter, flags) => pointLabel(point, letter, this.variant, flags),
    });
    this.input = new MoveInput(this.board, this.confirmBar, {
      variant: () => this.variant,
      legalMoves: () => (this.ready ? this.state.legal_moves || [] : []),
      refusal: () => this.whyNotNow(),
      pieceAt: (point) => this.displayedPlacement().get(point),
      play: (move) => this.play(move),
      render: () => this.render(),
      describe: (move, span) => this.writeConfirm(move, span),
    });
    this.board.setVariant(this.variant);
    this.board.setStyle(settings.pieceStyle);
    this.buildControls();
  }

  /** A text button that follows the language (ui.js), for the hosts' own controls. */
  button(key, handler, extra = {}) {
    return textButton(key, handler, extra);
  }

  buildControls() {
    this.passButton = this.button("action.pass", () => this.pass(), { "data-action": "pass" });
    this.resignButton = this.button("action.resign", () => this.resign(), {
      "data-action": "resign", class: "button danger",
    });
    this.controls.append(this.passButton, this.resignButton);
    this.viewControls.append(
      iconButton("view.zoom_in", "+", () => this.board.zoom(1.4)),
      iconButton("view.zoom_out", "−", () => this.board.zoom(1 / 1.4)),
      iconButton("view.full", "⤢", () => this.board.resetView()),
      iconButton("view.flip", "⇅", () => {
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
      this.input.reset();
      this.hint = null;
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
    if (state.ply !== before?.ply || state.status !== "ongoing") this.input.hidePreview();
    if (this.selected && !this.legalFrom(this.selected).length) this.selected = null;
    if (event?.type === "move") {
      this.thinking = false;
      this.notice = "";
      if (sameGame) announceMove(event.move, state, before, this.variant);
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
    return this.input.legalFrom(point);
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
    renderBadges(this.badges, this.state, this.variant);
    this.renderControls();
    this.renderEnd();
    renderMoves({ heading: this.movesHeading, list: this.moveList, note: this.notationNote }, s, this.variant);
    renderCaptured(this.captured, s, this.variant);
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
    renderPlayers(this.players, {
      state: this.state, variant: this.variant, flipped: this.flipped(), thinking: this.thinking,
      local: this.isLocal, name: (side) => this.playerName(side),
      badges: (side) => this.host.playerBadges?.(side) || [], clock: (side) => this.host.clockText?.(side) ?? "",
    });
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

  /** The move at ``index`` in the player's notation (move_list.js; the review reads it too). */
  notationOf(index, move) {
    return notationOf(this.state, this.variant, index, move);
  }

  // ------------------------------------------------------------------ the end (U6, Q5, Q7)

  /** {title, reason}: who won, and why (E5). */
  result() {
    return resultOf(this.state, this.isLocal);
  }

  /** The end of the game as a block (game_end.js); ``title: false`` for a dialog that shows
   * the title itself. */
  endSummary({ title = true } = {}) {
    const points = this.host.pointsText?.(this.state) || "";
    return endSummary(this.state, { local: this.isLocal, points, flipped: this.flipped(), title });
  }

  renderEnd() {
    const finished = this.state && this.state.status !== "ongoing";
    // Built once per game and language: the commitment check is asynchronous.
    const key = finished ? `${this.state.id}|${this.state.seq}|${document.documentElement.lang}` : null;
    if (this.endKey !== key) renderEndBox(this.endBox, finished ? this.endSummary() : null);
    this.endKey = key;
  }

  // ------------------------------------------------------------------ input

  activate(point) {
    this.hint = null;
    this.input.activate(point);
  }

  /** Why a tap cannot move now (announced), or null. */
  whyNotNow() {
    if (!this.ongoing) return t("announce.game_over");
    if (this.review?.reviewing) return t("review.not_now"); // stepping back never sends a move (N4)
    if (!this.myTurn || this.pending) return this.pending ? t("status.sending") : t("announce.not_your_turn");
    return null;
  }

  cancel() {
    this.input.cancel();
  }

  // U4 with N1–N3: the question names the move as the move list will; coordinates until
  // the server answers.
  async writeConfirm(move, span) {
    const written = await writtenMove(this.state?.id, this.variant, move);
    if (written && this.preview === move) span.textContent = t("confirm.move", { move: written });
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

  destroy() {
    this.review?.destroy();
    this.unsubscribe();
  }
}
