// The beginner tutorial (SPEC U8): short lessons, each ending in an exercise on the real
// board. Legal moves come from the server; the goal (lessons.json: {from?, to?, then?}) is
// judged by the server's rules on the position after the move. Progress is remembered in
// this browser.
import { parseMove, placementFromFen } from "/static/js/position.js";
import { el, local, teachingBoard, tx, announce } from "./common.js";
import { analyse, destinationsFrom, fenAfter, judgeGoal } from "./rules.js";

const PROGRESS_KEY = "chuhan.learn.progress";
let lessonsByVariant = null;

/** Every lesson (lessons.json), by variant; fetched once. */
export async function allLessons() {
  if (!lessonsByVariant) {
    const response = await fetch("/static/learn/lessons.json");
    lessonsByVariant = await response.json();
  }
  return lessonsByVariant;
}

async function lessons(variant) {
  return (await allLessons())[variant] || [];
}

/** The ids of the lessons solved in this browser. */
export function solvedLessons() {
  try {
    const saved = JSON.parse(localStorage.getItem(PROGRESS_KEY) || "{}");
    return typeof saved === "object" && saved ? saved : {};
  } catch {
    return {};
  }
}

function markSolved(id) {
  const solved = { ...solvedLessons(), [id]: true };
  try {
    localStorage.setItem(PROGRESS_KEY, JSON.stringify(solved));
  } catch {
    // storage refused (private mode): progress lasts for this visit only
  }
}

export async function showLessonList(root, variant) {
  const all = await lessons(variant);
  const solved = solvedLessons();
  document.title = `${tx("ui.tutorial_title", { variant: tx(`ui.variant_${variant}`) })} · Chu-Han`;
  const done = all.filter((lesson) => solved[lesson.id]).length;
  root.append(
    el("h1", {}, tx("ui.tutorial_title", { variant: tx(`ui.variant_${variant}`) })),
    el("p", { class: "lead" }, tx("ui.tutorial_lead")),
    el("p", { "data-progress": `${done}/${all.length}` }, tx("ui.progress", { done, total: all.length })),
  );
  const list = el("ol", { class: "lesson-list" });
  all.forEach((lesson, index) => {
    const item = el("li", { "data-lesson": lesson.id, "data-solved": String(Boolean(solved[lesson.id])) });
    item.append(el("a", { href: `#/tutorial/${variant}/${index + 1}` }, local(lesson.title)));
    if (solved[lesson.id]) item.append(" ", el("span", { class: "badge", "aria-label": tx("ui.solved") }, "✓"));
    list.append(item);
  });
  root.append(list);
}

class Lesson {
  constructor(root, variant, lesson, number, total) {
    Object.assign(this, { root, variant, lesson, number, total });
    this.fen = lesson.fen;
    this.selected = null;
    this.finished = false;
    this.legal = [];
  }

  render() {
    const { lesson, variant, number, total } = this;
    const page = el("div", { class: "lesson", "data-lesson-page": lesson.id });
    page.append(
      el("p", { class: "muted" }, el("a", { href: `#/tutorial/${variant}` }, tx("ui.tutorial_title", { variant: tx(`ui.variant_${variant}`) })),
        ` · ${tx("ui.lesson_of", { number, total })}`),
      el("h1", {}, local(lesson.title)),
    );
    const layout = el("div", { class: "learn-layout" });
    const boardBox = el("div", { class: "learn-board" });
    const panel = el("div", { class: "learn-panel" });
    for (const paragraph of local(lesson.text).split("\n")) panel.append(el("p", {}, paragraph));
    panel.append(el("p", { class: "task", "data-task": "" }, el("strong", {}, tx("ui.task")), " ", local(lesson.task)));
    this.status = el("p", { class: "status-line", role: "status", "data-lesson-status": "pending" });
    const hint = el("button", { type: "button", class: "button", "data-action": "hint" }, tx("ui.hint"));
    hint.addEventListener("click", () => this.say(local(lesson.hint), "hint"));
    const retry = el("button", { type: "button", class: "button", "data-action": "retry" }, tx("ui.retry"));
    retry.addEventListener("click", () => this.restart());
    const controls = el("p", { class: "lesson-controls" }, hint, " ", retry, " ");
    if (variant === "janggi") {
      this.passButton = el("button", { type: "button", class: "button", "data-action": "pass", disabled: "" }, tx("ui.pass"));
      this.passButton.addEventListener("click", () => this.play("pass"));
      controls.append(this.passButton, " ");
    }
    const previous = number > 1 ? `#/tutorial/${variant}/${number - 1}` : null;
    const next = number < total ? `#/tutorial/${variant}/${number + 1}` : `#/tutorial/${variant}`;
    if (previous) controls.append(el("a", { class: "button", href: previous, "data-action": "previous" }, tx("ui.previous")), " ");
    this.nextLink = el("a", { class: "button primary", href: next, "data-action": "next" }, tx(number < total ? "ui.next" : "ui.finish"));
    controls.append(this.nextLink);
    panel.append(this.status, controls);
    layout.append(boardBox, panel);
    page.append(layout);
    this.root.append(page);
    this.board = teachingBoard(boardBox, variant, (point) => this.activate(point), () => this.deselect());
    this.page = page;
  }

