// The order of a tour's stops in the editor's list (#stop-list). Each stop has Up and Down
// buttons (plain forms: the server moves the stop and opens the page again with ?focus=up-N or
// ?focus=down-N); with the script, a stop is also dragged to its place, and the new order is sent
// the way the buttons send theirs: a form POSTed to the list's data-order-action with the stops'
// numbers in their new order, "3,1,2".

import { saveAll } from "./autosave.js";
import { post } from "./net.js";

/**
 * Whether a stop dragged over another goes after it (the pointer is below the other's middle)
 * or before it.
 * @param {number} clientY the pointer's height in the window
 * @param {{top: number, height: number}} box the other stop's box
 * @returns {boolean}
 */
export function dropsAfter(clientY, box) {
  return clientY > box.top + box.height / 2;
}

/**
 * The order field the list sends: the stops' numbers (their data-number, as the page numbered
 * them) in the order they now stand.
 * @param {string[]} numbers
 * @returns {string}
 */
export function orderField(numbers) {
  return numbers.join(",");
}

/**
 * The buttons to give the keyboard to after Up or Down (the page's ?focus=): the one named, then
 * its twin, since a stop moved to the top has no Up button any more and one moved to the bottom no
 * Down button (up-3 → down-3, down-3 → up-3).
 * @param {string} focus
 * @returns {string[]} element ids, the named one first
 */
export function focusIds(focus) {
  const twin = focus.startsWith("up-") ? focus.replace("up-", "down-") : focus.replace("down-", "up-");
  return [focus, twin];
}

/**
 * Drag and drop in the stop list: a stop dragged over another moves before or after it as it
 * goes, and on the drop the new order is sent (what is typed on the page saved first), with the
 * page's token and revision from #tour-map.
 * @param {HTMLElement} list the #stop-list
 */
export function startOrdering(list) {
  let dragged = null;
  list.addEventListener("dragstart", (event) => {
    dragged = event.target.closest("li");
    if (dragged) {
      dragged.classList.add("tp-dragging");
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", dragged.id);
    }
  });
  list.addEventListener("dragend", () => dragged?.classList.remove("tp-dragging"));
  list.addEventListener("dragover", (event) => {
    event.preventDefault();
    const over = event.target.closest("li");
    if (!dragged || !over || over === dragged) return;
    list.insertBefore(dragged, dropsAfter(event.clientY, over.getBoundingClientRect()) ? over.nextSibling : over);
  });
  list.addEventListener("drop", async (event) => {
    event.preventDefault();
    const numbers = [...list.querySelectorAll("li[data-number]")].map((li) => li.getAttribute("data-number"));
    const map = document.getElementById("tour-map");
    await saveAll();
    post(list.getAttribute("data-order-action"), { order: orderField(numbers) }, map);
  });
}
