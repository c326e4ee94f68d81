// "Your game is on" (SPEC B5): every page that shares the site's head (the play screens, the
// review, My games, the learn pages…) shows, under the top bar, the player's games in
// progress from GET /api/live: an online game with its opponent and its turn's clock, linking
// to its room; the game against the computer or on one device, with "Resume". The page of the
// game itself does not show it. The clock counts down here between the server's answers,
// which are asked for again every few seconds and whenever the page comes back into view.
import { hasText, language, setLanguage, t } from "./i18n.js";
import { el } from "./ui.js";

const REFRESH_MS = 15000;
const AFTER_DEADLINE_MS = 1500; // the turn ran out: ask again (the game may be over)

let asked = null; // this page's last question to the server, shared by its readers

/** The player's games in progress ({games, offset}: offset = the server's clock minus ours,
 * in ms); {games: []} when it cannot be asked (no player yet, offline). */
export function liveGames(fresh = false) {
  if (!asked || fresh) {
    asked = fetch("/api/live", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((answer) => (answer.ok ? answer.json() : { games: [] }))
      .then((body) => ({ games: body.games || [], offset: body.now ? Date.parse(body.now) - Date.now() : 0 }))
      .catch(() => ({ games: [] }));
  }
  return asked;
}

/** The address of a live online game's room, by game id (the home page's list links there). */
export async function liveRooms() {
  const { games } = await liveGames();
  return new Map(games.filter((game) => game.kind === "online" && game.game_id).map((game) => [game.game_id, game.href]));
}

function clockText(milliseconds) {
  const seconds = Math.max(0, Math.ceil(milliseconds / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** True when this page is the game's own (its room, or its play screen). */
function isThisPage(game) {
  const here = new URL(location.href);
  if (game.kind === "online") return here.pathname === game.href;
  const target = new URL(game.href, location.origin);
  if (here.pathname === "/" && game.kind === "ai") return true; // home shows it in its own card
  return here.pathname === target.pathname && here.searchParams.get("game") === game.game_id;
}

class LiveBar {
  constructor() {
    this.games = [];
    this.offset = 0;
    this.clocks = new Map(); // each online game's line, with its game
    this.bar = el("aside", { class: "live-bar", "data-live": "", hidden: "" });
    const anchor = document.querySelector("header.topbar");
    if (anchor) anchor.after(this.bar);
    else document.body.prepend(this.bar);
    this.ticker = setInterval(() => this.tick(), 1000);
    this.refresher = setInterval(() => this.refresh(), REFRESH_MS);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.refresh();
    });
    window.addEventListener("pageshow", (event) => { if (event.persisted) this.refresh(); });
    // The page's language changed (its lang attribute follows it): say it all again.
    new MutationObserver(() => this.speak()).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  }

  /** Ask the server again (``fresh``), or take this page's last answer (the home page's list
   * asked already). */
  async refresh(fresh = true) {
    const { games, offset } = await liveGames(fresh);
    this.games = games;
    this.offset = offset ?? 0;
    this.askedAgain = false;
    await this.speak();
  }

  /** The strings of the page's language (the learn pages load only their own). */
  async speak() {
    const wanted = document.documentElement.lang || "en";
    try {
      if (language !== wanted || !hasText("live.go")) await setLanguage(wanted);
    } catch {
      // no strings (offline): the line says what it can, and is said again next time
    }
    this.render();
  }

  render() {
    const shown = this.games.filter((game) => !isThisPage(game));
    this.bar.replaceChildren();
    this.clocks.clear();
    this.bar.hidden = shown.length === 0;
    this.bar.setAttribute("aria-label", t("live.region"));
    this.bar.dataset.count = String(shown.length);
    for (const game of shown) this.bar.append(this.entry(game));
    this.tick();
  }

  entry(game) {
    const variant = t(`variant.${game.variant}`);
    const link = el("a", { class: "live-game", href: game.href, "data-live-game": game.kind });
    if (game.kind === "online") {
      const name = game.opponent || t("live.someone");
      link.append(el("span", { class: "live-dot", "aria-hidden": "true" }),
        el("span", { class: "live-text" },
          el("strong", { class: "live-title" }, t("live.online", { variant, name })),
          el("span", { class: "live-clock", "data-live-clock": "" })),
        el("span", { class: "live-go" }, t("live.go")));
      this.clocks.set(link, game);
    } else {
      const title = game.kind === "ai"
        ? t("live.ai", { variant, level: t(`level.${game.level}`) })
        : t("live.local", { variant });
      link.append(el("span", { class: "live-text" }, el("strong", { class: "live-title" }, title)),
        el("span", { class: "live-go" }, t("live.resume")));
    }
    return link;
  }

  /** Each online game's line under its title: whose turn, and the time left for it. */
  tick() {
    for (const [link, game] of this.clocks) {
      const line = link.querySelector("[data-live-clock]");
      const left = Date.parse(game.deadline) - (Date.now() + this.offset);
      let text;
      if (game.paused) text = t("live.paused");
      else if (Number.isNaN(left)) text = "";
      else {
        const clock = clockText(left);
        if (game.phase === "setup") text = t("live.setup", { clock });
        else if (game.turn === game.you) text = t("live.your_turn", { clock });
        else text = t("live.their_turn", { clock });
      }
      if (line.textContent !== text) line.textContent = text;
      const urgent = !game.paused && game.turn === game.you && left <= 15000;
      link.classList.toggle("urgent", urgent);
      link.dataset.secondsLeft = Number.isNaN(left) ? "" : String(Math.max(0, Math.ceil(left / 1000)));
      if (left < -AFTER_DEADLINE_MS && !game.paused && !this.askedAgain) {
        this.askedAgain = true;
        this.refresh();
      }
    }
  }
}

/** Shown once the page has drawn itself (and chosen its language). */
function start() {
  const bar = new LiveBar();
  bar.refresh(false);
}

if (document.body?.dataset.ready === "true") start();
else {
  const watch = new MutationObserver(() => {
    if (document.body.dataset.ready !== "true") return;
    watch.disconnect();
    start();
  });
  watch.observe(document.body, { attributes: true, attributeFilter: ["data-ready"] });
}
