// Entry point: language, the top bar, and the screen for the current address.
// Routes (served by the server as this one page): "/", "/play/ai", "/play/local", "/room…",
// "/review…", "/games" (the player's archive), "/puzzles" (B9), "/leaderboard" (B8).
import { detectLanguage, LANGUAGES, setLanguage, t, translateTree } from "./i18n.js";
import { openGame, showHome, showSettings } from "./screens.js";
import { openRoomRoute } from "./room.js";
import { openReviewRoute } from "./shared_review.js";
import { showArchive } from "./archive.js";
import { openDeviceRoute } from "./devices.js";
import { loadFacts } from "./facts.js";
import { showPuzzles } from "./puzzles.js";
import { showLeaderboard } from "./leaderboard.js";
import { settings, updateSettings } from "./settings.js";
import { el } from "./ui.js";

let screen = null;

function renderTopBar() {
  const bar = document.getElementById("topbar-tools");
  bar.innerHTML = "";
  const language = el("select", {
    id: "language-switch", "aria-label": t("settings.language"), "data-language-switch": "",
  });
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = el("option", { value: code, lang: code }, name);
    if (code === document.documentElement.lang) option.selected = true;
    language.append(option);
  }
  language.addEventListener("change", () => changeLanguage(language.value));
  const mute = el("button", {
    type: "button", class: "icon-button", "data-action": "mute",
    "aria-pressed": String(settings.muted), "aria-label": t("settings.mute"), title: t("settings.mute"),
  });
  mute.innerHTML = `<svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
    <path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/>${settings.muted
    ? '<path d="M16 9l5 6M21 9l-5 6" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>'
    : `<path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" fill="none"
        stroke="currentColor" stroke-width="2" stroke-linecap="round"/>`}</svg>`;
  mute.addEventListener("click", () => {
    updateSettings({ muted: !settings.muted });
    renderTopBar();
  });
  const gear = el("button", {
    type: "button", class: "icon-button", "data-action": "settings",
    "aria-label": t("settings.title"), title: t("settings.title"),
  });
  gear.textContent = "⚙";
  gear.addEventListener("click", () => showSettings(changeLanguage).then(renderTopBar));
  bar.append(language, mute, gear);
}

async function changeLanguage(code) {
  updateSettings({ language: code });
  await setLanguage(detectLanguage());
  translateTree();
  renderTopBar();
  const dialog = document.querySelector("dialog[data-settings-dialog]");
  if (dialog) {
    dialog.close();
    dialog.remove();
    showSettings(changeLanguage).then(renderTopBar);
  }
  if (screen) {
    screen.render();
    screen.board.relabel();
  } else if (location.pathname === "/") {
    showHome(document.getElementById("app"));
  } else if (location.pathname === "/games") {
    showArchive(document.getElementById("app"));
  } else if (location.pathname === "/leaderboard") {
    showLeaderboard(document.getElementById("app"), new URLSearchParams(location.search));
  }
}

async function main() {
  // A first visit gets its player identity from a read (S1): no POST makes one (SPEC Z6),
  // whichever page was opened first (a /play/local link, a share link's "Analyse").
  const identity = fetch("/api/me", { credentials: "same-origin" }).catch(() => null);
  const facts = loadFacts(); // the rule facts the screens show (janggi points, clocks, R5)
  await setLanguage(detectLanguage());
  translateTree();
  renderTopBar();
  const root = document.getElementById("app");
  await identity;
  await facts;
  const params = new URLSearchParams(location.search);
  if (location.pathname.startsWith("/play/ai")) screen = await openGame(root, "ai", params);
  else if (location.pathname.startsWith("/play/local")) screen = await openGame(root, "local", params);
  else if (location.pathname.startsWith("/room")) screen = await openRoomRoute(root);
  else if (location.pathname.startsWith("/review")) screen = await openReviewRoute(root);
  else if (location.pathname === "/puzzles") screen = await showPuzzles(root, params); // B9
  else if (location.pathname === "/games") await showArchive(root); // B3: "My games"
  else if (location.pathname === "/device") await openDeviceRoute(root); // B6: another device
  else if (location.pathname === "/leaderboard") await showLeaderboard(root, params); // B8
  else await showHome(root);
  await stylesheetsLoaded();
  document.body.dataset.ready = "true";
}

// How long a screen waits for a stylesheet it added before it counts as drawn anyway.
const STYLESHEET_WAIT_MS = 5000;

/** Resolves once every stylesheet in the page has loaded or failed (a screen such as the
 * review adds its own when it opens): until then the screen is not drawn in its own layout. */
function stylesheetsLoaded() {
  const pending = [...document.querySelectorAll('link[rel="stylesheet"]')]
    .filter((link) => !link.sheet)
    .map((link) => new Promise((resolve) => {
      link.addEventListener("load", resolve, { once: true });
      link.addEventListener("error", resolve, { once: true });
    }));
  if (!pending.length) return Promise.resolve();
  const giveUp = new Promise((resolve) => setTimeout(resolve, STYLESHEET_WAIT_MS));
  return Promise.race([Promise.all(pending), giveUp]);
}

main();
