// Autosave. A form marked data-autosave is saved 1.5 s after typing stops, before files are
// sent and before a marker is moved, by the same POST with "Accept: application/json"; each
// answer carries the revisions the page's next save must name. What is typed is also kept in
// the tab's sessionStorage until saved, and put back if the page is opened again at the same
// revision (after a crash, a reload, or signing in again). Leaving with unsaved text asks first.
//
// `autosaver` holds the rules (when to save, what to send, what an answer means) and is given
// the page's parts as functions; `startAutosave` gives it the page's. Node's tests drive
// `autosaver` with a fake fetch and fake timers.

import { readAnswer, renewToken, setAll } from "./net.js";

/** How long after the last keystroke a form is saved, in milliseconds. */
export const SAVE_DELAY = 1500;

/** The prefix of the sessionStorage key of a page's unsaved text (its path and query follow). */
export const KEPT_PREFIX = "trailpack-unsaved:";

/** What `startAutosave` started, one per form: `saveAll` saves them all. */
export const autosavers = [];

/**
 * Saves every autosaving form of the page (what is typed, before the page goes away).
 * @returns {Promise<boolean>} whether every one is saved
 */
export async function saveAll() {
  const all = await Promise.all(autosavers.map((a) => a.save()));
  return all.every((ok) => ok);
}

/**
 * The revision a page's unsaved text belongs to: the stop's when the form has one, else the tour's.
 * @param {string|null|undefined} stopRevision
 * @param {string|null|undefined} revision
 * @returns {string}
 */
export function currentRevision(stopRevision, revision) {
  return stopRevision || revision || "";
}

/**
 * The words of a successful save, at `when`'s hour and minute.
 * @param {Date} when
 * @returns {string}
 */
export function savedWords(when) {
  return `Saved at ${when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}.`;
}

/**
 * Whether a kept field is written back: not the token, the revisions or the values the page
 * showed (`was-NAME`), which belong to the page as it is now.
 * @param {string} name
 * @returns {boolean}
 */
export function restorable(name) {
  return name !== "_csrf" && name !== "revision" && name !== "stopRevision" && !name.startsWith("was-");
}

/**
 * Puts kept text back into a form's fields: the n-th kept value of a name into the n-th field of
 * that name, except into check boxes and file fields; only when it was kept at `revision` (the
 * page as it is now: text kept against an older revision is not put back over newer text).
 * @param {{revision: string, values: [string, string][]}|null} kept
 * @param {string} revision the page's revision now (`currentRevision`)
 * @param {(name: string) => ArrayLike<{type: string, value: string}>} fieldsNamed the form's fields of a name
 * @returns {"stale"|"unchanged"|"changed"} stale: nothing usable was kept (to be forgotten)
 */
export function putBack(kept, revision, fieldsNamed) {
  if (!kept || kept.revision !== revision || !Array.isArray(kept.values)) return "stale";
  let changed = false;
  const seen = new Map();
  for (const pair of kept.values) {
    if (!Array.isArray(pair)) continue;
    const [name, value] = pair;
    if (typeof name !== "string" || typeof value !== "string" || !restorable(name)) continue;
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    const field = fieldsNamed(name)[n];
    if (!field || field.type === "checkbox" || field.type === "file" || field.value === value) continue;
    field.value = value;
    changed = true;
  }
  return changed ? "changed" : "unchanged";
}

/**
 * What a save's answer means.
 * @param {{ok: boolean, status: number, answer: any}} result `readAnswer`'s
 * @param {boolean} retried whether the token was renewed already since the last edit
 * @returns {{kind: "saved"}|{kind: "renew"}|{kind: "refused", message: string}}
 */
export function saveOutcome(result, retried) {
  if (result.ok) return { kind: "saved" };
  if ((result.status === 401 || result.status === 403) && !retried) return { kind: "renew" };
  return { kind: "refused", message: `Not saved: ${result.answer?.message || `the server answered ${result.status}`}` };
}

