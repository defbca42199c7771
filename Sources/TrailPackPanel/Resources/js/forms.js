// Small helps for single forms: a removal or a release asked about first (data-confirm), the
// build's progress drawn while "Build package" runs, and the name of the language whose tag is
// being typed under "Add a language". Every one of these forms works without them.

/**
 * A form as `confirmSubmit` uses it (an HTMLFormElement, or a test's stand-in).
 * @typedef {object} ConfirmForm
 * @property {(name: string) => string|null} getAttribute
 * @property {(selector: string) => {value: string}|null} querySelector
 * @property {(child: any) => any} appendChild
 */

/**
 * A form marked data-confirm, being sent: `ask` puts its data-confirm question (window.confirm).
 * Confirmed, the form tells the server so, with a hidden field `confirmed` set to `yes` (made when
 * the form has none; without it the server shows a browser without script a page that asks);
 * not confirmed, the form is not sent.
 * @param {ConfirmForm} form
 * @param {(question: string) => boolean} ask
 * @param {{createElement(tag: string): any}} [doc] where a new field is made (the page)
 * @returns {boolean} whether the form goes
 */
export function confirmSubmit(form, ask, doc = document) {
  if (!ask(form.getAttribute("data-confirm") ?? "")) return false;
  let field = form.querySelector("input[type=hidden][name=confirmed]");
  if (!field) {
    field = doc.createElement("input");
    field.type = "hidden";
    field.name = "confirmed";
    form.appendChild(field);
  }
  field.value = "yes";
  return true;
}

/**
 * The build's progress as the status address answers it, or null when there is nothing to draw
 * (not running, or not an answer at all): its words, and its percent when it knows one.
 * @param {string} text the answer's body
 * @returns {{message: string, percent: number|null}|null}
 */
export function buildProgress(text) {
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    return null;
  }
  if (!answer?.running) return null;
  return { message: answer.message, percent: typeof answer.percent === "number" ? answer.percent : null };
}

/** How often the build's progress is asked for, in milliseconds (the first time sooner). */
export const POLL_EVERY = 500;

/**
 * "Build package": the form is sent as usual; until the answer replaces the page, the build's
 * progress (its data-status address) is asked for twice a second and drawn in #build-progress
 * and #build-status (files and bytes, then the checks), and #build-button is disabled.
 * @param {HTMLFormElement} form
 */
export function startBuildProgress(form) {
  form.addEventListener("submit", () => {
    const box = document.getElementById("build-progress-box");
    const bar = document.getElementById("build-progress");
    const status = document.getElementById("build-status");
    box.hidden = false;
    bar.removeAttribute("value");
    status.textContent = "Building…";
    document.getElementById("build-button").disabled = true;
    async function poll() {
      try {
        const response = await fetch(form.getAttribute("data-status"));
        const progress = buildProgress(await response.text());
        if (progress) {
          status.textContent = progress.message;
          if (progress.percent === null) {
            bar.removeAttribute("value");
          } else {
            bar.value = progress.percent;
          }
        }
      } catch {
        return; // the connection failed: no more progress is drawn
      }
      setTimeout(poll, POLL_EVERY);
    }
    setTimeout(poll, 300);
  });
}

/**
 * The line under "Add a language" for what is typed: the tag with its English name and its own
 * name, or why it is not a language tag yet. Underscores count as hyphens (es_419 is es-419).
 * @param {string} typed
 * @param {(tag: string) => string|undefined} englishName Intl.DisplayNames(["en"]).of
 * @param {(tag: string) => string|undefined} ownName the name in the language itself
 * @returns {string} empty for nothing typed
 */
export function languageLine(typed, englishName, ownName) {
  const tag = typed.trim().replace(/_/g, "-");
  if (!tag) return "";
  try {
    const name = englishName(tag);
    const own = ownName(tag);
    if (!name || name.toLowerCase() === tag.toLowerCase()) {
      return `${tag}: a well-formed tag, of a language this browser does not know by name`;
    }
    return `${tag} — ${name}${own && own !== name ? ` (${own})` : ""}`;
  } catch {
    return `'${tag}' is not a language tag yet (such as es, fr or es-419)`;
  }
}

/**
 * "Add a language": the language's name, as the browser knows it, under the tag being typed
 * (in #language-tag-name; nothing without Intl.DisplayNames).
 * @param {HTMLInputElement} input
 */
export function startLanguageName(input) {
  const out = document.getElementById("language-tag-name");
  if (!out || typeof Intl === "undefined" || !Intl.DisplayNames) return;
  const english = new Intl.DisplayNames(["en"], { type: "language" });
  const ownName = (tag) => new Intl.DisplayNames([tag], { type: "language" }).of(tag);
  input.addEventListener("input", () => {
    out.textContent = languageLine(input.value, (tag) => english.of(tag), ownName);
  });
}
