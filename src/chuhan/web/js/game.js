// A game against the AI or on one device (SPEC P1–P6, A4, A5): the play view (play.js) on a
// game socket, plus what only these games have: undo, hint, the draw offer to the AI (or an
// agreed draw on one device), the AI's thinking, and the end-of-game dialog.
import { PlaySocket } from "./connection.js";
import { refusal } from "./errors.js";
import { t } from "./i18n.js";
import { PlayView } from "./play.js";
import { parseMove, sideNames } from "./position.js";
import { announce, confirmDialog, showDialog } from "./ui.js";
import { formatCoordinates } from "./wording.js";

export class GameScreen {
  constructor(root, state) {
    this.view = new PlayView(root, {
      kind: state.kind,
      variant: state.variant,
      attributes: { "data-game": state.id },
      send: (type, fields) => this.socket.request(type, fields),
      resync: () => this.socket.resync(),
      playerName: (side) => this.playerName(side),
      waitingText: () => t("status.their_turn"),
      pointsText: (s) => (s.points_awarded ? t("result.points", { points: s.points_awarded }) : ""),
      heading: () => `${t(`variant.${state.variant}`)} · ${t(this.isLocal ? "home.local" : "home.ai")}`,
      onRender: () => this.renderControls(),
      onEnd: () => this.showEnd(),
    });
    this.buildControls();
    this.view.update(state);
    this.socket = new PlaySocket(`/ws/games/${encodeURIComponent(state.id)}`, { state }, {
      onEvent: (event, next) => this.onEvent(event, next),
      onMessage: (message) => this.onMessage(message),
      onStatus: (status) => this.view.setLink(status),
    });
    this.socket.start();
    this.view.board.focusPoint(this.view.flipped() ? "e10" : "e1", { move: false });
  }

  get state() {
    return this.view.state;
  }

  get board() {
    return this.view.board;
  }

  get isLocal() {
    return this.state.kind === "local";
  }

  /** The language changed: draw everything again. */
  render() {
    this.view.render();
  }

  playerName(side) {
    const s = this.state;
    if (this.isLocal) return t(`side.${side}`);
    if (side === s.you) return t("player.you", { side: t(`side.${side}`) });
    return t("player.ai", { side: t(`side.${side}`), level: t(`level.${s.level}`) });
  }

  buildControls() {
    const view = this.view;
    this.actions = {
      undo: view.button("action.undo", () => this.undo(), { "data-action": "undo" }),
      hint: view.button("action.hint", () => this.askHint(), { "data-action": "hint" }),
      draw: view.button(this.view.host.kind === "local" ? "action.draw_local" : "action.draw",
        () => this.offerDraw(), { "data-action": "draw" }),
    };
    view.addControls(...Object.values(this.actions));
    this.resultButton = view.button("action.show_result", () => this.showEnd(), { "data-action": "result" });
    view.controls.append(this.resultButton);
  }

  renderControls() {
    const s = this.state;
    if (!this.actions || !s) return;
    const ongoing = s.status === "ongoing";
    this.actions.undo.disabled = !(ongoing && (s.moves || []).length > 0 && !this.view.pending);
    this.actions.hint.disabled = !this.view.ready;
    for (const button of Object.values(this.actions)) button.hidden = !ongoing;
    this.resultButton.hidden = ongoing;
  }

  // ------------------------------------------------------------------ requests

  async undo() {
    if (!this.state.practice && !this.isLocal) {
      const ok = await confirmDialog(t("undo.title"), t("undo.warning"), t("undo.confirm"));
      if (!ok) return;
    }
    this.view.selected = null;
    this.refused(await this.socket.request("undo"));
  }

  async askHint() {
    const reply = await this.socket.request("hint");
    if (reply.type === "hint" && reply.move) {
      const move = parseMove(reply.move);
      this.view.hint = move && !move.pass ? move : null;
      this.view.render();
      announce(t("announce.hint", { move: formatCoordinates(reply.move) }));
    } else this.refused(reply);
  }

  async offerDraw() {
    if (this.isLocal) {
      const ok = await confirmDialog(t("draw_local.title"), t("draw_local.question"), t("draw_local.confirm"));
      if (!ok) return;
    } else {
      // The AI may accept at once (A5), ending the game: a scored one for no points (P4).
      const question = this.state?.practice ? "draw_ai.question_practice" : "draw_ai.question";
      const ok = await confirmDialog(t("draw_ai.title"), t(question), t("draw_ai.confirm"));
      if (!ok) return;
    }
    announce(t("announce.draw_offered"));
    this.refused(await this.socket.request("draw_offer"));
  }

  refused(reply) {
    if (reply?.type === "error") this.view.say(refusal(reply));
  }

  // ------------------------------------------------------------------ server events

  onEvent(event, state) {
    if (event.type === "thinking") {
      this.view.update(state, event);
      this.view.setThinking(true);
      return;
    }
    if (event.type === "draw_declined") this.view.notice = t("notice.draw_declined");
    if (event.type === "undo") announce(t("announce.undone"));
    this.view.update(state, event);
    if (event.type === "draw_declined") announce(this.view.notice);
  }

  onMessage(message) {
    if (message.type === "busy") this.view.say(t("notice.busy"));
  }

  // P1: "New game" starts the same kind of game with the same choices.
  againAddress() {
    const s = this.state;
    const query = new URLSearchParams({ variant: s.variant });
    if (!this.isLocal) {
      query.set("level", s.level);
      query.set("color", s.you);
    }
    if (s.variant === "janggi") {
      const setup = s.options?.setup || {};
      const [cho, han] = sideNames("janggi");
      if (this.isLocal) {
        if (setup[cho]) query.set("setup", setup[cho]);
        if (setup[han]) query.set("setup_other", setup[han]);
      } else if (setup[s.you]) query.set("setup", setup[s.you]);
      if (s.options?.bikjang === "points") query.set("bikjang", "points");
    } else if (s.options?.rules === "wxf") query.set("rules", "wxf");
    return `/play/${this.isLocal ? "local" : "ai"}?${query}`;
  }

  showEnd() {
    const { title } = this.view.result();
    const body = this.view.endSummary({ title: false });
    showDialog({
      title,
      body,
      attributes: { "data-end-dialog": "" },
      actions: [
        { label: t("end.new_game"), href: this.againAddress(), primary: true, attributes: { "data-action": "new-game" } },
        { label: t("end.home"), href: "/" },
        { label: t("end.review"), close: true },
      ],
    });
  }

  destroy() {
    this.socket.stop();
    this.view.destroy();
  }
}
