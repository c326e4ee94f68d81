// Play a stranger (SPEC B1): "Play someone now" on the home page. The player picks a game and
// its rule option and waits on the seek socket (/ws/seek, docs/protocol.md): the server pairs
// them with the first compatible player waiting, site-wide, and answers "paired" with the room,
// where the game has already begun (room.js plays it). While waiting the panel shows how long,
// and how many wait for each game; cancel at any time; after 30 s the computer is offered.
// Closing the page withdraws the seek (the socket's close does it on the server).
import { clockChoice, clockLabel, syncClockChoice } from "./clocks.js";
import { api } from "./connection.js";
import { errorText } from "./errors.js";
import { t } from "./i18n.js";
import { nameBeforeFirstPairing } from "./naming.js";
import { bikjangChoice, radioGroup, rulesChoice, VARIANTS } from "./screens.js";
import { announce, el } from "./ui.js";

export const AI_OFFER_SECONDS = 30; // SPEC B1: after 30 s the AI is offered instead
const RECONNECT_MS = 1500;
const PING_MS = 20000; // the server closes a socket that says nothing for 120 s

function countsText(counts) {
  return t("seek.counts", Object.fromEntries(VARIANTS.map((v) => [v, counts?.[v] ?? 0])));
}

function clockText(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function choiceText(variant, options) {
  const parts = [t(`variant.${variant}`)];
  if (options.rules === "wxf") parts.push(t("seek.rules_wxf"));
  if (options.bikjang === "points") parts.push(t("seek.bikjang_points"));
  if (options.clock) parts.push(clockLabel(options.clock)); // B7
  return parts.join(" · ");
}

/** The home page's "Play someone now" card. ``aiForm``: the home page's computer form,
 * whose level (and this seek's game) the offered AI game takes. */
export function seekCard(aiForm) {
  const card = el("section", { class: "card seek", "aria-labelledby": "seek-heading", "data-seek": "" });
  card.append(el("h2", { id: "seek-heading" }, t("seek.title")), el("p", {}, t("seek.lead")));
  const form = el("form", { class: "play-form", "data-form": "seek" });
  form.append(
    radioGroup("seek-variant", "field.variant", VARIANTS, (v) => t(`variant.${v}`), "xiangqi"),
    bikjangChoice("seek"),
    rulesChoice("seek"),
    clockChoice("seek"),
    el("button", { type: "submit", class: "button primary", "data-action": "seek" }, t("seek.start")),
  );
  const counts = el("p", { class: "muted", "data-seek-counts": "" }, "");
  const panel = el("div", { class: "seek-wait", hidden: "", "data-seek-wait": "", role: "status" });
  const problem = el("p", { class: "notice", hidden: "", role: "alert", "data-seek-error": "" });
  card.append(form, panel, problem, counts);
  const sync = () => {
    const variant = new FormData(form).get("seek-variant");
    form.classList.toggle("is-janggi", variant === "janggi");
    syncClockChoice(form, variant); // B7: byoyomi in janggi only
  };
  form.addEventListener("change", sync);
  sync();
  api("GET", "/api/seeks/waiting").then((answer) => {
    counts.textContent = countsText(answer.counts);
  }).catch(() => {});

  let waiting = null; // {variant, options, socket, startedAt, timer, closed}

  const showError = (text, link) => {
    problem.innerHTML = "";
    problem.append(text);
    if (link) problem.append(" ", link);
    problem.hidden = false;
  };

  // keepSocket: the socket stays open for the server's answer to a cancel (the counts
  // without this player, then "cancelled"), and closes on it.
  const stop = (keepSocket = false) => {
    if (!waiting) return;
    waiting.closed = true;
    clearInterval(waiting.timer);
    if (!keepSocket) waiting.socket?.close();
    waiting = null;
    panel.hidden = true;
    panel.innerHTML = "";
    form.hidden = false;
  };

  const renderPanel = () => {
    const seconds = (Date.now() - waiting.startedAt) / 1000;
    panel.querySelector("[data-seek-clock]").textContent = t("seek.waited", { time: clockText(seconds) });
    const offer = panel.querySelector("[data-seek-ai]");
    if (seconds >= AI_OFFER_SECONDS && offer.hidden) {
      offer.hidden = false;
      announce(t("seek.ai_offer"));
    }
  };

  const playComputer = () => {
    const { variant, options } = waiting;
    stop();
    const level = new FormData(aiForm).get("level") || "beginner";
    const query = new URLSearchParams({ variant, level, color: "random" });
    if (options.bikjang === "points") query.set("bikjang", "points");
    if (options.rules === "wxf") query.set("rules", "wxf");
    location.href = `/play/ai?${query}`;
  };

  const connect = () => {
    const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/seek`);
    waiting.socket = socket;
    const mine = waiting;
    let pinger = null;
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ id: `s${Date.now()}`, type: "seek", variant: mine.variant, options: mine.options }));
      pinger = setInterval(() => socket.send(JSON.stringify({ id: `p${Date.now()}`, type: "ping" })), PING_MS);
    });
    socket.addEventListener("message", (frame) => {
      const message = JSON.parse(frame.data);
      if (message.type === "waiting") counts.textContent = countsText(message.counts);
      else if (message.type === "seeking" && waiting === mine) {
        mine.startedAt = Math.min(mine.startedAt, Date.now() - message.waited * 1000);
        renderPanel();
      } else if (message.type === "paired") {
        announce(t("seek.found"));
        mine.closed = true;
        location.href = `/room/${encodeURIComponent(message.room)}`;
      } else if (message.type === "cancelled") {
        if (waiting === mine) stop();
        else socket.close(); // the answer to this page's cancel
      }
      else if (message.type === "error" && message.reply_to) {
        stop();
        const link = message.code === "already_playing" && message.room
          ? el("a", { href: `/room/${encodeURIComponent(message.room)}`, "data-action": "go-to-game" }, t("seek.go_to_game"))
          : null;
        showError(errorText(message), link);
      }
    });
    socket.addEventListener("close", () => {
      clearInterval(pinger);
      // A dropped connection withdrew the seek: ask again (the same choice) while waiting.
      if (!mine.closed && waiting === mine) setTimeout(() => { if (!mine.closed && waiting === mine) connect(); }, RECONNECT_MS);
    });
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!await nameBeforeFirstPairing()) return; // B7: asked once, before the first pairing
    const data = new FormData(form);
    const variant = String(data.get("seek-variant"));
    const options = variant === "janggi"
      ? { bikjang: data.get("bikjang") ? "points" : "off" }
      : { rules: data.get("rules") ? "wxf" : "casual" };
    if (data.get("clock") && data.get("clock") !== "turn") options.clock = String(data.get("clock")); // B7
    problem.hidden = true;
    form.hidden = true;
    panel.innerHTML = "";
    const aiOffer = el("div", { class: "seek-ai", hidden: "", "data-seek-ai": "" },
      el("p", {}, t("seek.ai_offer")),
      el("button", { type: "button", class: "button", "data-action": "seek-ai" }, t("seek.ai_start")));
    const cancel = el("button", { type: "button", class: "button", "data-action": "seek-cancel" }, t("seek.cancel"));
    panel.append(
      el("p", { class: "seek-searching" }, el("span", { class: "seek-spinner", "aria-hidden": "true" }),
        el("strong", {}, t("seek.searching"))),
      el("p", { "data-seek-choice": "" }, choiceText(variant, options)),
      el("p", { "data-seek-clock": "", "aria-live": "off" }, ""),
      cancel, aiOffer,
    );
    aiOffer.querySelector("button").addEventListener("click", playComputer);
    cancel.addEventListener("click", () => {
      const socket = waiting?.socket;
      const open = socket?.readyState === WebSocket.OPEN;
      if (open) {
        socket.send(JSON.stringify({ id: `c${Date.now()}`, type: "cancel" }));
        setTimeout(() => socket.close(), 3000); // no answer: closing withdraws the seek too
      }
      stop(open);
      announce(t("seek.cancelled"));
      form.querySelector("[data-action=seek]").focus();
    });
    panel.hidden = false;
    waiting = { variant, options, socket: null, startedAt: Date.now(), closed: false, timer: null };
    waiting.timer = setInterval(renderPanel, 1000);
    renderPanel();
    connect();
    cancel.focus();
  });
  return card;
}
