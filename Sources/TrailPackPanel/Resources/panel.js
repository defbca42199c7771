"use strict";
(function () {
  function gridLayer(L) {
    // A labelled coordinate grid: the base map when there are no tiles (offline, tests).
    var layer = L.layerGroup();
    function step(span) {
      var steps = [10, 5, 2, 1, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001];
      for (var i = 0; i < steps.length; i++) { if (span / steps[i] >= 4) { return steps[i]; } }
      return 0.0005;
    }
    function draw(map) {
      layer.clearLayers();
      var b = map.getBounds();
      var s = step(Math.min(b.getNorth() - b.getSouth(), b.getEast() - b.getWest()));
      var digits = s < 0.01 ? 4 : (s < 1 ? 2 : 0);
      for (var lat = Math.ceil(b.getSouth() / s) * s; lat <= b.getNorth(); lat += s) {
        L.polyline([[lat, b.getWest()], [lat, b.getEast()]], { color: "#6c757d", weight: 1, interactive: false }).addTo(layer);
        L.marker([lat, b.getEast()], { interactive: false, keyboard: false,
          icon: L.divIcon({ className: "tp-grid-label", html: lat.toFixed(digits) + "\u00b0", iconSize: null, iconAnchor: [52, 8] }) }).addTo(layer);
      }
      for (var lng = Math.ceil(b.getWest() / s) * s; lng <= b.getEast(); lng += s) {
        L.polyline([[b.getSouth(), lng], [b.getNorth(), lng]], { color: "#6c757d", weight: 1, interactive: false }).addTo(layer);
        L.marker([b.getSouth(), lng], { interactive: false, keyboard: false,
          icon: L.divIcon({ className: "tp-grid-label", html: lng.toFixed(digits) + "\u00b0", iconSize: null, iconAnchor: [-2, 36] }) }).addTo(layer);
      }
    }
    layer.on("add", function () { var map = layer._map; draw(map); map.on("moveend", function () { draw(map); }); });
    return layer;
  }
  // Sends a form the way a button would (the server answers with a page): CSRF token and revision included.
  function post(action, fields, element) {
    var form = document.createElement("form");
    form.method = "post";
    form.action = action;
    var all = Object.assign({ _csrf: element.getAttribute("data-csrf"), revision: element.getAttribute("data-revision") }, fields);
    Object.keys(all).forEach(function (name) {
      var input = document.createElement("input");
      input.type = "hidden"; input.name = name; input.value = all[name];
      form.appendChild(input);
    });
    document.body.appendChild(form);
    form.submit();
  }
  function startMap(element) {
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
    var view = ["south", "west", "north", "east"].map(function (edge) { return parseFloat(element.getAttribute("data-view-" + edge)); });
    if (framed) {
      map.fitBounds([[south, west], [north, east]]);
    } else if (view.every(isFinite)) {
      // No stops yet: around the site's other tours.
      map.fitBounds([[view[0], view[1]], [view[2], view[3]]]);
    } else {
      map.setView([39.5, -98.35], 4);
    }
    var frameBox = null;
    if (framed && (element.hasAttribute("data-editor") || element.hasAttribute("data-review"))) {
      frameBox = L.rectangle([[south, west], [north, east]], { color: "#198754", weight: 2, fill: false, interactive: false }).addTo(map);
    }
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
        L.polyline([[stop.oldLat, stop.oldLon], [stop.lat, stop.lon]], { color: "#6c757d", dashArray: "6 6", interactive: false }).addTo(map);
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
            ["add-name", "add-latitude", "add-longitude"].forEach(function (id) { document.getElementById(id).value = ""; });
            addStatus.textContent = answer.message;
            document.getElementById("add-name").focus();
            return fetch(window.location.pathname, { credentials: "same-origin" }).then(function (r) { return r.text(); }).then(function (html) {
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
          drawing.box = L.rectangle([event.latlng, event.latlng], { color: "#fd7e14", weight: 2, fill: false, interactive: false }).addTo(map);
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
          var edges = { "frame-south": bounds.getSouth(), "frame-west": bounds.getWest(), "frame-north": bounds.getNorth(), "frame-east": bounds.getEast() };
          Object.keys(edges).forEach(function (id) { var input = document.getElementById(id); if (input) { input.value = edges[id].toFixed(6); } });
          var follow = document.getElementById("follow");
          if (follow) { follow.checked = false; }
          drawStatus.textContent = "The frame is drawn: press \u201cSave the tour details\u201d to keep it.";
          var save = document.getElementById("save-details");
          if (save) { save.focus(); }
        });
      }
    }
  }
  // Autosave. A form marked data-autosave is saved 1.5 s after typing stops, before files are
  // sent and before a marker is moved, by the same POST with "Accept: application/json"; each
  // answer carries the revisions the page's next save must name. What is typed is also kept in
  // the tab's sessionStorage until saved, and put back if the page is opened again at the same
  // revision (after a crash, a reload, or signing in again). Leaving with unsaved text asks first.
  var autosavers = [];
  function saveAll() {
    return Promise.all(autosavers.map(function (a) { return a.save(); })).then(function (all) {
      return all.every(function (ok) { return ok; });
    });
  }
  function setAll(selector, attribute, value) {
    Array.prototype.forEach.call(document.querySelectorAll(selector), function (el) {
      if (attribute) { el.setAttribute(attribute, value); } else { el.value = value; }
    });
  }
  // A session renewed in another tab has a new token: ask for it (a same-origin read only).
  function renewToken() {
    return fetch("/session", { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (answer) {
        if (!answer || !answer.csrf) { return false; }
        setAll("input[name=_csrf]", null, answer.csrf);
        setAll("[data-csrf]", "data-csrf", answer.csrf);
        return true;
      }).catch(function () { return false; });
  }
  function startAutosave(form) {
    var status = form.querySelector("[id=autosave-status]");
    var stopRevision = form.querySelector("input[name=stopRevision]"), revision = form.querySelector("input[name=revision]");
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
      try { window.sessionStorage.setItem(key, JSON.stringify({ revision: current(), values: values() })); } catch (e) { /* full or off */ }
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
          if (answer.stopRevision && stopRevision) { stopRevision.value = answer.stopRevision; setAll("input[name=stopRevision]", null, answer.stopRevision); }
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
  // Drag and drop in the stop list: the new order is sent like the Up/Down buttons.
  function startOrdering(list) {
    var dragged = null;
    list.addEventListener("dragstart", function (event) {
      dragged = event.target.closest("li");
      if (dragged) { dragged.classList.add("tp-dragging"); event.dataTransfer.effectAllowed = "move"; event.dataTransfer.setData("text/plain", dragged.id); }
    });
    list.addEventListener("dragend", function () { if (dragged) { dragged.classList.remove("tp-dragging"); } });
    list.addEventListener("dragover", function (event) {
      event.preventDefault();
      var over = event.target.closest("li");
      if (!dragged || !over || over === dragged) { return; }
      var box = over.getBoundingClientRect();
      list.insertBefore(dragged, event.clientY > box.top + box.height / 2 ? over.nextSibling : over);
    });
    list.addEventListener("drop", function (event) {
      event.preventDefault();
      var order = Array.prototype.map.call(list.querySelectorAll("li[data-number]"), function (li) { return li.getAttribute("data-number"); });
      var map = document.getElementById("tour-map");
      saveAll().then(function () { post(list.getAttribute("data-order-action"), { order: order.join(",") }, map); });
    });
  }
  // Uploads, one file at a time, each streamed as the request body (the server never holds it whole).
  function startUploads(zone) {
    var input = zone.querySelector("input[type=file]"), bar = document.getElementById("upload-progress"), status = document.getElementById("upload-status");
    function say(text) { var p = document.createElement("p"); p.textContent = text; p.className = "mb-1"; status.appendChild(p); }
    function send(files, i, changed) {
      if (i >= files.length) {
        if (changed) { saveAll().then(function () { say("Reloading the page…"); window.location.reload(); }); }
        return;
      }
      if (i === 0 && !files.saved) {
        // What was typed on the page is saved before the files go (the page reloads after them).
        var list = Array.prototype.slice.call(files);
        list.saved = true;
        saveAll().then(function (ok) {
          if (ok) { send(list, 0, changed); } else { say("The files were not sent: the page's text could not be saved first (see above)."); }
        });
        return;
      }
      var file = files[i], xhr = new XMLHttpRequest(), ticked = document.getElementById("upload-replace");
      var replacing = files.replacing === i || Boolean(ticked && ticked.checked);
      // A file of the same name on this stop: asked here, before anything is sent (the server refuses
      // it unasked too).
      var existing = Array.prototype.map.call(document.querySelectorAll("form[id^=remove-] input[name=file]"),
        function (input) { return input.value.toLowerCase(); });
      if (!replacing && existing.indexOf(file.name.toLowerCase()) >= 0) {
        if (window.confirm("This stop has a file called '" + file.name + "' already. Replace it? Its title, alt text and "
          + "transcript are cleared, since they describe the old file (the old file is kept aside on the server).")) {
          files.replacing = i; send(files, i, changed);
        } else {
          say("Not added: " + file.name + " (the file already there is kept)"); send(files, i + 1, changed);
        }
        return;
      }
      var language = document.getElementById("upload-language");
      xhr.open("PUT", zone.getAttribute("data-upload") + "?name=" + encodeURIComponent(file.name)
        + (language && language.value ? "&language=" + encodeURIComponent(language.value) : "")
        + (replacing ? "&replace=1" : ""));
      xhr.setRequestHeader("X-CSRF-Token", zone.getAttribute("data-csrf"));
      xhr.setRequestHeader("Content-Type", "application/octet-stream");
      bar.hidden = false; bar.value = 0;
      xhr.upload.onprogress = function (event) { if (event.lengthComputable) { bar.value = Math.round(100 * event.loaded / event.total); } };
      xhr.onload = function () {
        var message = file.name;
        try { message = JSON.parse(xhr.responseText).message; } catch (e) { message = file.name + ": HTTP " + xhr.status; }
        if (xhr.status === 401 || xhr.status === 403) { renewToken(); }
        // A file of the same name: asked, then sent again to replace it (or skipped).
        if (xhr.status === 409 && !replacing) {
          if (window.confirm(message)) { files.replacing = i; send(files, i, changed); return; }
          say("Not added: " + file.name + " (the file already there is kept)");
          send(files, i + 1, changed);
          return;
        }
        say((xhr.status < 300 ? "" : "Not added: ") + message);
        send(files, i + 1, changed || xhr.status < 300);
      };
      xhr.onerror = function () { say("Not added: " + file.name + " (the connection failed; try again)"); send(files, i + 1, changed); };
      say("Uploading " + file.name + "…");
      xhr.send(file);
    }
    // With the script, each file goes as it is chosen (with progress); the form's own Upload
    // button (multipart, for browsers without script) is not needed.
    var form = document.getElementById("upload-form"), submit = document.getElementById("upload-submit");
    if (submit) { submit.hidden = true; }
    if (form) { form.addEventListener("submit", function (event) { event.preventDefault(); send(input.files, 0, false); }); }
    input.addEventListener("change", function () { send(input.files, 0, false); });
    zone.addEventListener("dragover", function (event) { event.preventDefault(); zone.classList.add("tp-over"); });
    zone.addEventListener("dragleave", function () { zone.classList.remove("tp-over"); });
    zone.addEventListener("drop", function (event) { event.preventDefault(); zone.classList.remove("tp-over"); send(event.dataTransfer.files, 0, false); });
  }
  // "Start from a file": the file is streamed as the request body, then the new draft opens.
  function startImport(form) {
    var status = document.getElementById("import-status");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var file = document.getElementById("import-file").files[0];
      if (!file) { return; }
      var url = form.getAttribute("data-import") + "?site=" + encodeURIComponent(document.getElementById("import-site").value)
        + "&name=" + encodeURIComponent(file.name) + (document.getElementById("import-replace").checked ? "&replace=1" : "");
      var xhr = new XMLHttpRequest();
      xhr.open("PUT", url);
      xhr.setRequestHeader("X-CSRF-Token", form.getAttribute("data-csrf"));
      xhr.setRequestHeader("Content-Type", "application/octet-stream");
      xhr.onload = function () {
        var answer = {};
        try { answer = JSON.parse(xhr.responseText); } catch (e) { answer = { message: "HTTP " + xhr.status }; }
        if (xhr.status < 300 && answer.location) { window.location.assign(answer.location); return; }
        status.textContent = "Not made: " + answer.message;
      };
      xhr.onerror = function () { status.textContent = "Not made: the connection failed; try again."; };
      status.textContent = "Sending " + file.name + "…";
      xhr.send(file);
    });
  }
  // "Build package": the form is sent as usual; until the answer replaces the page, the build's
  // progress is asked for twice a second and drawn (files and bytes, then the checks).
  function startBuildProgress(form) {
    form.addEventListener("submit", function () {
      var box = document.getElementById("build-progress-box"), bar = document.getElementById("build-progress"), status = document.getElementById("build-status");
      box.hidden = false;
      bar.removeAttribute("value");
      status.textContent = "Building…";
      document.getElementById("build-button").disabled = true;
      function poll() {
        var xhr = new XMLHttpRequest();
        xhr.open("GET", form.getAttribute("data-status"));
        xhr.onload = function () {
          var answer = {};
          try { answer = JSON.parse(xhr.responseText); } catch (e) { answer = {}; }
          if (answer.running) {
            status.textContent = answer.message;
            if (typeof answer.percent === "number") { bar.value = answer.percent; } else { bar.removeAttribute("value"); }
          }
          setTimeout(poll, 500);
        };
        xhr.send();
      }
      setTimeout(poll, 300);
    });
  }
  // "Add a language": the language's name, as the browser knows it, under the tag being typed.
  function startLanguageName(input) {
    var out = document.getElementById("language-tag-name");
    if (!out || typeof Intl === "undefined" || !Intl.DisplayNames) { return; }
    var english = new Intl.DisplayNames(["en"], { type: "language" });
    input.addEventListener("input", function () {
      var tag = input.value.trim().replace(/_/g, "-");
      if (!tag) { out.textContent = ""; return; }
      try {
        var name = english.of(tag), own = new Intl.DisplayNames([tag], { type: "language" }).of(tag);
        var known = name && name.toLowerCase() !== tag.toLowerCase();
        out.textContent = known ? tag + " — " + name + (own && own !== name ? " (" + own + ")" : "")
          : tag + ": a well-formed tag, of a language this browser does not know by name";
      } catch (e) {
        out.textContent = "'" + tag + "' is not a language tag yet (such as es, fr or es-419)";
      }
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("[data-js-only]"), function (el) { el.hidden = false; });
    // Removals and Release ask first (the server keeps removed files aside either way).
    Array.prototype.forEach.call(document.querySelectorAll("form[data-confirm]"), function (form) {
      form.addEventListener("submit", function (event) {
        if (!window.confirm(form.getAttribute("data-confirm"))) { event.preventDefault(); event.stopImmediatePropagation(); }
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll("form[data-autosave]"), function (form) {
      autosavers.push(startAutosave(form));
    });
    var languageTag = document.getElementById("language-tag");
    if (languageTag) { startLanguageName(languageTag); }
    var buildForm = document.getElementById("build-form");
    if (buildForm) { startBuildProgress(buildForm); }
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
})();

