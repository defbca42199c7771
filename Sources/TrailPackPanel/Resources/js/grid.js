// A labelled coordinate grid: the map's base layer when there are no tiles (offline, tests).
// The spacing of its lines and labels is worked out by pure functions, which Node's tests call.

const STEPS = [45, 20, 10, 5, 2, 1, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005];

/** The grid's step in degrees for a view `span` degrees across: the largest that draws at least 4 lines. */
export function gridStep(span) {
  for (const step of STEPS) { if (span / step >= 4) { return step; } }
  return STEPS[STEPS.length - 1];
}

/** How many decimals a label needs at `step` (0.005° → 4, 0.5° → 1, 2° → 0). */
export function gridDigits(step) {
  let digits = 0;
  while (digits < 6 && Math.abs(Math.round(step * 10 ** digits) - step * 10 ** digits) > 1e-9) { digits++; }
  return digits;
}

/** The label of a grid line at `value` degrees. */
export function gridLabel(value, digits) {
  const text = (Math.abs(value) < 10 ** -digits / 2 ? 0 : value).toFixed(digits);
  return text + "\u00b0";
}

/**
 * Every how many lines a label is drawn so that labels `labelPixels` long (plus a gap) never
 * touch when lines are `spacingPixels` apart: 1 when they fit, 2, 3… when they do not.
 */
export function labelStride(spacingPixels, labelPixels, gap = 12) {
  if (!(spacingPixels > 0)) { return 1; }
  return Math.max(1, Math.ceil((labelPixels + gap) / spacingPixels));
}

/** The width in pixels of a label of `text` (the labels' font is 12 px; digits are at most 7 px wide). */
export function labelWidth(text) { return 7 * text.length + 6; }

/** The lines (`values`, from `from` up to `to`) of a grid at `step`, exact to the step's decimals. */
export function gridValues(from, to, step) {
  const digits = gridDigits(step), out = [];
  for (let n = Math.ceil(from / step); n * step <= to + 1e-12 && out.length < 1000; n++) {
    out.push(Number((n * step).toFixed(digits)));
  }
  return out;
}

export function gridLayer(L) {
  const layer = L.layerGroup();
  const line = { color: "#6c757d", weight: 1, interactive: false };
  function label(at, text, anchor) {
    return L.marker(at, {
      interactive: false, keyboard: false,
      icon: L.divIcon({ className: "tp-grid-label", html: text, iconSize: null, iconAnchor: anchor })
    });
  }
  function draw(map) {
    layer.clearLayers();
    const b = map.getBounds();
    const step = gridStep(Math.min(b.getNorth() - b.getSouth(), b.getEast() - b.getWest()));
    const digits = gridDigits(step);
    const lats = gridValues(b.getSouth(), b.getNorth(), step), lngs = gridValues(b.getWest(), b.getEast(), step);
    // Pixels between two lines, at this zoom: labels are thinned out where they would touch.
    const origin = map.latLngToContainerPoint([b.getSouth(), b.getWest()]);
    const across = map.latLngToContainerPoint([b.getSouth() + step, b.getWest() + step]);
    const longest = Math.max(0, ...lngs.map((v) => labelWidth(gridLabel(v, digits))));
    const lngStride = labelStride(Math.abs(across.x - origin.x), longest);
    const latStride = labelStride(Math.abs(origin.y - across.y), 16, 6);
    // Which lines carry a label depends on the line, not on the view: panning keeps them in place.
    const labelled = (value, stride) => ((Math.round(value / step) % stride) + stride) % stride === 0;
    lats.forEach((lat) => {
      L.polyline([[lat, b.getWest()], [lat, b.getEast()]], line).addTo(layer);
      if (labelled(lat, latStride)) { label([lat, b.getEast()], gridLabel(lat, digits), [60, 8]).addTo(layer); }
    });
    lngs.forEach((lng) => {
      L.polyline([[b.getSouth(), lng], [b.getNorth(), lng]], line).addTo(layer);
      if (labelled(lng, lngStride)) { label([b.getSouth(), lng], gridLabel(lng, digits), [-2, 36]).addTo(layer); }
    });
  }
  layer.on("add", () => {
    const map = layer._map;
    draw(map);
    map.on("moveend", () => draw(map));
  });
  return layer;
}
