// Read-only reviews (N4): "/review/<token>" opens a finished game from its share link
// for anyone holding it; "/review/game/<id>" opens a game of one's own (an imported record,
// a finished game) without its socket; "/review/import" turns a record's text into a game.
// The board, move list and review tools are the play view's (play.js, review.js).
import { api, ApiError } from "./connection.js";
import { apiErrorText } from "./errors.js";
import { t } from "./i18n.js";
import { PlayView } from "./play.js";
import { loadStyles } from "./review.js";
import { sideNames } from "./position.js";
import { el } from "./ui.js";

function message(root, text) {
  root.innerHTML = "";
  root.append(el("p", { class: "notice", role: "alert", "data-review-error": "" }, text),
    el("a", { class: "button", href: "/" }, t("end.home")));
  return null;
}

/** The names of the players: a game of the player's own names both (B7: "(you)" marks the
 * side they played), an imported record its Red/Black tags; else the sides'. */
function recordName(state, side) {
  const name = state.players?.[side];
  if (name) {
    const key = side === state.you ? "room.player_you_named" : "room.player_named";
    return t(key, { name, side: t(`side.${side}`) });
  }
  const tags = state.options?.record_tags || {};
  const [first] = sideNames(state.variant);
  const tag = side === first ? tags.Red || tags.Cho : tags.Black || tags.Han;
  return tag ? `${t(`side.${side}`)} · ${tag}` : t(`side.${side}`);
}

function readOnlyView(root, state, share) {
  root.innerHTML = "";
  document.title = `${t(`variant.${state.variant}`)} — ${t("review.heading")} — Chu-Han`;
  const view = new PlayView(root, {
    kind: "review",
    variant: state.variant,
    share,
    attributes: { "data-game": state.id, "data-read-only": "" },
    send: async () => ({ type: "error", code: "not_found" }),
    mayAct: () => false,
    playerName: (side) => recordName(state, side),
    heading: () => `${t(`variant.${state.variant}`)} · ${t("review.heading")}`,
  });
  view.update(state);
  const end = state.options?.rules_end;
  if (end) {
    // E1–E3: the players went on where our rules end a game; say where and why.
    const reason = t(`reason.${end.reason}`);
    view.panelMiddle.append(el("p", { class: "note", "data-rules-end": String(end.ply) },
      t("review.rules_end", { ply: end.ply, reason })));
  }
  return { render: () => view.render(), board: view.board, view };
}

/** "/review/<token>", "/review/game/<id>" or "/review/import". */
export async function openReviewRoute(root) {
  const parts = location.pathname.split("/").filter(Boolean);
  root.innerHTML = "";
  root.append(el("p", { class: "loading" }, t("status.loading")));
  if (parts[1] === "import") return importForm(root);
  try {
    if (parts[1] === "game" && parts[2]) {
      // B3: any game of the player's archive, online games too (as the player saw them).
      const state = await api("GET", `/api/archive/games/${encodeURIComponent(parts[2])}`);
      return readOnlyView(root, state, null);
    }
    const token = parts[1] || "";
    const state = await api("GET", `/api/shared/${encodeURIComponent(token)}`);
    return readOnlyView(root, state, token);
  } catch (error) {
    if (error instanceof ApiError && error.code === "game_ongoing") {
      // B5: a live online game is played in its room, never shown as a review.
      const room = error.body?.error?.room;
      if (room) {
        location.replace(room);
        return null;
      }
      return message(root, t("review.not_yet"));
    }
    if (error instanceof ApiError && error.status === 404) return message(root, t("review.no_such_game"));
    return message(root, apiErrorText(error));
  }
}

/** N4, U8: an import refused, in the player's language by its code, with the line the
 * server names (never the server's English sentence with its FEN). */
function importErrorText(status, answer) {
  const { error } = answer;
  const line = Number.isInteger(error.line) ? error.line : null;
  if (error.code === "bad_record") {
    return line ? t("review.import_bad_line", { line }) : t("review.import_bad_format");
  }
  if (error.code === "too_many_moves") return t("review.import_too_long", { line: line ?? "?" });
  if (error.code === "empty_record") return t("review.import_empty");
  return apiErrorText(new ApiError(status, answer));
}

function importForm(root) {
  root.innerHTML = "";
  loadStyles(); // the form's own layout (no review on this page loads it)
  const text = el("textarea", { id: "record-text", rows: "14", "data-import-text": "", spellcheck: "false" });
  const file = el("input", { type: "file", id: "record-file", accept: ".pgn,.gib,.txt", "data-import-file": "" });
  const error = el("p", { class: "notice", role: "alert", "data-import-error": "", hidden: "" });
  const submit = el("button", { type: "submit", class: "button primary", "data-import-submit": "" }, t("review.import_submit"));
  const form = el("form", { class: "import-form", "data-import": "" },
    el("h1", {}, t("review.import_title")),
    el("p", {}, t("review.import_lead")),
    el("label", { for: "record-file" }, t("review.import_file")), file,
    el("label", { for: "record-text" }, t("review.import_text")), text,
    error, submit);
  file.addEventListener("change", () => {
    const chosen = file.files?.[0];
    if (chosen) chosen.arrayBuffer().then((data) => {
      text.dataset.bytes = "file";
      text.value = "";
      form.fileData = data;
    });
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.hidden = true;
    const body = form.fileData && !text.value.trim() ? form.fileData : text.value;
    // The record's text is a body type a form could send: the header says this page sent it
    // (SPEC Z6; only a script of this site's own pages can add it).
    const response = await fetch("/api/records", {
      method: "POST", body, credentials: "same-origin", headers: { "x-chuhan-client": "web" },
    });
    const answer = await response.json().catch(() => null);
    if (!response.ok) {
      error.textContent = answer?.error ? importErrorText(response.status, answer) : t("error.network");
      error.hidden = false;
      error.focus?.();
      return;
    }
    location.href = `/review/game/${encodeURIComponent(answer.id)}`;
  });
  root.append(form);
  return null;
}
