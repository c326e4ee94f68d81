// Online rooms (SPEC R1–R8): create or join a room, then play a friend on the room socket.
// Routes: "/room" (create, or join by password), "/room/i/<invite>" (an invite link),
// "/room/<id>" (a room the player has a seat in). The server keeps the clocks and decides
// everything; this screen shows the confirmed state and sends the player's requests.
import { BoardView } from "./board.js";
import { api, ApiError } from "./connection.js";
import { t } from "./i18n.js";
import { kindOf, parseMove, placementFromFen, sideNames, sideOf } from "./position.js";
import { settings } from "./settings.js";
import { playSound } from "./sound.js";
import { announce, confirmDialog, el } from "./ui.js";

const VARIANTS = ["xiangqi", "janggi", "jieqi"];
const SETUPS = ["HEHE", "EHEH", "HEEH", "EHHE"];
const MAX_BACKOFF_MS = 8000;

function stylesheet() {
  if (document.querySelector("link[data-room-css]")) return;
  document.head.append(el("link", { rel: "stylesheet", href: "/static/css/room.css", "data-room-css": "" }));
}

/** This tab's device id: a reload reconnects as the same device, another tab does not (R7). */
function deviceId() {
  let id = sessionStorage.getItem("chuhan.device");
  if (!id) {
    const bytes = crypto.getRandomValues(new Uint8Array(12));
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    sessionStorage.setItem("chuhan.device", id);
  }
  return id;
}

/** The player's language for a refusal the server explains (its English text otherwise). */
function errorText(error) {
  if (!(error instanceof ApiError) || error.status === 0) return t("room.error_network");
  const body = error.body || {};
  const known = {
    bad_password: () => t(`room.password_${body.reason}`),
    password_taken: () => t("room.password_taken"),
    wrong_password: () => t("room.wrong_password", { tries: body.tries_left }),
    too_many_attempts: () => t("room.too_many_attempts"),
    room_full: () => t("room.full"),
    not_found: () => t("room.not_found"),
  }[error.code];
  const text = known ? known() : "";
  return text && !text.startsWith("room.") ? text : error.message || error.code;
}

/** Open whichever room screen the address asks for. Returns the RoomScreen, if any. */
export async function openRoomRoute(root) {
  stylesheet();
  await api("GET", "/api/me"); // a first visit gets its player identity here (S1)
  const parts = location.pathname.split("/").filter(Boolean); // ["room", ...]
  if (parts.length === 1) {
    showRoomHome(root);
    return null;
  }
  if (parts[1] === "i" && parts[2]) {
    try {
      const room = await api("POST", `/api/rooms/invite/${encodeURIComponent(parts[2])}`);
      history.replaceState(null, "", `/room/${room.id}`);
      return new RoomScreen(root, room);
    } catch (error) {
      showRoomHome(root, errorText(error));
      return null;
    }
  }
  try {
    const room = await api("GET", `/api/rooms/${encodeURIComponent(parts[1])}`);
    return new RoomScreen(root, room);
  } catch (error) {
    showRoomHome(root, errorText(error));
    return null;
  }
}

// ---------------------------------------------------------------------- create / join

function radio(name, value, label, checked) {
  const id = `${name}-${value}`;
  const input = el("input", { type: "radio", name, id, value });
  if (checked) input.checked = true;
  return el("label", { for: id, class: "pill" }, input, el("span", {}, label));
}

