// A labelled coordinate grid: the map's base layer when there are no tiles (offline, tests).
//
// The step is chosen in pixels, not degrees: longitude labels stand side by side along the bottom,
// so lines are at least the widest label plus a margin apart (on a Mercator map a degree of
// latitude is never shorter than one of longitude, so the latitude labels have room too). Labels
// show only the decimals the step needs; latitude labels end at the east edge and the longitude
// labels stop short of them. The choices are pure functions, which Node's tests call.

/** The steps between grid lines, in degrees, smallest first. */
export const STEPS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 45, 90];

/**
 * How many decimals a label needs at `step` (0.005° → 3, 0.5° → 1, 2° → 0).
 * @param {number} step
 * @returns {number}
 */
export function gridDigits(step) {
  let digits = 0;
  while (digits < 6 && Math.abs(Math.round(step * 10 ** digits) - step * 10 ** digits) > 1e-9) digits++;
  return digits;
}

/**
 * The label of a grid line at `value` degrees, with `digits` decimals (never "-0").
 * @param {number} value
 * @param {number} digits
 * @returns {string}
 */
export function gridLabel(value, digits) {
  const text = (Math.abs(value) < 10 ** -digits / 2 ? 0 : value).toFixed(digits);
  return `${text}\u00b0`;
}

/**
 * An estimate of a label's width in pixels (12 px text; the page measures the real one).
 * @param {string} text
 * @returns {number}
 */
export function labelWidth(text) {
  return 7 * text.length + 6;
}

/**
 * The smallest step whose lines stand at least `minimum` pixels and the widest label (as `width`
 * says, for the labels of `west` and `east` at that step's decimals) plus `gap` apart, with
 * `pixelsPerDegree` pixels to a degree of longitude.
 * @param {number} pixelsPerDegree
 * @param {number} west
 * @param {number} east
 * @param {(text: string) => number} [width] a label's width in pixels
 * @param {number} [gap]
 * @param {number} [minimum]
 * @returns {number} one of STEPS
 */
export function pickStep(pixelsPerDegree, west, east, width = labelWidth, gap = 12, minimum = 24) {
  for (const step of STEPS) {
    const digits = gridDigits(step);
    const widest = Math.max(width(gridLabel(west, digits)), width(gridLabel(east, digits)));
    if (step * pixelsPerDegree >= minimum && step * pixelsPerDegree >= widest + gap) return step;
  }
  return STEPS[STEPS.length - 1];
}

/**
 * The whole steps from `from` up to `to` (counted, not summed, so 44.4 is not 44.400000000001),
 * at most 1,000 of them.
 * @param {number} from
 * @param {number} to
 * @param {number} step
 * @returns {number[]}
 */
export function gridValues(from, to, step) {
  const digits = gridDigits(step), out = [];
  for (let n = Math.ceil(from / step - 1e-9); n * step <= to + 1e-9 && out.length < 1000; n++) {
    out.push(Number((n * step).toFixed(digits)));
  }
  return out;
}

/**
 * The grid as a Leaflet layer: lines and labels drawn again after every move of the map, each
 * label's width measured in the map.
 * @param {any} L Leaflet
 * @returns {any} the layer (a layer group)
 */
export function gridLayer(L) {
  const layer = L.layerGroup();
  const line = { color: "#6c757d", weight: 1, interactive: false };
  function label(at, text, anchor) {
    return L.marker(at, {
      interactive: false, keyboard: false,
      icon: L.divIcon({ className: "tp-grid-label", html: text, iconSize: null, iconAnchor: anchor })
    });
  }
  // A label's real width, measured in the map with the labels' own style (hidden while measured).
  function measure(map, text) {
    const probe = L.DomUtil.create("div", "leaflet-marker-icon tp-grid-label", map.getContainer());
    probe.style.visibility = "hidden";
    probe.textContent = text;
    const width = probe.offsetWidth;
    L.DomUtil.remove(probe);
    return width;
  }
  function draw(map) {
    layer.clearLayers();
    const b = map.getBounds(), size = map.getSize();
    const south = b.getSouth(), west = b.getWest(), north = b.getNorth(), east = b.getEast();
    const width = (text) => measure(map, text);
    const step = pickStep(size.x / (east - west), west, east, width);
    const digits = gridDigits(step);
    const latWidth = Math.max(width(gridLabel(south, digits)), width(gridLabel(north, digits)));
    const lngWidth = Math.max(width(gridLabel(west, digits)), width(gridLabel(east, digits)));
    for (const lat of gridValues(south, north, step)) {
      L.polyline([[lat, west], [lat, east]], line).addTo(layer);
      const y = map.latLngToContainerPoint([lat, east]).y;
      if (y < 10 || y > size.y - 26) continue; // off the edge, or on the attribution
      label([lat, east], gridLabel(lat, digits), [latWidth + 2, 8]).addTo(layer);
    }
    for (const lng of gridValues(west, east, step)) {
      L.polyline([[south, lng], [north, lng]], line).addTo(layer);
      const x = map.latLngToContainerPoint([south, lng]).x;
      if (x + 2 + lngWidth > size.x - latWidth - 8) continue; // would run into the latitude labels
      label([south, lng], gridLabel(lng, digits), [-2, 36]).addTo(layer);
    }
  }
  layer.on("add", () => {
    const map = layer._map;
    draw(map);
    map.on("moveend", () => draw(map));
  });
  return layer;
}
