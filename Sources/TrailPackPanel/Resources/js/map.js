// The map of a tour (the editor, #tour-map) or of a version (the review page, #review-map), an
// element marked data-tp-map whose data- attributes say everything: the base layer (tiles, the
// tour's own offline map, or a coordinate grid), the frame, the route, and the stops. In the
// editor (data-editor) a stop is moved with the mouse or the arrow keys and waits for "Save the
// new place"; a click on the map places a new stop; "Draw the frame" drags the map's frame.
//
// The first half of this file is pure: what the data- attributes say, where the map opens, what
// a key, a click or a drawn rectangle changes. Node's tests call it without a page or Leaflet.
// The second half draws with Leaflet (window.L), one function for each part of the map.

import { saveAll } from "./autosave.js";
import { gridLayer } from "./grid.js";
import { post, readAnswer, setAll } from "./net.js";
import { startOrdering } from "./ordering.js";
import { drawRoute, routeBounds, routeLines } from "./route.js";

/**
 * A map element's data- attributes, as its `dataset` gives them (names in camelCase, data-own-min-zoom
 * is `ownMinZoom`; an attribute without a value is "").
 * @typedef {Record<string, string|undefined>} MapData
 */

/**
 * A box of the map, `[[south, west], [north, east]]`, as Leaflet takes bounds.
 * @typedef {[[number, number], [number, number]]} Box
 */

/**
 * A stop as the page's data-stops lists it (and as adding a stop answers it).
 * @typedef {object} MapStop
 * @property {number} n its number in the tour
 * @property {string} name
 * @property {number} lat
 * @property {number} lon
 * @property {string} [action] where its new place is sent (the editor)
 * @property {string} [rev] its revision, sent with a new place
 * @property {number} [oldLat] where it was in the version before (the review page)
 * @property {number} [oldLon]
 */

/** Where a map with nothing to show opens: the middle of the United States. */
export const DEFAULT_VIEW = Object.freeze({ center: [39.5, -98.35], zoom: 4 });

/** How far an arrow key moves a stop's marker, in pixels (with Shift: SHIFT_STEP). */
export const ARROW_STEP = 10;

/** How far an arrow key with Shift moves a stop's marker, in pixels. */
export const SHIFT_STEP = 1;

/** How long after a drawn frame is released a click on the map is the drawing's own, in milliseconds. */
export const DRAWN_CLICK_MS = 400;

/**
 * The box of four edges, or null unless all four are finite numbers.
 * @param {number[]} edges south, west, north, east
 * @returns {Box|null}
 */
export function boxOf(edges) {
  if (edges.length !== 4 || !edges.every(Number.isFinite)) return null;
  const [south, west, north, east] = edges;
  return [[south, west], [north, east]];
}

/**
 * The box of an attribute such as data-own-bounds, "south,west,north,east", or null.
 * @param {string|undefined} text
 * @returns {Box|null}
 */
export function edgesBox(text) {
  return boxOf((text ?? "").split(",").map(parseFloat));
}

/**
 * The map's base layer: the configured tiles (data-tile-url), else the tour's own offline map
 * (raster PMTiles served tile by tile, data-own-tiles: beyond its zooms Leaflet scales the
 * nearest tiles, and the grid stays on top for the coordinates), else only the coordinate grid.
 * @param {MapData} data
 * @returns {{url: string, options: object, grid: boolean}|{url: null, options: null, grid: true}} the
 *   tiles' address and Leaflet options (none: the grid alone), and whether the grid is drawn
 */
export function baseLayer(data) {
  if (data.tileUrl) {
    return { url: data.tileUrl, options: { attribution: data.tileAttribution || "", maxZoom: 19 }, grid: false };
  }
  if (data.ownTiles) {
    const options = {
      attribution: data.ownLabel || "the tour's offline map", maxZoom: 19,
      minNativeZoom: parseInt(data.ownMinZoom, 10) || 0,
      maxNativeZoom: parseInt(data.ownMaxZoom, 10) || 19,
    };
    const bounds = edgesBox(data.ownBounds);
    if (bounds) options.bounds = bounds;
    return { url: data.ownTiles, options, grid: true };
  }
  return { url: null, options: null, grid: true };
}

