// Online rooms (SPEC R1–R8): create or join a room, then play a friend on the room socket.
// Routes: "/room" (create, or join by password), "/room/i/<invite>" (an invite link),
// "/room/<id>" (a room the player has a seat in). The server keeps the clocks and decides
// everything. The game itself is the play view (play.js) on the room socket; this module adds
// what only rooms have: seats and names, ready, the janggi setup choice, draw offers (R5),
// the turn clock (R4), another device (R7) and leaving (R8).
import { clockChoice, clockLabel, formatTime, shownSeconds, sideTime, syncClockChoice, THRESHOLDS, timeText } from "./clocks.js";
import { api, ApiError, PlaySocket } from "./connection.js";
import { apiErrorText, refusal } from "./errors.js";
import { t } from "./i18n.js";
import { PlayView } from "./play.js";
import { QuickMessages } from "./quick.js";
import { ratingText } from "./archive.js";
import { sideNames } from "./position.js";
import { setupChoice, VARIANTS } from "./screens.js";
import { announce, confirmDialog, el, showDialog } from "./ui.js";

const DRAW_OFFER_GAP = 10; // SPEC R5: half-moves between one player's offers

/** A text that may start with "your friend": its first letter capitalised. */
function sentence(text) {
  return text ? text[0].toLocaleUpperCase() + text.slice(1) : text;
}

/** B7: a seat's name with, in a paired room, the rating in its variant: "Orca 4821 (1500?)". */
function ratedName(seat) {
  return seat.name && seat.rating ? `${seat.name} (${ratingText(seat.rating)})` : seat.name;
}

/** B1: in a paired room the opponent without a name is a stranger, not "your friend". */
function unnamed(room, key) {
  return room?.options?.paired ? key.replace("friend", "stranger") : key;
}

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
      if (error instanceof ApiError && error.code === "room_full") showRoomFull(root);
      else showRoomHome(root, apiErrorText(error));
      return null;
    }
  }
  try {
    const room = await api("GET", `/api/rooms/${encodeURIComponent(parts[1])}`);
    return new RoomScreen(root, room);
  } catch (error) {
    showRoomHome(root, apiErrorText(error));
    return null;
  }
}

// ---------------------------------------------------------------------- create / join

/** R1: an invite link to a room that already has two players. */
function showRoomFull(root) {
  root.innerHTML = "";
  const card = el("section", { class: "card room-full", "data-room-full": "", role: "alert",
    "aria-labelledby": "room-full-heading" });
  card.append(el("h1", { id: "room-full-heading" }, t("room.full_title")),
    el("p", {}, t("room.full_lead")),
    el("div", { class: "room-full-actions" },
      el("a", { class: "button primary", href: "/room", "data-action": "new-room" }, t("room.create")),
      el("a", { class: "button", href: "/" }, t("room.back_home"))));
  root.append(el("div", { class: "room-full-page" }, card));
}

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
  const wxf = el("div", { class: "field check xiangqi-only" },
    el("input", { type: "checkbox", id: "room-rules", name: "rules", value: "wxf" }),
    el("label", { for: "room-rules" }, t("field.rules_wxf")));
  createForm.append(variants, bikjang, wxf, clockChoice("room"), access, passwordField,
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
    syncClockChoice(createForm, data.get("room-variant")); // B7: byoyomi in janggi only
    createForm.classList.toggle("is-password", data.get("room-access") === "password");
  };
  createForm.addEventListener("change", sync);
  sync();

  createForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(createForm);
    const body = { variant: data.get("room-variant"), bikjang: data.get("bikjang") ? "points" : "off" };
    if (data.get("rules") && body.variant !== "janggi") body.rules = "wxf"; // E1
    if (data.get("room-access") === "password") body.password = String(data.get("password") || "");
    if (data.get("clock") && data.get("clock") !== "turn") body.clock = data.get("clock"); // B7
    try {
      const room = await api("POST", "/api/rooms", body);
      location.href = `/room/${room.id}`;
    } catch (error) {
      say(apiErrorText(error));
    }
  });
  joinForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const password = String(new FormData(joinForm).get("password") || "");
    try {
      const room = await api("POST", "/api/rooms/join", { password });
      location.href = `/room/${room.id}`;
    } catch (error) {
      say(apiErrorText(error));
    }
  });
}

