// Files sent from the page: a stop's photos, recordings, videos and texts (#drop-zone, chosen or
// dropped), and "Start from a file" on the home page (#import-form). Each file is streamed as the
// body of a PUT (the server never holds it whole), one at a time, with progress.
//
// `sendFiles` holds the rules of a stop's uploads (what is saved first, what is asked, what is
// sent, what is said) over the page's parts given as functions; `startUploads` gives it the page's.

import { saveAll } from "./autosave.js";
import { renewToken } from "./net.js";

/**
 * The question asked before a file replaces one of the same name on the stop.
 * @param {string} name the file's name
 * @returns {string}
 */
export function replaceQuestion(name) {
  return `This stop has a file called '${name}' already. Replace it? Its title, alt text and `
    + "transcript are cleared, since they describe the old file (the old file is kept aside on the server).";
}

/**
 * What is said of a file not replaced.
 * @param {string} name
 * @returns {string}
 */
export function keptWords(name) {
  return `Not added: ${name} (the file already there is kept)`;
}

/**
 * Whether the stop has a file of this name already (names compared without case, as the server does).
 * @param {string[]} existing the names of the stop's files
 * @param {string} name
 * @returns {boolean}
 */
export function hasFileNamed(existing, name) {
  const wanted = name.toLowerCase();
  return existing.some((other) => other.toLowerCase() === wanted);
}

/**
 * The address a stop's file is PUT to: the drop zone's data-upload, with the file's name, the
 * language chosen for it (if any) and `replace=1` when it replaces a file of the same name.
 * @param {string} base
 * @param {string} name
 * @param {string} language empty for none
 * @param {boolean} replacing
 * @returns {string}
 */
export function uploadURL(base, name, language, replacing) {
  return `${base}?name=${encodeURIComponent(name)}`
    + (language ? `&language=${encodeURIComponent(language)}` : "")
    + (replacing ? "&replace=1" : "");
}

/**
 * The message of an upload's answer: the server's (its JSON's message), else the file's name and
 * the HTTP status.
 * @param {string} name
 * @param {number} status
 * @param {string} text the answer's body
 * @returns {string}
 */
export function uploadMessage(name, status, text) {
  try {
    return JSON.parse(text).message;
  } catch {
    return `${name}: HTTP ${status}`;
  }
}

/**
 * The page's parts a stop's uploads work with.
 * @typedef {object} UploadPage
 * @property {() => Promise<boolean>} saveAll what is typed on the page saved (false: it could not be)
 * @property {(question: string) => boolean} ask window.confirm
 * @property {(text: string) => void} say a line in the upload status
 * @property {() => string[]} existing the names of the stop's files now
 * @property {() => boolean} replaceTicked whether "Replace a file of the same name" is ticked
 * @property {() => string} language the language chosen for the files (empty: none)
 * @property {(file: File, url: string) => Promise<{status: number, text: string}>} put sends a file
 *   (rejected when the connection fails)
 * @property {() => Promise<boolean>} renewToken the page's token renewed; whether a new one came
 * @property {() => void} reload
 */

/**
 * Sends one file: asked first when the stop has one of its name (unless "Replace" is ticked),
 * asked again when the server answers 409 (a file of that name), then sent with replace=1.
 * @param {{name: string}} file
 * @param {string} base the drop zone's data-upload
 * @param {UploadPage} page
 * @returns {Promise<boolean>} whether the stop changed
 */
async function sendFile(file, base, page) {
  let replacing = page.replaceTicked();
  if (!replacing && hasFileNamed(page.existing(), file.name)) {
    if (!page.ask(replaceQuestion(file.name))) {
      page.say(keptWords(file.name));
      return false;
    }
    replacing = true;
  }
  let renewed = false;
  for (;;) {
    page.say(`Uploading ${file.name}…`);
    let answer;
    try {
      answer = await page.put(file, uploadURL(base, file.name, page.language(), replacing));
    } catch {
      page.say(`Not added: ${file.name} (the connection failed; try again)`);
      return false;
    }
    const message = uploadMessage(file.name, answer.status, answer.text);
    // The page's token went stale (its session was renewed in another tab): renewed once, and the
    // file sent again with the new one; without a session, said.
    if ((answer.status === 401 || answer.status === 403) && !renewed) {
      renewed = true;
      if (await page.renewToken()) continue;
    }
    // A file of the same name: asked, then sent again to replace it (or skipped).
    if (answer.status === 409 && !replacing) {
      if (!page.ask(message)) {
        page.say(keptWords(file.name));
        return false;
      }
      replacing = true;
      continue;
    }
    page.say((answer.status < 300 ? "" : "Not added: ") + message);
    return answer.status < 300;
  }
}

/**
 * A stop's files sent one after the other. What is typed on the page is saved first (the page
 * reloads after the files): when it cannot be, no file is sent. Once any file was added, the page
 * is saved again and reloaded.
 * @param {ArrayLike<File>} files
 * @param {string} base the drop zone's data-upload
 * @param {UploadPage} page
 * @returns {Promise<void>}
 */
