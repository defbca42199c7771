// The control panel's script (an ES module; the pages load only this file): progressive
// enhancement only, every form works without it. Each part is a module of its own; this one
// starts them on the elements the page has, once the page is read.
import { autosavers, startAutosave } from "./autosave.js";
import { confirmSubmit, startBuildProgress, startLanguageName } from "./forms.js";
import { startMap } from "./map.js";
import { focusIds, startOrdering } from "./ordering.js";
import { startRouteForm } from "./route.js";
import { startImport, startUploads } from "./uploads.js";

/**
 * Runs `start` with the page's element of this id, when the page has one.
 * @param {string} id
 * @param {(element: HTMLElement) => unknown} start
 */
function withElement(id, start) {
  const element = document.getElementById(id);
  if (element) start(element);
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("[data-js-only]").forEach((el) => {
    el.hidden = false;
  });
  // What only a page without the script needs (the stop's files sent with its form) goes away.
  document.querySelectorAll("[data-no-js]").forEach((el) => {
    el.hidden = true;
    el.querySelectorAll("input, select, button").forEach((control) => {
      control.disabled = true;
    });
  });
  // Removals and Release ask first (the server keeps removed files aside either way); confirmed,
  // the form says so (confirmed=yes), so the server does not ask again.
  document.querySelectorAll("form[data-confirm]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (!confirmSubmit(form, (question) => window.confirm(question))) {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
    });
  });
  document.querySelectorAll("form[data-autosave]").forEach((form) => autosavers.push(startAutosave(form)));
  withElement("language-tag", startLanguageName);
  withElement("build-form", startBuildProgress);
  withElement("route-form", startRouteForm);
  withElement("import-form", startImport);
  document.querySelectorAll("[data-tp-map]").forEach((element) => startMap(element));
  withElement("stop-list", startOrdering);
  withElement("drop-zone", startUploads);
  // After Up/Down, keep the keyboard where it was: the moved stop's button.
  const focus = new URLSearchParams(window.location.search).get("focus");
  if (focus) {
    const button = focusIds(focus).map((id) => document.getElementById(id)).find(Boolean);
    button?.focus();
  }
});