// ---------------------------------------------------------------------- the room screen

export class RoomScreen {
  constructor(root, room) {
    this.room = room;
    this.holds = true;
    this.detached = false;
    this.offset = 0; // server clock minus ours, in ms
    this.view = new PlayView(root, {
      kind: "room",
      variant: room.variant,
      attributes: { "data-room": room.id },
      send: (type, fields) => this.socket.request(type, fields),
      resync: () => this.socket.resync(),
      mayAct: () => this.holds && !this.detached,
      you: () => this.room.you,
      playerName: (side) => this.playerName(side),
      playerBadges: (side) => this.playerBadges(side),
      clockText: (side) => this.clockText(side),
      statusText: () => this.statusText(),
      waitingText: () => sentence(t("room.their_turn", { name: this.opponentName() })),
      pointsText: (s) => (s.result?.winner && s.result.winner === s.you && s.points_awarded
        ? t("room.points_won", { points: s.points_awarded }) : ""),
      heading: () => t("room.heading", { variant: t(`variant.${this.room.variant}`) }),
      onRender: () => this.renderRoom(),
      onEnd: () => this.showEnd(),
      placeholder: () => this.setupPreview(),
    });
    this.build();
    this.connect();
    this.ticker = setInterval(() => this.tick(), 250);
    this.view.render();
  }

  connect() {
    this.socket = new PlaySocket(`/ws/rooms/${encodeURIComponent(this.room.id)}`, {
      room: true, hello: () => ({ device: deviceId() }),
    }, {
      onEvent: (event, state) => this.onEvent(event, state),
      onMessage: (message) => this.onMessage(message),
      onStatus: (status) => this.view.setLink(status === "closed" ? "online" : status),
    });
    this.socket.start();
  }

  /** R7 "Continue on this device", also on a device whose seat moved elsewhere: it connects
   * again and takes the seat back, without a reload. */
  continueHere() {
    if (this.detached) {
      this.detached = false;
      this.takingSeat = true;
      this.connect();
      this.view.render();
      return;
    }
    this.act("take_seat");
  }

  get state() {
    return this.view.state;
  }

  get board() {
    return this.view.board;
  }

  get you() {
    return this.state?.you ?? this.room.you;
  }

  get ongoing() {
    return this.state?.status === "ongoing";
  }

  /** The language changed: draw everything again. */
  render() {
    this.lobbyKey = null;
    this.leaveButton.textContent = t("room.leave");
    this.quick.render();
    this.view.render();
  }

  // ------------------------------------------------------------------ layout

  build() {
    const view = this.view;
    this.share = el("div", { class: "room-share", "data-share": "" });
    view.panelTop.append(this.share);
    this.seats = el("div", { class: "players", "data-seats": "" });
    this.lobby = el("div", { class: "room-lobby", "data-lobby": "" });
    this.leaveButton = view.button("room.leave", () => this.leave(), { "data-action": "leave" });
    view.panelMiddle.append(this.seats, this.lobby, this.leaveButton);
    // Below the board, so that nothing moves the board mid-turn: the seat on another device
    // (R7), a draw offer (kept in view, R5), and what comes next: the janggi setup choice,
    // which runs on the turn clock (R4, J3), or the rematch after a game (B4).
    this.offerBar = el("div", { class: "confirm-bar room-offer", "data-offer": "", hidden: "", role: "alert" });
    this.seatBox = el("div", { class: "room-board-slot", "data-seat-box": "" });
    this.setupBox = el("div", { class: "room-board-slot", "data-setup-box": "" });
    // B8: a word across the board, under it, on phones too.
    this.quick = new QuickMessages({ send: (type, fields) => this.act(type, fields), opponentName: () => this.opponentName() });
    view.boardBox.after(this.seatBox, this.offerBar, this.setupBox, this.quick.box);
    this.drawButton = view.button("action.draw", () => this.act("draw_offer"), { "data-action": "draw" });
    view.addControls(this.drawButton);
  }

