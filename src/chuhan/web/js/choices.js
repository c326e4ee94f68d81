// The game choices of the forms (home, seek, rooms): the variants, a group of pill radios,
// and the rule options a game is created with (E1, J7). Below the screens that use them,
// so that the home screen and the seek card, which it holds, need not import each other.
import { t } from "./i18n.js";
import { el } from "./ui.js";

export const VARIANTS = ["xiangqi", "janggi", "jieqi"];

export function radioGroup(name, legendKey, values, labelOf, checked) {
  const fieldset = el("fieldset", { class: "choice" });
  fieldset.append(el("legend", {}, t(legendKey)));
  for (const value of values) {
    const id = `${name}-${value}`.replace(/[^\w-]/g, "");
    const input = el("input", { type: "radio", name, id, value });
    if (value === checked) input.checked = true;
    fieldset.append(el("label", { for: id, class: "pill" }, input, el("span", {}, labelOf(value))));
  }
  return fieldset;
}

// E1: repetitions are judged by the casual rule unless the WXF rules are chosen.
export function rulesChoice(prefix) {
  const id = `${prefix}-rules`;
  const box = el("input", { type: "checkbox", id, name: "rules", value: "wxf" });
  return el("div", { class: "field check xiangqi-only" }, box, el("label", { for: id }, t("field.rules_wxf")));
}

// J7: bikjang is off unless chosen when the game is created.
export function bikjangChoice(prefix) {
  const id = `${prefix}-bikjang`;
  const box = el("input", { type: "checkbox", id, name: "bikjang", value: "points" });
  return el("div", { class: "field check janggi-only" }, box, el("label", { for: id }, t("field.bikjang")));
}
