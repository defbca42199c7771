// Talking to the panel: a form sent as a button would, the page's tokens and revisions updated.

// Sends a form the way a button would (the server answers with a page): CSRF token and revision included.
export function post(action, fields, element) {
  var form = document.createElement("form");
  form.method = "post";
  form.action = action;
  var all = Object.assign(
    { _csrf: element.getAttribute("data-csrf"), revision: element.getAttribute("data-revision") }, fields);
  Object.keys(all).forEach(function (name) {
    var input = document.createElement("input");
    input.type = "hidden"; input.name = name; input.value = all[name];
    form.appendChild(input);
  });
  document.body.appendChild(form);
  form.submit();
}

export function setAll(selector, attribute, value) {
  Array.prototype.forEach.call(document.querySelectorAll(selector), function (el) {
    if (attribute) { el.setAttribute(attribute, value); } else { el.value = value; }
  });
}
// A session renewed in another tab has a new token: ask for it (a same-origin read only).
export function renewToken() {
  return fetch("/session", { credentials: "same-origin", headers: { "Accept": "application/json" } })
    .then(function (r) { return r.ok ? r.json() : null; })
    .then(function (answer) {
      if (!answer || !answer.csrf) { return false; }
      setAll("input[name=_csrf]", null, answer.csrf);
      setAll("[data-csrf]", "data-csrf", answer.csrf);
      return true;
    }).catch(function () { return false; });
}