  playerName(side) {
    const seat = this.room.seats.find((s) => s.side === side);
    const sideName = t(`side.${side}`);
    if (!seat) return sideName;
    const name = ratedName(seat);
    if (seat.you) return name ? t("room.player_you_named", { name, side: sideName }) : t("room.player_you", { side: sideName });
    return name ? t("room.player_named", { name, side: sideName }) : t(unnamed(this.room, "room.player_friend"), { side: sideName });
  }

  playerBadges(side) {
    const seat = this.room.seats.find((s) => s.side === side);
    const badges = [];
    if (seat?.ready && !this.ongoing) badges.push(el("span", { class: "badge ready", "data-ready": "" }, t("room.ready_badge")));
    if (seat && !seat.connected) badges.push(el("span", { class: "badge away" }, t("room.away")));
    return badges;
  }

  // ------------------------------------------------------------------ the clock (R4, R7)

  deadline() {
    if (this.room.setup) {
      return { at: Date.parse(this.room.setup.deadline), paused: Boolean(this.room.setup.both_away_since) };
    }
    const clock = this.ongoing ? this.state.options?.clock : null;
    if (!clock) return null;
    return { at: Date.parse(clock.deadline), paused: Boolean(clock.both_away_since) };
  }

  secondsLeft() {
    const deadline = this.deadline();
    if (!deadline || Number.isNaN(deadline.at)) return null;
    return { seconds: Math.max(0, Math.ceil((deadline.at - (Date.now() + this.offset)) / 1000)), paused: deadline.paused };
  }

  /** A game clock's (B7) time of ``side`` now, null on R4's turn clock or before a game. */
  gameTime(side) {
    const clock = this.ongoing && !this.room.setup ? this.state.options?.clock : null;
    if (!clock?.control || side === null) return null;
    const index = sideNames(this.room.variant).indexOf(side);
    return sideTime(clock, index, side === this.state.turn, Date.now() + this.offset);
  }

  /** The time left for ``side`` (null: the setup choice's), as shown beside it: on R4's turn
   * clock the mover's alone, on a game clock (B7) both sides', the mover's running (its first
   * move on the turn time). */
  clockText(side) {
    const left = this.secondsLeft();
    const clock = this.ongoing && !this.room.setup ? this.state.options?.clock : null;
    const toMove = side !== null && side === this.state?.turn;
    if (clock?.control && side !== null && !(toMove && (clock.free_turn || left?.paused))) {
      return timeText(this.gameTime(side));
    }
    if (!left || (side !== null && !toMove)) return "";
    if (left.paused) return t("room.clock_paused");
    if (clock?.control) return t("clock.first_move", { time: formatTime(left.seconds) });
    return t("room.seconds", { seconds: left.seconds });
  }

  /** The seconds left of the player's own running clock (null: not their turn). */
  ownSeconds() {
    const left = this.secondsLeft();
    if (!left || left.paused) return null;
    const mine = this.room.setup ? this.room.setup.turn : this.ongoing && this.state.turn;
    if (!mine || mine !== this.you) return null;
    const clock = this.ongoing ? this.state.options?.clock : null;
    if (this.room.setup || !clock?.control || clock.free_turn) return left.seconds;
    return shownSeconds(this.gameTime(mine));
  }

  /** B7, U9: a screen reader hears the player's own time at 60, 30 and 10 s left. */
  announceThreshold() {
    const seconds = this.ownSeconds();
    const before = this.heardSeconds;
    this.heardSeconds = seconds;
    if (seconds === null || before === null || before === undefined) return;
    const crossed = THRESHOLDS.find((limit) => before > limit && seconds <= limit);
    if (crossed !== undefined) announce(t("clock.left_announce", { seconds: crossed }));
  }

  tick() {
    const left = this.secondsLeft();
    if (this.setupClock?.isConnected && left) {
      this.setupClock.textContent = left.paused ? t("room.clock_paused") : t("room.setup_time", { seconds: left.seconds });
    }
    const sides = this.state ? sideNames(this.room.variant) : [];
    const text = [left ? `${left.seconds}|${left.paused}` : "", ...sides.map((side) => this.clockText(side))].join("|");
    this.announceThreshold();
    if (text === this.shownClock) return;
    this.shownClock = text;
    this.view.renderStatus();
    this.view.renderPlayers();
    const clock = this.ongoing && !this.room.setup ? this.state.options?.clock : null;
    const running = clock?.control && !clock.free_turn ? this.gameTime(this.state.turn) : null;
    const seconds = running ? shownSeconds(running) : left?.seconds;
    this.view.clock.dataset.seconds = seconds !== undefined ? String(seconds) : "";
    this.view.clock.classList.toggle("low", Boolean(seconds !== undefined && seconds <= 10));
  }

