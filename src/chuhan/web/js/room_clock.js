// A room's clocks as its screen shows them (SPEC R4, R7, B7, J3, U9): R4's turn clock (the
// mover's seconds), a game clock (both sides' time, the mover's running), the janggi setup
// choice's countdown, paused while both players are away; ticked four times a second against
// the server's clock, and the player's own time said at 60, 30 and 10 s left.
import { formatTime, shownSeconds, sideTime, THRESHOLDS, timeText } from "./clocks.js";
import { t } from "./i18n.js";
import { sideNames } from "./position.js";
import { announce } from "./ui.js";

export class RoomClock {
  /** screen: the RoomScreen (its room, state, view and player). */
  constructor(screen) {
    this.screen = screen;
    this.offset = 0; // server clock minus ours, in ms
    this.heardSeconds = undefined;
    this.shown = undefined;
  }

  /** The room as the server last sent it: ``now`` sets the offset to its clock. */
  heard(room) {
    this.offset = Date.parse(room.now) - Date.now();
  }

  /** The game clock running now (B7, or R4's), null during the setup choice or between games. */
  gameClock() {
    const { room, state, ongoing } = this.screen;
    return ongoing && !room.setup ? state.options?.clock : null;
  }

  deadline() {
    const { room, state, ongoing } = this.screen;
    if (room.setup) {
      return { at: Date.parse(room.setup.deadline), paused: Boolean(room.setup.both_away_since) };
    }
    const clock = ongoing ? state.options?.clock : null;
    if (!clock) return null;
    return { at: Date.parse(clock.deadline), paused: Boolean(clock.both_away_since) };
  }

  secondsLeft() {
    const deadline = this.deadline();
    if (!deadline || Number.isNaN(deadline.at)) return null;
    return { seconds: Math.max(0, Math.ceil((deadline.at - (Date.now() + this.offset)) / 1000)), paused: deadline.paused };
  }

  /** A game clock's (B7) time of ``side`` now, null on R4's turn clock or before a game. */
  gameTime(side) {
    const clock = this.gameClock();
    if (!clock?.control || side === null) return null;
    const index = sideNames(this.screen.room.variant).indexOf(side);
    return sideTime(clock, index, side === this.screen.state.turn, Date.now() + this.offset);
  }

  /** The time left for ``side`` (null: the setup choice's), as shown beside it: on R4's turn
   * clock the mover's alone, on a game clock (B7) both sides', the mover's running (its first
   * move on the turn time). */
  text(side) {
    const left = this.secondsLeft();
    const clock = this.gameClock();
    const toMove = side !== null && side === this.screen.state?.turn;
    if (clock?.control && side !== null && !(toMove && (clock.free_turn || left?.paused))) {
      return timeText(this.gameTime(side));
    }
    if (!left || (side !== null && !toMove)) return "";
    if (left.paused) return t("room.clock_paused");
    if (clock?.control) return t("clock.first_move", { time: formatTime(left.seconds) });
    return t("room.seconds", { seconds: left.seconds });
  }

  /** The seconds left of the player's own running clock (null: not their turn). */
  ownSeconds() {
    const { room, state, ongoing, you } = this.screen;
    const left = this.secondsLeft();
    if (!left || left.paused) return null;
    const mine = room.setup ? room.setup.turn : ongoing && state.turn;
    if (!mine || mine !== you) return null;
    const clock = ongoing ? state.options?.clock : null;
    if (room.setup || !clock?.control || clock.free_turn) return left.seconds;
    return shownSeconds(this.gameTime(mine));
  }

  /** B7, U9: a screen reader hears the player's own time at 60, 30 and 10 s left. */
  announceThreshold() {
    const seconds = this.ownSeconds();
    const before = this.heardSeconds;
    this.heardSeconds = seconds;
    if (seconds === null || before === null || before === undefined) return;
    const crossed = THRESHOLDS.find((limit) => before > limit && seconds <= limit);
    if (crossed !== undefined) announce(t("clock.left_announce", { seconds: crossed }));
  }

  /** Show the time now: the setup choice's countdown, the status line's and the players'
   * clocks (drawn again only when a shown text changed). */
  tick() {
    const { room, state, view } = this.screen;
    const left = this.secondsLeft();
    const setupClock = this.screen.setup.clock;
    if (setupClock?.isConnected && left) {
      setupClock.textContent = left.paused ? t("room.clock_paused") : t("room.setup_time", { seconds: left.seconds });
    }
    const sides = state ? sideNames(room.variant) : [];
    const text = [left ? `${left.seconds}|${left.paused}` : "", ...sides.map((side) => this.text(side))].join("|");
    this.announceThreshold();
    if (text === this.shown) return;
    this.shown = text;
    view.renderStatus();
    view.renderPlayers();
    const clock = this.gameClock();
    const running = clock?.control && !clock.free_turn ? this.gameTime(state.turn) : null;
    const seconds = running ? shownSeconds(running) : left?.seconds;
    view.clock.dataset.seconds = seconds !== undefined ? String(seconds) : "";
    view.clock.classList.toggle("low", Boolean(seconds !== undefined && seconds <= 10));
  }
}