/** What the page says when a save could not reach the server. */
export const CONNECTION_FAILED =
  "Not saved: the connection failed. What you typed stays on this page; it is tried again as you type.";

/** What the page says when the session ended and no new token came (with a link to sign in). */
export const SESSION_ENDED = "Not saved: your session has ended. What you typed stays on this page.";

/** What the page says when kept text was put back. */
export const PUT_BACK = "What you typed before was put back; it is not saved yet.";

/**
 * The page's parts an autosaver works with.
 * @typedef {object} AutosavePage
 * @property {string} action where the form is sent
 * @property {() => URLSearchParams} body the form's fields now
 * @property {() => string} token the page's CSRF token now (it changes when renewed)
 * @property {(answer: any, sent: URLSearchParams) => void} saved the page updated with a saved answer
 * @property {(text: string, signIn?: boolean) => void} say the status line (with a sign-in link)
 * @property {() => void} keep what is typed kept in the tab's storage
 * @property {() => void} forget the kept text dropped (it is saved)
 * @property {typeof fetch} [fetch]
 * @property {() => Promise<boolean>} [renewToken]
 * @property {(run: () => void, ms: number) => any} [setTimeout]
 * @property {(timer: any) => void} [clearTimeout]
 * @property {() => Date} [now]
 */

/**
 * An autosaver: what the page calls on its events.
 * @typedef {object} Autosaver
 * @property {() => void} edited the form was typed in: saved SAVE_DELAY ms after the last edit
 * @property {() => void} restored kept text was put back: saved like an edit, and said
 * @property {() => Promise<boolean>} save saves now (after a save on its way); true when nothing is unsaved
 * @property {() => Promise<void>|null} submitted the form is sent the usual way: null to let it go
 *   now, or a promise of the save on its way, after which the form is to be sent
 * @property {() => boolean} warnsOnLeaving whether leaving the page now loses text
 * @property {() => boolean} isDirty
 */

/**
 * The rules of autosave, over the page's parts. One save at a time: a save asked for while one is
 * on its way waits for it. A saved answer's revisions go into the page; text typed meanwhile is
 * saved next. A refused save (a conflict, a finding) is said and kept, and tried again at the
 * next edit. A 401 or 403 asks for a new token once per edit and, with one, saves again.
 * @param {AutosavePage} page
 * @returns {Autosaver}
 */
export function autosaver(page) {
  const fetchImpl = page.fetch ?? ((url, init) => fetch(url, init));
  const renew = page.renewToken ?? (() => renewToken());
  const setTimer = page.setTimeout ?? ((run, ms) => setTimeout(run, ms));
  const clearTimer = page.clearTimeout ?? ((id) => clearTimeout(id));
  const now = page.now ?? (() => new Date());
  let timer = null;
  let dirty = false;
  let saving = null;
  let retried = false;
  let leaving = false;

  const schedule = () => {
    clearTimer(timer);
    timer = setTimer(save, SAVE_DELAY);
  };

  /** The answer to `sent`, once it is back. */
  async function settle(result, sent) {
    saving = null;
    const outcome = saveOutcome(result, retried);
    if (outcome.kind === "saved") {
      retried = false;
      page.saved(result.answer, sent);
      if (dirty) {
        page.keep();
        schedule();
      } else {
        page.forget();
      }
      page.say(savedWords(now()));
      return true;
    }
    dirty = true;
    page.keep();
    if (outcome.kind === "renew") {
      retried = true;
      if (await renew()) return save();
      page.say(SESSION_ENDED, true);
      return false;
    }
    page.say(outcome.message);
    return false;
  }

  function failed() {
    saving = null;
    dirty = true;
    page.keep();
    page.say(CONNECTION_FAILED);
    return false;
  }

  function save() {
    clearTimer(timer);
    if (saving) return saving.then(save);
    if (!dirty) return Promise.resolve(true);
    dirty = false;
    const sent = page.body();
    page.say("Saving…");
    saving = fetchImpl(page.action, {
      method: "POST", body: sent, credentials: "same-origin",
      headers: { "Accept": "application/json", "X-Requested-With": "autosave", "X-CSRF-Token": page.token() },
    }).then(readAnswer).then((result) => settle(result, sent)).catch(failed);
    return saving;
  }

  return {
    edited() {
      dirty = true;
      retried = false;
      page.keep();
      page.say("Not saved yet…");
      schedule();
    },
    restored() {
      dirty = true;
      page.say(PUT_BACK);
      schedule();
    },
    save,
    submitted() {
      clearTimer(timer);
      const leave = () => {
        leaving = true;
        dirty = false;
      };
      if (saving) return saving.then(leave);
      leave();
      return null;
    },
    warnsOnLeaving: () => !leaving && (dirty || saving !== null),
    isDirty: () => dirty,
  };
}