/**
 * The tour's frame (data-south, data-west, data-north, data-east), or null.
 * @param {MapData} data
 * @returns {Box|null}
 */
export function frameOf(data) {
  return boxOf([data.south, data.west, data.north, data.east].map(parseFloat));
}

/**
 * The box around the site's other tours (data-view-south and so on: a tour without stops yet), or null.
 * @param {MapData} data
 * @returns {Box|null}
 */
export function viewOf(data) {
  return boxOf([data.viewSouth, data.viewWest, data.viewNorth, data.viewEast].map(parseFloat));
}

/**
 * Where the map opens: the frame, else the route's box, else around the site's other tours,
 * else DEFAULT_VIEW.
 * @param {Box|null} frame
 * @param {Box|null|number[][]} routeBox
 * @param {Box|null} view
 * @returns {{bounds: Box}|{center: number[], zoom: number}}
 */
export function firstView(frame, routeBox, view) {
  const bounds = frame ?? routeBox ?? view;
  return bounds ? { bounds } : { center: [...DEFAULT_VIEW.center], zoom: DEFAULT_VIEW.zoom };
}

/**
 * Whether the frame is drawn as a rectangle: on the editor's map and the review page's, when there is one.
 * @param {Box|null} frame
 * @param {MapData} data
 * @returns {boolean}
 */
export function showsFrame(frame, data) {
  return frame !== null && (data.editor !== undefined || data.review !== undefined);
}

/**
 * The stops of a data-stops attribute: those with a place (anything unreadable gives none).
 * @param {string|undefined} text
 * @returns {MapStop[]}
 */
export function stopList(text) {
  let stops;
  try {
    stops = JSON.parse(text || "[]");
  } catch {
    return [];
  }
  if (!Array.isArray(stops)) return [];
  return stops.filter((s) => s !== null && typeof s === "object" && Number.isFinite(s.lat) && Number.isFinite(s.lon));
}

/**
 * A stop marker's tooltip.
 * @param {MapStop} stop
 * @returns {string}
 */
export function stopTitle(stop) {
  return `${stop.n}. ${stop.name}`;
}

/**
 * A stop marker's name for screen readers (in the editor, with the keys that move it).
 * @param {MapStop} stop
 * @param {boolean} editing
 * @returns {string}
 */
export function stopLabel(stop, editing) {
  const keys = editing ? ". Arrow keys move it; Enter saves the new place, Escape puts it back." : "";
  return `Stop ${stop.n}: ${stop.name}${keys}`;
}

/**
 * Whether the review page shows where a stop was before (a dashed line from its old place).
 * @param {MapStop} stop
 * @returns {boolean}
 */
export function hasOldPlace(stop) {
  return Number.isFinite(stop.oldLat) && Number.isFinite(stop.oldLon);
}

/**
 * What a key pressed on a stop's marker in the editor does: an arrow moves the marker (ARROW_STEP
 * pixels, SHIFT_STEP with Shift; up is -y); Enter saves and Escape puts back the marker's own
 * move waiting for "Save the new place". Any other key is the map's.
 * @param {string} key the event's key
 * @param {boolean} shift
 * @param {boolean} waiting whether this marker's move waits to be saved
 * @returns {{kind: "move", dx: number, dy: number}|{kind: "save"}|{kind: "putBack"}|null}
 */
export function markerKey(key, shift, waiting) {
  const direction = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] }[key];
  if (direction) {
    const size = shift ? SHIFT_STEP : ARROW_STEP;
    return { kind: "move", dx: direction[0] * size, dy: direction[1] * size };
  }
  if (key === "Enter" && waiting) return { kind: "save" };
  if (key === "Escape" && waiting) return { kind: "putBack" };
  return null;
}

/**
 * A stop's move waiting for "Save the new place": its marker, the stop, and where it was.
 * @template M
 * @typedef {{marker: M, stop: MapStop, from: any}} Move
 */

/**
 * The move waiting for "Save the new place" once a marker was moved (dragged, or by an arrow key).
 * Moved again, a marker's waiting move goes on from where it started; a move of another marker
 * puts the waiting one back first: one move waits at a time, the one the move bar speaks of.
 * @template M
 * @param {Move<M>|null} waiting
 * @param {Move<M>} move
 * @returns {{waiting: Move<M>, putBack: Move<M>|null}} putBack: the earlier move, to be undone
 */
