// Online rooms (SPEC R1–R8): create or join a room, then play a friend on the room socket.
// Routes: "/room" (create, or join by password), "/room/i/<invite>" (an invite link),
// "/room/<id>" (a room the player has a seat in). The server keeps the clocks and decides
// everything. The game itself is the play view (play.js) on the room socket; this module is
// the room's session on its socket (messages, requests, the seat on another device, R7,
// leaving, R8) and its panels: seats and names, the invite, Ready. Its parts, each a module
// of its own: the create and join forms (room_home.js), the clocks (room_clock.js, R4, B7),
// the janggi setup choice (room_setup.js, J3), draw offers (room_draw.js, R5), and what
// comes after a game (room_next.js: the end dialog, the rematch, a new opponent, B4, B5).
import { clockLabel } from "./clocks.js";
import { api, ApiError, PlaySocket } from "./connection.js";
import { apiErrorText, refusal } from "./errors.js";
import { t } from "./i18n.js";
import { PlayView } from "./play.js";
import { QuickMessages } from "./quick.js";
import { RoomClock } from "./room_clock.js";
import { DrawOffer } from "./room_draw.js";
import { roomStylesheet, showRoomFull, showRoomHome } from "./room_home.js";
import { NextGame } from "./room_next.js";
import { opponentName, ratedName, unnamed } from "./room_people.js";
import { RoomSetup } from "./room_setup.js";
import { sideNames } from "./position.js";
import { announce, confirmDialog, el } from "./ui.js";
import { sentence } from "./wording.js";

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
  roomStylesheet();
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

// ---------------------------------------------------------------------- the room screen

export class RoomScreen {
  constructor(root, room) {
    this.room = room;
    this.holds = true;
    this.detached = false;
    this.clock = new RoomClock(this);
    this.setup = new RoomSetup(this);
    this.next = new NextGame(this);
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
      clockText: (side) => this.clock.text(side),
      statusText: () => this.statusText(),
      waitingText: () => sentence(t("room.their_turn", { name: this.opponentName() })),
      pointsText: (s) => (s.result?.winner && s.result.winner === s.you && s.points_awarded
        ? t("room.points_won", { points: s.points_awarded }) : ""),
      heading: () => t("room.heading", { variant: t(`variant.${this.room.variant}`) }),
      onRender: () => this.renderRoom(),
      onEnd: () => this.next.showEnd(),
      placeholder: () => this.setup.preview(),
    });
    this.build();
    this.connect();
    this.ticker = setInterval(() => this.clock.tick(), 250);
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
    this.draw = new DrawOffer(this);
    this.seatBox = el("div", { class: "room-board-slot", "data-seat-box": "" });
    this.setupBox = el("div", { class: "room-board-slot", "data-setup-box": "" });
    // B8: a word across the board, under it, on phones too.
    this.quick = new QuickMessages({ send: (type, fields) => this.act(type, fields), opponentName: () => this.opponentName() });
    view.boardBox.after(this.seatBox, this.draw.bar, this.setupBox, this.quick.box);
    view.addControls(this.draw.button);
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
    this.draw.render(draw);
    this.next.renderEndDialog();
    this.quick.setActive(this.room.seats.length === 2 && this.holds && !this.detached);
    this.clock.tick();
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
      this.ongoing, Boolean(this.state), document.documentElement.lang, this.next.rematchNote]);
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
      this.setup.render(this.lobby, this.setupBox);
      return;
    }
    if (!this.ongoing && this.next.rematchable) {
      this.next.renderRematch(this.setupBox);
      return;
    }
    if (!this.ongoing && this.next.opponentLeft) {
      this.next.renderOpponentLeft(this.setupBox);
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
    return opponentName(this.room);
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
        this.next.announceRematch(this.room, message.room);
        this.next.noticeDeparture(this.room, message.room);
        this.room = message.room;
        this.holds = message.room.holds_seat !== false;
        this.clock.heard(message.room);
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

  destroy() {
    clearInterval(this.ticker);
    this.socket.stop();
    this.view.destroy();
  }
}
