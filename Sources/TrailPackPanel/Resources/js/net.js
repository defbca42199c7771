// Talking to the panel: a form sent the way a button would send it, the page's tokens and
// revisions updated everywhere they are written, a session's new token asked for when the page's
// one has gone stale (signed in again in another tab), and the JSON answers of the page's scripts
// read the same way everywhere.

/**
 * What `post` sends: the page's CSRF token and revision (from `element`'s data-csrf and
 * data-revision), then `fields` (which may name a revision of their own), in that order.
 * @param {{getAttribute(name: string): string|null}} element
 * @param {Record<string, string>} fields
 * @returns {[string, string][]}
 */
export function postFields(element, fields) {
  const all = { _csrf: element.getAttribute("data-csrf"), revision: element.getAttribute("data-revision"), ...fields };
  return Object.entries(all);
}

/**
 * Sends a form the way a button would (the server answers with a page that replaces this one):
 * the CSRF token and revision included (`postFields`).
 * @param {string} action the form's address
 * @param {Record<string, string>} fields
 * @param {Element} element the element whose data-csrf and data-revision are the page's
 */
export function post(action, fields, element) {
  const form = document.createElement("form");
  form.method = "post";
  form.action = action;
  for (const [name, value] of postFields(element, fields)) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
}

/**
 * Writes `value` into every element `selector` finds: into `attribute` when one is named, else
 * into the element's value (a form field).
 * @param {string} selector
 * @param {string|null} attribute
 * @param {string} value
 * @param {ParentNode} [root] where to look (the page)
 */
export function setAll(selector, attribute, value, root = document) {
  root.querySelectorAll(selector).forEach((el) => {
    if (attribute) {
      el.setAttribute(attribute, value);
    } else {
      el.value = value;
    }
  });
}

/**
 * A session renewed in another tab has a new CSRF token: it is asked for (GET /session, a
 * same-origin read only) and written into every `_csrf` field and data-csrf attribute of the page.
 * @param {object} [o] (tests)
 * @param {typeof fetch} [o.fetch]
 * @param {ParentNode} [o.root] the page
 * @returns {Promise<boolean>} whether the page has a new token (false: no session, or no answer)
 */
export async function renewToken(o = {}) {
  const fetchImpl = o.fetch ?? ((url, init) => fetch(url, init));
  const root = o.root ?? document;
  try {
    const response = await fetchImpl("/session", {
      credentials: "same-origin", headers: { "Accept": "application/json" },
    });
    const answer = response.ok ? await response.json() : null;
    if (!answer || !answer.csrf) return false;
    setAll("input[name=_csrf]", null, answer.csrf, root);
    setAll("[data-csrf]", "data-csrf", answer.csrf, root);
    return true;
  } catch {
    return false;
  }
}

/**
 * A JSON answer of the panel as the page's scripts read it: its body, or, when the body is not
 * JSON (a proxy's error page, a cut connection, a network's sign-in page), a failure whatever its
 * status — a 200 that is not the panel's answer saved nothing: `{message: "the server answered
 * STATUS"}`, or for a 2xx, that the answer was not the panel's.
 * @param {Response} response
 * @returns {Promise<{ok: boolean, status: number, answer: any}>}
 */
export async function readAnswer(response) {
  try {
    return { ok: response.ok, status: response.status, answer: await response.json() };
  } catch {
    const message = response.ok
      ? "the answer was not the panel's (a network's sign-in page, or a proxy in between), so nothing was saved"
      : `the server answered ${response.status}`;
    return { ok: false, status: response.status, answer: { message } };
  }
}