export function nextMove(waiting, move) {
  if (waiting === null) return { waiting: move, putBack: null };
  if (waiting.marker === move.marker) return { waiting, putBack: null };
  return { waiting: move, putBack: waiting };
}

/**
 * A coordinate as the panel's fields take it: six decimals (about 10 cm).
 * @param {number} degrees
 * @returns {string}
 */
export function coordinate(degrees) {
  return degrees.toFixed(6);
}

/**
 * The move bar's words for a stop moved and not saved yet.
 * @param {MapStop} stop
 * @param {number} metres how far from its saved place
 * @returns {string}
 */
export function movedWords(stop, metres) {
  return `Stop ${stop.n}, ${stop.name}, moved ${Math.round(metres)} m. `;
}

/**
 * What "Save the new place" sends (with the page's token and revision): the place, and the
 * stop's revision when the page knows it.
 * @param {{lat: number, lng: number}} at
 * @param {MapStop} stop
 * @returns {Record<string, string>}
 */
export function placeFields(at, stop) {
  const fields = { latitude: coordinate(at.lat), longitude: coordinate(at.lng) };
  if (stop.rev) fields.stopRevision = stop.rev;
  return fields;
}

/**
 * What a click on the editor's map writes into "Add a stop": its place, by field id.
 * @param {{lat: number, lng: number}} at
 * @returns {Record<string, string>}
 */
export function clickFields(at) {
  return { "add-latitude": coordinate(at.lat), "add-longitude": coordinate(at.lng) };
}

/**
 * The box between two corners, either way round.
 * @param {{lat: number, lng: number}} a
 * @param {{lat: number, lng: number}} b
 * @returns {{south: number, west: number, north: number, east: number}}
 */
export function cornersBox(a, b) {
  return {
    south: Math.min(a.lat, b.lat), west: Math.min(a.lng, b.lng),
    north: Math.max(a.lat, b.lat), east: Math.max(a.lng, b.lng),
  };
}

/**
 * What a drawn frame writes into the frame fields under Tour details, by field id.
 * @param {{south: number, west: number, north: number, east: number}} box
 * @returns {Record<string, string>}
 */
export function frameFields(box) {
  return {
    "frame-south": coordinate(box.south), "frame-west": coordinate(box.west),
    "frame-north": coordinate(box.north), "frame-east": coordinate(box.east),
  };
}

/**
 * "Draw the frame" as a gesture: armed by the button, a press on the map starts the rectangle,
 * moving the pointer stretches it, the release ends it. The click the browser sends after the
 * release belongs to the drawing (it places no stop).
 */
export class FrameGesture {
  constructor() {
    /** @type {boolean} whether the button was pressed and the frame is not drawn yet */
    this.armed = false;
    /** @type {{lat: number, lng: number}|null} the corner pressed */
    this.start = null;
    /** @type {number|null} when the last frame was released */
    this.releasedAt = null;
  }

  /** The button was pressed: the next press on the map starts the frame. */
  arm() {
    this.armed = true;
    this.start = null;
  }

  /**
   * A press on the map.
   * @param {{lat: number, lng: number}} at
   * @returns {boolean} whether it started the frame
   */
  press(at) {
    if (!this.armed) return false;
    this.start = at;
    return true;
  }

  /**
   * The pointer moved on the map.
   * @param {{lat: number, lng: number}} at
   * @returns {{lat: number, lng: number}[]|null} the rectangle's two corners while drawing, else null
   */
  drag(at) {
    return this.armed && this.start ? [this.start, at] : null;
  }

  /**
   * The pointer was released on the map.
   * @param {{lat: number, lng: number}} at
   * @param {number} now milliseconds
   * @returns {{south: number, west: number, north: number, east: number}|null} the frame drawn, or
   *   null when none was being drawn
   */
  release(at, now) {
    if (!this.armed || !this.start) return null;
    const box = cornersBox(this.start, at);
    this.armed = false;
    this.start = null;
    this.releasedAt = now;
    return box;
  }

