// The game screen (SPEC U3–U7, U9, P3, P5): shows the confirmed state from the server,
// turns taps and keys into moves, and keeps the player informed.
import { BoardView } from "./board.js";
import { GameSocket } from "./connection.js";
import { t } from "./i18n.js";
import { pieceSvg } from "./pieces.js";
import { kindOf, parseMove, placementFromFen, sideNames, sideOf } from "./position.js";
import { onSettingsChange, settings } from "./settings.js";
import { playSound } from "./sound.js";
import { announce, confirmDialog, el, showDialog } from "./ui.js";

function pieceName(letter, variant) {
  const kind = kindOf(letter);
  const side = t(`owner.${sideOf(letter, variant)}`);
  if (kind === "hidden") return t("piece.hidden", { side });
  return t("piece.named", { side, piece: t(`kind.${kind}`) });
}

// Known error codes (docs/protocol.md) in the player's language; others say "refused".
const KNOWN_ERRORS = [
  "illegal_move", "stale_move", "not_your_turn", "game_over", "nothing_to_undo", "busy", "stale",
  "not_found",
];

function refusal(reply) {
  const reason = KNOWN_ERRORS.includes(reply.code) ? t(`error.${reply.code}`) : t("error.other");
  return t("notice.refused", { message: reason });
}

export function formatCoordinates(move) {
  const parsed = parseMove(move);
  if (!parsed) return move;
  return parsed.pass ? t("move.pass") : `${parsed.from}-${parsed.to}`;
}

export class GameScreen {
  constructor(root, state) {
    this.root = root;
    this.state = state;
    this.pending = null; // {move, id} sent but not yet confirmed
    this.selected = null;
    this.hint = null;
    this.thinking = Boolean(state.thinking) && state.status === "ongoing";
    this.status = "connecting";
    this.notice = "";
    this.flipped = this.defaultFlip();
    this.endShown = state.status !== "ongoing";
    this.build();
    this.socket = new GameSocket(state.id, state.seq ?? null, {
      onEvent: (event) => this.onEvent(event),
      onStatus: (status) => this.onStatus(status),
    });
    this.socket.start();
    this.unsubscribe = onSettingsChange((_, patch) => {
      if ("pieceStyle" in patch) this.board.setStyle(settings.pieceStyle);
      this.render();
    });
    this.render();
    this.board.focusPoint(this.initialFocus(), { move: false });
  }

  defaultFlip() {
    const [, second] = sideNames(this.state.variant);
    return this.state.you === second;
  }

  get variant() {
    return this.state.variant;
  }

  get isLocal() {
    return this.state.kind === "local";
  }

  get myTurn() {
    const s = this.state;
    return s.status === "ongoing" && (s.you === null || s.you === undefined || s.you === s.turn);
  }

  initialFocus() {
    return this.flipped ? "e10" : "e1";
  }

  // ------------------------------------------------------------------ layout

