// The learn pages (SPEC U8): a hub, a rules page per variant with a diagram of every
// piece's moves, the interactive piece guide and the beginner tutorial. One page, routed by
// the address's hash: #/, #/rules/<variant>, #/guide/<variant>, #/tutorial/<variant>[/<n>].
import { placementFromFen } from "/static/js/position.js";
import { updateSettings } from "/static/js/settings.js";
import {
  announce, chooseLanguage, diagramFor, el, LANGUAGES, loadDiagrams, loadTexts, teachingBoard, tx,
  VARIANTS,
} from "./common.js";
import { showGuide } from "./guide.js";
import { analyse, destinationsFrom } from "./rules.js";
import { allLessons, showLessonList, showLesson, solvedLessons } from "./tutorial.js";

function nav() {
  document.querySelector(".skip-link").textContent = tx("ui.skip");
  const bar = document.getElementById("topbar-tools");
  bar.innerHTML = "";
  const links = el("nav", { class: "learn-links", "aria-label": tx("ui.nav_label") });
  links.append(
    el("a", { href: "/", "data-link": "home" }, tx("ui.nav_play")),
    el("a", { href: "#/", "data-link": "hub" }, tx("ui.nav_learn")),
  );
  const select = el("select", { id: "learn-language", "aria-label": tx("ui.language") });
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = el("option", { value: code, lang: code }, name);
    if (code === document.documentElement.lang) option.selected = true;
    select.append(option);
  }
  select.addEventListener("change", async () => {
    updateSettings({ language: select.value });
    const url = new URL(location.href);
    url.searchParams.delete("lang");
    history.replaceState(null, "", url);
    await loadTexts(select.value);
    route();
  });
  bar.append(links, select);
}

async function showHub(root) {
  const lessons = await allLessons();
  const solved = solvedLessons();
  document.title = `${tx("ui.hub_title")} · Chu-Han`;
  root.append(el("h1", {}, tx("ui.hub_title")), el("p", { class: "lead" }, tx("ui.hub_lead")));
  const grid = el("div", { class: "learn-grid" });
  for (const variant of VARIANTS) {
    const card = el("section", { class: "card learn-card", "data-variant-card": variant });
    card.append(
      el("h2", {}, tx(`ui.variant_${variant}`)),
      el("p", {}, tx(`ui.blurb_${variant}`)),
      el("p", { class: "muted", "data-hub-progress": variant }, tx("ui.progress", {
        done: lessons[variant].filter((lesson) => solved[lesson.id]).length, total: lessons[variant].length,
      })),
      el("ul", { class: "learn-card-links" },
        el("li", {}, el("a", { href: `#/rules/${variant}`, "data-link": `rules-${variant}` }, tx("ui.rules_link"))),
        el("li", {}, el("a", { href: `#/guide/${variant}`, "data-link": `guide-${variant}` }, tx("ui.guide_link"))),
        el("li", {}, el("a", { href: `#/tutorial/${variant}`, "data-link": `tutorial-${variant}` }, tx("ui.tutorial_link")))),
    );
    grid.append(card);
  }
  root.append(grid);
}

/** A small board showing one piece and its destinations, computed by the server's rules. */
function pieceDiagram(variant, kind) {
  const spec = diagramFor(variant, kind);
  const figure = el("figure", { class: "piece-diagram", "data-diagram": `${variant}-${kind}` });
  if (!spec) return figure;
  const holder = el("div", { class: "diagram-board" });
  figure.append(holder, el("figcaption", {}, tx("ui.diagram_caption", { point: spec.from })));
  const board = teachingBoard(holder, variant, () => {});
  board.setPieces(placementFromFen(spec.fen));
  analyse(variant, spec.fen)
    .then(({ legalMoves }) => {
      board.setMarks({ selected: spec.from, destinations: destinationsFrom(legalMoves, spec.from) });
      figure.dataset.ready = "true";
    })
    .catch(() => figure.append(el("p", { class: "learn-error" }, tx("ui.server_error"))));
  return figure;
}

function showRules(root, variant) {
  const page = tx(`rules.${variant}`);
  document.title = `${page.title} · Chu-Han`;
  const article = el("article", { class: "rules-page", "data-rules": variant });
  article.append(el("h1", {}, page.title), el("p", { class: "lead" }, page.lead));
  const contents = el("nav", { class: "rules-contents", "aria-label": tx("ui.contents") });
  const list = el("ol", {});
  contents.append(list);
  article.append(contents);
  page.sections.forEach((section, index) => {
    const id = `s${index + 1}`;
    list.append(el("li", {}, el("a", { href: `#/rules/${variant}/${id}`, "data-section-link": id }, section.title)));
    const block = el("section", { id, class: "rules-section" });
    block.append(el("h2", {}, section.title));
    for (const paragraph of section.paragraphs || []) block.append(el("p", {}, paragraph));
    if (section.items) block.append(el("ul", {}, ...section.items.map((item) => el("li", {}, item))));
    for (const piece of section.pieces || []) {
      const row = el("div", { class: "piece-row" });
      const words = el("div", { class: "piece-words" }, el("h3", {}, piece.name), el("p", {}, piece.text),
        el("p", { class: "diagram-note" }, tx(`diagram_notes.${variant}.${piece.kind}`)));
      row.append(words, pieceDiagram(variant, piece.kind));
      block.append(row);
    }
    article.append(block);
  });
  const faq = el("section", { id: "faq", class: "rules-section faq" });
  faq.append(el("h2", {}, tx("ui.faq")));
  for (const entry of page.faq) {
    faq.append(el("details", { class: "faq-entry" }, el("summary", {}, entry.q), el("p", {}, entry.a)));
  }
  list.append(el("li", {}, el("a", { href: `#/rules/${variant}/faq`, "data-section-link": "faq" }, tx("ui.faq"))));
  article.append(faq);
  article.append(
    el("p", { class: "learn-next" },
      el("a", { class: "button", href: `#/guide/${variant}` }, tx("ui.guide_link")), " ",
      el("a", { class: "button primary", href: `#/tutorial/${variant}` }, tx("ui.tutorial_link"))),
  );
  root.append(article);
}

let visits = 0;

export async function route() {
  const visit = ++visits;
  nav();
  // Each visit renders into its own element, so a slower earlier visit cannot write into it.
  const root = el("div", { class: "learn-view" });
  document.getElementById("learn").replaceChildren(root);
  document.body.dataset.ready = "false";
  const [path, query = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const [section, variant, extra] = path.split("/");
  const known = VARIANTS.includes(variant) ? variant : "xiangqi";
  if (section === "rules") {
    showRules(root, known);
    if (extra) document.getElementById(extra)?.scrollIntoView();
  } else if (section === "guide") {
    await showGuide(root, known, new URLSearchParams(query));
  } else if (section === "tutorial" && extra) {
    await showLesson(root, known, Number(extra));
  } else if (section === "tutorial") {
    await showLessonList(root, known);
  } else {
    await showHub(root);
  }
  if (visit !== visits) return;
  document.getElementById("learn").focus({ preventScroll: !!extra });
  announce(document.title);
  document.body.dataset.route = location.hash || "#/";
  document.body.dataset.ready = "true";
}

async function main() {
  await loadTexts(chooseLanguage());
  await loadDiagrams();
  window.addEventListener("hashchange", route);
  await route();
}

main();
