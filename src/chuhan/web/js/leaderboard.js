// The leaderboard per variant, the route "/leaderboard" (SPEC B8): the best established
// ratings (no "?"), each with its name and games; and the player's own rating history, a
// small SVG chart per variant in My games with the same figures as a table (no chart
// library). GET /api/leaderboard, GET /api/ratings/history (docs/protocol.md).
import { api } from "./connection.js";
import { apiErrorText } from "./errors.js";
import { language, t } from "./i18n.js";
import { el } from "./ui.js";

const VARIANTS = ["xiangqi", "janggi", "jieqi"];
const SVG = "http://www.w3.org/2000/svg";

function loadStyles() {
  if (document.querySelector("link[data-leaderboard-css]")) return;
  document.head.append(el("link", { rel: "stylesheet", href: "/static/css/leaderboard.css", "data-leaderboard-css": "" }));
}

function svg(tag, attributes = {}) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

function boardTable(board) {
  const head = el("tr", {}, ...["rank", "player", "rating", "games"].map((key) => el("th", { scope: "col" }, t(`leaderboard.${key}`))));
  const body = el("tbody", {});
  for (const line of board.players) {
    const name = line.name || t("home.game_vs_guest");
    const who = line.you ? el("td", {}, name, " ", el("span", { class: "badge" }, t("leaderboard.you"))) : el("td", {}, name);
    body.append(el("tr", { class: line.you ? "mine" : null, "data-leader": String(line.rank) },
      el("td", {}, String(line.rank)), who, el("td", {}, String(line.rating)), el("td", {}, String(line.games))));
  }
  return el("table", { class: "leaderboard-table", "data-leaderboard-table": "" },
    el("caption", { class: "sr-only" }, t("leaderboard.caption", { variant: t(`variant.${board.variant}`) })),
    el("thead", {}, head), body);
}

/** The "/leaderboard" screen; ``?variant=`` picks the board. */
export async function showLeaderboard(root, params = new URLSearchParams()) {
  loadStyles();
  let variant = VARIANTS.includes(params.get("variant")) ? params.get("variant") : "xiangqi";
  root.innerHTML = "";
  document.title = `${t("leaderboard.title")} — Chu-Han`;
  const tabs = el("div", { class: "leaderboard-variants", role: "group", "aria-label": t("field.variant") });
  const note = el("p", { class: "note", "data-leaderboard-note": "" });
  const content = el("div", { "data-leaderboard-content": "" });
  const card = el("section", { class: "card leaderboard", "data-leaderboard": "", "aria-labelledby": "leaderboard-heading" },
    el("h1", { id: "leaderboard-heading" }, t("leaderboard.title")), tabs, note, content);
  root.append(el("div", { class: "leaderboard-page" }, card,
    el("p", {}, el("a", { href: "/", class: "button" }, t("end.home")))));

  let asked = 0;
  const load = async () => {
    const mine = ++asked;
    tabs.innerHTML = "";
    for (const each of VARIANTS) {
      const tab = el("button", { type: "button", class: each === variant ? "tab current" : "tab",
        "aria-pressed": String(each === variant), "data-leaderboard-variant": each }, t(`variant.${each}`));
      tab.addEventListener("click", () => {
        variant = each;
        history.replaceState(null, "", `/leaderboard?variant=${each}`);
        load();
      });
      tabs.append(tab);
    }
    try {
      const board = await api("GET", `/api/leaderboard?variant=${variant}`);
      if (mine !== asked) return;
      note.textContent = t("leaderboard.note", { count: board.min_games });
      content.innerHTML = "";
      content.append(board.players.length ? boardTable(board)
        : el("p", { class: "muted", "data-leaderboard-empty": "" }, t("leaderboard.empty")));
    } catch (problem) {
      content.innerHTML = "";
      content.append(el("p", { class: "notice", role: "alert" }, apiErrorText(problem)));
    }
    card.dataset.loaded = variant; // tests wait for the board they asked for
  };
  await load();
}

// ---------------------------------------------------------------------- rating history

const WIDTH = 320;
const HEIGHT = 120;
const PAD = { left: 40, right: 8, top: 10, bottom: 10 };

/** One variant's ratings as a line: the rating before the first game, then after each. */
function chart(variant, points) {
  const values = [points[0].before, ...points.map((point) => point.rating)];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = Math.max(high - low, 20); // a flat history is drawn flat, mid-height
  const middle = (high + low) / 2;
  const y = (value) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (0.5 - (value - middle) / span);
  const x = (index) => PAD.left + ((WIDTH - PAD.left - PAD.right) * index) / Math.max(values.length - 1, 1);
  const last = values[values.length - 1];
  const label = t("history.chart_label", { variant: t(`variant.${variant}`), first: values[0], last,
    low, high, count: points.length });
  const picture = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": label,
    class: "rating-chart", "data-rating-chart": variant });
  for (const value of [high, low]) {
    picture.append(svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(value), y2: y(value), class: "grid" }));
    const text = svg("text", { x: PAD.left - 4, y: y(value) + 4, "text-anchor": "end", class: "axis" });
    text.textContent = String(value);
    picture.append(text);
  }
  const line = values.map((value, index) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(" ");
  picture.append(svg("polyline", { points: line, class: "rating-line" }));
  picture.append(svg("circle", { cx: x(values.length - 1), cy: y(last), r: 3.5, class: "rating-dot" }));
  return picture;
}

function historyTable(variant, points) {
  const rows = points.map((point) => {
    const change = point.rating - point.before;
    const when = new Date(point.at).toLocaleDateString(language);
    return el("tr", {}, el("td", {}, when), el("td", {}, String(point.rating)),
      el("td", {}, `${change >= 0 ? "+" : "−"}${Math.abs(change)}`));
  });
  return el("table", { class: "history-table", "data-history-table": variant },
    el("thead", {}, el("tr", {}, ...["date", "rating", "change"].map((key) => el("th", { scope: "col" }, t(`history.${key}`))))),
    el("tbody", {}, ...rows.reverse())); // newest first
}

/** My games' card: the player's rating over their rated games, per variant. */
export function ratingHistoryCard() {
  loadStyles();
  const body = el("div", { class: "rating-history" });
  const card = el("section", { class: "card", "aria-labelledby": "rating-history-heading", "data-rating-history": "" },
    el("h2", { id: "rating-history-heading" }, t("history.title")), body);
  api("GET", "/api/ratings/history").then((answer) => {
    const variants = VARIANTS.filter((variant) => answer.variants[variant]?.length);
    for (const variant of variants) {
      const points = answer.variants[variant];
      body.append(el("div", { class: "rating-history-variant" },
        el("h3", {}, t(`variant.${variant}`)),
        chart(variant, points),
        el("details", {}, el("summary", {}, t("history.as_table")), historyTable(variant, points))));
    }
    if (!variants.length) body.append(el("p", { class: "muted" }, t("history.none")));
    body.append(el("p", {}, el("a", { href: "/leaderboard", "data-action": "leaderboard" }, t("home.leaderboard"))));
    card.dataset.loaded = "true";
  }).catch(() => {
    card.hidden = true;
  });
  return card;
}
