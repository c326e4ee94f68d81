// "Use on another device" (SPEC B6, S1 kept), the route "/device": a single-use link and its
// QR code that sign another browser in as this player for a few minutes, the recovery code
// (shown once; a new one revokes it), restoring a player with one, and the player's devices
// with "sign out this device". A link opens this page as /device#<code>: the code stays in
// the fragment, which no request carries, and leaves the address bar at once; signing in
// asks first, since this browser's own player is replaced (GET/POST /api/devices…,
// docs/protocol.md).
import { api } from "./connection.js";
import { apiErrorText } from "./errors.js";
import { language, t } from "./i18n.js";
import { confirmDialog, el } from "./ui.js";

function stylesheet() {
  if (document.querySelector("link[data-devices-css]")) return;
  document.head.append(el("link", { rel: "stylesheet", href: "/static/css/devices.css", "data-devices-css": "" }));
}

function day(iso) {
  return new Date(iso).toLocaleDateString(language, { year: "numeric", month: "short", day: "numeric" });
}

function card(name, ...children) {
  return el("section", { class: "card device-card", "aria-labelledby": `devices-${name}`, [`data-devices-${name}`]: "" },
    ...children);
}

function heading(name, key) {
  return el("h2", { id: `devices-${name}` }, t(key));
}

/** The confirmation a device link opens with: sign this browser in as the link's player. */
function signInCard(code, refresh) {
  const status = el("p", { role: "status", "data-sign-in-status": "" });
  const yes = el("button", { type: "button", class: "button primary", "data-action": "sign-in" }, t("devices.sign_in"));
  const box = card("sign-in", heading("sign-in", "devices.sign_in_title"), el("p", {}, t("devices.sign_in_text")),
    el("div", { class: "device-actions" }, yes), status);
  yes.addEventListener("click", async () => {
    yes.disabled = true;
    try {
      const me = await api("POST", "/api/devices/sign-in", { link: code });
      status.textContent = t("devices.signed_in", { name: me.name });
      yes.hidden = true;
      box.dataset.signedIn = "true";
      refresh();
    } catch (error) {
      status.textContent = apiErrorText(error);
    }
  });
  return box;
}

function linkCard() {
  const shown = el("div", { class: "device-link", "data-device-link": "", hidden: "" });
  const status = el("p", { role: "status" });
  const make = el("button", { type: "button", class: "button primary", "data-action": "make-link" }, t("devices.make_link"));
  make.addEventListener("click", async () => {
    try {
      const link = await api("POST", "/api/devices/link");
      const url = el("input", { readonly: "", value: link.url, "aria-label": t("devices.link_label"), "data-link-url": "" });
      const copy = el("button", { type: "button", class: "button", "data-action": "copy-link" }, t("devices.copy"));
      copy.addEventListener("click", async () => {
        url.select();
        try {
          await navigator.clipboard.writeText(link.url);
          status.textContent = t("devices.copied");
        } catch {
          status.textContent = "";
        }
      });
      const until = new Date(link.expires_at).toLocaleTimeString(language, { hour: "2-digit", minute: "2-digit" });
      shown.replaceChildren(
        el("img", { src: link.qr, alt: t("devices.qr_alt"), class: "device-qr", "data-device-qr": "" }),
        el("div", { class: "device-link-row" }, url, copy),
        el("p", { class: "muted" }, t("devices.link_until", { time: until, minutes: link.minutes })),
      );
      shown.hidden = false;
      make.textContent = t("devices.make_another_link");
      status.textContent = "";
    } catch (error) {
      status.textContent = apiErrorText(error);
    }
  });
  return card("link", heading("link", "devices.link_title"), el("p", {}, t("devices.link_text")),
    el("div", { class: "device-actions" }, make), shown, status);
}

