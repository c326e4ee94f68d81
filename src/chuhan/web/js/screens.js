// The screens around the board: home (choose a game), settings, and opening a game from a
// /play/... address (resuming the pending AI game when it matches, SPEC P2).
import { ratingText } from "./ratings.js";
import { bikjangChoice, radioGroup, rulesChoice, VARIANTS } from "./choices.js";
import { api, ApiError } from "./connection.js";
import { apiErrorText } from "./errors.js";
import { GameScreen } from "./game.js";
import { LANGUAGES, language, t, translateTree } from "./i18n.js";
import { pieceSvg } from "./pieces.js";
import { dailyCard } from "./puzzles.js";
import { liveRooms } from "./live.js";
import { seekCard } from "./seek.js";
import { settings, updateSettings } from "./settings.js";
import { el, showDialog } from "./ui.js";

export const LEVELS = ["beginner", "intermediate", "advanced"];
export const SETUPS = ["HEHE", "EHEH", "HEEH", "EHHE"];

function colorsOf(variant) {
  return variant === "janggi" ? ["cho", "han", "random"] : ["red", "black", "random"];
}

function setupLabel(setup) {
  return `${t(`setup.${setup}`)} (${setup})`;
}

// J3: the four horse/elephant setups as choices, each with a small picture of the back rank
// (the 2nd, 3rd, 7th and 8th points, read from the player's own left).
export function setupChoice(name, legendKey, prefix, upper) {
  const fieldset = el("fieldset", { class: "choice setup-choice janggi-only" });
  fieldset.append(el("legend", {}, t(legendKey)));
  for (const setup of SETUPS) {
    const id = `${prefix}-${name}-${setup}`;
    const input = el("input", { type: "radio", name, id, value: setup });
    if (setup === SETUPS[0]) input.checked = true;
    const picture = el("span", { class: "setup-picture", "aria-hidden": "true" });
    picture.innerHTML = [...setup].map((kind) => {
      const letter = kind === "H" ? "N" : "B";
      const drawing = pieceSvg(upper ? letter : letter.toLowerCase(), "janggi", settings.pieceStyle);
      return `<svg viewBox="-50 -50 100 100">${drawing}</svg>`;
    }).join("");
    fieldset.append(el("label", { for: id, class: "pill setup-pill" }, input, picture,
      el("span", { class: "sr-only" }, setupLabel(setup)),
      el("span", { class: "setup-code", "aria-hidden": "true" }, setup)));
  }
  return fieldset;
}

function formValue(form, name) {
  return new FormData(form).get(name);
}

// ---------------------------------------------------------------------- home