  /**
   * A click on the map.
   * @param {number} now milliseconds
   * @returns {boolean} whether it is the end of a drawing (not a place for a new stop)
   */
  click(now) {
    const drawn = this.releasedAt !== null && now - this.releasedAt < DRAWN_CLICK_MS;
    this.releasedAt = null;
    return drawn;
  }
}

// The page's part: Leaflet.

const FRAME_STYLE = { color: "#198754", weight: 2, fill: false, interactive: false };
const DRAWN_STYLE = { color: "#fd7e14", weight: 2, fill: false, interactive: false };

/**
 * Adds the base layer `baseLayer` chose.
 * @param {any} L
 * @param {any} map
 * @param {MapData} data
 */
function addBaseLayer(L, map, data) {
  const base = baseLayer(data);
  if (base.url) L.tileLayer(base.url, base.options).addTo(map);
  if (!base.url) map.attributionControl.addAttribution("coordinate grid (no base map)");
  if (base.grid) gridLayer(L).addTo(map);
}

/**
 * The map's first view (`firstView`).
 * @param {any} map
 * @param {{bounds: Box}|{center: number[], zoom: number}} view
 */
function showFirstView(map, view) {
  if ("bounds" in view) {
    map.fitBounds(view.bounds);
  } else {
    map.setView(view.center, view.zoom);
  }
}

/**
 * A button of the move bar.
 * @param {string} text
 * @param {() => void} onClick
 * @param {string} kind its Bootstrap class
 * @returns {HTMLButtonElement}
 */
function barButton(text, onClick, kind) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `btn btn-sm ${kind} me-2`;
  b.textContent = text;
  b.addEventListener("click", onClick);
  return b;
}

/**
 * The stops' markers: numbered, with a dashed line from a moved stop's old place (the review
 * page); in the editor, moved by dragging or by the arrow keys. A move waits for "Save the new
 * place" (Enter) or "Put it back" (Escape) in #move-bar: nothing moves by accident. Saving sends
 * the stop's new place the way a button would (the page answers).
 * @param {any} L
 * @param {any} map
 * @param {HTMLElement} element the map's element (its data-csrf and data-revision)
 * @param {boolean} editing
 * @returns {(stop: MapStop) => any} adds a stop's marker
 */
function startStopMarkers(L, map, element, editing) {
  const moveBar = document.getElementById("move-bar");
  let pending = null;

  function settle(save) {
    if (!pending) return;
    const { marker, stop, from } = pending;
    pending = null;
    if (moveBar) moveBar.textContent = "";
    if (!save) {
      marker.setLatLng(from);
      marker.getElement().focus();
      return;
    }
    const fields = placeFields(marker.getLatLng(), stop);
    saveAll().then(() => post(stop.action, fields, element));
  }

  function moved(marker, stop, from) {
    const next = nextMove(pending, { marker, stop, from });
    next.putBack?.marker.setLatLng(next.putBack.from);
    pending = next.waiting;
    if (!moveBar) {
      settle(true);
      return;
    }
    moveBar.textContent = movedWords(stop, map.distance(pending.from, marker.getLatLng()));
    moveBar.append(
      barButton("Save the new place", () => settle(true), "btn-primary"),
      barButton("Put it back", () => settle(false), "btn-outline-secondary"));
  }

  function listenToKeys(marker, stop, icon) {
    icon.addEventListener("keydown", (event) => {
      const waiting = pending !== null && pending.marker === marker;
      const action = markerKey(event.key, event.shiftKey, waiting);
      if (!action) return;
      event.preventDefault();
      event.stopPropagation();
      if (action.kind === "move") {
        const start = marker.getLatLng();
        const point = map.latLngToContainerPoint(start).add([action.dx, action.dy]);
        marker.setLatLng(map.containerPointToLatLng(point));
        moved(marker, stop, start);
      } else {
        settle(action.kind === "save");
      }
    });
  }

  return function addMarker(stop) {
    const marker = L.marker([stop.lat, stop.lon], {
      draggable: editing, title: stopTitle(stop), keyboard: true,
      icon: L.divIcon({ className: "tp-stop-label", html: String(stop.n), iconSize: [26, 26], iconAnchor: [13, 13] }),
    }).addTo(map);
    const icon = marker.getElement();
    if (icon) {
      icon.setAttribute("role", editing ? "button" : "img");
      icon.setAttribute("aria-label", stopLabel(stop, editing));
    }
    if (hasOldPlace(stop)) {
      L.polyline([[stop.oldLat, stop.oldLon], [stop.lat, stop.lon]],
        { color: "#6c757d", dashArray: "6 6", interactive: false }).addTo(map);
      L.circleMarker([stop.oldLat, stop.oldLon], { radius: 6, color: "#6c757d", interactive: false }).addTo(map);
    }
    if (!editing) return marker;
    let from = null;
    marker.on("dragstart", () => {
      from = marker.getLatLng();
    });
    marker.on("dragend", () => moved(marker, stop, from));
    if (icon) listenToKeys(marker, stop, icon);
    return marker;
  };
}