function recoveryCard(issuedAt) {
  const status = el("p", { role: "status" });
  const shown = el("p", { class: "recovery-code", "data-recovery-code": "", hidden: "" });
  const when = el("p", { class: "muted", "data-recovery-issued": "" },
    issuedAt ? t("devices.recovery_issued", { date: day(issuedAt) }) : t("devices.recovery_none"));
  const make = el("button", { type: "button", class: "button", "data-action": "make-recovery" },
    t(issuedAt ? "devices.make_new_recovery" : "devices.make_recovery"));
  make.addEventListener("click", async () => {
    if (issuedAt && !await confirmDialog(t("devices.make_new_recovery"), t("devices.replace_recovery"),
      t("devices.make_new_recovery"))) return;
    try {
      const answer = await api("POST", "/api/devices/recovery");
      shown.textContent = answer.code;
      shown.hidden = false;
      issuedAt = new Date().toISOString();
      when.textContent = t("devices.recovery_write_down");
      make.textContent = t("devices.make_new_recovery");
      status.textContent = "";
    } catch (error) {
      status.textContent = apiErrorText(error);
    }
  });
  return card("recovery", heading("recovery", "devices.recovery_title"), el("p", {}, t("devices.recovery_text")),
    when, shown, el("div", { class: "device-actions" }, make), status);
}

function restoreCard(refresh) {
  const input = el("input", {
    id: "recovery-input", autocomplete: "off", autocapitalize: "characters", spellcheck: "false",
    maxlength: "40", placeholder: "ABCD-EFGH-…", "data-recovery-input": "",
  });
  const status = el("p", { role: "status", "data-restore-status": "" });
  const form = el("form", { class: "device-restore" },
    el("label", { for: "recovery-input" }, t("devices.restore_label")),
    el("div", { class: "device-link-row" }, input,
      el("button", { type: "submit", class: "button", "data-action": "restore" }, t("devices.restore"))));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!input.value.trim()) return;
    if (!await confirmDialog(t("devices.restore_title"), t("devices.sign_in_text"), t("devices.restore"))) return;
    try {
      const me = await api("POST", "/api/devices/sign-in", { recovery: input.value });
      input.value = "";
      status.textContent = t("devices.signed_in", { name: me.name });
      refresh();
    } catch (error) {
      status.textContent = apiErrorText(error);
    }
  });
  return card("restore", heading("restore", "devices.restore_title"), el("p", {}, t("devices.restore_text")),
    form, status);
}

function deviceItem(device, refresh, status) {
  const name = device.label || t("devices.a_browser");
  const facts = [t("devices.since", { date: day(device.created_at) })];
  if (device.current) facts.unshift(t("devices.this_device"));
  const out = el("button", { type: "button", class: "button", "data-action": "sign-out-device" }, t("devices.sign_out"));
  out.addEventListener("click", async () => {
    const text = device.current ? t("devices.sign_out_this") : t("devices.sign_out_other", { device: name });
    if (!await confirmDialog(t("devices.sign_out"), text, t("devices.sign_out"))) return;
    try {
      await api("DELETE", `/api/devices/${encodeURIComponent(device.id)}`);
      if (device.current) location.assign("/");
      else refresh();
    } catch (error) {
      status.textContent = apiErrorText(error);
    }
  });
  return el("li", { class: "device-item", "data-device": device.id, "data-current": String(device.current) },
    el("div", { class: "device-text" }, el("span", { class: "device-name" }, name),
      el("span", { class: "muted" }, facts.join(" · "))), out);
}

/** The page "/device": the owner's link, recovery code and devices; with a link's code in
 * the fragment, first the question whether to sign this browser in. */
export async function openDeviceRoute(root) {
  stylesheet();
  const code = location.hash.slice(1);
  if (code) history.replaceState(null, "", "/device"); // the secret leaves the address bar
  const page = el("div", { class: "devices", "data-devices-page": "" });
  root.replaceChildren(page);
  const list = el("ul", { class: "device-list", "data-device-list": "" });
  const listStatus = el("p", { role: "status" });
  const recovery = el("div", { "data-recovery-slot": "" });
  const refresh = async () => {
    try {
      const answer = await api("GET", "/api/devices");
      list.replaceChildren(...answer.devices.map((device) => deviceItem(device, refresh, listStatus)));
      recovery.replaceChildren(recoveryCard(answer.recovery_issued_at));
    } catch (error) {
      listStatus.textContent = apiErrorText(error);
    }
  };
  page.append(el("h1", {}, t("devices.title")));
  if (code) page.append(signInCard(code, refresh));
  page.append(linkCard(), recovery,
    card("list", heading("list", "devices.list_title"), list, listStatus), restoreCard(refresh));
  await refresh();
}
