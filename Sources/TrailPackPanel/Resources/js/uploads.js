import { saveAll } from "./autosave.js";
import { renewToken } from "./net.js";

// Uploads, one file at a time, each streamed as the request body (the server never holds it whole).
export function startUploads(zone) {
  var input = zone.querySelector("input[type=file]"), bar = document.getElementById("upload-progress");
  var status = document.getElementById("upload-status");
  function say(text) {
    var p = document.createElement("p");
    p.textContent = text; p.className = "mb-1";
    status.appendChild(p);
  }
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
        if (ok) { send(list, 0, changed); return; }
        say("The files were not sent: the page's text could not be saved first (see above).");
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
    xhr.upload.onprogress = function (event) {
      if (event.lengthComputable) { bar.value = Math.round(100 * event.loaded / event.total); }
    };
    xhr.onload = function () {
      var message = file.name;
      try {
        message = JSON.parse(xhr.responseText).message;
      } catch (e) { message = file.name + ": HTTP " + xhr.status; }
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
    xhr.onerror = function () {
      say("Not added: " + file.name + " (the connection failed; try again)");
      send(files, i + 1, changed);
    };
    say("Uploading " + file.name + "…");
    xhr.send(file);
  }
  // With the script, each file goes as it is chosen (with progress); the form's own Upload
  // button (multipart, for browsers without script) is not needed.
  var form = document.getElementById("upload-form"), submit = document.getElementById("upload-submit");
  if (submit) { submit.hidden = true; }
  if (form) {
    form.addEventListener("submit", function (event) { event.preventDefault(); send(input.files, 0, false); });
  }
  input.addEventListener("change", function () { send(input.files, 0, false); });
  zone.addEventListener("dragover", function (event) { event.preventDefault(); zone.classList.add("tp-over"); });
  zone.addEventListener("dragleave", function () { zone.classList.remove("tp-over"); });
  zone.addEventListener("drop", function (event) {
    event.preventDefault(); zone.classList.remove("tp-over");
    send(event.dataTransfer.files, 0, false);
  });
}
// "Start from a file": the file is streamed as the request body, then the new draft opens.
export function startImport(form) {
  var status = document.getElementById("import-status");
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var file = document.getElementById("import-file").files[0];
    if (!file) { return; }
    var site = document.getElementById("import-site").value;
    var replace = document.getElementById("import-replace").checked;
    var url = form.getAttribute("data-import") + "?site=" + encodeURIComponent(site)
      + "&name=" + encodeURIComponent(file.name) + (replace ? "&replace=1" : "");
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