/**
 * Autosave for a form marked data-autosave (see the top of this file). Its status is said in
 * its #autosave-status; a stop's form names its stop's revision (stopRevision), a tour's form
 * the tour's (revision).
 * @param {HTMLFormElement} form
 * @returns {Autosaver}
 */
export function startAutosave(form) {
  const status = form.querySelector("[id=autosave-status]");
  const stopRevision = form.querySelector("input[name=stopRevision]");
  const revision = form.querySelector("input[name=revision]");
  const key = KEPT_PREFIX + window.location.pathname + window.location.search;
  const current = () => currentRevision(stopRevision?.value, revision?.value);
  const values = () => [...new FormData(form).entries()].filter(([, value]) => typeof value === "string");

  function say(text, signIn = false) {
    if (!status) return;
    status.textContent = text;
    if (signIn) {
      const a = document.createElement("a");
      a.href = "/login";
      a.target = "_blank";
      a.rel = "noopener";
      a.textContent = "Sign in again in a new tab";
      status.append(" ", a);
    }
  }
  function keep() {
    try {
      window.sessionStorage.setItem(key, JSON.stringify({ revision: current(), values: values() }));
    } catch {
      // full or off
    }
  }
  function forget() {
    try {
      window.sessionStorage.removeItem(key);
    } catch {
      // off
    }
  }
  function saved(answer, sent) {
    setAll("input[name=revision]", null, answer.revision);
    setAll("[data-revision]", "data-revision", answer.revision);
    if (answer.stopRevision && stopRevision) {
      stopRevision.value = answer.stopRevision;
      setAll("input[name=stopRevision]", null, answer.stopRevision);
    }
    // The values now saved are what this page last showed.
    sent.forEach((value, name) => {
      const was = form.querySelector(`input[name='was-${name}']`);
      if (was) was.value = value;
    });
  }

  const saver = autosaver({
    action: form.action,
    body: () => new URLSearchParams(new FormData(form)),
    token: () => form.querySelector("input[name=_csrf]")?.value ?? "",
    saved, say, keep, forget,
  });
  form.addEventListener("input", saver.edited);
  form.addEventListener("change", saver.edited);
  // The form's own button still sends it the usual way (the page answers); nothing is lost meanwhile.
  form.addEventListener("submit", (event) => {
    const waiting = saver.submitted();
    if (waiting) {
      // An autosave is on its way: the form goes once it is back, with the revisions it answered.
      event.preventDefault();
      waiting.then(() => form.submit());
    }
  });
  window.addEventListener("beforeunload", (event) => {
    if (saver.warnsOnLeaving()) {
      keep();
      event.preventDefault();
      event.returnValue = "";
    }
  });

  let kept = null;
  try {
    kept = JSON.parse(window.sessionStorage.getItem(key) || "null");
  } catch {
    kept = null;
  }
  const fieldsNamed = (name) => form.querySelectorAll(`[name='${name.replace(/['\\]/g, "")}']`);
  const restoredState = putBack(kept, current(), fieldsNamed);
  if (restoredState === "stale") forget();
  if (restoredState === "changed") saver.restored();
  return saver;
}