export async function showHome(root) {
  root.innerHTML = "";
  const home = el("div", { class: "home" });
  root.append(home);
  home.append(el("h1", { class: "home-title" }, t("home.title")), el("p", { class: "lead" }, t("home.lead")));

  const pendingBox = el("section", { class: "card pending", hidden: "", "data-pending": "" });
  home.append(pendingBox);

  const aiCard = el("section", { class: "card", "aria-labelledby": "ai-heading" });
  aiCard.append(el("h2", { id: "ai-heading" }, t("home.ai")));
  const aiForm = el("form", { class: "play-form", "data-form": "ai" });
  aiForm.append(
    radioGroup("variant", "field.variant", VARIANTS, (v) => t(`variant.${v}`), "xiangqi"),
    radioGroup("level", "field.level", LEVELS, (v) => t(`level.${v}`), "beginner"),
  );
  const colorHolder = el("div", {});
  aiForm.append(colorHolder, setupChoice("setup", "field.setup", "ai", true), bikjangChoice("ai"),
    rulesChoice("ai"));
  aiForm.append(el("button", { type: "submit", class: "button primary" }, t("home.start")));
  aiCard.append(aiForm);
  home.append(seekCard(aiForm), aiCard); // B1: play a stranger first
  seekAgain(home);

  const localCard = el("section", { class: "card", "aria-labelledby": "local-heading" });
  localCard.append(el("h2", { id: "local-heading" }, t("home.local")), el("p", {}, t("home.local_lead")));
  const localForm = el("form", { class: "play-form", "data-form": "local" });
  localForm.append(
    radioGroup("local-variant", "field.variant", VARIANTS, (v) => t(`variant.${v}`), "xiangqi"),
    setupChoice("setup", "field.setup_cho", "local", true),
    setupChoice("setup_other", "field.setup_han", "local", false),
    bikjangChoice("local"),
    rulesChoice("local"),
    el("button", { type: "submit", class: "button primary" }, t("home.start_local")),
  );
  localCard.append(localForm);
  home.append(localCard);

  const more = el("section", { class: "card" });
  more.append(
    el("h2", {}, t("home.online")),
    el("a", { class: "button primary", href: "/room", "data-action": "play-friend" }, t("home.online_start")),
    el("h2", {}, t("home.rules")),
    el("a", { class: "button", href: "/static/learn/index.html", "data-action": "learn" }, t("home.learn")),
    el("a", { class: "button", href: "/review/import", "data-action": "import" }, t("review.import_link")),
  );
  const points = el("p", { class: "points", "data-points": "" }, "");
  more.append(
    el("h2", {}, t("home.points")),
    points,
    el("p", { class: "note", "data-points-rule": "" }, t("home.points_rule")),
  );
  // B2, B3: the ratings per variant ("?" while provisional) and the way to every game.
  const ratings = el("p", { class: "points", "data-ratings": "" }, "");
  more.append(
    el("h2", {}, t("home.ratings")),
    ratings,
    el("p", { class: "note" }, t("home.ratings_note")),
    el("div", { class: "home-links" },
      el("a", { class: "button", href: "/games", "data-action": "my-games" }, t("home.my_games")),
      el("a", { class: "button", href: "/leaderboard", "data-action": "leaderboard" }, t("home.leaderboard"))),
  );
  home.append(dailyCard(), more); // B9: the puzzle of the day

  const syncColors = () => {
    const variant = formValue(aiForm, "variant");
    const current = formValue(aiForm, "color");
    colorHolder.innerHTML = "";
    const values = colorsOf(variant);
    colorHolder.append(radioGroup("color", "field.color", values,
      (v) => (v === "random" ? t("color.random") : t(`side.${v}`)),
      values.includes(current) ? current : values[0]));
    aiForm.classList.toggle("is-janggi", variant === "janggi");
    localForm.classList.toggle("is-janggi", formValue(localForm, "local-variant") === "janggi");
  };
  aiForm.addEventListener("change", syncColors);
  localForm.addEventListener("change", syncColors);
  syncColors();

  aiForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const variant = formValue(aiForm, "variant");
    const query = new URLSearchParams({
      variant, level: formValue(aiForm, "level"), color: formValue(aiForm, "color"),
    });
    if (variant === "janggi") {
      query.set("setup", formValue(aiForm, "setup"));
      if (formValue(aiForm, "bikjang")) query.set("bikjang", "points");
    } else if (formValue(aiForm, "rules")) query.set("rules", "wxf");
    location.href = `/play/ai?${query}`;
  });
  localForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const variant = formValue(localForm, "local-variant");
    const query = new URLSearchParams({ variant });
    if (variant === "janggi") {
      query.set("setup", formValue(localForm, "setup"));
      query.set("setup_other", formValue(localForm, "setup_other"));
      if (formValue(localForm, "bikjang")) query.set("bikjang", "points");
    } else if (formValue(localForm, "rules")) query.set("rules", "wxf");
    location.href = `/play/local?${query}`;
  });

  try {
    const { game } = await api("GET", "/api/games/pending");
    if (game) {
      pendingBox.hidden = false;
      pendingBox.append(
        el("h2", {}, t("home.pending")),
        el("p", {}, t("home.pending_text", {
          variant: t(`variant.${game.variant}`), level: t(`level.${game.level}`),
          moves: (game.moves || []).length,
        })),
        el("a", { class: "button primary", href: aiAddress(game), "data-action": "resume" }, t("home.resume")),
        el("p", { class: "muted" }, t("home.pending_note")),
      );
    }
  } catch {
    // the home screen works without the pending game box
  }
  try {
    const me = await api("GET", "/api/me");
    points.textContent = t("home.points_text", { ai: me.points?.ai ?? 0, online: me.points?.online ?? 0 });
    ratings.textContent = VARIANTS.filter((v) => me.ratings?.[v])
      .map((v) => `${t(`variant.${v}`)} ${ratingText(me.ratings[v])}`).join(" · ");
    // S1: the games behind each kind of points, apart.
    const rooms = await liveRooms(); // B5: a live online game opens its room
    more.append(
      gameList("ai", t("home.games_ai"), (me.games || []).filter((g) => g.kind === "ai")),
      gameList("online", t("home.games_online"), me.online_games || [], rooms),
    );
  } catch {
    points.textContent = t("home.points_unknown");
  }
}

