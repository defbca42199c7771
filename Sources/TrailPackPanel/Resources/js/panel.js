// The control panel's script (an ES module; the pages load only this file): progressive
// enhancement only, every form works without it. Each part is a module of its own.
import { autosavers, startAutosave } from "./autosave.js";
import { startBuildProgress, startLanguageName } from "./forms.js";
import { startMap } from "./map.js";
import { startOrdering } from "./ordering.js";
import { startRouteForm } from "./route.js";
import { startImport, startUploads } from "./uploads.js";

document.addEventListener("DOMContentLoaded", function () {
  Array.prototype.forEach.call(document.querySelectorAll("[data-js-only]"), function (el) { el.hidden = false; });
  // Removals and Release ask first (the server keeps removed files aside either way).
  Array.prototype.forEach.call(document.querySelectorAll("form[data-confirm]"), function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.getAttribute("data-confirm"))) {
        event.preventDefault(); event.stopImmediatePropagation();
      }
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("form[data-autosave]"), function (form) {
    autosavers.push(startAutosave(form));
  });
  var languageTag = document.getElementById("language-tag");
  if (languageTag) { startLanguageName(languageTag); }
  var buildForm = document.getElementById("build-form");
  if (buildForm) { startBuildProgress(buildForm); }
  var routeForm = document.getElementById("route-form");
  if (routeForm) { startRouteForm(routeForm); }
  var importForm = document.getElementById("import-form");
  if (importForm) { startImport(importForm); }
  var maps = document.querySelectorAll("[data-tp-map]");
  for (var i = 0; i < maps.length; i++) { startMap(maps[i]); }
  var list = document.getElementById("stop-list");
  if (list) { startOrdering(list); }
  var zone = document.getElementById("drop-zone");
  if (zone) { startUploads(zone); }
  // After Up/Down, keep the keyboard where it was: the moved stop's button.
  var focus = new URLSearchParams(window.location.search).get("focus");
  if (focus) {
    var other = focus.indexOf("up-") === 0 ? focus.replace("up-", "down-") : focus.replace("down-", "up-");
    var button = document.getElementById(focus) || document.getElementById(other);
    if (button) { button.focus(); }
  }
});