/**
 * A click on the editor's map places a new stop: its place in "Add a stop" (#add-latitude,
 * #add-longitude), a pink dot where it goes, the keyboard in #add-name. A click that ends
 * "Draw the frame" places nothing.
 * @param {any} L
 * @param {any} map
 * @param {FrameGesture} gesture
 * @returns {{clear: () => void}} removes the pink dot
 */
function startClickToAdd(L, map, gesture) {
  let preview = null;
  const clear = () => {
    if (preview) map.removeLayer(preview);
    preview = null;
  };
  map.on("click", (event) => {
    if (gesture.click(Date.now())) return;
    const lat = document.getElementById("add-latitude");
    const lon = document.getElementById("add-longitude");
    if (!lat || !lon) return;
    const fields = clickFields(event.latlng);
    lat.value = fields["add-latitude"];
    lon.value = fields["add-longitude"];
    clear();
    preview = L.circleMarker(event.latlng, { radius: 8, color: "#d63384" }).addTo(map);
    document.getElementById("add-name")?.focus();
  });
  return { clear };
}

/** The parts of the editor a new stop changes: what to fix (#findings-area) and the stop list. */
export const REFRESHED_PARTS = ["findings-area", "stops-section"];

/**
 * Puts each part of `fresh` (a page) named in `ids` in the place of the same part of `page`:
 * those that are in both (a part missing from either is left as it is).
 * @param {{getElementById(id: string): {innerHTML: string}|null}} page
 * @param {{getElementById(id: string): {innerHTML: string}|null}} fresh
 * @param {string[]} ids
 * @returns {string[]} the ids replaced
 */
export function replaceParts(page, fresh, ids) {
  const replaced = [];
  for (const id of ids) {
    const now = page.getElementById(id);
    const next = fresh.getElementById(id);
    if (!now || !next) continue;
    now.innerHTML = next.innerHTML;
    replaced.push(id);
  }
  return replaced;
}

/**
 * The editor's stop list (#stops-section) and what to fix (#findings-area) again, from the page
 * as the server shows it now (the list with its drag and drop): a stop added on the page answers
 * "the tour has no stops yet" in the summary above it.
 * @returns {Promise<void>}
 */
async function refreshStopList() {
  const response = await fetch(window.location.pathname, { credentials: "same-origin" });
  const html = await response.text();
  const fresh = new DOMParser().parseFromString(html, "text/html");
  if (replaceParts(document, fresh, REFRESHED_PARTS).includes("stops-section")) {
    const list = document.getElementById("stop-list");
    if (list) startOrdering(list);
  }
}

/**
 * "Add the stop" (#add-stop) without leaving the page: the marker is added where it was placed,
 * the list redrawn from the tour's page, and the map keeps its place and zoom. The answer is said
 * in #add-status.
 * @param {HTMLElement} element the map's element (its data-csrf)
 * @param {(stop: MapStop) => any} addMarker
 * @param {{clear: () => void}} clickToAdd
 */
