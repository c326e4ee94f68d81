// "My games" (SPEC B3), the route "/games": every game of this player, newest
// first, each opening its review (with analysis) or, unfinished, the game itself; filters by
// variant and kind, pages of 20 ("More games"), and "Download all my games" as one PGN file
// in the chosen notation (GET /api/archive…, docs/protocol.md).
import { VARIANTS } from "./choices.js";
import { api } from "./connection.js";
import { apiErrorText } from "./errors.js";
import { hasText, language, t } from "./i18n.js";
import { ratingHistoryCard } from "./leaderboard.js";
import { puzzleHistoryCard } from "./puzzles.js";
import { notRatedText, sideRatingText } from "./ratings.js";
import { settings } from "./settings.js";
import { el } from "./ui.js";

const KINDS = ["ai", "local", "room", "paired", "imported"];
const NOTATIONS = ["iccs", "wxf", "chinese", "korean"];
const PAGE = 20;

function opponentText(game) {
  const opponent = game.opponent || {};
  if (opponent.type === "ai") return t("archive.vs_ai", { level: t(`level.${opponent.level}`) });
  if (opponent.type === "local") return t("archive.one_device");
  if (opponent.type === "record") {
    const players = opponent.first || opponent.second ? `${opponent.first || "?"} – ${opponent.second || "?"}` : "";
    return [players, opponent.event].filter(Boolean).join(", ") || t("archive.record");
  }
  return opponent.name ? t("home.game_vs", { name: opponent.name }) : t("home.game_vs_guest");
}

function outcomeText(game) {
  switch (game.outcome) {
    case "won": return t("home.game_won");
    case "lost": return t("home.game_lost");
    case "draw": return t("home.game_draw");
    case "ongoing": return t("home.game_ongoing");
    case "unfinished": return t("archive.unfinished");
    default: return t("archive.side_won", { side: t(`side.${game.outcome}`) });
  }
}

function reasonText(game) {
  const key = `reason.${game.reason}`;
  return game.reason && game.status !== "ongoing" && hasText(key) ? t(key) : "";
}

function ratingLine(game) {
  if (!game.rating) return null;
  if (game.rating.counted === false) return notRatedText(game.rating, "archive.not_rated_pair");
  return t("archive.rating", { rating: sideRatingText(game.rating) });
}

function entry(game) {
  const date = new Date(game.created_at);
  const when = `${date.toLocaleDateString(language)} ${date.toLocaleTimeString(language, { hour: "2-digit", minute: "2-digit" })}`;
  const title = `${t(`variant.${game.variant}`)} · ${opponentText(game)}`;
  const said = outcomeText(game);
  const outcome = [/[.!?]$/.test(said) ? said : `${said}.`, reasonText(game)].filter(Boolean).join(" ");
  const facts = [when, t(`archive.kind_${game.kind}`)];
  if (game.side) facts.push(t("archive.your_side", { side: t(`side.${game.side}`) }));
  facts.push(t("archive.moves", { count: game.plies }));
  const rating = ratingLine(game);
  // B5: a live online game opens its room; an unfinished AI or one-device game, the game.
  const action = game.room ? "play" : game.resume ? "resume" : "review";
  const link = el("a", { class: "archive-link", href: game.room || game.resume || game.review,
    "data-action": action },
  el("span", { class: "archive-title" }, title),
  el("span", { class: `archive-outcome outcome-${game.outcome}` }, outcome),
  el("span", { class: "archive-facts" }, facts.join(" · ")));
  if (rating) link.append(el("span", { class: "archive-rating", "data-rating": "" }, rating));
  const open = { play: "live.go", resume: "archive.resume", review: "archive.review" }[action];
  link.append(el("span", { class: "archive-open" }, t(open)));
  return el("li", { "data-archive-game": game.id, "data-kind": game.kind, "data-variant": game.variant }, link);
}

