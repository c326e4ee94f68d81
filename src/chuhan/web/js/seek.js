// Play a stranger (SPEC B1): "Play someone now" on the home page. The player picks a game and
// its rule option and waits on the seek socket (/ws/seek, docs/protocol.md): the server pairs
// them with the first compatible player waiting, site-wide, and answers "paired" with the room,
// where the game has already begun (room.js plays it). While waiting the panel shows how long,
// and how many wait for each game; cancel at any time; after 30 s the computer is offered.
// Closing the page withdraws the seek (the socket's close does it on the server).
//
// One seek per player, shown the same everywhere: a tab that opens while another tab of the
// player waits shows that seek (GET /api/seeks/waiting names it) and follows it on its own
// socket; a seek made, changed or cancelled in one tab is shown so in all of them ("seeking",
// "cancelled"). The seek belongs to the page, not to the card: a language switch draws the
// card again around the same live seek. While waiting the page pings as often as the server
// says ("seeking".heartbeat), and answers the server's own notices with a ping too (a
// background tab's timers may be slowed to one a minute; its messages still arrive): a page
// that stops answering (a phone asleep) loses its seek
// instead of being paired. The counts never include the player and are for the rule option
// and clock chosen (WaitingNotice.pools).
import { clockChoice, clockLabel, syncClockChoice } from "./clocks.js";
import { api } from "./connection.js";
import { errorText } from "./errors.js";
import { t } from "./i18n.js";
import { nameBeforeFirstPairing } from "./naming.js";
import { bikjangChoice, radioGroup, rulesChoice, VARIANTS } from "./choices.js";
import { announce, el } from "./ui.js";

export const AI_OFFER_SECONDS = 30; // SPEC B1: after 30 s the AI is offered instead
const RECONNECT_MS = 1500;
const HEARTBEAT_SECONDS = 3; // until the server says how often ("seeking".heartbeat)

// The page's live seek, kept across redraws of the card (a language switch):
// {variant, options, socket, startedAt, closed, attached, told, pinger, view}.
let live = null;
let lastCounts = null; // the last counts heard ({counts, pools})
let lookAgain = null; // the card drawn last: read the player's seek again
// A tab coming back into view shows the seek another tab made meanwhile.
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && lookAgain) lookAgain();
});

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

function sameOptions(a, b) {
  const keys = new Set([...Object.keys(a || {}), ...Object.keys(b || {})]);
  return [...keys].every((key) => (a || {})[key] === (b || {})[key]);
}

/** The options the form asks for in ``variant`` (its rule option; its clock when the form's
 * clock is one the variant offers). */
function formOptions(form, variant) {
  const data = new FormData(form);
  const options = variant === "janggi"
    ? { bikjang: data.get("bikjang") ? "points" : "off" }
    : { rules: data.get("rules") ? "wxf" : "casual" };
  const chosen = new FormData(form).get("seek-variant");
  const clock = data.get("clock");
  if (variant === chosen && clock && clock !== "turn") options.clock = String(clock); // B7
  return options;
}

/** "Waiting now: Xiangqi 1 · Janggi 0 · Jieqi 0", each for the game the player would be
 * paired in: the live seek's options for its variant, the form's for the others. */
function countsText(answer, form) {
  const waiting = Object.fromEntries(VARIANTS.map((variant) => {
    if (!answer?.pools) return [variant, answer?.counts?.[variant] ?? 0];
    const wanted = live && !live.closed && live.variant === variant ? live.options : formOptions(form, variant);
    const found = answer.pools.find((pool) => pool.variant === variant && sameOptions(pool.options, wanted));
    return [variant, found ? found.waiting : 0];
  }));
  return t("seek.counts", waiting);
}