function startAddForm(element, addMarker, clickToAdd) {
  const addForm = document.getElementById("add-stop");
  const addStatus = document.getElementById("add-status");
  if (!addForm || !window.fetch) return;
  addForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    addStatus.textContent = "Adding…";
    try {
      await saveAll();
      const response = await fetch(addForm.action, {
        method: "POST", body: new URLSearchParams(new FormData(addForm)), credentials: "same-origin",
        headers: { "Accept": "application/json", "X-CSRF-Token": element.getAttribute("data-csrf") },
      });
      const { ok, answer } = await readAnswer(response);
      if (!ok) {
        addStatus.textContent = `Not added: ${answer.message}`;
        return;
      }
      setAll("input[name=revision]", null, answer.revision);
      setAll("[data-revision]", "data-revision", answer.revision);
      addMarker(answer.stop);
      clickToAdd.clear();
      for (const id of ["add-name", "add-latitude", "add-longitude"]) document.getElementById(id).value = "";
      addStatus.textContent = answer.message;
      document.getElementById("add-name").focus();
      await refreshStopList();
    } catch {
      addStatus.textContent = "Not added: the connection failed; try again.";
    }
  });
}

/**
 * "Draw the frame" (#draw-frame, shown with the script): press the button, then press on the map
 * at one corner and drag to the opposite one; the four edges fill the frame fields under Tour
 * details (the keyboard way: type them there), "Follow the stops" (#follow) is unticked and the
 * keyboard goes to "Save the tour details" (#save-details). Said in #draw-frame-status.
 * @param {any} L
 * @param {any} map
 * @param {HTMLElement} element
 * @param {FrameGesture} gesture
 * @param {{layer: any}} frame the frame's rectangle on the map (replaced by the one drawn)
 */
function startFrameDrawing(L, map, element, gesture, frame) {
  const drawButton = document.getElementById("draw-frame");
  const drawStatus = document.getElementById("draw-frame-status");
  if (!drawButton) return;
  let box = null;
  drawButton.hidden = false;
  drawButton.addEventListener("click", () => {
    gesture.arm();
    map.dragging.disable();
    element.classList.add("tp-drawing");
    drawStatus.textContent = "Press on the map at one corner of the frame and drag to the opposite corner.";
  });
  map.on("mousedown", (event) => {
    if (!gesture.press(event.latlng)) return;
    box = L.rectangle([event.latlng, event.latlng], DRAWN_STYLE).addTo(map);
  });
  map.on("mousemove", (event) => {
    const corners = gesture.drag(event.latlng);
    if (corners) box.setBounds(corners);
  });
  map.on("mouseup", (event) => {
    const drawn = gesture.release(event.latlng, Date.now());
    if (!drawn) return;
    map.dragging.enable();
    element.classList.remove("tp-drawing");
    if (frame.layer) map.removeLayer(frame.layer);
    frame.layer = L.rectangle([[drawn.south, drawn.west], [drawn.north, drawn.east]], DRAWN_STYLE).addTo(map);
    for (const [id, value] of Object.entries(frameFields(drawn))) {
      const input = document.getElementById(id);
      if (input) input.value = value;
    }
    const follow = document.getElementById("follow");
    if (follow) follow.checked = false;
    drawStatus.textContent = "The frame is drawn: press \u201cSave the tour details\u201d to keep it.";
    document.getElementById("save-details")?.focus();
  });
}

/**
 * Starts a map (an element marked data-tp-map; nothing without Leaflet): its base layer, first
 * view, frame, route and stops, and in the editor (data-editor) click-to-add, "Add the stop" and
 * "Draw the frame".
 * @param {HTMLElement} element
 */
export function startMap(element) {
  const L = window.L;
  if (!L) return;
  element.hidden = false;
  const data = element.dataset;
  const map = L.map(element, { keyboard: true });
  addBaseLayer(L, map, data);
  const frame = frameOf(data);
  const route = routeLines(data.route);
  showFirstView(map, firstView(frame, routeBounds(route), viewOf(data)));
  const frameLayer = { layer: null };
  if (showsFrame(frame, data)) frameLayer.layer = L.rectangle(frame, FRAME_STYLE).addTo(map);
  if (route.length) drawRoute(L, map, route);
  const editing = data.editor !== undefined;
  const addMarker = startStopMarkers(L, map, element, editing);
  stopList(data.stops).forEach(addMarker);
  if (!editing) return;
  const gesture = new FrameGesture();
  const clickToAdd = startClickToAdd(L, map, gesture);
  startAddForm(element, addMarker, clickToAdd);
  startFrameDrawing(L, map, element, gesture, frameLayer);
}