// One finished or running game of the profile, as one line: date, variant, the player's side,
// the AI level or the opponent, the outcome and its reason, the points it gave.
function gameLine(game) {
  const parts = [new Date(game.created_at).toLocaleDateString(language), t(`variant.${game.variant}`)];
  if (game.side) parts.push(t(`side.${game.side}`));
  if (game.kind === "ai") parts.push(t(`level.${game.level}`));
  else parts.push(game.opponent ? t("home.game_vs", { name: game.opponent }) : t("home.game_vs_guest"));
  const winner = game.result?.winner;
  let outcome = t("home.game_ongoing");
  if (game.status !== "ongoing") {
    outcome = !winner ? t("home.game_draw") : winner === game.side ? t("home.game_won") : t("home.game_lost");
  }
  const reason = game.result?.reason ? ` ${t(`reason.${game.result.reason}`)}` : "";
  const points = game.practice ? t("home.game_practice") : t("home.game_points", { points: game.points_awarded || 0 });
  return `${parts.join(" · ")} — ${outcome}.${reason} ${points}`;
}

function gameList(kind, title, games, rooms = new Map()) {
  const box = el("details", { class: "game-list", "data-games": kind });
  box.append(el("summary", {}, `${title} (${games.length})`));
  if (!games.length) box.append(el("p", { class: "muted" }, t("home.games_none")));
  else {
    // B3: each line opens the game: its review, or the AI game still being played; B5: a
    // live online game, its room.
    const address = (game) => {
      if (game.status !== "ongoing") return `/review/game/${game.id}`;
      if (game.kind === "ai") return aiAddress({ ...game, you: game.side });
      return rooms.get(game.id) || `/review/game/${game.id}`; // the review sends it to the room
    };
    box.append(el("ul", {}, ...games.map((game) => el("li", { "data-game": game.id },
      el("a", { href: address(game) }, gameLine(game))))));
  }
  return box;
}

/** B5: "New opponent" after a paired game comes home with the same seek
 * (/?seek=xiangqi&rules=wxf&clock=5%2B3, /?seek=janggi&bikjang=points): it is made again at
 * once, as if chosen on the card. */
function seekAgain(home) {
  const params = new URLSearchParams(location.search);
  const variant = params.get("seek");
  if (!VARIANTS.includes(variant)) return;
  history.replaceState(null, "", "/");
  const form = home.querySelector("[data-form=seek]");
  const choice = form?.querySelector(`input[name=seek-variant][value=${variant}]`);
  if (!choice) return;
  choice.checked = true;
  for (const [name, on] of [["rules", "wxf"], ["bikjang", "points"]]) {
    const box = form.querySelector(`input[name=${name}]`);
    if (box) box.checked = params.get(name) === on;
  }
  form.dispatchEvent(new Event("change"));
  const clock = form.querySelector("select[name=clock]"); // B7: the same game length
  if (clock && params.get("clock")) clock.value = params.get("clock");
  form.requestSubmit();
}

function aiAddress(game) {
  const query = new URLSearchParams({
    variant: game.variant, level: game.level, color: game.you, game: game.id,
  });
  return `/play/ai?${query}`;
}

// ---------------------------------------------------------------------- opening a game