function send(socket, message) {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
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
  const showCounts = () => { if (lastCounts) counts.textContent = countsText(lastCounts, form); };
  const sync = () => {
    const variant = new FormData(form).get("seek-variant");
    form.classList.toggle("is-janggi", variant === "janggi");
    syncClockChoice(form, variant); // B7: byoyomi in janggi only
    showCounts();
  };
  form.addEventListener("change", sync);
  sync();

  let timer = null;

  const showError = (text, link) => {
    problem.innerHTML = "";
    problem.append(text);
    if (link) problem.append(" ", link);
    problem.hidden = false;
  };

  const showForm = () => {
    clearInterval(timer);
    panel.hidden = true;
    panel.innerHTML = "";
    form.hidden = false;
    showCounts();
  };

  // keepSocket: the socket stays open for the server's answer to a cancel (the counts
  // without this player, then "cancelled"), and closes on it.
  const stop = (keepSocket = false) => {
    if (!live) return;
    live.closed = true;
    clearInterval(live.pinger);
    if (!keepSocket) live.socket?.close();
    live = null;
    showForm();
  };

  const renderPanel = () => {
    if (!live) return;
    const seconds = (Date.now() - live.startedAt) / 1000;
    panel.querySelector("[data-seek-clock]").textContent = t("seek.waited", { time: clockText(seconds) });
    const offer = panel.querySelector("[data-seek-ai]");
    if (seconds >= AI_OFFER_SECONDS && offer.hidden) {
      offer.hidden = false;
      announce(t("seek.ai_offer"));
    }
  };

  const playComputer = () => {
    const { variant, options } = live;
    stop();
    const level = new FormData(aiForm).get("level") || "beginner";
    const query = new URLSearchParams({ variant, level, color: "random" });
    if (options.bikjang === "points") query.set("bikjang", "points");
    if (options.rules === "wxf") query.set("rules", "wxf");
    location.href = `/play/ai?${query}`;
  };

  const cancelSeek = () => {
    const socket = live?.socket;
    const open = socket?.readyState === WebSocket.OPEN;
    if (open) {
      send(socket, { id: `c${Date.now()}`, type: "cancel" });
      setTimeout(() => socket.close(), 3000); // no answer: closing withdraws the seek too
    }
    stop(open);
    announce(t("seek.cancelled"));
    form.querySelector("[data-action=seek]").focus();
  };

  /** The waiting panel for the live seek (drawn again when another tab changes it). */
  const showWaiting = () => {
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
      el("p", { "data-seek-choice": "" }, choiceText(live.variant, live.options)),
      el("p", { "data-seek-clock": "", "aria-live": "off" }, ""),
      cancel, aiOffer,
    );
    aiOffer.querySelector("button").addEventListener("click", playComputer);
    cancel.addEventListener("click", cancelSeek);
    panel.hidden = false;
    clearInterval(timer);
    timer = setInterval(renderPanel, 1000);
    renderPanel();
    showCounts();
    return cancel;
  };

  // What the live seek's socket hears, shown on the card drawn last.
  const view = {
    detach() { // another card shows the seek now
      clearInterval(timer);
    },
    counts(message) {
      lastCounts = message;
      showCounts();
    },
    seeking(message) {
      const changed = live.variant !== message.variant || !sameOptions(live.options, message.options);
      live.variant = message.variant;
      live.options = message.options;
      live.startedAt = Date.now() - message.waited * 1000;
      if (changed || panel.hidden) showWaiting();
      else renderPanel();
    },
    cancelled() {
      stop();
    },
    refused(message) {
      stop();
      const link = message.code === "already_playing" && message.room
        ? el("a", { href: `/room/${encodeURIComponent(message.room)}`, "data-action": "go-to-game" }, t("seek.go_to_game"))
        : null;
      const text = errorText(message); // a sentence of its own here
      showError(text.charAt(0).toUpperCase() + text.slice(1), link);
    },
  };

  // A ping at most every half heartbeat: on the page's own timer, and on the server's notices.
  const ping = (mine) => {
    if (Date.now() - (mine.pinged || 0) < (mine.every * 1000) / 2) return;
    mine.pinged = Date.now();
    send(mine.socket, { id: `p${Date.now()}`, type: "ping" });
  };
  const heartbeat = (mine, seconds) => {
    clearInterval(mine.pinger);
    mine.every = seconds;
    mine.pinger = setInterval(() => ping(mine), seconds * 1000);
  };

  const connect = () => {
    const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/seek`);
    const mine = live;
    mine.socket = socket;
    mine.told = false; // this socket was shown the seek ("seeking")
    socket.addEventListener("open", () => {
      // A page that follows another tab's seek asks for nothing: the server shows it the seek.
      if (!mine.attached) send(socket, { id: `s${Date.now()}`, type: "seek", variant: mine.variant, options: mine.options });
      heartbeat(mine, HEARTBEAT_SECONDS);
    });
    socket.addEventListener("message", (frame) => {
      const message = JSON.parse(frame.data);
      const current = live === mine;
      if (mine.every) ping(mine);
      if (message.type === "waiting") {
        if (current && mine.attached && !mine.told) {
          stop(); // the seek followed is gone already
          return;
        }
        mine.view.counts(message);
      } else if (message.type === "seeking" && current) {
        mine.told = true;
        if (message.heartbeat) heartbeat(mine, message.heartbeat);
        mine.view.seeking(message);
      } else if (message.type === "paired") {
        announce(t("seek.found"));
        mine.closed = true;
        location.href = `/room/${encodeURIComponent(message.room)}`;
      } else if (message.type === "cancelled") {
        if (current) mine.view.cancelled();
        else socket.close(); // the answer to this page's cancel
      } else if (message.type === "error" && message.reply_to && current) {
        mine.view.refused(message);
      }
    });
    socket.addEventListener("close", () => {
      clearInterval(mine.pinger);
      // A dropped connection withdrew the seek: ask again (the same choice) while waiting.
      if (!mine.closed && live === mine) {
        mine.attached = false;
        setTimeout(() => { if (!mine.closed && live === mine) connect(); }, RECONNECT_MS);
      }
    });
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!await nameBeforeFirstPairing()) return; // B7: asked once, before the first pairing
    const variant = String(new FormData(form).get("seek-variant"));
    live = {
      variant, options: formOptions(form, variant), socket: null, startedAt: Date.now(),
      closed: false, attached: false, told: false, pinger: null, view,
    };
    const cancel = showWaiting();
    connect();
    cancel.focus();
  });

  if (live && !live.closed) {
    live.view.detach();
    live.view = view; // drawn again (a language switch): the same seek goes on
    showWaiting();
  }
  lookAgain = () => api("GET", "/api/seeks/waiting").then((answer) => {
    view.counts(answer);
    if (answer.seek && !live && card.isConnected) { // another tab's: shown here, and followed
      const { variant, options, waited } = answer.seek;
      live = {
        variant, options, socket: null, startedAt: Date.now() - waited * 1000,
        closed: false, attached: true, told: false, pinger: null, view,
      };
      showWaiting();
      connect();
    }
  }).catch(() => {});
  lookAgain();
  return card;
}
