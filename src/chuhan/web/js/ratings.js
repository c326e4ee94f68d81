// Ratings as the player reads them (B2, Z8): a rating and its change, why a game rated nobody,
// and what a finished paired game did to both sides' ratings. Shared by the end of a game,
// the rooms, the home page and "My games".
import { t } from "./i18n.js";
import { el } from "./ui.js";

/** A rating and its change as the player reads it: "1662? (+162)"; "?" while provisional. */
export function ratingText(rating, delta = null) {
  const value = `${rating.after ?? rating.rating}${rating.provisional ? "?" : ""}`;
  if (delta === null || delta === undefined) return value;
  return `${value} (${delta >= 0 ? "+" : "−"}${Math.abs(delta)})`;
}

/** Why a paired game rated nobody (B2, Z8: the server's ``reason``), as a sentence;
 * ``pairKey`` words the same two players' daily limit for where it is shown. */
export function notRatedText(rated, pairKey = "rating.not_counted") {
  switch (rated.reason) {
    case "same_network": return t("rating.not_rated_same_network");
    case "new_player": return t("rating.not_rated_new_player", { count: rated.ai_games_first });
    case "new_opponent_limit": return t("rating.not_rated_new_opponents");
    default: return t(pairKey);
  }
}

/** A side's rating and change, with the hour's limit when it cut a gain (Z8). */
export function sideRatingText(rating) {
  const text = ratingText(rating, rating.delta);
  return rating.capped ? `${text} ${t("rating.capped")}` : text;
}

/** B2: what a paired game did to the ratings, for the end of the game: the player's own
 * rating and change first, then the opponent's (both sides' on a read-only review). */
export function ratingChange(state) {
  const rated = state.options.rated;
  const box = el("p", { class: "rating-change", "data-rating-change": "" });
  if (rated.counted === false) {
    box.textContent = notRatedText(rated);
    return box;
  }
  const sides = state.sides || Object.keys(rated).filter((key) => rated[key]?.after !== undefined);
  const order = state.you ? [state.you, ...sides.filter((side) => side !== state.you)] : sides;
  box.textContent = order.filter((side) => rated[side]).map((side) => t(
    side === state.you ? "rating.yours" : "rating.side",
    { side: t(`side.${side}`), rating: sideRatingText(rated[side]) },
  )).join(" · ");
  return box;
}
