// The tour's route on the panel's maps (the tour's page and the review page): the line the page
// gives in its map's data-route, checked and drawn under the stops; and the "Add the recorded
// track" form sent without leaving the page (the form works without this: a plain upload).

import { readAnswer } from "./net.js";

/** The most positions read from a page's data-route (the server sends at most 5,000). */
export const MAX_POSITIONS = 20000;

/**
 * The lines of a data-route attribute, `[[[lat, lon], …], …]`: every position two finite numbers in
 * range, every line at least two positions, at most MAX_POSITIONS in all. Longitudes are unwrapped
 * along each line and from one line to the next (a route cut at 180° is drawn in one piece, not
 * across the whole world). Anything else gives no lines: the map then shows the stops only.
 * @param {string|null} text
 * @returns {number[][][]}
 */
export function routeLines(text) {
  let value;
  try {
    value = JSON.parse(text || "[]");
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const out = [];
  let count = 0;
  let last = null;
  for (const line of value) {
    if (!Array.isArray(line) || line.length < 2) return [];
    count += line.length;
    if (count > MAX_POSITIONS) return [];
    const kept = [];
    for (const p of line) {
      if (!Array.isArray(p) || p.length !== 2) return [];
      let [lat, lon] = p;
      if (typeof lat !== "number" || typeof lon !== "number" || !Number.isFinite(lat) || !Number.isFinite(lon)
        || lat < -90 || lat > 90 || lon < -180 || lon > 180) return [];
      // The turn nearest the previous position (a whole number of turns: exact, no rounding).
      if (last !== null) lon += 360 * Math.round((last - lon) / 360);
      kept.push([lat, lon]);
      last = lon;
    }
    out.push(kept);
  }
  return out;
}

/**
 * The box around the lines, `[[south, west], [north, east]]` (longitudes as unwrapped), or null.
 * @param {number[][][]} lines
 * @returns {number[][]|null}
 */
export function routeBounds(lines) {
  let s = Infinity;
  let w = Infinity;
  let n = -Infinity;
  let e = -Infinity;
  for (const line of lines) {
    for (const [lat, lon] of line) {
      s = Math.min(s, lat);
      n = Math.max(n, lat);
      w = Math.min(w, lon);
      e = Math.max(e, lon);
    }
  }
  return Number.isFinite(s) ? [[s, w], [n, e]] : null;
}

/**
 * A number of bytes in words, as the server says them: "64.0 MB", "512 bytes".
 * @param {number} bytes
 * @returns {string}
 */
export function sizeWords(bytes) {
  for (const [size, unit] of [[1073741824, "GB"], [1048576, "MB"], [1024, "KB"]]) {
    if (bytes >= size) return `${(bytes / size).toFixed(1)} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * What is wrong with a chosen track before it is sent, in the ranger's words, or null. The server
 * reads the file itself (its content decides); this only spares sending what it would refuse.
 * @param {{name: string, size: number}|null} file
 * @param {number} maxBytes
 * @returns {string|null}
 */
export function trackProblem(file, maxBytes) {
  if (!file) return "No file was chosen: choose the GPX file of the recorded track, then press the button.";
  if (file.size === 0) return `'${file.name}' is empty: export the track again from the GPS or the app.`;
  if (maxBytes > 0 && file.size > maxBytes) {
    return `'${file.name}' is ${sizeWords(file.size)}; the panel reads a track of at most ${sizeWords(maxBytes)}. `
      + "Export only this tour's track from the GPS or the app, then add it again.";
  }
  if (!/\.gpx$/i.test(file.name)) {
    return `'${file.name}' is not a GPX file: export the recorded track from the GPS or the app as GPX `
      + "(a .gpx file), then add it.";
  }
  return null;
}

/**
 * Where the page goes once a track is kept: the address the server answered, resolved against
 * the page's. The same page with another fragment is reloaded at that fragment (assigning it
 * would only scroll, without the new line); any other page is opened.
 * @param {string} location the answer's location
 * @param {string} here the page's address
 * @returns {{reload: string}|{assign: string}} reload: the fragment to reload at; assign: the address
 */
export function afterTrack(location, here) {
  const next = new URL(location, here);
  const page = new URL(here);
  if (next.pathname + next.search === page.pathname + page.search) return { reload: next.hash };
  return { assign: next.href };
}

/**
 * Draws the route on a Leaflet map: a white casing under a purple line (seen on tiles and on the
 * grid alike), not clickable, under the stops' markers.
 * @param {any} L Leaflet
 * @param {any} map the Leaflet map
 * @param {number[][][]} lines `routeLines`'
 * @returns {any} the layer
 */
export function drawRoute(L, map, lines) {
  const casing = L.polyline(lines, { color: "#fff", weight: 7, opacity: 0.9, interactive: false });
  const line = L.polyline(lines, { color: "#59359a", weight: 4, opacity: 1, interactive: false });
  return L.layerGroup([casing, line]).addTo(map);
}

/**
 * "Add the recorded track" with the page's script: the file checked before it is sent, sent
 * with the answer as JSON, the page opened again at the route (with its line) once it is kept,
 * or the server's refusal said beside the form (#route-status; #route-file marked invalid).
 * @param {HTMLFormElement} form
 */
export function startRouteForm(form) {
  const status = document.getElementById("route-status");
  const input = document.getElementById("route-file");
  const button = document.getElementById("route-button");
  if (!status || !input || !window.fetch || !window.FormData) return;
  function say(text, problem) {
    status.textContent = text;
    status.className = `col-12 small${problem ? " alert alert-danger py-2 mb-0" : ""}`;
    if (problem) {
      input.setAttribute("aria-invalid", "true");
    } else {
      input.removeAttribute("aria-invalid");
    }
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = input.files?.[0] ?? null;
    const problem = trackProblem(file, parseInt(form.getAttribute("data-max-bytes"), 10) || 0);
    if (problem) {
      say(problem, true);
      input.focus();
      return;
    }
    say("Reading the track\u2026", false);
    button.disabled = true;
    try {
      const response = await fetch(form.action, {
        method: "POST", body: new FormData(form), credentials: "same-origin",
        headers: { "Accept": "application/json", "X-CSRF-Token": form.getAttribute("data-csrf") || "" },
      });
      const { ok, answer } = await readAnswer(response);
      if (ok && answer.location) {
        const next = afterTrack(answer.location, window.location.href);
        if ("reload" in next) {
          window.location.hash = next.reload;
          window.location.reload();
        } else {
          window.location.assign(next.assign);
        }
        return;
      }
      button.disabled = false;
      say(`The track was not added: ${answer.message}`, true);
      input.focus();
    } catch {
      button.disabled = false;
      say("The track was not added: the connection failed; try again.", true);
    }
  });
}
