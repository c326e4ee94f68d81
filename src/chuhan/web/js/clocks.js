// Game lengths (SPEC B7 beside R4): the clock choice of the room and seek forms, and what a
// room shows of a game clock. The server keeps the clocks, refuses any other choice (Z1, Z5)
// and sends the list the forms offer (GET /api/facts, from server/rooms/timecontrols.py).
import { clockFacts } from "./facts.js";
import { t } from "./i18n.js";
import { el } from "./ui.js";

export const TURN = "turn"; // R4: 90 s per move, the default (what the forms send for it)
export const THRESHOLDS = [60, 30, 10]; // seconds left announced to a screen reader

/** The game clock named ``id`` as the server describes it, or undefined. */
function control(id) {
  return clockFacts().controls.find((each) => each.id === id);
}

/** The ids a player of ``variant`` may choose, R4's turn clock first (byoyomi: janggi). */
export function offered(variant) {
  return [TURN, ...clockFacts().controls.filter((each) => each.variants.includes(variant)).map((each) => each.id)];
}

/** What a clock choice reads as: "90 s per move", "5 min + 3 s per move", "5 min + 3 × 30 s". */
export function clockLabel(id, turnSeconds = 90) {
  const chosen = control(id);
  if (!chosen) return t("clock.turn", { seconds: turnSeconds });
  const minutes = chosen.base_minutes;
  return chosen.periods
    ? t("clock.byoyomi", { minutes, periods: chosen.periods, seconds: chosen.period_seconds })
    : t("clock.fischer", { minutes, seconds: chosen.increment });
}

/** "m:ss" (h:mm:ss never: the longest clock is 15 minutes). */
export function formatTime(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/** The form's "Game length" select (name ``clock``), R4's turn clock chosen. */
export function clockChoice(prefix) {
  const id = `${prefix}-clock`;
  const select = el("select", { id, name: "clock", "data-clock-choice": "" });
  return el("div", { class: "field clock-field" }, el("label", { for: id }, t("clock.field")), select);
}

/** Fill the select with what ``variant`` offers, keeping the choice where it still is one. */
export function syncClockChoice(form, variant) {
  const select = form.querySelector("[data-clock-choice]");
  if (!select) return;
  const ids = offered(variant);
  const chosen = ids.includes(select.value) ? select.value : TURN;
  if (select.dataset.variant === variant && select.options.length) return;
  select.dataset.variant = variant;
  select.innerHTML = "";
  for (const value of ids) select.append(el("option", { value }, clockLabel(value)));
  select.value = chosen;
}

/** A side's time on a game clock at ``now`` (ms, server time), null for R4's turn clock:
 * what is left of its base (``main``) and its byoyomi periods; the mover's runs, in byoyomi
 * with the ``period`` being used. During a side's first move (on R4's turn time) its time
 * waits untouched. */
export function sideTime(clock, index, toMove, now) {
  if (!clock?.control) return null;
  const step = clock.period_seconds || 0;
  const periods = clock.periods_left[index];
  if (!toMove || clock.free_turn) return { main: clock.left[index], periods, step };
  const total = Math.max(0, (Date.parse(clock.deadline) - now) / 1000 - (clock.allowance || 0));
  return split(total, periods, step);
}

function split(total, periods, step) {
  if (!periods || total > periods * step) return { main: total - periods * step, periods, step };
  const left = Math.max(1, Math.ceil(total / step - 1e-9));
  return { main: 0, period: total - (left - 1) * step, periods: left, step };
}

/** A side's clock as shown: "4:32", byoyomi "4:32 + 3 × 30 s" then "0:25 · 2 × 30 s". */
export function timeText(time) {
  const periods = time.periods ? t("clock.periods", { periods: time.periods, seconds: time.step }) : "";
  if (time.period !== undefined) return t("clock.in_byoyomi", { time: formatTime(time.period), periods });
  return periods ? t("clock.with_periods", { time: formatTime(time.main), periods }) : formatTime(time.main);
}

/** The seconds a screen reader hears about: the running clock's time, or its period's. */
export function shownSeconds(time) {
  return Math.ceil(time.period !== undefined ? time.period : time.main);
}
