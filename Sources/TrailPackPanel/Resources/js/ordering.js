import { saveAll } from "./autosave.js";
import { post } from "./net.js";

// Drag and drop in the stop list: the new order is sent like the Up/Down buttons.
export function startOrdering(list) {
  var dragged = null;
  list.addEventListener("dragstart", function (event) {
    dragged = event.target.closest("li");
    if (dragged) {
      dragged.classList.add("tp-dragging");
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", dragged.id);
    }
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
    var order = Array.prototype.map.call(list.querySelectorAll("li[data-number]"), function (li) {
      return li.getAttribute("data-number");
    });
    var map = document.getElementById("tour-map");
    saveAll().then(function () { post(list.getAttribute("data-order-action"), { order: order.join(",") }, map); });
  });
}
