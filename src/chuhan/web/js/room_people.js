// The people of a room as its texts name them (B1, B7): a seat's name with its rating in a
// paired room, and "a stranger" instead of "your friend" where the opponent was paired.
import { t } from "./i18n.js";
import { ratingText } from "./ratings.js";

/** B7: a seat's name with, in a paired room, the rating in its variant: "Orca 4821 (1500?)". */
export function ratedName(seat) {
  return seat.name && seat.rating ? `${seat.name} (${ratingText(seat.rating)})` : seat.name;
}

/** B1: in a paired room the opponent without a name is a stranger, not "your friend". */
export function unnamed(room, key) {
  return room?.options?.paired ? key.replace("friend", "stranger") : key;
}

/** The opponent as texts name them: their display name, else "your friend". */
export function opponentName(room) {
  return room.seats.find((seat) => !seat.you)?.name || t(unnamed(room, "room.friend_name"));
}