  // ------------------------------------------------------------------ what is shown

  statusText() {
    if (this.detached) return t("room.detached");
    if (!this.holds) return t("room.status_elsewhere");
    if (this.room.setup) return t("room.status_setup");
    if (!this.state) return this.room.seats.length < 2 ? t("room.waiting_friend") : t("room.status_ready");
    return null;
  }

  renderRoom() {
    if (!this.lobby) return;
    const draw = this.ongoing ? this.state.options?.draw || {} : {};
    Object.assign(this.view.layout.dataset, {
      phase: this.room.setup ? "setup" : this.ongoing ? "playing" : "lobby",
      you: this.you || "",
      offerBy: draw.offer_by || "",
      gameId: this.state?.id || "",
    });
    this.renderShare();
    this.renderLobby();
    this.renderDraw(draw);
    this.renderEndDialog();
    this.quick.setActive(this.room.seats.length === 2 && this.holds && !this.detached);
    this.tick();
  }

  renderShare() {
    const room = this.room;
    const key = `${room.access}|${room.password}|${document.documentElement.lang}`;
    if (this.shareKey === key) return;
    this.shareKey = key;
    this.share.innerHTML = "";
    this.share.append(el("h2", { class: "panel-heading" }, t("room.heading", { variant: t(`variant.${room.variant}`) })),
      el("p", { class: "muted", "data-room-length": "" }, t("clock.room_length", { length: clockLabel(room.options?.clock, room.turn_seconds) })));
    if (room.access === "password") {
      this.share.append(el("p", {}, t("room.share_password"), " ", el("strong", { "data-room-password": "" }, room.password)));
      return;
    }
    if (room.access === "paired") { // B1: a stranger's room has nothing to share
      this.share.append(el("p", { class: "muted", "data-paired": "" }, t("room.paired_note")));
      return;
    }
    const link = `${location.origin}/room/i/${room.invite}`;
    const input = el("input", { class: "room-link", readonly: "", value: link, "data-invite-link": "", "aria-label": t("room.share_link") });
    const copy = this.view.button("room.copy", async () => {
      try {
        await navigator.clipboard.writeText(link);
        announce(t("room.copied"));
      } catch {
        input.select();
      }
    }, { "data-action": "copy-link" });
    this.share.append(el("p", {}, t("room.share_link")), el("div", { class: "room-link-row" }, input, copy));
  }

  // The seats, ready, the setup choice: drawn again only when they change, so a choice
  // being made and the keyboard focus survive every clock tick and event.
  renderLobby() {
    const room = this.room;
    const key = JSON.stringify([room.seats, room.setup, room.you, this.holds, this.detached,
      this.ongoing, Boolean(this.state), document.documentElement.lang, this.rematchNote]);
    if (this.lobbyKey === key) return;
    this.lobbyKey = key;
    this.seats.innerHTML = "";
    this.lobby.innerHTML = "";
    this.seatBox.innerHTML = "";
    this.setupBox.innerHTML = "";
    // Once a game is on the board its players' rows name the seats, with their sides.
    this.seats.hidden = Boolean(this.state);
    for (const seat of room.seats) {
      const who = seat.you ? t("room.you") : (ratedName(seat) || t(unnamed(room, "room.friend")));
      const row = el("div", { class: `player${seat.side ? ` side-${seat.side}` : ""}`, "data-seat": seat.you ? "you" : "friend" });
      row.append(el("span", { class: "dot", "aria-hidden": "true" }), el("span", { class: "name" }, who));
      if (seat.side) row.append(el("span", { class: "badge" }, t(`side.${seat.side}`)));
      if (seat.ready) row.append(el("span", { class: "badge ready", "data-ready": "" }, t("room.ready_badge")));
      if (!seat.connected) row.append(el("span", { class: "badge away" }, t("room.away")));
      this.seats.append(row);
    }
    if (room.seats.length < 2) this.seats.append(el("p", { class: "muted", "data-waiting": "" }, t("room.waiting_friend")));
    if (this.detached || !this.holds) {
      this.seatBox.append(this.detached
        ? el("p", { class: "notice", "data-detached": "" }, t("room.detached"))
        : el("p", {}, t("room.elsewhere")),
      this.view.button("room.continue_here", () => this.continueHere(), { "data-action": "take-seat", class: "button primary" }));
      return;
    }
    if (room.setup) {
      this.renderSetup();
      return;
    }
    if (!this.ongoing && this.rematchable) {
      this.renderRematch();
      return;
    }
    if (!this.ongoing && this.opponentLeft) {
      this.renderOpponentLeft();
      if (room.options?.paired) return; // nobody else can come in: no Ready to wait on
    }
    if (!this.ongoing) {
      const mine = room.seats.find((seat) => seat.you);
      // R3 explained where it is still asked: the first game, or a new opponent.
      this.lobby.append(el("p", { class: "muted", "data-ready-note": "" }, t("room.ready_explained")));
      this.lobby.append(this.view.button("room.ready", () => this.act("ready"), {
        "data-action": "ready", class: "button primary", disabled: mine?.ready || room.seats.length < 2 ? "" : null,
      }));
      if (mine?.ready) this.lobby.append(el("p", { class: "muted" }, sentence(t("room.waiting_ready", { name: this.opponentName() }))));
    }
  }

