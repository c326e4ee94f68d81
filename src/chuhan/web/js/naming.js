// Every player has a readable name (SPEC B7): a default one ("Orca 4821") until they choose.
// Before their first paired game a player is asked, once, what the opponent should call
// them; keeping the default counts as choosing it (PATCH /api/me, docs/protocol.md).
import { api } from "./connection.js";
import { apiErrorText } from "./errors.js";
import { t } from "./i18n.js";
import { el } from "./ui.js";

/** Resolves true when the seek may go on (a name chosen now or before), false when the
 * player closed the question. */
export async function nameBeforeFirstPairing() {
  let me;
  try {
    me = await api("GET", "/api/me");
  } catch {
    return true; // the seek itself will say what is wrong
  }
  if (me.name_chosen) return true;
  const input = el("input", {
    id: "naming-input", maxlength: "40", autocomplete: "nickname", value: me.name || "", "data-naming-input": "",
  });
  const status = el("p", { role: "status", class: "muted", "data-naming-status": "" });
  const play = el("button", { type: "submit", class: "button primary", "data-action": "naming-play" }, t("naming.play"));
  const cancel = el("button", { type: "button", class: "button", "data-action": "naming-cancel" }, t("dialog.cancel"));
  const form = el("form", { class: "naming" },
    el("p", {}, t("naming.text", { name: me.name || "" })),
    el("label", { for: "naming-input" }, t("naming.label")), input, status,
    el("div", { class: "dialog-actions" }, play, cancel));
  const dialog = el("dialog", { class: "dialog", "aria-labelledby": "naming-title", "data-naming": "" },
    el("h2", { id: "naming-title" }, t("naming.title")), form);
  document.body.append(dialog);
  return new Promise((resolve) => {
    const finish = (value) => {
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      play.disabled = true;
      try {
        await api("PATCH", "/api/me", { name: input.value.trim() || me.name });
        finish(true);
      } catch (error) {
        status.textContent = apiErrorText(error);
        play.disabled = false;
        input.focus();
      }
    });
    cancel.addEventListener("click", () => finish(false));
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      finish(false);
    });
    dialog.showModal();
    input.select();
  });
}