export async function sendFiles(files, base, page) {
  const list = Array.from(files);
  if (list.length === 0) return;
  if (!(await page.saveAll())) {
    page.say("The files were not sent: the page's text could not be saved first (see above).");
    return;
  }
  let changed = false;
  for (const file of list) {
    if (await sendFile(file, base, page)) changed = true;
  }
  if (changed) {
    await page.saveAll();
    page.say("Reloading the page…");
    page.reload();
  }
}

/**
 * PUTs a file as the request's body, drawing its progress in `bar`.
 * @param {File} file
 * @param {string} url
 * @param {string} token the CSRF token
 * @param {HTMLProgressElement} bar
 * @returns {Promise<{status: number, text: string}>}
 */
function putFile(file, url, token, bar) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.setRequestHeader("X-CSRF-Token", token);
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    bar.hidden = false;
    bar.value = 0;
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) bar.value = Math.round(100 * event.loaded / event.total);
    };
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
    xhr.onerror = () => reject(new Error("the connection failed"));
    xhr.send(file);
  });
}

/**
 * A stop's uploads (#drop-zone): each file goes as it is chosen or dropped, with progress
 * (#upload-progress) and a line for each in #upload-status; the form's own Upload button
 * (multipart, for browsers without script) is hidden.
 * @param {HTMLElement} zone
 */
export function startUploads(zone) {
  const input = zone.querySelector("input[type=file]");
  const bar = document.getElementById("upload-progress");
  const status = document.getElementById("upload-status");
  /** @type {UploadPage} */
  const page = {
    saveAll,
    ask: (question) => window.confirm(question),
    say(text) {
      const p = document.createElement("p");
      p.textContent = text;
      p.className = "mb-1";
      status.appendChild(p);
    },
    // A file of the same name on this stop: asked here, before anything is sent (the server
    // refuses it unasked too).
    existing: () => [...document.querySelectorAll("form[id^=remove-] input[name=file]")].map((i) => i.value),
    replaceTicked: () => Boolean(document.getElementById("upload-replace")?.checked),
    language: () => document.getElementById("upload-language")?.value ?? "",
    put: (file, url) => putFile(file, url, zone.getAttribute("data-csrf"), bar),
    renewToken: () => renewToken(),
    reload: () => window.location.reload(),
  };
  const send = (files) => sendFiles(files, zone.getAttribute("data-upload"), page);
  const form = document.getElementById("upload-form");
  const submit = document.getElementById("upload-submit");
  if (submit) submit.hidden = true;
  form?.addEventListener("submit", (event) => {
    event.preventDefault();
    send(input.files);
  });
  input.addEventListener("change", () => send(input.files));
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("tp-over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("tp-over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("tp-over");
    send(event.dataTransfer.files);
  });
}

/**
 * The address "Start from a file" PUTs its file to: the form's data-import, with the site, the
 * file's name, `replace=1` when the draft of the same name is to be replaced, and `again=1` when a
 * second draft may be made from a file imported before (or with the same stops).
 * @param {string} base
 * @param {string} site
 * @param {string} name
 * @param {boolean} replace
 * @param {boolean} [again]
 * @returns {string}
 */
export function importURL(base, site, name, replace, again = false) {
  return `${base}?site=${encodeURIComponent(site)}&name=${encodeURIComponent(name)}${replace ? "&replace=1" : ""}`
    + (again ? "&again=1" : "");
}

/**
 * What an import's answer means: the new draft's address to open, or what to say.
 * @param {number} status
 * @param {string} text the answer's body
 * @returns {{open: string}|{say: string}}
 */
export function importOutcome(status, text) {
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = { message: `HTTP ${status}` };
  }
  if (status < 300 && answer?.location) return { open: answer.location };
  return { say: `Not made: ${answer?.message}` };
}

/**
 * "Start from a file" (#import-form): the file is streamed as the request body, then the new
 * draft opens; a refusal is said in #import-status.
 * @param {HTMLFormElement} form
 */
export function startImport(form) {
  const status = document.getElementById("import-status");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const file = document.getElementById("import-file").files[0];
    if (!file) return;
    const site = document.getElementById("import-site").value;
    const replace = document.getElementById("import-replace").checked;
    const again = document.getElementById("import-again")?.checked ?? false;
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", importURL(form.getAttribute("data-import"), site, file.name, replace, again));
    xhr.setRequestHeader("X-CSRF-Token", form.getAttribute("data-csrf"));
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.onload = () => {
      const outcome = importOutcome(xhr.status, xhr.responseText);
      if ("open" in outcome) {
        window.location.assign(outcome.open);
      } else {
        status.textContent = outcome.say;
      }
    };
    xhr.onerror = () => {
      status.textContent = "Not made: the connection failed; try again.";
    };
    status.textContent = `Sending ${file.name}…`;
    xhr.send(file);
  });
}