  /** The opponent as texts name them: their display name, else "your friend". */
  opponentName() {
    return this.room.seats.find((seat) => !seat.you)?.name || t(unnamed(this.room, "room.friend_name"));
  }

  /** B4: a game is over and both seats are its players (each had a side): the next game is
   * a rematch with the colours swapped, not Ready with colours drawn (R3). */
  get rematchable() {
    const seats = this.room.seats;
    return Boolean(this.state) && !this.ongoing && !this.room.setup && seats.length === 2
      && seats.every((seat) => seat.side);
  }

  // B4: offer a rematch; the opponent's offer is accepted or declined; one's own cancelled.
  renderRematch() {
    const mine = this.room.seats.find((seat) => seat.you)?.rematch;
    const theirs = this.room.seats.find((seat) => !seat.you)?.rematch;
    const name = this.opponentName();
    const phase = theirs === "offered" ? "received" : mine === "offered" ? "offered" : "none";
    const box = el("div", { class: "room-rematch", "data-rematch": phase, role: "group", "aria-label": t("room.rematch") });
    const act = (action) => () => this.act("rematch", { action });
    const actions = el("div", { class: "room-rematch-actions" });
    if (phase === "received") {
      box.append(el("p", { "data-rematch-offer": "" }, sentence(t("room.rematch_received", { name }))));
      actions.append(
        this.view.button("room.rematch_accept", act("accept"), { "data-action": "rematch-accept", class: "button primary" }),
        this.view.button("room.rematch_decline", act("decline"), { "data-action": "rematch-decline" }));
    } else if (phase === "offered") {
      box.append(el("p", { "data-rematch-waiting": "" }, t("room.rematch_offered", { name })));
      actions.append(this.view.button("room.rematch_cancel", act("cancel"), { "data-action": "rematch-cancel" }));
    } else {
      if (mine === "declined") box.append(el("p", { "data-rematch-declined": "" }, sentence(t("room.rematch_declined", { name }))));
      if (theirs === "declined") box.append(el("p", { class: "muted" }, t("room.rematch_you_declined")));
      if (this.rematchNote === "withdrawn") box.append(el("p", { "data-rematch-withdrawn": "" }, sentence(t("room.rematch_withdrawn", { name }))));
      box.append(el("p", { class: "muted" }, t("room.rematch_lead", { name })));
      actions.append(this.view.button("room.rematch", act("offer"), { "data-action": "rematch-offer", class: "button primary" }));
    }
    // B5: after a paired game, someone new (the same seek again) beside the rematch.
    if (this.room.options?.paired) actions.append(this.newOpponentButton());
    box.append(actions);
    this.setupBox.append(box); // below the board, in view when the game ends (phone too)
  }

