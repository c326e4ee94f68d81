// Rooms before a room (SPEC R1, R2, B7, E1, J7): "/room" creates a room (variant, rule
// options, game length, invite link or password) or joins one by its password; an invite
// link to a full room says so.
import { clockChoice, syncClockChoice } from "./clocks.js";
import { VARIANTS } from "./choices.js";
import { api } from "./connection.js";
import { apiErrorText } from "./errors.js";
import { t } from "./i18n.js";
import { announce, el } from "./ui.js";

/** The rooms' stylesheet, added once. */
export function roomStylesheet() {
  if (document.querySelector("link[data-room-css]")) return;
  document.head.append(el("link", { rel: "stylesheet", href: "/static/css/room.css", "data-room-css": "" }));
}

/** R1: an invite link to a room that already has two players. */
export function showRoomFull(root) {
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
  roomStylesheet();
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
