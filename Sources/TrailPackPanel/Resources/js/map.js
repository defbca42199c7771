import { saveAll } from "./autosave.js";
import { gridLayer } from "./grid.js";
import { post, setAll } from "./net.js";
import { startOrdering } from "./ordering.js";
import { drawRoute, routeBounds, routeLines } from "./route.js";

// The map of a tour or a version: base layer, frame, the route, stops (movable with the mouse or
// the arrow keys in the editor), a click to place a new stop, "Draw the frame".
export function startMap(element) {
  var L = window.L;
  if (!L) { return; }
  element.hidden = false;
  var map = L.map(element, { keyboard: true });
  var tiles = element.getAttribute("data-tile-url"), own = element.getAttribute("data-own-tiles");
  if (tiles) {
    L.tileLayer(tiles, { attribution: element.getAttribute("data-tile-attribution") || "", maxZoom: 19 }).addTo(map);
  } else if (own) {
    // The tour's own offline map (raster PMTiles), served by the panel tile by tile; beyond its
    // zooms Leaflet scales the nearest tiles, and the grid stays on top for the coordinates.
    var edges = (element.getAttribute("data-own-bounds") || "").split(",").map(parseFloat);
    L.tileLayer(own, { attribution: element.getAttribute("data-own-label") || "the tour's offline map", maxZoom: 19,
      bounds: edges.length === 4 && edges.every(isFinite) ? [[edges[0], edges[1]], [edges[2], edges[3]]] : undefined,
      minNativeZoom: parseInt(element.getAttribute("data-own-min-zoom"), 10) || 0,
      maxNativeZoom: parseInt(element.getAttribute("data-own-max-zoom"), 10) || 19 }).addTo(map);
    gridLayer(L).addTo(map);
  } else {
    map.attributionControl.addAttribution("coordinate grid (no base map)");
    gridLayer(L).addTo(map);
  }
  var south = parseFloat(element.getAttribute("data-south")), west = parseFloat(element.getAttribute("data-west"));
  var north = parseFloat(element.getAttribute("data-north")), east = parseFloat(element.getAttribute("data-east"));
  var framed = [south, west, north, east].every(isFinite);
  var view = ["south", "west", "north", "east"].map(function (edge) {
    return parseFloat(element.getAttribute("data-view-" + edge));
  });
  var route = routeLines(element.getAttribute("data-route"));
  var routeBox = routeBounds(route);
  if (framed) {
    map.fitBounds([[south, west], [north, east]]);
  } else if (routeBox) {
    map.fitBounds(routeBox);
  } else if (view.every(isFinite)) {
    // No stops yet: around the site's other tours.
    map.fitBounds([[view[0], view[1]], [view[2], view[3]]]);
  } else {
    map.setView([39.5, -98.35], 4);
  }
  var frameBox = null;
  if (framed && (element.hasAttribute("data-editor") || element.hasAttribute("data-review"))) {
    frameBox = L.rectangle([[south, west], [north, east]],
      { color: "#198754", weight: 2, fill: false, interactive: false }).addTo(map);
  }
  if (route.length) { drawRoute(L, map, route); }
  var stops = [];
  try { stops = JSON.parse(element.getAttribute("data-stops") || "[]"); } catch (e) { stops = []; }
  var editing = element.hasAttribute("data-editor");
  var moveBar = document.getElementById("move-bar");
  // A stop moved by dragging or by the arrow keys waits for "Save the new place" (Enter) or
  // "Put it back" (Escape): nothing moves by accident.
  var pending = null;
  function button(text, onClick, kind) {
    var b = document.createElement("button");
    b.type = "button"; b.className = "btn btn-sm " + kind + " me-2"; b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  }
  function settle(save) {
    if (!pending) { return; }
    var p = pending;
    pending = null;
    moveBar.textContent = "";
    if (!save) { p.marker.setLatLng(p.from); p.marker.getElement().focus(); return; }
    var at = p.marker.getLatLng();
    var fields = { latitude: at.lat.toFixed(6), longitude: at.lng.toFixed(6) };
    if (p.stop.rev) { fields.stopRevision = p.stop.rev; }
    saveAll().then(function () { post(p.stop.action, fields, element); });
  }
  function moved(marker, stop, from) {
    if (!pending) { pending = { marker: marker, stop: stop, from: from }; }
    if (!moveBar) { settle(true); return; }
    var metres = Math.round(map.distance(pending.from, marker.getLatLng()));
    moveBar.textContent = "Stop " + stop.n + ", " + stop.name + ", moved " + metres + " m. ";
    moveBar.appendChild(button("Save the new place", function () { settle(true); }, "btn-primary"));
    moveBar.appendChild(button("Put it back", function () { settle(false); }, "btn-outline-secondary"));
  }
  function addMarker(stop) {
    var marker = L.marker([stop.lat, stop.lon], {
      draggable: editing, title: stop.n + ". " + stop.name, keyboard: true,
      icon: L.divIcon({ className: "tp-stop-label", html: String(stop.n), iconSize: [26, 26], iconAnchor: [13, 13] })
    }).addTo(map);
    var icon = marker.getElement();
    if (icon) {
      icon.setAttribute("role", editing ? "button" : "img");
      icon.setAttribute("aria-label", "Stop " + stop.n + ": " + stop.name
        + (editing ? ". Arrow keys move it; Enter saves the new place, Escape puts it back." : ""));
    }
    if (isFinite(stop.oldLat) && isFinite(stop.oldLon)) {
      L.polyline([[stop.oldLat, stop.oldLon], [stop.lat, stop.lon]],
        { color: "#6c757d", dashArray: "6 6", interactive: false }).addTo(map);
      L.circleMarker([stop.oldLat, stop.oldLon], { radius: 6, color: "#6c757d", interactive: false }).addTo(map);
    }
    if (!editing) { return marker; }
    var from = null;
    marker.on("dragstart", function () { from = marker.getLatLng(); });
    marker.on("dragend", function () { moved(marker, stop, from); });
    if (icon) {
      icon.addEventListener("keydown", function (event) {
        var steps = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] }[event.key];
        if (steps) {
          event.preventDefault(); event.stopPropagation();
          var size = event.shiftKey ? 1 : 10;
          var start = marker.getLatLng();
          var point = map.latLngToContainerPoint(start).add([steps[0] * size, steps[1] * size]);
          marker.setLatLng(map.containerPointToLatLng(point));
          moved(marker, stop, start);
        } else if (event.key === "Enter" && pending && pending.marker === marker) {
          event.preventDefault(); event.stopPropagation(); settle(true);
        } else if (event.key === "Escape" && pending && pending.marker === marker) {
          event.preventDefault(); event.stopPropagation(); settle(false);
        }
      });
    }
    return marker;
  }
  stops.forEach(addMarker);
  if (element.hasAttribute("data-editor")) {
    var preview = null;
    var drawing = null, justDrew = false;
    map.on("click", function (event) {
      if (justDrew) { justDrew = false; return; }
      var lat = document.getElementById("add-latitude"), lon = document.getElementById("add-longitude");
      if (!lat || !lon) { return; }
      lat.value = event.latlng.lat.toFixed(6);
      lon.value = event.latlng.lng.toFixed(6);
      if (preview) { map.removeLayer(preview); }
      preview = L.circleMarker(event.latlng, { radius: 8, color: "#d63384" }).addTo(map);
      var name = document.getElementById("add-name");
      if (name) { name.focus(); }
    });
    // "Add the stop" without leaving the page: the marker is added where it was placed, the list
    // redrawn from the tour's page, and the map keeps its place and zoom.
    var addForm = document.getElementById("add-stop"), addStatus = document.getElementById("add-status");
    if (addForm && window.fetch) {
      addForm.addEventListener("submit", function (event) {
        event.preventDefault();
        addStatus.textContent = "Adding…";
        saveAll().then(function () {
          return fetch(addForm.action, {
            method: "POST", body: new URLSearchParams(new FormData(addForm)), credentials: "same-origin",
            headers: { "Accept": "application/json", "X-CSRF-Token": element.getAttribute("data-csrf") }
          });
        }).then(function (response) {
          return response.json().catch(function () { return { message: "the server answered " + response.status }; })
            .then(function (answer) { return { ok: response.ok, answer: answer }; });
        }).then(function (result) {
          if (!result.ok) { addStatus.textContent = "Not added: " + result.answer.message; return; }
          var answer = result.answer;
          setAll("input[name=revision]", null, answer.revision);
          setAll("[data-revision]", "data-revision", answer.revision);
          addMarker(answer.stop);
          if (preview) { map.removeLayer(preview); preview = null; }
          ["add-name", "add-latitude", "add-longitude"].forEach(function (id) {
            document.getElementById(id).value = "";
          });
          addStatus.textContent = answer.message;
          document.getElementById("add-name").focus();
          var page = fetch(window.location.pathname, { credentials: "same-origin" });
          return page.then(function (r) { return r.text(); }).then(function (html) {
            var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("stops-section");
            var section = document.getElementById("stops-section");
            if (fresh && section) {
              section.innerHTML = fresh.innerHTML;
              var list = document.getElementById("stop-list");
              if (list) { startOrdering(list); }
            }
          });
        }).catch(function () { addStatus.textContent = "Not added: the connection failed; try again."; });
      });
    }
    // "Draw the frame": press, drag a rectangle, release; the four edges fill the frame fields
    // under Tour details (the keyboard way: type them there), "Follow the stops" is unticked.
    var drawButton = document.getElementById("draw-frame"), drawStatus = document.getElementById("draw-frame-status");
    if (drawButton) {
      drawButton.hidden = false;
      drawButton.addEventListener("click", function () {
        drawing = { start: null, box: null };
        map.dragging.disable();
        element.classList.add("tp-drawing");
        drawStatus.textContent = "Press on the map at one corner of the frame and drag to the opposite corner.";
      });
      map.on("mousedown", function (event) {
        if (!drawing) { return; }
        drawing.start = event.latlng;
        drawing.box = L.rectangle([event.latlng, event.latlng],
          { color: "#fd7e14", weight: 2, fill: false, interactive: false }).addTo(map);
      });
      map.on("mousemove", function (event) {
        if (drawing && drawing.start) { drawing.box.setBounds([drawing.start, event.latlng]); }
      });
      map.on("mouseup", function (event) {
        if (!drawing || !drawing.start) { return; }
        var bounds = L.latLngBounds(drawing.start, event.latlng);
        drawing = null;
        justDrew = true;
        setTimeout(function () { justDrew = false; }, 400);
        map.dragging.enable();
        element.classList.remove("tp-drawing");
        if (frameBox) { map.removeLayer(frameBox); }
        frameBox = L.rectangle(bounds, { color: "#fd7e14", weight: 2, fill: false, interactive: false }).addTo(map);
        var edges = {
          "frame-south": bounds.getSouth(), "frame-west": bounds.getWest(),
          "frame-north": bounds.getNorth(), "frame-east": bounds.getEast()
        };
        Object.keys(edges).forEach(function (id) {
          var input = document.getElementById(id);
          if (input) { input.value = edges[id].toFixed(6); }
        });
        var follow = document.getElementById("follow");
        if (follow) { follow.checked = false; }
        drawStatus.textContent = "The frame is drawn: press \u201cSave the tour details\u201d to keep it.";
        var save = document.getElementById("save-details");
        if (save) { save.focus(); }
      });
    }
  }
}