  /** U6: a room game ends as an AI game does, in a dialog: the result, its reason, the
   * points and the rating change (B2), all in view on a phone, with what comes next beside
   * them: the rematch and, after a paired game, a new opponent (B4, B5), as under the board. */
  async showEnd() {
    this.endBody = el("div", { "data-room-end": "" }, this.view.endSummary({ title: false }));
    this.endRated = JSON.stringify(this.state.options?.rated ?? null);
    const actions = [];
    if (this.rematchable) {
      actions.push({ label: t("room.rematch"), value: "rematch", primary: true, attributes: { "data-action": "end-rematch" } });
    }
    if (this.room.options?.paired) {
      actions.push({ label: t("room.new_opponent"), value: "new-opponent", primary: !actions.length, attributes: { "data-action": "end-new-opponent" } });
    }
    actions.push({ label: t("end.review"), value: "close", attributes: { "data-action": "end-close" } });
    const choice = await showDialog({ title: this.view.result().title, body: this.endBody, attributes: { "data-end-dialog": "" }, actions });
    this.endBody = null;
    if (choice === "rematch") this.act("rematch", { action: "offer" }); // accepts one already made
    else if (choice === "new-opponent") this.leaveFor(this.seekAddress());
  }

  /** The open result dialog follows the room: the rating change once it comes (a "rated"
   * event after the end), closed when the next game begins. */
  renderEndDialog() {
    const body = this.endBody;
    if (!body) return;
    if (this.ongoing || this.room.setup) {
      body.closest("dialog")?.querySelector("[data-action=end-close]")?.click();
      return;
    }
    const rated = JSON.stringify(this.state?.options?.rated ?? null);
    if (rated === this.endRated) return;
    this.endRated = rated;
    body.replaceChildren(this.view.endSummary({ title: false }));
  }

  /** B5: a game was played here and the opponent has gone (R8): nobody to rematch. */
  get opponentLeft() {
    return Boolean(this.state) && !this.room.setup && this.room.seats.length < 2;
  }

  // B5: said, with the way on: in a paired room a new opponent (the same seek again) or the
  // computer; in a private room the invite above still brings another friend (then Ready).
  renderOpponentLeft() {
    const name = this.leftName || t(unnamed(this.room, "room.friend_name"));
    const box = el("div", { class: "room-rematch", "data-opponent-left": "", role: "group", "aria-label": t("room.rematch") },
      el("p", { class: "notice" }, sentence(t("room.opponent_left", { name }))));
    if (this.room.options?.paired) {
      box.append(el("p", { class: "muted" }, t("room.opponent_left_lead")),
        el("div", { class: "room-rematch-actions" }, this.newOpponentButton(),
          this.view.button("room.play_ai", () => this.leaveFor(this.computerAddress()), { "data-action": "play-ai" })));
    }
    this.setupBox.append(box);
  }

  newOpponentButton() {
    const primary = this.opponentLeft ? " primary" : "";
    return this.view.button("room.new_opponent", () => this.leaveFor(this.seekAddress()), {
      "data-action": "new-opponent", class: `button${primary}`,
    });
  }

  /** The seek that made this paired room, for the home page to make again (B1). */
  seekAddress() {
    const options = this.room.options || {};
    const query = new URLSearchParams({ seek: this.room.variant });
    if (options.rules === "wxf") query.set("rules", "wxf");
    if (options.bikjang === "points") query.set("bikjang", "points");
    if (typeof options.clock === "string") query.set("clock", options.clock); // B7
    return `/?${query}`;
  }

  /** A game against the computer with this room's game and rule option. */
  computerAddress() {
    const options = this.room.options || {};
    const query = new URLSearchParams({ variant: this.room.variant, level: "intermediate", color: "random" });
    if (options.rules === "wxf") query.set("rules", "wxf");
    if (options.bikjang === "points") query.set("bikjang", "points");
    return `/play/ai?${query}`;
  }

  /** Leave the room between games (R8) and go to ``address``. */
  async leaveFor(address) {
    this.socket.stop();
    try {
      await api("POST", `/api/rooms/${encodeURIComponent(this.room.id)}/leave`);
    } catch {
      // the seat is given up when its socket has gone anyway: go on
    }
    location.href = address;
  }