export function showRoomHome(root, problem = "") {
  stylesheet();
  root.innerHTML = "";
  const page = el("div", { class: "home room-home", "data-room-home": "" });
  page.append(el("h1", { class: "home-title" }, t("room.title")), el("p", { class: "lead" }, t("room.lead")));
  const notice = el("p", { class: "notice", role: "alert", "data-room-notice": "", hidden: "" });
  const say = (text) => {
    notice.textContent = text;
    notice.hidden = !text;
    if (text) announce(text);
  };
  page.append(notice);

  const createCard = el("section", { class: "card", "aria-labelledby": "room-create-heading" });
  createCard.append(el("h2", { id: "room-create-heading" }, t("room.create")));
  const createForm = el("form", { class: "play-form", "data-form": "room-create" });
  const variants = el("fieldset", { class: "choice" }, el("legend", {}, t("field.variant")));
  for (const v of VARIANTS) variants.append(radio("room-variant", v, t(`variant.${v}`), v === "xiangqi"));
  const bikjang = el("div", { class: "field check janggi-only" },
    el("input", { type: "checkbox", id: "room-bikjang", name: "bikjang" }),
    el("label", { for: "room-bikjang" }, t("room.bikjang")));
  const access = el("fieldset", { class: "choice" }, el("legend", {}, t("room.access")));
  access.append(radio("room-access", "invite", t("room.access_invite"), true),
    radio("room-access", "password", t("room.access_password"), false));
  const passwordField = el("div", { class: "field password-only" },
    el("label", { for: "room-new-password" }, t("room.password")),
    el("input", { id: "room-new-password", name: "password", autocomplete: "off", maxlength: "20",
      "aria-describedby": "room-password-rules" }),
    el("p", { class: "muted", id: "room-password-rules" }, t("room.password_rules")));
  createForm.append(variants, bikjang, access, passwordField,
    el("button", { type: "submit", class: "button primary", "data-action": "create-room" }, t("room.create_button")));
  createCard.append(createForm);

  const joinCard = el("section", { class: "card", "aria-labelledby": "room-join-heading" });
  joinCard.append(el("h2", { id: "room-join-heading" }, t("room.join")));
  const joinForm = el("form", { class: "play-form", "data-form": "room-join" });
  joinForm.append(
    el("div", { class: "field" }, el("label", { for: "room-password" }, t("room.password")),
      el("input", { id: "room-password", name: "password", autocomplete: "off", maxlength: "20", required: "" })),
    el("button", { type: "submit", class: "button primary", "data-action": "join-room" }, t("room.join_button")),
  );
  joinCard.append(joinForm, el("p", { class: "muted" }, t("room.join_invite_note")));
  page.append(createCard, joinCard, el("p", {}, el("a", { href: "/" }, t("room.back_home"))));
  root.append(page);
  say(problem);

  const sync = () => {
    const data = new FormData(createForm);
    createForm.classList.toggle("is-janggi", data.get("room-variant") === "janggi");
    createForm.classList.toggle("is-password", data.get("room-access") === "password");
  };
  createForm.addEventListener("change", sync);
  sync();

  createForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(createForm);
    const body = { variant: data.get("room-variant"), bikjang: data.get("bikjang") ? "points" : "off" };
    if (data.get("room-access") === "password") body.password = String(data.get("password") || "");
    try {
      const room = await api("POST", "/api/rooms", body);
      location.href = `/room/${room.id}`;
    } catch (error) {
      say(errorText(error));
    }
  });
  joinForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const password = String(new FormData(joinForm).get("password") || "");
    try {
      const room = await api("POST", "/api/rooms/join", { password });
      location.href = `/room/${room.id}`;
    } catch (error) {
      say(errorText(error));
    }
  });
}

// ---------------------------------------------------------------------- the room socket

let counter = 0;
function nextId() {
  counter += 1;
  return `r${Date.now().toString(36)}${counter}`;
}

class RoomSocket {
  /** handlers.onMessage(message), handlers.onStatus("online" | "offline"); hello() fields. */
  constructor(roomId, handlers, hello) {
    this.roomId = roomId;
    this.handlers = handlers;
    this.hello = hello;
    this.waiting = new Map();
    this.backoff = 500;
    this.stopped = false;
    this.socket = null;
  }

