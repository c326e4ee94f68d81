// Interface languages (SPEC U8): Spanish, Portuguese and English, chosen from the browser
// unless the player picked one. Every visible string goes through t().
import { settings } from "./settings.js";

export const LANGUAGES = { es: "Español", pt: "Português", en: "English" };
let strings = {};
let fallback = {};
export let language = "en";

/** The language to use: the saved choice, else the browser's first supported one, else en. */
export function detectLanguage() {
  if (settings.language && settings.language in LANGUAGES) return settings.language;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const code = tag.toLowerCase().slice(0, 2);
    if (code in LANGUAGES) return code;
  }
  return "en";
}

async function fetchStrings(code) {
  const response = await fetch(`/static/i18n/${code}.json`);
  if (!response.ok) throw new Error(`no strings for ${code}`);
  return response.json();
}

/** Load a language's strings and mark the document with it. */
export async function setLanguage(code) {
  if (!Object.keys(fallback).length) fallback = await fetchStrings("en");
  strings = code === "en" ? fallback : await fetchStrings(code);
  language = code;
  document.documentElement.lang = code;
}

/** True when the strings have a text for key. */
export function hasText(key) {
  return key in strings || key in fallback;
}

/** template with its {name} placeholders filled from params (unknown names are kept). */
export function fill(template, params = {}) {
  return template.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

/** The translated string for key with {name} placeholders filled from params. */
export function t(key, params = {}) {
  return fill(strings[key] ?? fallback[key] ?? key, params);
}

/** Fill every [data-i18n] element's text and [data-i18n-label] element's aria-label/title. */
export function translateTree(root = document) {
  for (const element of root.querySelectorAll("[data-i18n]")) {
    element.textContent = t(element.dataset.i18n);
  }
  for (const element of root.querySelectorAll("[data-i18n-label]")) {
    const label = t(element.dataset.i18nLabel);
    element.setAttribute("aria-label", label);
    element.setAttribute("title", label);
  }
}