  // J3: Han chooses first, then Cho, who sees Han's choice; the four setups as pictures.
  renderSetup() {
    const setup = this.room.setup;
    if (setup.han) {
      this.lobby.append(el("p", { "data-han-setup": "" }, t("room.han_chose", { setup: t(`setup.${setup.han}`), code: setup.han })));
    }
    if (setup.turn !== this.room.you) {
      this.lobby.append(el("p", {}, t("room.setup_waiting", { side: t(`side.${setup.turn}`) })));
      return;
    }
    const form = el("form", { class: "play-form is-janggi room-setup", "data-form": "room-setup" });
    const [cho] = sideNames("janggi");
    const choice = setupChoice("room-setup", "room.setup_heading", "room", this.room.you === cho);
    choice.dataset.setup = "";
    // The turn's countdown beside the button: the status line above the board is scrolled
    // off a phone's screen while the choice is in view.
    this.setupClock = el("p", { class: "room-setup-clock", "data-setup-clock": "" });
    form.append(choice, this.setupClock,
      el("button", { type: "submit", class: "button primary", "data-action": "choose-setup" }, t("room.choose_setup")));
    form.addEventListener("change", () => this.view.board.setPieces(this.setupPreview()));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.act("setup", { setup: new FormData(form).get("room-setup") });
    });
    this.setupBox.append(form);
    if (!this.state) this.view.board.setPieces(this.setupPreview());
    // The choice runs on the turn clock: once per turn it is brought into view.
    if (this.setupShown !== setup.deadline) {
      this.setupShown = setup.deadline;
      form.scrollIntoView({ block: "nearest" });
    }
  }

  /** J3: while the setups are chosen, the board shows the janggi start with each setup
   * known so far (Han's once chosen, and the one this player is picking). */
  setupPreview() {
    const pieces = new Map();
    const setup = this.room.setup;
    if (!setup) return pieces;
    const back = "RNBAKABNR";
    for (const [index, file] of [..."abcdefghi"].entries()) {
      const letter = back[index];
      if (letter === "K") continue;
      if ("RA".includes(letter)) {
        pieces.set(`${file}1`, letter);
        pieces.set(`${file}10`, letter.toLowerCase());
      }
    }
    pieces.set("e2", "K").set("e9", "k").set("b3", "C").set("h3", "C").set("b8", "c").set("h8", "c");
    for (const file of "acegi") pieces.set(`${file}4`, "P").set(`${file}7`, "p");
    const picking = this.setupBox?.querySelector("input[name=room-setup]:checked")?.value;
    const mine = setup.turn === this.room.you ? picking : null;
    const han = setup.han || (this.room.you === "han" ? mine : null);
    const cho = this.room.you === "cho" ? mine : null;
    const letter = (kind) => (kind === "H" ? "N" : "B");
    // Read from each player's own left: Cho's from file a, Han's from file i.
    if (cho) ["b1", "c1", "g1", "h1"].forEach((point, i) => pieces.set(point, letter(cho[i])));
    if (han) ["h10", "g10", "c10", "b10"].forEach((point, i) => pieces.set(point, letter(han[i]).toLowerCase()));
    return pieces;
  }

  // R5: the button says why an offer is not possible now instead of letting the server refuse.
  renderDraw(draw) {
    const s = this.state;
    const myTurn = this.view.myTurn;
    const me = this.you;
    const last = draw.last_offer_ply?.[me];
    const wait = this.ongoing && last !== null && last !== undefined ? DRAW_OFFER_GAP - (s.ply - last) : 0;
    this.drawButton.hidden = !this.ongoing;
    this.drawButton.disabled = !(myTurn && !draw.offer_by && wait <= 0);
    let note = "";
    if (this.ongoing && this.holds) {
      if (draw.offer_by === me) note = t("room.offer_open");
      else if (draw.offer_by) note = "";
      else if (!myTurn) note = t("room.draw_own_turn");
      else if (wait > 0) note = t("room.draw_wait", { count: wait });
    }
    const control = this.view.controlNote;
    control.textContent = note;
    control.hidden = !note;
    control.toggleAttribute("data-offer-open", draw.offer_by === me && Boolean(me));
    this.offerBar.innerHTML = "";
    // Only the device that holds the seat may answer (R7): the others show the way to it.
    this.offerBar.hidden = !(draw.offer_by && draw.offer_by !== me) || !this.holds || this.detached;
    if (!this.offerBar.hidden) {
      const name = this.opponentName();
      this.offerBar.append(el("span", {}, sentence(t(myTurn ? "room.offer_received" : "room.offer_received_wait", { name }))));
      const accept = this.view.button("room.accept_draw", () => this.act("draw_accept"), {
        "data-action": "accept-draw", class: "button primary", disabled: myTurn ? null : "",
      });
      this.offerBar.append(accept);
    }
  }

  // ------------------------------------------------------------------ requests

  async act(type, fields = {}) {
    const reply = await this.socket.request(type, fields);
    if (reply.type === "error") this.view.say(refusal(reply));
    else if (this.view.notice) this.view.say("");
    return reply;
  }

  /** R8: leave the room (resigning a game in progress) and go back to the pending AI game. */
  async leave() {
    if (this.ongoing) {
      // B1: a paired game left before one's own first move ends without a result.
      const ownFirstPly = sideNames(this.room.variant).indexOf(this.state?.you);
      const free = this.room.options?.paired && (this.state?.moves || []).length <= ownFirstPly;
      const question = t(free ? "room.leave_question_free" : "room.leave_question");
      const ok = await confirmDialog(t("room.leave"), question, t("room.leave"));
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

  onEvent(event, state) {
    if (event.type === "draw_offered" && event.by !== state?.you) {
      announce(sentence(t("room.offer_received", { name: this.opponentName() })));
    }
    if (event.type === "draw_rejected") announce(t("room.offer_rejected"));
    this.view.update(state, event);
  }

  onMessage(message) {
    switch (message.type) {
      case "room":
        this.announceRematch(this.room, message.room);
        this.noticeDeparture(this.room, message.room);
        this.room = message.room;
        this.holds = message.room.holds_seat !== false;
        this.offset = Date.parse(message.room.now) - Date.now();
        // A new janggi game begins with the setup choice: the last game's board goes.
        if (this.state && message.room.setup && message.room.game_id !== this.state.id) this.view.update(null);
        break;
      case "elsewhere":
        this.holds = false;
        if (this.takingSeat) {
          this.takingSeat = false;
          this.act("take_seat");
        }
        break;
      case "detached":
        this.detached = true;
        this.holds = false;
        this.socket.stop();
        break;
      case "left":
        this.socket.stop();
        break;
      case "said": // B8: a quick message, in this page's language
        this.quick.heard(message);
        return;
      default:
        return;
    }
    this.view.render();
  }

  /** B4: an offer from the opponent, or the answer to one's own, is said at once. */
  announceRematch(before, after) {
    const of = (room, you) => room?.seats?.find((seat) => seat.you === you)?.rematch ?? null;
    const name = after.seats.find((seat) => !seat.you)?.name || t(unnamed(after, "room.friend_name"));
    if (of(after, false) === "offered" && of(before, false) !== "offered") announce(sentence(t("room.rematch_received", { name })));
    if (of(after, true) === "declined" && of(before, true) !== "declined") announce(sentence(t("room.rematch_declined", { name })));
  }

  /** B5: what the opponent did without a word: left the room, or withdrew their rematch
   * offer. Kept until the room moves on, and said at once. */
  noticeDeparture(before, after) {
    const theirs = (room) => room?.seats?.find((seat) => !seat.you);
    const was = theirs(before);
    const now = theirs(after);
    if (now) this.leftName = null;
    else if (was && this.state) {
      this.leftName = was.name || null;
      const name = was.name || t(unnamed(after, "room.friend_name"));
      announce(sentence(t("room.opponent_left", { name })));
    }
    const sameGame = before?.game_id === after.game_id;
    if (sameGame && was?.rematch === "offered" && now && !now.rematch) {
      this.rematchNote = "withdrawn";
      announce(sentence(t("room.rematch_withdrawn", { name: now.name || t(unnamed(after, "room.friend_name")) })));
    } else if (!sameGame || now?.rematch || !now) this.rematchNote = null;
  }

  destroy() {
    clearInterval(this.ticker);
    this.socket.stop();
    this.view.destroy();
  }
}