  start() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/rooms/${encodeURIComponent(this.roomId)}`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.backoff = 500;
      this.raw({ id: nextId(), type: "hello", ...this.hello() });
      this.handlers.onStatus("online");
    });
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      for (const resolve of this.waiting.values()) resolve({ type: "error", code: "offline", message: t("notice.offline") });
      this.waiting.clear();
      if (this.stopped || event.code === 4409 || event.code === 4404) return;
      this.handlers.onStatus("offline");
      setTimeout(() => !this.stopped && !this.socket && this.start(), this.backoff);
      this.backoff = Math.min(MAX_BACKOFF_MS, this.backoff * 2);
    });
  }

  stop() {
    this.stopped = true;
    if (this.socket) this.socket.close();
  }

  raw(message) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  request(type, fields = {}) {
    const message = { id: nextId(), type, ...fields };
    return new Promise((resolve) => {
      this.waiting.set(message.id, resolve);
      this.raw(message);
    });
  }

  receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.type === "probe") {
      this.raw({ id: nextId(), type: "probe", n: message.n });
      return;
    }
    if (message.reply_to && this.waiting.has(message.reply_to)) {
      const resolve = this.waiting.get(message.reply_to);
      this.waiting.delete(message.reply_to);
      resolve(message);
      return;
    }
    this.handlers.onMessage(message);
  }
}

// ---------------------------------------------------------------------- the room screen

export class RoomScreen {
  constructor(root, room) {
    this.root = root;
    this.room = room;
    this.game = null; // the current game's state, as this player may see it
    this.gameId = null;
    this.seq = null;
    this.selected = null;
    this.notice = "";
    this.holds = true;
    this.detached = false;
    this.offset = 0; // server clock minus ours, in ms
    this.endAnnounced = null;
    this.build();
    this.socket = new RoomSocket(room.id, {
      onMessage: (message) => this.onMessage(message),
      onStatus: (status) => this.onStatus(status),
    }, () => ({ device: deviceId(), game_id: this.gameId, last_seq: this.seq }));
    this.socket.start();
    this.ticker = setInterval(() => this.renderClock(), 250);
    this.render();
  }

  get variant() {
    return this.room.variant;
  }

  // ------------------------------------------------------------------ layout

  build() {
    this.root.innerHTML = "";
    const layout = el("div", { class: "game-layout room-layout", "data-room": this.room.id });
    this.layoutElement = layout;
    const main = el("div", { class: "game-main" });
    this.statusLine = el("p", { class: "status-line", role: "status", "data-room-status": "" });
    this.clockLine = el("p", { class: "room-clock", "data-clock": "", "aria-live": "off" });
    this.noticeLine = el("p", { class: "notice", "data-notice": "", hidden: "" });
    this.offerBar = el("div", { class: "confirm-bar room-offer", "data-offer": "", hidden: "" });
    this.boardBox = el("div", { class: "board-box" });
    const view = el("div", { class: "view-controls" });
    const viewButton = (key, icon, action) => {
      const button = el("button", { type: "button", class: "icon-button", "aria-label": t(key), title: t(key) }, icon);
      button.addEventListener("click", action);
      return button;
    };
    view.append(
      viewButton("view.zoom_in", "+", () => this.board.zoom(1.4)),
      viewButton("view.zoom_out", "−", () => this.board.zoom(1 / 1.4)),
      viewButton("view.full", "⤢", () => this.board.resetView()),
      viewButton("view.flip", "⇅", () => {
        this.flippedByPlayer = !this.flippedByPlayer;
        this.renderBoard();
      }),
    );
    main.append(this.statusLine, this.clockLine, this.noticeLine, this.offerBar, this.boardBox, view);
    const side = el("aside", { class: "side-panel room-panel" });
    this.share = el("div", { class: "room-share", "data-share": "" });
    this.seats = el("div", { class: "players", "data-seats": "" });
    this.lobby = el("div", { class: "room-lobby", "data-lobby": "" });
    this.controls = el("div", { class: "controls", "data-controls": "" });
    this.moveList = el("ol", { class: "move-list", "aria-label": t("moves.heading") });
    side.append(this.share, this.seats, this.lobby, this.controls, this.moveList);
    layout.append(main, side);
    this.root.append(layout);
    this.board = new BoardView(this.boardBox, {
      onActivate: (point) => this.activate(point),
      onCancel: () => this.cancel(),
      describe: (point, letter) => `${point}, ${letter ? this.pieceName(letter) : t("point.empty")}`,
    });
    this.board.setVariant(this.variant);
    this.board.setStyle(settings.pieceStyle);
  }

  pieceName(letter) {
    const kind = kindOf(letter);
    const side = t(`side.${sideOf(letter, this.variant)}`);
    return kind === "hidden" ? t("piece.hidden", { side }) : t("piece.named", { side, piece: t(`kind.${kind}`) });
  }

  button(key, action, handler, extra = {}) {
    const button = el("button", { type: "button", class: "button", "data-action": action, ...extra }, t(key));
    button.addEventListener("click", handler);
    return button;
  }

  // ------------------------------------------------------------------ what is shown

  get you() {
    return this.game?.you ?? this.room.you;
  }

  get ongoing() {
    return this.game?.status === "ongoing";
  }

  get myTurn() {
    return this.ongoing && this.game.turn === this.game.you;
  }

  render() {
    // Test hooks: what the confirmed state says, readable without parsing the text.
    Object.assign(this.layoutElement.dataset, {
      phase: this.room.setup ? "setup" : this.ongoing ? "playing" : "lobby",
      you: this.you || "",
      ply: String(this.game?.ply ?? ""),
      status: this.game?.status || "",
      reason: this.game?.result?.reason || "",
      winner: this.game?.result?.winner || "",
      myTurn: String(Boolean(this.myTurn)),
      offerBy: (this.ongoing && this.game.options?.draw?.offer_by) || "",
    });
    this.renderShare();
    this.renderSeats();
    this.renderLobby();
    this.renderControls();
    this.renderBoard();
    this.renderStatus();
    this.renderClock();
  }

  renderShare() {
    const room = this.room;
    this.share.innerHTML = "";
    this.share.append(el("h2", { class: "panel-heading" }, t("room.heading", { variant: t(`variant.${room.variant}`) })));
    if (room.access === "password") {
      this.share.append(el("p", {}, t("room.share_password"), " ", el("strong", { "data-room-password": "" }, room.password)));
    } else {
      const link = `${location.origin}/room/i/${room.invite}`;
      const input = el("input", { class: "room-link", readonly: "", value: link, "data-invite-link": "", "aria-label": t("room.share_link") });
      const copy = this.button("room.copy", "copy-link", async () => {
        try {
          await navigator.clipboard.writeText(link);
          announce(t("room.copied"));
        } catch {
          input.select();
        }
      });
      this.share.append(el("p", {}, t("room.share_link")), el("div", { class: "room-link-row" }, input, copy));
    }
  }

  renderSeats() {
    this.seats.innerHTML = "";
    for (const seat of this.room.seats) {
      const who = seat.you ? t("room.you") : (seat.name || t("room.friend"));
      const row = el("div", { class: `player${seat.side ? ` side-${seat.side}` : ""}`, "data-seat": seat.you ? "you" : "friend" });
      row.append(el("span", { class: "dot", "aria-hidden": "true" }), el("span", { class: "name" }, who));
      if (seat.side) row.append(el("span", { class: "badge" }, t(`side.${seat.side}`)));
      if (seat.ready) row.append(el("span", { class: "badge ready", "data-ready": "" }, t("room.ready_badge")));
      if (!seat.connected) row.append(el("span", { class: "badge away" }, t("room.away")));
      this.seats.append(row);
    }
    if (this.room.seats.length < 2) this.seats.append(el("p", { class: "muted", "data-waiting": "" }, t("room.waiting_friend")));
  }

  renderLobby() {
    this.lobby.innerHTML = "";
    const room = this.room;
    if (this.detached) {
      this.lobby.append(el("p", { class: "notice", "data-detached": "" }, t("room.detached")));
      return;
    }
    if (!this.holds) {
      this.lobby.append(el("p", {}, t("room.elsewhere")),
        this.button("room.continue_here", "take-seat", () => this.takeSeat(), { class: "button primary" }));
      return;
    }
    if (room.setup) {
      this.renderSetup();
      return;
    }
    if (this.game && !this.ongoing) {
      this.lobby.append(el("p", { class: "room-result", "data-result": "" }, this.resultText()));
    }
    if (!this.ongoing) {
      const mine = room.seats.find((seat) => seat.you);
      const ready = this.button("room.ready", "ready", () => this.send("ready"), {
        class: "button primary", disabled: mine?.ready || room.seats.length < 2 ? "" : null,
      });
      this.lobby.append(ready);
      if (mine?.ready) this.lobby.append(el("p", { class: "muted" }, t("room.waiting_ready")));
    }
  }

  renderSetup() {
    const setup = this.room.setup;
    const mine = setup.turn === this.room.you;
    if (setup.han) this.lobby.append(el("p", { "data-han-setup": "" }, t("room.han_chose", { setup: t(`setup.${setup.han}`), code: setup.han })));
    if (!mine) {
      this.lobby.append(el("p", {}, t("room.setup_waiting", { side: t(`side.${setup.turn}`) })));
      return;
    }
    const select = el("select", { id: "room-setup", "data-setup": "" });
    for (const s of SETUPS) select.append(el("option", { value: s }, `${t(`setup.${s}`)} (${s})`));
    this.lobby.append(el("div", { class: "field" }, el("label", { for: "room-setup" }, t("field.setup")), select),
      this.button("room.choose_setup", "choose-setup", () => this.send("setup", { setup: select.value }), { class: "button primary" }));
  }

  renderControls() {
    this.controls.innerHTML = "";
    if (this.holds && !this.detached && this.ongoing) {
      const draw = this.game.options?.draw || {};
      const offeredByMe = draw.offer_by === this.you;
      if (this.variant === "janggi") {
        this.controls.append(this.button("action.pass", "pass", () => this.play("pass"), {
          disabled: this.myTurn && (this.game.legal_moves || []).includes("pass") ? null : "",
        }));
      }
      this.controls.append(
        this.button("action.draw", "draw", () => this.send("draw_offer"), {
          disabled: this.myTurn && !draw.offer_by ? null : "",
        }),
        this.button("action.resign", "resign", () => this.resign(), { class: "button danger" }),
      );
      if (offeredByMe) this.controls.append(el("p", { class: "muted", "data-offer-open": "" }, t("room.offer_open")));
    }
    this.controls.append(this.button("room.leave", "leave", () => this.leave()));
    this.offerBar.innerHTML = "";
    const offer = this.ongoing ? this.game.options?.draw?.offer_by : null;
    this.offerBar.hidden = !(offer && offer !== this.you);
    if (!this.offerBar.hidden) {
      this.offerBar.append(el("span", {}, this.myTurn ? t("room.offer_received") : t("room.offer_received_wait")));
      this.offerBar.append(this.button("room.accept_draw", "accept-draw", () => this.send("draw_accept"), {
        class: "button primary", disabled: this.myTurn ? null : "",
      }));
    }
    this.moveList.innerHTML = "";
    const moves = this.game?.moves || [];
    for (let i = 0; i < moves.length; i += 2) {
      this.moveList.append(el("li", {}, ...moves.slice(i, i + 2).map((m) => el("span", { class: "move" }, m === "pass" ? t("move.pass") : m))));
    }
  }

  renderBoard() {
    const [, second] = sideNames(this.variant);
    // R3: your own side at the bottom by default; U5: the player may flip the view.
    const flipped = (this.you === second) !== Boolean(this.flippedByPlayer);
    if (flipped !== this.board.flipped) this.board.setFlipped(flipped);
    const pieces = placementFromFen(this.game?.fen || "");
    this.board.setLabel(t("board.label", { variant: t(`variant.${this.variant}`) }));
    this.board.setPieces(pieces);
    const last = parseMove(this.game?.last_move);
    this.board.setMarks({
      selected: this.selected,
      destinations: new Set(this.selected ? this.legalFrom(this.selected) : []),
      lastMove: last && !last.pass ? last : null,
      check: null,
      hint: null,
    });
    this.boardBox.classList.toggle("waiting", !this.game);
  }

  renderStatus() {
    let text;
    if (this.detached) text = t("room.detached");
    else if (this.room.setup) text = t("room.status_setup");
    else if (!this.game) text = this.room.seats.length < 2 ? t("room.waiting_friend") : t("room.status_ready");
    else if (!this.ongoing) text = this.resultText();
    else text = this.myTurn ? t("status.your_turn") : t("room.their_turn");
    if (this.ongoing && this.game.in_check) text += ` — ${t("status.check")}`;
    this.statusLine.textContent = text;
    this.noticeLine.textContent = this.notice;
    this.noticeLine.hidden = !this.notice;
  }

  renderClock() {
    const now = Date.now() + this.offset;
    let deadline = null;
    let paused = false;
    if (this.room.setup) deadline = Date.parse(this.room.setup.deadline);
    else if (this.ongoing) {
      const clock = this.game.options?.clock;
      paused = Boolean(clock?.both_away_since);
      deadline = clock ? Date.parse(clock.deadline) : null;
    }
    if (deadline === null || Number.isNaN(deadline)) {
      this.clockLine.textContent = "";
      this.clockLine.hidden = true;
      return;
    }
    const left = Math.max(0, Math.ceil((deadline - now) / 1000));
    this.clockLine.hidden = false;
    this.clockLine.dataset.seconds = String(left);
    this.clockLine.classList.toggle("low", left <= 10);
    this.clockLine.textContent = paused ? t("room.clock_paused") : t("room.clock", { seconds: left });
  }

  resultText() {
    const result = this.game?.result || {};
    let title;
    if (!result.winner) title = t("result.draw");
    else title = result.winner === this.you ? t("result.you_win") : t("result.you_lose");
    const reason = result.reason ? ` ${t(`reason.${result.reason}`)}` : "";
    const points = result.winner && result.winner === this.you && this.game.points_awarded
      ? ` ${t("room.points_won", { points: this.game.points_awarded })}` : "";
    const stop = /[.!?]$/.test(title) ? "" : ".";
    return `${title}${stop}${reason}${points}`;
  }

  legalFrom(point) {
    if (!this.myTurn || !this.holds) return [];
    return (this.game.legal_moves || []).map(parseMove)
      .filter((m) => m && !m.pass && m.from === point).map((m) => m.to);
  }

  // ------------------------------------------------------------------ input

  activate(point) {
    if (!this.myTurn) {
      announce(this.ongoing ? t("announce.not_your_turn") : t("room.status_ready"));
      return;
    }
    if (this.selected && this.legalFrom(this.selected).includes(point)) {
      this.play(this.selected + point);
      return;
    }
    this.selected = this.legalFrom(point).length && this.selected !== point ? point : null;
    this.renderBoard();
  }

  cancel() {
    this.selected = null;
    this.renderBoard();
  }

  async play(move) {
    this.selected = null;
    await this.send("move", { ply: this.game.ply, move });
  }

  async send(type, fields = {}) {
    const reply = await this.socket.request(type, fields);
    this.notice = reply.type === "error" ? t("notice.refused", { message: reply.message || reply.code }) : "";
    if (this.notice) announce(this.notice);
    this.render();
    return reply;
  }

  async resign() {
    const ok = await confirmDialog(t("resign.title"), t("resign.question"), t("resign.confirm"));
    if (ok) await this.send("resign");
  }

  async takeSeat() {
    await this.send("take_seat");
  }

  /** R8: leave the room (resigning a game in progress) and go back to the pending AI game. */
  async leave() {
    if (this.ongoing) {
      const ok = await confirmDialog(t("room.leave"), t("room.leave_question"), t("room.leave"));
      if (!ok) return;
    }
    this.socket.stop();
    let target = "/";
    try {
      const { pending } = await api("POST", `/api/rooms/${encodeURIComponent(this.room.id)}/leave`);
      if (pending) {
        const query = new URLSearchParams({ variant: pending.variant, level: pending.level, color: pending.you, game: pending.id });
        target = `/play/ai?${query}`;
      }
    } catch {
      // leaving still goes home
    }
    location.href = target;
  }

  // ------------------------------------------------------------------ messages

  onStatus(status) {
    this.notice = status === "offline" ? t("notice.offline") : "";
    this.renderStatus();
  }

  onMessage(message) {
    switch (message.type) {
      case "room":
        this.room = message.room;
        this.holds = message.room.holds_seat !== false;
        this.offset = Date.parse(message.room.now) - Date.now();
        if (this.gameId && message.room.game_id !== this.gameId && message.room.setup) this.game = null;
        break;
      case "elsewhere":
        this.holds = false;
        break;
      case "detached":
        this.detached = true;
        this.holds = false;
        this.socket.stop();
        break;
      case "left":
        this.socket.stop();
        break;
      default:
        if (message.state && message.game_id) this.adopt(message);
        else return;
    }
    this.render();
  }

  adopt(message) {
    const before = this.game;
    if (message.game_id !== this.gameId) this.selected = null;
    this.gameId = message.game_id;
    this.seq = message.seq;
    this.game = message.state;
    if (message.type === "move") {
      playSound(this.game.in_check ? "check" : "move");
      announce(t("room.moved", { move: message.move }));
    }
    if (message.type === "draw_offered" && message.by !== this.you) announce(t("room.offer_received"));
    if (message.type === "draw_rejected") announce(t("room.offer_rejected"));
    if (this.game.status !== "ongoing" && this.endAnnounced !== this.gameId && before) {
      this.endAnnounced = this.gameId;
      playSound("end");
      announce(this.resultText());
    }
    if (this.selected && !this.legalFrom(this.selected).length) this.selected = null;
  }

  destroy() {
    clearInterval(this.ticker);
    this.socket.stop();
  }
}
