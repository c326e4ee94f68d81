// Small DOM helpers shared by the screens: element creation, the live region, dialogs.
import { t } from "./i18n.js";

/** A new element with attributes (null, undefined and false skipped) and text or child nodes
 * (null and undefined skipped). */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined && value !== false) element.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    element.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return element;
}

/** A text button that follows the language (its key in data-i18n-key); made once, so
 * keyboard focus survives renders. */
export function textButton(key, handler, extra = {}) {
  const button = el("button", { type: "button", class: "button", "data-i18n-key": key, ...extra }, t(key));
  button.addEventListener("click", handler);
  return button;
}

/** A button showing ``icon``, named by the text of ``key`` (its label and tooltip). */
export function iconButton(key, icon, handler) {
  const button = el("button", {
    type: "button", class: "icon-button", "aria-label": t(key), title: t(key), "data-i18n-key": key,
  });
  button.textContent = icon;
  button.addEventListener("click", handler);
  return button;
}

let clearTimer = null;

/** Say something to screen-reader users through the polite live region (SPEC U9). */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region || !text) return;
  // Re-setting the same text is not re-read; clear first so repeats are announced.
  region.textContent = "";
  clearTimeout(clearTimer);
  setTimeout(() => {
    region.textContent = text;
  }, 30);
  clearTimer = setTimeout(() => {
    region.textContent = "";
  }, 8000);
}

/**
 * A modal dialog. actions: [{label, primary, href, close, value, attributes}].
 * Resolves with the chosen action's value (undefined when closed with Escape).
 */
export function showDialog({ title, body, actions, attributes = {} }) {
  const dialog = el("dialog", { class: "dialog", "aria-labelledby": "dialog-title", ...attributes });
  dialog.append(el("h2", { id: "dialog-title" }, title));
  if (typeof body === "string") dialog.append(el("p", {}, body));
  else if (body) dialog.append(body);
  const row = el("div", { class: "dialog-actions" });
  dialog.append(row);
  document.body.append(dialog);
  const returnFocus = document.activeElement;
  return new Promise((resolve) => {
    const finish = (value) => {
      dialog.close();
      dialog.remove();
      if (returnFocus && document.contains(returnFocus)) returnFocus.focus();
      resolve(value);
    };
    for (const action of actions) {
      const cls = `button${action.primary ? " primary" : ""}`;
      const control = action.href
        ? el("a", { class: cls, href: action.href, ...(action.attributes || {}) }, action.label)
        : el("button", { type: "button", class: cls, ...(action.attributes || {}) }, action.label);
      if (!action.href) control.addEventListener("click", () => finish(action.value));
      row.append(control);
    }
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      finish(undefined);
    });
    dialog.showModal();
    const primary = row.querySelector(".primary") || row.firstChild;
    primary?.focus();
  });
}

/** Ask a yes/no question; resolves true when confirmed. */
export async function confirmDialog(title, text, confirmLabel, cancelLabel) {
  const value = await showDialog({
    title,
    body: text,
    attributes: { "data-confirm-dialog": "" },
    actions: [
      { label: confirmLabel, value: true, primary: true, attributes: { "data-action": "confirm" } },
      { label: cancelLabel || t("dialog.cancel"), value: false, attributes: { "data-action": "cancel" } },
    ],
  });
  return value === true;
}