  async restart() {
    this.legal = [];
    this.fen = this.lesson.fen;
    this.finished = false;
    this.selected = null;
    this.board.setPieces(placementFromFen(this.fen));
    this.board.setMarks({ selected: null, destinations: new Set(), lastMove: null, check: null });
    this.say(tx("ui.your_move"), "pending");
    const { legalMoves, inCheck } = await analyse(this.variant, this.fen);
    this.legal = legalMoves;
    if (this.passButton) this.passButton.disabled = !legalMoves.includes("pass");
    if (inCheck) {
      const general = [...this.board.pieces].find(([, letter]) => letter === "K");
      this.board.setMarks({ check: general ? general[0] : null });
    }
  }

  deselect() {
    this.selected = null;
    this.board.setMarks({ selected: null, destinations: new Set() });
  }

  async activate(point) {
    if (this.finished) return;
    const letter = this.board.pieces.get(point);
    const destinations = this.selected ? destinationsFrom(this.legal, this.selected) : new Set();
    if (this.selected && destinations.has(point)) {
      await this.play(`${this.selected}${point}`);
      return;
    }
    if (letter && letter === letter.toUpperCase()) {
      this.selected = point;
      const reachable = destinationsFrom(this.legal, point);
      this.board.setMarks({ selected: point, destinations: reachable });
      if (!reachable.size) this.say(tx("ui.no_moves_here"), "pending");
      return;
    }
    this.deselect();
  }

  async play(moveText) {
    const { lesson, variant } = this;
    if (this.finished || !this.legal.includes(moveText)) return;
    this.finished = true; // one answer per attempt, even if the player taps again meanwhile
    if (this.passButton) this.passButton.disabled = true;
    const verdict = await judgeGoal(variant, this.fen, moveText, lesson.goal, lesson.reveal || null);
    const move = parseMove(moveText);
    this.fen = fenAfter(this.fen, moveText, lesson.reveal || null);
    this.board.setPieces(placementFromFen(this.fen));
    const lastMove = move.pass ? null : { from: move.from, to: move.to };
    this.board.setMarks({ selected: null, destinations: new Set(), lastMove, check: null });
    this.selected = null;
    if (verdict.solved) {
      markSolved(lesson.id);
      this.say(`${tx("ui.solved_message")} ${local(lesson.success)}`, "solved");
      this.nextLink.focus();
    } else {
      this.say(tx(`ui.wrong_${verdict.reason}`), "wrong");
    }
  }

  say(text, state) {
    this.status.textContent = text;
    this.status.dataset.lessonStatus = state;
    announce(text);
  }
}

export async function showLesson(root, variant, number) {
  const all = await lessons(variant);
  const lesson = all[number - 1];
  if (!lesson) {
    await showLessonList(root, variant);
    return;
  }
  document.title = `${local(lesson.title)} · Chu-Han`;
  const view = new Lesson(root, variant, lesson, number, all.length);
  view.render();
  await view.restart();
}
