// "Build package": the form is sent as usual; until the answer replaces the page, the build's
// progress is asked for twice a second and drawn (files and bytes, then the checks).
export function startBuildProgress(form) {
  form.addEventListener("submit", function () {
    var box = document.getElementById("build-progress-box"), bar = document.getElementById("build-progress");
    var status = document.getElementById("build-status");
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
export function startLanguageName(input) {
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
