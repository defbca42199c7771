// The tour's route on the panel's maps (the tour's page and the review page): the line the page
// gives in its map's data-route, checked and drawn under the stops; and the "Add the recorded
// track" form sent without leaving the page (the form works without this: a plain upload).

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
  var value;
  try { value = JSON.parse(text || "[]"); } catch (e) { return []; }
  if (!Array.isArray(value)) { return []; }
  var out = [], count = 0, last = null;
  for (var l = 0; l < value.length; l++) {
    var line = value[l];
    if (!Array.isArray(line) || line.length < 2) { return []; }
    count += line.length;
    if (count > MAX_POSITIONS) { return []; }
    var kept = [];
    for (var i = 0; i < line.length; i++) {
      var p = line[i];
      if (!Array.isArray(p) || p.length !== 2) { return []; }
      var lat = p[0], lon = p[1];
      if (typeof lat !== "number" || typeof lon !== "number" || !isFinite(lat) || !isFinite(lon)
        || lat < -90 || lat > 90 || lon < -180 || lon > 180) { return []; }
      // The turn nearest the previous position (a whole number of turns: exact, no rounding).
      if (last !== null) { lon += 360 * Math.round((last - lon) / 360); }
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
  var s = Infinity, w = Infinity, n = -Infinity, e = -Infinity;
  lines.forEach(function (line) {
    line.forEach(function (p) {
      s = Math.min(s, p[0]); n = Math.max(n, p[0]); w = Math.min(w, p[1]); e = Math.max(e, p[1]);
    });
  });
  return isFinite(s) ? [[s, w], [n, e]] : null;
}

/**
 * A number of bytes in words, as the server says them: "64.0 MB", "512 bytes".
 * @param {number} bytes
 * @returns {string}
 */
export function sizeWords(bytes) {
  var units = [[1073741824, "GB"], [1048576, "MB"], [1024, "KB"]];
  for (var i = 0; i < units.length; i++) {
    if (bytes >= units[i][0]) { return (bytes / units[i][0]).toFixed(1) + " " + units[i][1]; }
  }
  return bytes + " bytes";
}

/**
 * What is wrong with a chosen track before it is sent, in the ranger's words, or null. The server
 * reads the file itself (its content decides); this only spares sending what it would refuse.
 * @param {{name: string, size: number}|null} file
 * @param {number} maxBytes
 * @returns {string|null}
 */
export function trackProblem(file, maxBytes) {
  if (!file) { return "No file was chosen: choose the GPX file of the recorded track, then press the button."; }
  if (file.size === 0) { return "'" + file.name + "' is empty: export the track again from the GPS or the app."; }
  if (maxBytes > 0 && file.size > maxBytes) {
    return "'" + file.name + "' is " + sizeWords(file.size) + "; the panel reads a track of at most "
      + sizeWords(maxBytes) + ". Export only this tour's track from the GPS or the app, then add it again.";
  }
  if (!/\.gpx$/i.test(file.name)) {
    return "'" + file.name + "' is not a GPX file: export the recorded track from the GPS or the app as GPX "
      + "(a .gpx file), then add it.";
  }
  return null;
}

/**
 * Draws the route on a Leaflet map: a white casing under a purple line (seen on tiles and on the
 * grid alike), not clickable, under the stops' markers.
 * @returns {object} the layer
 */
export function drawRoute(L, map, lines) {
  var casing = L.polyline(lines, { color: "#fff", weight: 7, opacity: 0.9, interactive: false });
  var line = L.polyline(lines, { color: "#59359a", weight: 4, opacity: 1, interactive: false });
  return L.layerGroup([casing, line]).addTo(map);
}

/**
 * "Add the recorded track" with the page's script: the file checked before it is sent, sent
 * with the answer as JSON, the page opened again at the route (with its line) once it is kept,
 * or the server's refusal said beside the form.
 * @param {HTMLFormElement} form
 */
export function startRouteForm(form) {
  var status = document.getElementById("route-status"), input = document.getElementById("route-file");
  var button = document.getElementById("route-button");
  if (!status || !input || !window.fetch || !window.FormData) { return; }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var file = input.files && input.files[0];
    var problem = trackProblem(file || null, parseInt(form.getAttribute("data-max-bytes"), 10) || 0);
    if (problem) { say(problem, true); input.focus(); return; }
    say("Reading the track\u2026", false);
    button.disabled = true;
    fetch(form.action, {
      method: "POST", body: new FormData(form), credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRF-Token": form.getAttribute("data-csrf") || "" }
    }).then(function (response) {
      return response.json().catch(function () { return { message: "the server answered " + response.status }; })
        .then(function (answer) { return { ok: response.ok, answer: answer }; });
    }).then(function (result) {
      if (result.ok && result.answer.location) { open(result.answer.location); return; }
      button.disabled = false;
      say("The track was not added: " + result.answer.message, true);
      input.focus();
    }).catch(function () {
      button.disabled = false;
      say("The track was not added: the connection failed; try again.", true);
    });
  });
  // The page again (a new address differing only by its fragment would only scroll).
  function open(location) {
    var next = new URL(location, window.location.href);
    if (next.pathname + next.search === window.location.pathname + window.location.search) {
      window.location.hash = next.hash;
      window.location.reload();
    } else {
      window.location.assign(next.href);
    }
  }
  function say(text, problem) {
    status.textContent = text;
    status.className = "col-12 small" + (problem ? " alert alert-danger py-2 mb-0" : "");
    if (problem) { input.setAttribute("aria-invalid", "true"); } else { input.removeAttribute("aria-invalid"); }
  }
}