  build() {
    this.root.innerHTML = "";
    this.boardBox = el("div", { class: "board-box" });
    this.statusLine = el("p", { class: "status-line", id: "status-line", role: "status" });
    this.noticeLine = el("p", { class: "notice", "data-notice": "", hidden: "" });
    this.confirmBar = el("div", { class: "confirm-bar", hidden: "" });
    this.confirmBar.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      this.cancel();
    });
    const side = el("aside", { class: "side-panel" });
    this.players = el("div", { class: "players" });
    this.badges = el("div", { class: "badges" });
    this.moveList = el("ol", { class: "move-list", "aria-label": "" });
    this.notationNote = el("p", { class: "note", hidden: "" });
    this.controls = el("div", { class: "controls" });
    this.viewControls = el("div", { class: "view-controls" });
    this.captured = el("div", { class: "captured" });
    this.movesHeading = el("h2", { class: "panel-heading" });
    side.append(this.players, this.badges, this.controls, this.movesHeading, this.notationNote,
      this.moveList, this.captured);
    side.append(el("a", {
      href: `/static/learn/index.html#/rules/${this.state.variant}`, target: "_blank", rel: "noopener",
      class: "rules-link", "data-action": "rules", "data-i18n": "home.rules",
    }, t("home.rules")));
    const main = el("div", { class: "game-main" });
    main.append(this.statusLine, this.noticeLine, this.boardBox, this.confirmBar, this.viewControls);
    const layout = el("div", { class: "game-layout", "data-game": this.state.id });
    this.layout = layout;
    // A screen reader's heading list starts with what this page is (U9).
    this.heading = el("h1", { class: "sr-only" });
    layout.append(this.heading, main, side);
    this.root.append(layout);
    this.board = new BoardView(this.boardBox, {
      onActivate: (point) => this.activate(point),
      onCancel: () => this.cancel(),
      describe: (point, letter, flags) => this.describePoint(point, letter, flags),
    });
    this.board.setVariant(this.variant);
    this.board.setStyle(settings.pieceStyle);
    this.board.setFlipped(this.flipped);
    this.buildControls();
  }

  describePoint(point, letter, { selected, destination }) {
    let label = `${point}, ${letter ? pieceName(letter, this.variant) : t("point.empty")}`;
    if (selected) label += `, ${t("point.selected")}`;
    if (destination) label += `, ${t("point.destination")}`;
    return label;
  }

  button(key, action, extra = {}) {
    const button = el("button", { type: "button", class: "button", "data-i18n-key": key, ...extra }, t(key));
    button.addEventListener("click", action);
    return button;
  }

  iconButton(key, icon, action) {
    const button = el("button", {
      type: "button", class: "icon-button", "aria-label": t(key), title: t(key), "data-i18n-key": key,
    });
    button.innerHTML = icon;
    button.addEventListener("click", action);
    return button;
  }

  // ------------------------------------------------------------------ what is shown

  displayedPlacement() {
    const pieces = placementFromFen(this.state.fen);
    if (this.pending && this.status === "online") {
      const move = parseMove(this.pending.move);
      if (move && !move.pass) {
        pieces.set(move.to, pieces.get(move.from));
        pieces.delete(move.from);
      }
    }
    return pieces;
  }

  legalFrom(point) {
    if (!this.myTurn || this.pending) return [];
    return (this.state.legal_moves || [])
      .map(parseMove)
      .filter((move) => move && !move.pass && move.from === point)
      .map((move) => move.to);
  }

  checkPoint(pieces) {
    // Also after the game ends, so that a mated general stays marked.
    if (!this.state.in_check) return null;
    const first = sideNames(this.variant)[0] === this.state.turn;
    const general = first ? "K" : "k";
    for (const [point, letter] of pieces) if (letter === general) return point;
    return null;
  }

  render() {
    const s = this.state;
    const pieces = this.displayedPlacement();
    // Stable hooks for tests and tools: what the confirmed state is right now.
    Object.assign(this.layout.dataset, {
      ply: String(s.ply ?? (s.moves || []).length), turn: s.turn, status: s.status,
      myTurn: String(this.myTurn && !this.pending), link: this.status,
    });
    this.board.setLabel(t("board.label", { variant: t(`variant.${this.variant}`) }));
    this.heading.textContent = `${t(`variant.${this.variant}`)} · ${t(this.isLocal ? "home.local" : "home.ai")}`;
    this.board.setPieces(pieces);
    const last = this.pending && this.status === "online" ? this.pending.move : s.last_move;
    const lastMove = parseMove(last);
    const shownPly = (s.ply ?? 0) + (this.pending && this.status === "online" ? 1 : 0);
    if (last !== this.shownLastMove) {
      const forward = this.shownPly !== undefined && shownPly > this.shownPly;
      if (forward && lastMove && !lastMove.pass) this.board.animateMove(lastMove);
      this.shownLastMove = last;
      this.shownPly = shownPly;
    }
    this.board.setMarks({
      selected: this.selected,
      destinations: new Set(this.selected ? this.legalFrom(this.selected) : []),
      lastMove: lastMove && !lastMove.pass ? lastMove : null,
      check: this.checkPoint(pieces),
      hint: this.hint,
    });
    this.renderStatus();
    this.renderPlayers();
    this.renderControls();
    this.renderMoves();
    this.renderCaptured();
  }

  renderStatus() {
    const s = this.state;
    let text;
    if (s.status !== "ongoing") text = this.resultText().title;
    else if (this.pending) text = t("status.sending");
    else if (this.thinking) text = t("status.thinking");
    else if (this.isLocal) text = t("status.turn_of", { side: t(`side.${s.turn}`) });
    else text = this.myTurn ? t("status.your_turn") : t("status.their_turn");
    if (s.in_check && s.status === "ongoing") text += ` — ${t("status.check")}`;
    this.statusLine.textContent = text;
    this.statusLine.classList.toggle("thinking", this.thinking && s.status === "ongoing");
    let notice = this.notice;
    if (this.status === "offline") notice = t("notice.offline");
    else if (this.status === "connecting" && this.pending) notice = t("notice.reconnecting");
    this.noticeLine.textContent = notice;
    this.noticeLine.hidden = !notice;
  }

  renderPlayers() {
    const s = this.state;
    const [first, second] = sideNames(this.variant);
    const name = (side) => {
      if (this.isLocal) return t(`side.${side}`);
      if (side === s.you) return t("player.you", { side: t(`side.${side}`) });
      return t("player.ai", { side: t(`side.${side}`), level: t(`level.${s.level}`) });
    };
    this.players.innerHTML = "";
    for (const side of this.flipped ? [first, second] : [second, first]) {
      const toMove = s.turn === side && s.status === "ongoing";
      const row = el("div", { class: `player side-${side}${toMove ? " to-move" : ""}` });
      row.append(el("span", { class: "dot", "aria-hidden": "true" }), el("span", { class: "name" }, name(side)));
      if (!this.isLocal && side !== s.you && this.thinking) {
        row.append(el("span", { class: "thinking-dots", "data-thinking": "" }, t("status.thinking")));
      }
      this.players.append(row);
    }
    this.badges.innerHTML = "";
    const variantBadge = el("span", { class: "badge" }, t(`variant.${this.variant}`));
    this.badges.append(variantBadge);
    if (s.practice) {
      this.badges.append(el("span", { class: "badge practice", "data-practice": "" }, t("badge.practice")));
    }
    if (s.commitment) {
      const title = String(s.commitment);
      this.badges.append(el("span", { class: "badge commitment", title }, t("badge.commitment")));
    }
  }

  // The buttons are made once and only updated, so that keyboard focus on them survives
  // every server event.
  buildControls() {
    const ongoing = () => this.state.status === "ongoing";
    this.actions = {
      undo: this.button("action.undo", () => this.undo(), { "data-action": "undo" }),
      hint: this.button("action.hint", () => this.askHint(), { "data-action": "hint" }),
      pass: this.button("action.pass", () => this.play("pass"), { "data-action": "pass" }),
      draw: this.button(this.isLocal ? "action.draw_local" : "action.draw", () => this.offerDraw(), {
        "data-action": "draw",
      }),
      resign: this.button("action.resign", () => ongoing() && this.resign(), {
        "data-action": "resign", class: "button danger",
      }),
      result: this.button("action.show_result", () => this.showEnd(), { "data-action": "result" }),
    };
    this.controls.append(...Object.values(this.actions));
    this.viewControls.append(
      this.iconButton("view.zoom_in", "+", () => this.board.zoom(1.4)),
      this.iconButton("view.zoom_out", "−", () => this.board.zoom(1 / 1.4)),
      this.iconButton("view.full", "⤢", () => this.board.resetView()),
      this.iconButton("view.flip", "⇅", () => {
        this.flipped = !this.flipped;
        this.board.setFlipped(this.flipped);
        this.renderPlayers();
      }),
    );
  }

  renderControls() {
    const s = this.state;
    const ongoing = s.status === "ongoing";
    const ready = this.myTurn && !this.pending;
    const enable = (name, on) => {
      this.actions[name].disabled = !on;
    };
    enable("undo", ongoing && (s.moves || []).length > 0 && !this.pending);
    enable("hint", ready);
    enable("pass", ready && (s.legal_moves || []).includes("pass"));
    enable("draw", ongoing);
    enable("resign", ongoing);
    this.actions.pass.hidden = this.variant !== "janggi";
    this.actions.result.hidden = ongoing;
    for (const button of [...this.controls.children, ...this.viewControls.children]) {
      const key = button.dataset.i18nKey;
      if (!key) continue;
      if (button.classList.contains("icon-button")) {
        button.setAttribute("aria-label", t(key));
        button.title = t(key);
      } else button.textContent = t(key);
    }
  }

  notationOf(index, move) {
    const wanted = settings.notation;
    if (wanted !== "coordinates") {
      const list = this.state.notation?.[wanted];
      if (Array.isArray(list) && list[index]) return { text: list[index], exact: true };
      return { text: formatCoordinates(move), exact: false };
    }
    return { text: formatCoordinates(move), exact: true };
  }

  renderMoves() {
    const moves = this.state.moves || [];
    this.movesHeading.textContent = t("moves.heading");
    this.moveList.setAttribute("aria-label", t("moves.heading"));
    this.moveList.innerHTML = "";
    let missing = false;
    for (let i = 0; i < moves.length; i += 2) {
      const item = el("li", {});
      for (const index of [i, i + 1]) {
        if (index >= moves.length) break;
        const { text, exact } = this.notationOf(index, moves[index]);
        missing ||= !exact;
        // Chinese notation is read out by a Chinese voice; a space keeps the two moves apart.
        const lang = exact && settings.notation === "chinese" ? "zh" : null;
        if (index % 2) item.append(" ");
        item.append(el("span", { class: "move", "data-ply": String(index + 1), lang }, text));
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
    if (this.variant === "jieqi") {
      const captured = this.state.captured || {};
      const letters = (side, hidden) => (captured[side] || []).map((l) => (l === "?" ? hidden : l));
      return { [first]: letters(first, "X"), [second]: letters(second, "x") };
    }
    const count = (fen) => {
      const counts = new Map();
      for (const letter of placementFromFen(fen).values()) counts.set(letter, (counts.get(letter) || 0) + 1);
      return counts;
    };
    const before = count(this.state.start_fen);
    const now = count(this.state.fen);
    const lost = { [first]: [], [second]: [] };
    for (const [letter, number] of before) {
      for (let i = now.get(letter) || 0; i < number; i++) lost[sideOf(letter, this.variant)].push(letter);
    }
    return lost;
  }

  renderCaptured() {
    const lost = this.lostPieces();
    this.captured.innerHTML = "";
    for (const side of sideNames(this.variant)) {
      const letters = lost[side] || [];
      if (!letters.length) continue;
      const label = t("captured.of", { side: t(`side.${side}`) });
      const row = el("div", { class: "captured-row", role: "img", "aria-label": `${label}: ${letters
        .map((letter) => pieceName(letter, this.variant)).join(", ")}` });
      for (const letter of letters) {
        const holder = el("span", { class: "mini-piece", "aria-hidden": "true" });
        const drawing = pieceSvg(letter, this.variant, settings.pieceStyle);
        holder.innerHTML = `<svg viewBox="-50 -50 100 100">${drawing}</svg>`;
        row.append(holder);
      }
      this.captured.append(row);
    }
  }

  // ------------------------------------------------------------------ input

  activate(point) {
    this.hint = null;
    if (this.confirmBar.hidden === false) this.hideConfirm();
    if (this.state.status !== "ongoing") {
      announce(t("announce.game_over"));
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
    this.hideConfirm();
    if (this.selected) {
      this.selected = null;
      this.render();
      announce(t("announce.cancelled"));
    }
  }

  askConfirm(move) {
    this.confirmBar.innerHTML = "";
    const text = el("span", {}, t("confirm.move", { move: formatCoordinates(move) }));
    const yes = this.button("confirm.play", () => {
      this.hideConfirm();
      this.play(move);
    }, { "data-action": "confirm-move", class: "button primary" });
    const no = this.button("confirm.cancel", () => this.cancel(), { "data-action": "cancel-move" });
    this.confirmBar.append(text, yes, no);
    this.confirmBar.hidden = false;
    yes.focus();
  }

  hideConfirm() {
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
    const reply = await this.socket.request("move", { ply, move });
    // The acknowledgement may overtake the move event: keep showing the move until the
    // state that contains it arrives (adopt clears it), so the piece never jumps back.
    const confirmed = reply.type === "ack" && (this.state.ply ?? 0) < (reply.ply ?? 0);
    if (this.pending?.move === move && !confirmed) this.pending = null;
    if (confirmed) {
      setTimeout(() => {
        if (this.pending?.move === move) {
          this.socket.raw({ id: "resync", type: "hello", last_seq: this.socket.lastSeq });
        }
      }, 2000);
    }
    if (reply.type === "error") {
      if (reply.state) this.adopt(reply.state);
      this.notice = refusal(reply);
      announce(this.notice);
    }
    this.render();
    if (this.board.svg.contains(document.activeElement) || document.activeElement === document.body) {
      this.board.focusPoint(this.board.focused);
    }
  }

  async undo() {
    if (!this.state.practice && !this.isLocal) {
      const ok = await confirmDialog(t("undo.title"), t("undo.warning"), t("undo.confirm"));
      if (!ok) return;
    }
    this.selected = null;
    const reply = await this.socket.request("undo");
    this.handleReplyError(reply);
  }

  async askHint() {
    const reply = await this.socket.request("hint");
    if (reply.type === "hint" && reply.move) {
      const move = parseMove(reply.move);
      this.hint = move && !move.pass ? move : null;
      this.render();
      announce(t("announce.hint", { move: formatCoordinates(reply.move) }));
    } else this.handleReplyError(reply);
  }

  async offerDraw() {
    if (this.isLocal) {
      const ok = await confirmDialog(t("draw_local.title"), t("draw_local.question"), t("draw_local.confirm"));
      if (!ok) return;
    }
    announce(t("announce.draw_offered"));
    const reply = await this.socket.request("draw_offer");
    this.handleReplyError(reply);
  }

  async resign() {
    const ok = await confirmDialog(t("resign.title"), t("resign.question"), t("resign.confirm"));
    if (!ok) return;
    const reply = await this.socket.request("resign");
    this.handleReplyError(reply);
  }

  handleReplyError(reply) {
    if (reply?.type !== "error") return;
    if (reply.state) this.adopt(reply.state);
    this.notice = refusal(reply);
    announce(this.notice);
    this.render();
  }

  // ------------------------------------------------------------------ server events

  onStatus(status) {
    const before = this.status;
    this.status = status;
    if (status === "offline") announce(t("notice.offline"));
    if (status === "online" && before === "offline") announce(t("notice.back_online"));
    this.render();
  }

  adopt(state) {
    const previousPly = this.state.ply;
    this.state = state;
    if (this.pending && (state.ply ?? 0) >= this.pending.ply) this.pending = null;
    if ("thinking" in state) this.thinking = Boolean(state.thinking) && state.status === "ongoing";
    if (state.ply !== previousPly || state.status !== "ongoing") this.hint = null;
    if (this.selected && !this.legalFrom(this.selected).length) this.selected = null;
  }

  onEvent(event) {
    const before = this.state;
    const beforePieces = placementFromFen(before.fen);
    switch (event.type) {
      case "state":
        this.adopt(event.state ?? event);
        break;
      case "thinking":
        this.thinking = true;
        announce(t("status.thinking"));
        break;
      case "move":
        this.thinking = false;
        this.notice = "";
        if (event.state) this.adopt(event.state);
        this.announceMove(event.move, beforePieces);
        break;
      case "undo":
        this.thinking = false;
        if (event.state) this.adopt(event.state);
        announce(t("announce.undone"));
        break;
      case "busy":
        this.notice = t("notice.busy");
        break;
      case "draw_declined":
        this.notice = t("notice.draw_declined");
        announce(this.notice);
        break;
      case "end":
        this.thinking = false;
        if (event.state) this.adopt(event.state);
        else this.state = { ...this.state, status: "finished", result: event.result };
        break;
      default:
        return;
    }
    this.render();
    if (event.type === "move" && event.state === undefined) {
      // A move event without its state: ask for the full state rather than guess it.
      this.socket.raw({ id: "resync", type: "hello", last_seq: null });
    }
    if (this.state.status !== "ongoing" && !this.endShown) {
      this.endShown = true;
      playSound("end");
      this.showEnd();
    }
  }

  announceMove(move, beforePieces) {
    const parsed = parseMove(move);
    if (!parsed) return;
    const side = t(`side.${sideNames(this.variant)[this.state.turn === sideNames(this.variant)[0] ? 1 : 0]}`);
    if (parsed.pass) {
      announce(t("announce.pass", { side }));
      playSound("move");
      return;
    }
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
    if (taken) text += `, ${t("announce.captures", { piece: pieceName(taken, this.variant) })}`;
    if (revealed) text += `, ${t("announce.revealed", { piece: t(`kind.${kindOf(moved)}`) })}`;
    if (this.state.in_check) text += `, ${t("status.check")}`;
    announce(text);
    playSound(this.state.in_check ? "check" : taken ? "capture" : "move");
  }

  resultText() {
    const result = this.state.result || {};
    let title;
    if (this.state.status !== "finished" && this.state.status !== "ongoing" && !result.reason) {
      title = t(`status.${this.state.status}`);
    } else if (!result.winner) title = t("result.draw");
    else if (this.isLocal || !this.state.you) title = t("result.side_wins", { side: t(`side.${result.winner}`) });
    else title = result.winner === this.state.you ? t("result.you_win") : t("result.you_lose");
    let reason = result.reason ? t(`reason.${result.reason}`) : "";
    if (result.points && typeof result.points === "object") {
      const parts = Object.entries(result.points).map(([side, value]) => `${t(`side.${side}`)} ${value}`);
      reason += ` (${parts.join(" – ")})`;
    }
    return { title, reason };
  }

  showEnd() {
    const { title, reason } = this.resultText();
    announce(`${title}. ${reason}`);
    const body = el("div", {});
    body.append(el("p", { class: "result-reason", "data-result-reason": "" }, reason));
    if (this.state.practice) body.append(el("p", {}, t("result.practice")));
    if (this.state.points_awarded) {
      body.append(el("p", {}, t("result.points", { points: this.state.points_awarded })));
    }
    if (this.state.commitment && this.state.arrangement && this.state.salt) {
      body.append(this.commitmentCheck());
    }
    const again = this.isLocal
      ? `/play/local?variant=${this.variant}`
      : `/play/ai?variant=${this.variant}&level=${this.state.level}&color=${this.state.you}`;
    showDialog({
      title,
      body,
      attributes: { "data-end-dialog": "" },
      actions: [
        { label: t("end.new_game"), href: again, primary: true },
        { label: t("end.home"), href: "/" },
        { label: t("end.review"), close: true },
      ],
    });
  }

  // Q7: anyone can check that the face-down arrangement was fixed before the first move:
  // SHA-256 of "arrangement|salt" must equal the commitment shown during the game.
  commitmentCheck() {
    const { commitment, arrangement, salt } = this.state;
    const verdict = el("p", { "data-commitment": "pending" }, t("end.commitment_unchecked"));
    const details = el("details", {}, el("summary", {}, t("end.commitment_details")),
      el("pre", { class: "commitment-text" }, `${arrangement}\n${salt}\n${commitment}`));
    const box = el("div", {}, verdict, details);
    if (window.crypto?.subtle) {
      const data = new TextEncoder().encode(`${arrangement}|${salt}`);
      window.crypto.subtle.digest("SHA-256", data).then((digest) => {
        const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
        const ok = hex === String(commitment).trim().toLowerCase();
        verdict.textContent = t(ok ? "end.commitment_ok" : "end.commitment_bad");
        verdict.dataset.commitment = ok ? "ok" : "bad";
      });
    }
    return box;
  }

  destroy() {
    this.socket.stop();
    this.unsubscribe();
  }
}
