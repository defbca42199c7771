import { renewToken, setAll } from "./net.js";

// Autosave. A form marked data-autosave is saved 1.5 s after typing stops, before files are
// sent and before a marker is moved, by the same POST with "Accept: application/json"; each
// answer carries the revisions the page's next save must name. What is typed is also kept in
// the tab's sessionStorage until saved, and put back if the page is opened again at the same
// revision (after a crash, a reload, or signing in again). Leaving with unsaved text asks first.
export const autosavers = [];
export function saveAll() {
  return Promise.all(autosavers.map(function (a) { return a.save(); })).then(function (all) {
    return all.every(function (ok) { return ok; });
  });
}

export function startAutosave(form) {
  var status = form.querySelector("[id=autosave-status]");
  var stopRevision = form.querySelector("input[name=stopRevision]");
  var revision = form.querySelector("input[name=revision]");
  var key = "trailpack-unsaved:" + window.location.pathname + window.location.search;
  var timer = null, dirty = false, saving = null, retried = false;
  function current() { return (stopRevision && stopRevision.value) || (revision && revision.value) || ""; }
  function say(text, link) {
    if (!status) { return; }
    status.textContent = text;
    if (link) {
      var a = document.createElement("a");
      a.href = "/login"; a.target = "_blank"; a.rel = "noopener"; a.textContent = "Sign in again in a new tab";
      status.appendChild(document.createTextNode(" "));
      status.appendChild(a);
    }
  }
  function values() {
    return Array.from(new FormData(form).entries()).filter(function (e) { return typeof e[1] === "string"; });
  }
  function keep() {
    try {
      window.sessionStorage.setItem(key, JSON.stringify({ revision: current(), values: values() }));
    } catch (e) { /* full or off */ }
  }
  function forget() { try { window.sessionStorage.removeItem(key); } catch (e) { /* off */ } }
  function restore() {
    var kept = null;
    try { kept = JSON.parse(window.sessionStorage.getItem(key) || "null"); } catch (e) { kept = null; }
    if (!kept || kept.revision !== current()) { forget(); return; }
    var changed = false, seen = {};
    kept.values.forEach(function (pair) {
      var name = pair[0];
      if (name === "_csrf" || name === "revision" || name === "stopRevision" || name.indexOf("was-") === 0) { return; }
      var fields = form.querySelectorAll("[name='" + name.replace(/['\\]/g, "") + "']");
      var n = seen[name] || 0; seen[name] = n + 1;
      var field = fields[n];
      if (!field || field.type === "checkbox" || field.type === "file" || field.value === pair[1]) { return; }
      field.value = pair[1];
      changed = true;
    });
    if (changed) { dirty = true; say("What you typed before was put back; it is not saved yet."); schedule(); }
  }
  function schedule() { clearTimeout(timer); timer = setTimeout(save, 1500); }
  function save() {
    clearTimeout(timer);
    if (saving) { return saving.then(save); }
    if (!dirty) { return Promise.resolve(true); }
    dirty = false;
    var sent = new URLSearchParams(new FormData(form));
    say("Saving…");
    saving = fetch(form.action, {
      method: "POST", body: sent, credentials: "same-origin",
      headers: { "Accept": "application/json", "X-Requested-With": "autosave",
        "X-CSRF-Token": (form.querySelector("input[name=_csrf]") || { value: "" }).value }
    }).then(function (response) {
      return response.json().catch(function () { return { message: "the server answered " + response.status }; })
        .then(function (answer) { return { response: response, answer: answer }; });
    }).then(function (result) {
      saving = null;
      var answer = result.answer, code = result.response.status;
      if (result.response.ok) {
        retried = false;
        setAll("input[name=revision]", null, answer.revision);
        setAll("[data-revision]", "data-revision", answer.revision);
        if (answer.stopRevision && stopRevision) {
          stopRevision.value = answer.stopRevision;
          setAll("input[name=stopRevision]", null, answer.stopRevision);
        }
        // The values now saved are what this page last showed.
        sent.forEach(function (value, name) {
          var was = form.querySelector("input[name='was-" + name + "']");
          if (was) { was.value = value; }
        });
        if (dirty) { keep(); schedule(); } else { forget(); }
        say("Saved at " + new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) + ".");
        return true;
      }
      dirty = true;
      keep();
      if ((code === 401 || code === 403) && !retried) {
        retried = true;
        return renewToken().then(function (renewed) {
          if (renewed) { return save(); }
          say("Not saved: your session has ended. What you typed stays on this page.", true);
          return false;
        });
      }
      say("Not saved: " + (answer.message || ("the server answered " + code)));
      return false;
    }).catch(function () {
      saving = null; dirty = true; keep();
      say("Not saved: the connection failed. What you typed stays on this page; it is tried again as you type.");
      return false;
    });
    return saving;
  }
  function edited() { dirty = true; retried = false; keep(); say("Not saved yet…"); schedule(); }
  form.addEventListener("input", edited);
  form.addEventListener("change", edited);
  // The form's own button still sends it the usual way (the page answers); nothing is lost meanwhile.
  var leaving = false;
  form.addEventListener("submit", function (event) {
    clearTimeout(timer);
    if (saving) {
      // An autosave is on its way: the form goes once it is back, with the revisions it answered.
      event.preventDefault();
      saving.then(function () { leaving = true; dirty = false; form.submit(); });
      return;
    }
    leaving = true; dirty = false;
  });
  window.addEventListener("beforeunload", function (event) {
    if (!leaving && (dirty || saving)) { keep(); event.preventDefault(); event.returnValue = ""; }
  });
  restore();
  return { save: save, isDirty: function () { return dirty; } };
}
