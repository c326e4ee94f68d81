// The move input (U3, U4, U9): a tap or a key on a point selects a piece that may move, a
// second one on a destination plays the move, or, with "Confirm before move", first asks
// "Play …?" under the board while the move is drawn on it. The same hands for a game (play.js)
// and a puzzle (puzzles.js); what may be played, and why a tap is refused, is the host's.
import { t } from "./i18n.js";
import { parseMove } from "./position.js";
import { settings } from "./settings.js";
import { announce, el, textButton } from "./ui.js";
import { formatCoordinates, pieceName } from "./wording.js";

export class MoveInput {
  /**
   * board: the BoardView; bar: the element the question goes in (hidden until asked).
   * host: variant() → variant; legalMoves() → the moves that may be played now ([] when
   *   none may); refusal() → why a tap cannot move now (a text), or null;
   *   pieceAt(point) → the letter shown there; play(move); render();
   *   describe(move, span) (optional): write the move in the question as the player reads it.
   */
  constructor(board, bar, host) {
    this.board = board;
    this.bar = bar;
    this.host = host;
    this.selected = null;
    this.preview = null; // a move waiting for "Play?" (U4)
    bar.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      this.cancel();
    });
  }

  /** The points the piece on ``point`` may move to now. */
  legalFrom(point) {
    return this.host.legalMoves()
      .map(parseMove)
      .filter((move) => move && !move.pass && move.from === point)
      .map((move) => move.to);
  }

  /** A tap, a click or Enter on ``point``. */
  activate(point) {
    if (this.preview) {
      this.hidePreview();
      this.host.render();
    }
    const refused = this.host.refusal();
    if (refused !== null) {
      if (refused) announce(refused);
      return;
    }
    if (this.selected && this.legalFrom(this.selected).includes(point)) {
      const move = this.selected + point;
      if (settings.confirmMove) this.askConfirm(move);
      else this.host.play(move);
      return;
    }
    if (this.selected === point) {
      this.cancel();
      return;
    }
    const destinations = this.legalFrom(point);
    const letter = this.host.pieceAt(point);
    if (destinations.length) {
      this.selected = point;
      this.host.render();
      announce(t("announce.selected", { piece: pieceName(letter, this.host.variant()), point, count: destinations.length }));
    } else {
      if (this.selected) this.cancel();
      if (letter) announce(t("announce.no_moves", { point }));
    }
  }

  /** Escape, or a second tap on the selected piece: nothing selected, no question open. */
  cancel() {
    const previewing = Boolean(this.preview);
    this.hidePreview();
    if (!this.selected && !previewing) return;
    this.selected = null;
    this.host.render();
    announce(t("announce.cancelled"));
  }

  /** A new game or position: nothing selected, no question open. */
  reset() {
    this.selected = null;
    this.hidePreview();
  }

  // U4 "Confirm before move": the move is drawn on the board while the question waits.
  askConfirm(move) {
    this.preview = move;
    this.host.render();
    this.bar.innerHTML = "";
    const text = el("span", { "data-confirm-text": "" }, t("confirm.move", { move: formatCoordinates(move) }));
    const yes = textButton("confirm.play", () => {
      this.hidePreview();
      this.host.play(move);
    }, { "data-action": "confirm-move", class: "button primary" });
    const no = textButton("confirm.cancel", () => this.cancel(), { "data-action": "cancel-move" });
    this.bar.append(text, yes, no);
    this.bar.hidden = false;
    yes.focus();
    this.host.describe?.(move, text);
  }

  hidePreview() {
    this.preview = null;
    if (this.bar.hidden) return;
    const hadFocus = this.bar.contains(document.activeElement);
    this.bar.hidden = true;
    this.bar.innerHTML = "";
    if (hadFocus) this.board.focusPoint(this.board.focused);
  }
}
