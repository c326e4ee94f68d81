// The end of a game (U6, E5, Q5, Q7, B2): who won and why, the points and the rating change,
// and in jieqi the face-down arrangement as a board with its check against the commitment
// shown during the game. The play view shows it in its panel; the hosts in their dialogs.
import { boardDiagram } from "./board.js";
import { hasText, t } from "./i18n.js";
import { ratingChange } from "./ratings.js";
import { settings } from "./settings.js";
import { el } from "./ui.js";
import { pieceName, sentenceEnd } from "./wording.js";

/** Map point → letter of a jieqi arrangement text ("a1=P b1=R …", Q7). */
export function parseArrangement(text) {
  const placement = new Map();
  for (const item of String(text || "").split(/\s+/)) {
    const [point, letter] = item.split("=");
    if (point && letter) placement.set(point, letter);
  }
  return placement;
}

function hexOf(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** {title, reason}: who won, and why (E5); ``local``: one device, the winner named by side. */
export function resultOf(state, local) {
  const s = state || {};
  const result = s.result || {};
  let title;
  if (result.reason === "interrupted") title = t("result.interrupted");
  else if (result.reason === "abandoned" || result.reason === "expired") title = t(`status.${result.reason}`);
  else if (result.reason === "unfinished") title = t("result.unfinished"); // an imported "*" record
  else if (!result.winner) title = t("result.draw");
  else if (local || !s.you) title = t("result.side_wins", { side: t(`side.${result.winner}`) });
  else title = result.winner === s.you ? t("result.you_win") : t("result.you_lose");
  // An imported record may name its own ending (its Termination tag): shown as written.
  let reason = "";
  if (result.reason) reason = hasText(`reason.${result.reason}`) ? t(`reason.${result.reason}`) : String(result.reason);
  if (result.points && typeof result.points === "object") {
    const parts = Object.entries(result.points).map(([side, value]) => `${t(`side.${side}`)} ${value}`);
    reason += ` (${parts.join(" – ")})`;
  }
  const ruling = s.ruling; // A repetition verdict names its evidence
  if (ruling?.rule === "perpetual_chase" && result.reason === "perpetual_chase") {
    reason += ` ${t("ruling.perpetual_chase", {
      piece: t(`kind.${ruling.piece}`), square: ruling.square, target: t(`kind.${ruling.target}`),
      target_square: ruling.target_square, move: ruling.chase_move })}`;
  } else if (ruling?.rule === "perpetual_check" && result.reason === "perpetual_check") {
    reason += ` ${t("ruling.perpetual_check", { move: ruling.from_move })}`;
  }
  return { title, reason };
}

/** The end of the game as a block: result, reason, points, and in jieqi the arrangement
 * as a board and its check against the commitment. A new element each call; a dialog
 * that shows the title itself asks for the rest only. ``points``: what the game earned
 * (a text, or ""); ``flipped``: the board drawn from the second mover's side. */
export function endSummary(state, { local = false, points = "", flipped = false, title: withTitle = true } = {}) {
  const s = state;
  const { title, reason } = resultOf(s, local);
  const box = el("div", { class: "end-summary" });
  const words = [withTitle ? sentenceEnd(title) : "", reason, points].filter(Boolean).join(" ");
  box.append(el("p", { class: "end-result", [withTitle ? "data-result" : "data-result-reason"]: "" }, words));
  if (s.practice) box.append(el("p", {}, t("result.practice")));
  if (s.options?.rated) box.append(ratingChange(s));
  if (s.commitment && s.arrangement && s.salt) box.append(commitmentCheck(s, flipped));
  return box;
}

/** The panel's end box: hidden while the game goes on (``summary`` null), else headed. */
export function renderEndBox(box, summary) {
  box.hidden = !summary;
  box.innerHTML = "";
  if (!summary) return;
  box.setAttribute("aria-label", t("end.heading"));
  box.append(el("h2", { class: "panel-heading" }, t("end.heading")), summary);
}

// Q7: anyone can check that the face-down arrangement was fixed before the first move:
// SHA-256 of "arrangement|salt" must equal the commitment shown during the game.
function commitmentCheck({ commitment, arrangement, salt }, flipped) {
  const verdict = el("p", { class: "commitment-verdict", "data-commitment": "pending" }, t("end.commitment_unchecked"));
  const placement = parseArrangement(arrangement);
  const listed = [...placement].map(([point, letter]) => `${point} ${pieceName(letter, "jieqi")}`).join(", ");
  const figure = el("figure", { class: "arrangement", "data-arrangement": "" });
  figure.innerHTML = boardDiagram(placement, "jieqi", settings.pieceStyle, {
    flipped, label: `${t("end.arrangement")}: ${listed}`,
  });
  figure.append(el("figcaption", {}, t("end.arrangement")));
  const details = el("details", {}, el("summary", {}, t("end.commitment_details")),
    el("pre", { class: "commitment-text" }, `${arrangement}\n${salt}\n${commitment}`));
  const box = el("div", { class: "commitment" }, verdict, figure, details);
  if (window.crypto?.subtle) {
    const data = new TextEncoder().encode(`${arrangement}|${salt}`);
    window.crypto.subtle.digest("SHA-256", data).then((digest) => {
      const ok = hexOf(digest) === String(commitment).trim().toLowerCase();
      verdict.textContent = t(ok ? "end.commitment_ok" : "end.commitment_bad");
      verdict.dataset.commitment = ok ? "ok" : "bad";
    });
  }
  return box;
}
