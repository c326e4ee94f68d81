// Player preferences kept in this browser (SPEC U2, U4, U6, U7): piece style, notations, confirm
// before move, sound and language survive reloads.
const STORAGE_KEY = "chuhan.settings";

const DEFAULTS = {
  language: null, // null: follow the browser
  pieceStyle: "characters", // "characters" | "illustrations"
  notation: "coordinates", // xiangqi and jieqi: "coordinates" | "wxf" | "chinese"
  janggiNotation: "coordinates", // janggi: "coordinates" | "korean"
  confirmMove: false,
  muted: false,
  volume: 0.6,
};

const listeners = new Set();

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) || "{}");
    return { ...DEFAULTS, ...(typeof saved === "object" && saved ? saved : {}) };
  } catch {
    return { ...DEFAULTS };
  }
}

export const settings = load();

/** Change some preferences, remember them and tell every listener. */
export function updateSettings(patch) {
  Object.assign(settings, patch);
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(settings));
  } catch {
    // private mode or full storage: the preference still applies to this page
  }
  for (const listener of listeners) listener(settings, patch);
}

export function onSettingsChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