function samePendingGame(pending, wanted) {
  return pending.variant === wanted.variant && pending.level === wanted.level
    && (wanted.color === "random" || pending.you === wanted.color);
}

function normaliseColor(variant, color) {
  const map = variant === "janggi" ? { red: "cho", black: "han" } : { cho: "red", han: "black" };
  return map[color] || color;
}

/** Open /play/ai or /play/local; returns the GameScreen, or null when nothing was opened. */
export async function openGame(root, kind, params) {
  root.innerHTML = "";
  root.append(el("p", { class: "loading" }, t("status.loading")));
  const variant = VARIANTS.includes(params.get("variant")) ? params.get("variant") : "xiangqi";
  let state = null;
  const gameId = params.get("game");
  if (gameId) {
    try {
      state = await api("GET", `/api/games/${encodeURIComponent(gameId)}`);
      if (kind === "ai" && state.status !== "ongoing") state = state.kind === kind ? state : null;
    } catch {
      state = null;
    }
  }
  if (!state) {
    const request = { kind, variant };
    if (kind === "ai") {
      request.level = LEVELS.includes(params.get("level")) ? params.get("level") : "beginner";
      request.color = normaliseColor(variant, params.get("color") || "random");
    }
    if (variant === "janggi") {
      const setup = params.get("setup");
      if (SETUPS.includes(setup)) request.setup = setup;
      if (params.get("bikjang") === "points") request.bikjang = "points";
      const other = params.get("setup_other");
      if (kind === "local" && SETUPS.includes(other)) request.setup_other = other;
    } else if (params.get("rules") === "wxf") request.rules = "wxf";
    try {
      // Ask for a pending game first: meeting it as a refused request (409) logs an error.
      const pending = kind === "ai" ? await pendingGame() : null;
      if (!pending) state = await api("POST", "/api/games", request);
      else if (samePendingGame(pending, request)) state = pending;
      else state = await choosePending(pending, request);
    } catch (error) {
      if (error instanceof ApiError && error.code === "pending_game" && error.body?.error?.pending) {
        const pending = error.body.error.pending;
        if (samePendingGame(pending, request)) state = pending;
        else state = await choosePending(pending, request);
      } else {
        root.innerHTML = "";
        root.append(el("p", { class: "notice", role: "alert" }, t("error.start", { message: apiErrorText(error) })),
          el("a", { class: "button", href: "/" }, t("end.home")));
        return null;
      }
    }
  }
  if (!state) {
    location.href = "/";
    return null;
  }
  const query = new URLSearchParams(location.search);
  query.set("variant", state.variant);
  query.set("game", state.id);
  history.replaceState(null, "", `${location.pathname}?${query}`);
  root.innerHTML = "";
  document.title = `${t(`variant.${state.variant}`)} — Chu-Han`;
  return new GameScreen(root, state);
}

/** The player's pending game against the AI, or null (also when it cannot be asked). */
async function pendingGame() {
  try {
    return (await api("GET", "/api/games/pending")).game ?? null;
  } catch {
    return null;
  }
}

async function choosePending(pending, request) {
  const choice = await showDialog({
    title: t("pending.title"),
    body: t("pending.text", {
      variant: t(`variant.${pending.variant}`), level: t(`level.${pending.level}`),
      moves: (pending.moves || []).length,
    }),
    attributes: { "data-pending-dialog": "" },
    actions: [
      { label: t("pending.resume"), value: "resume", primary: true, attributes: { "data-action": "resume" } },
      { label: t("pending.abandon"), value: "abandon", attributes: { "data-action": "abandon" } },
    ],
  });
  if (choice === "resume") return pending;
  if (choice === "abandon") return api("POST", "/api/games", { ...request, abandon_pending: true });
  return null;
}

// ---------------------------------------------------------------------- settings