function select(name, labelKey, values, labelOf) {
  const id = `archive-${name}`;
  const box = el("select", { id, name, "data-filter": name });
  for (const value of values) box.append(el("option", { value }, labelOf(value)));
  return el("div", { class: "field" }, el("label", { for: id }, t(labelKey)), box);
}

function downloadCard() {
  const chosen = settings.notation === "wxf" || settings.notation === "chinese" ? settings.notation : "iccs";
  const choice = select("notation", "archive.notation", NOTATIONS, (v) => t(`archive.notation_${v}`));
  const box = choice.querySelector("select");
  box.value = chosen;
  const link = el("a", { class: "button primary", "data-action": "download-all", download: "chuhan-games.pgn" },
    t("archive.download"));
  const sync = () => { link.href = `/api/archive/records?notation=${encodeURIComponent(box.value)}`; };
  box.addEventListener("change", sync);
  sync();
  return el("section", { class: "card archive-download", "aria-labelledby": "archive-download-heading" },
    el("h2", { id: "archive-download-heading" }, t("archive.download_title")),
    el("p", { class: "note" }, t("archive.download_note")),
    // B6: the games stay the player's on every device, and after the cookies are gone.
    el("p", { class: "note", "data-keep-games": "" }, t("archive.keep_note"), " ",
      el("a", { href: "/device", "data-action": "other-device" }, t("settings.other_device"))),
    choice, link);
}

/** The "/games" screen. */
export async function showArchive(root) {
  root.innerHTML = "";
  document.title = `${t("archive.title")} — Chu-Han`;
  const filters = el("form", { class: "archive-filters", "data-archive-filters": "" },
    select("variant", "field.variant", ["", ...VARIANTS], (v) => (v ? t(`variant.${v}`) : t("archive.all"))),
    select("kind", "archive.kind", ["", ...KINDS], (v) => (v ? t(`archive.kind_${v}`) : t("archive.all"))));
  const list = el("ul", { class: "archive-list", "data-archive-list": "" });
  const empty = el("p", { class: "muted", "data-archive-empty": "", hidden: "" }, t("archive.none"));
  const error = el("p", { class: "notice", role: "alert", hidden: "" });
  const more = el("button", { type: "button", class: "button", "data-action": "archive-more", hidden: "" },
    t("archive.more"));
  const status = el("p", { class: "sr-only", role: "status" });
  const games = el("section", { class: "card archive-games", "aria-labelledby": "archive-heading" },
    el("h1", { id: "archive-heading" }, t("archive.title")), filters, status, list, empty, error, more);
  const screen = el("div", { class: "archive", "data-archive": "" }, games, ratingHistoryCard(), puzzleHistoryCard(), downloadCard(),
    el("p", {}, el("a", { href: "/", class: "button" }, t("end.home"))));
  root.append(screen);

  let next = null;
  let asked = 0; // the latest request: an older answer arriving late is dropped
  const load = async (fresh) => {
    const query = new URLSearchParams({ limit: String(PAGE) });
    const form = new FormData(filters);
    for (const name of ["variant", "kind"]) if (form.get(name)) query.set(name, form.get(name));
    if (!fresh && next) query.set("before", next);
    const mine = ++asked;
    try {
      const page = await api("GET", `/api/archive?${query}`);
      if (mine !== asked) return;
      if (fresh) list.innerHTML = "";
      list.append(...page.games.map(entry));
      next = page.next;
      more.hidden = !next;
      empty.hidden = list.children.length > 0;
      error.hidden = true;
      status.textContent = t("archive.shown", { count: list.children.length });
    } catch (problem) {
      error.textContent = apiErrorText(problem);
      error.hidden = false;
    }
    screen.dataset.loaded = String(mine); // tests wait for the answer to their change
  };
  filters.addEventListener("change", () => load(true));
  filters.addEventListener("submit", (event) => event.preventDefault());
  more.addEventListener("click", () => load(false));
  await load(true);
  return null;
}
