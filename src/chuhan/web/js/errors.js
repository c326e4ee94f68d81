// The server's refusals in the player's language (SPEC U8, Z5): every error code of
// docs/protocol.md has its own text, so the server's English sentence never shows up inside
// a Spanish one. Codes the client does not know read "the request was refused".
import { ApiError } from "./connection.js";
import { hasText, t } from "./i18n.js";

/** The player's text for an error reply or an HTTP answer's `error`: {code, reason?,
 * tries_left?…} (the same fields in both, docs/protocol.md).
 * A reason (the rule a password or a name broke) has its own text where there is one. */
export function errorText(error) {
  const code = error?.code || "other";
  if (error?.reason && hasText(`error.${code}_${error.reason}`)) {
    return t(`error.${code}_${error.reason}`);
  }
  if (!hasText(`error.${code}`)) return t("error.other");
  return t(`error.${code}`, { tries: error.tries_left ?? 0, seconds: error.retry_after ?? 0 });
}

/** The text for a failed HTTP call (an ApiError, or anything thrown on the way), as a
 * sentence of its own. */
export function apiErrorText(error) {
  const text = !(error instanceof ApiError) || error.status === 0
    ? t("error.network") : errorText({ ...(error.body?.error || {}), code: error.code });
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "The server did not accept that: <reason>" for a refused request. */
export function refusal(reply) {
  return t("notice.refused", { message: errorText(reply) });
}