export function showSettings(onLanguage) {
  const body = el("form", { class: "settings", "data-settings": "" });
  const language = el("select", { id: "settings-language", "data-setting": "language" });
  language.append(el("option", { value: "" }, t("settings.language_browser")));
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = el("option", { value: code, lang: code }, name);
    if (settings.language === code) option.selected = true;
    language.append(option);
  }
  language.addEventListener("change", () => onLanguage(language.value || null));
  body.append(el("div", { class: "field" }, el("label", { for: "settings-language" }, t("settings.language")), language));

  const style = radioGroup("pieceStyle", "settings.piece_style", ["characters", "illustrations"],
    (v) => t(`settings.style_${v}`), settings.pieceStyle);
  style.addEventListener("change", () => updateSettings({ pieceStyle: formValue(body, "pieceStyle") }));
  body.append(style);

  // U6, N1–N3: WXF and Chinese are xiangqi's and jieqi's; janggi has the Korean notation.
  const notationChoice = (setting, id, labelKey, values) => {
    const select = el("select", { id, "data-setting": setting });
    for (const value of values) {
      const option = el("option", { value }, t(`settings.notation_${value}`));
      if (settings[setting] === value) option.selected = true;
      select.append(option);
    }
    select.addEventListener("change", () => updateSettings({ [setting]: select.value }));
    return el("div", { class: "field" }, el("label", { for: id }, t(labelKey)), select);
  };
  body.append(notationChoice("notation", "settings-notation", "settings.notation", ["coordinates", "wxf", "chinese"]),
    notationChoice("janggiNotation", "settings-janggi-notation", "settings.janggi_notation", ["coordinates", "korean"]));

  const confirm = el("input", { type: "checkbox", id: "settings-confirm", "data-setting": "confirmMove" });
  confirm.checked = settings.confirmMove;
  confirm.addEventListener("change", () => updateSettings({ confirmMove: confirm.checked }));
  const confirmLabel = el("label", { for: "settings-confirm" }, t("settings.confirm_move"));
  body.append(el("div", { class: "field check" }, confirm, confirmLabel));

  const muted = el("input", { type: "checkbox", id: "settings-muted", "data-setting": "muted" });
  muted.checked = settings.muted;
  muted.addEventListener("change", () => updateSettings({ muted: muted.checked }));
  body.append(el("div", { class: "field check" }, muted, el("label", { for: "settings-muted" }, t("settings.mute"))));

  const volume = el("input", {
    type: "range", id: "settings-volume", min: "0", max: "100", step: "5", "data-setting": "volume",
  });
  volume.value = String(Math.round(settings.volume * 100));
  volume.addEventListener("input", () => updateSettings({ volume: Number(volume.value) / 100 }));
  body.append(el("div", { class: "field" }, el("label", { for: "settings-volume" }, t("settings.volume")), volume));
  body.append(nameField());
  // B6: the same player on a phone and a laptop, and back after the cookies are gone.
  body.append(el("p", {}, el("a", { href: "/device", "data-action": "other-device" }, t("settings.other_device"))));
  translateTree(body);
  return showDialog({
    title: t("settings.title"),
    body,
    attributes: { "data-settings-dialog": "" },
    actions: [{ label: t("dialog.close"), primary: true, attributes: { "data-action": "close" } }],
  });
}

// S1: the display name, kept by the server with the player identity; the opponent in a room
// sees it. Saved with its button or Enter.
function nameField() {
  const input = el("input", {
    id: "settings-name", name: "name", maxlength: "40", autocomplete: "nickname", "data-setting": "name",
  });
  const status = el("p", { class: "muted", "data-name-status": "", role: "status" });
  const save = el("button", { type: "button", class: "button", "data-action": "save-name" }, t("settings.name_save"));
  const submit = async () => {
    try {
      const me = await api("PATCH", "/api/me", { name: input.value.trim() || null });
      input.value = me.name || "";
      status.textContent = t("settings.name_saved");
    } catch (error) {
      status.textContent = apiErrorText(error);
    }
  };
  save.addEventListener("click", submit);
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    submit();
  });
  api("GET", "/api/me").then((me) => {
    if (!input.value) input.value = me.name || "";
  }).catch(() => {});
  return el("div", { class: "field" }, el("label", { for: "settings-name" }, t("settings.name")),
    el("div", { class: "name-row" }, input, save), status);
}
