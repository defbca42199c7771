import Foundation

/// The panel's static files: Debian's Leaflet and Bootstrap served from `--web-assets` (never committed here),
/// and the panel's own CSS and JS, kept as strings in the module (no inline script on any page).
enum PanelAssets {
    struct VendorLibrary: Sendable {
        /// The folder under `--web-assets` and the URL segment under `/static/vendor/`.
        let folder: String
        /// A file whose presence shows the library is installed.
        let probe: String
        let debianPackage: String
    }

    static let vendorLibraries = [
        VendorLibrary(folder: "leaflet", probe: "leaflet.js", debianPackage: "libjs-leaflet"),
        VendorLibrary(folder: "bootstrap5", probe: "css/bootstrap.min.css", debianPackage: "libjs-bootstrap5"),
    ]

    /// The file under `root/library/` a request's path segments name, or nil when a segment is empty, hidden
    /// (`.`, `..`, dot files), holds a separator or NUL, or the library is not one the panel serves.
    static func vendorPath(root: String, library: String, segments: [Substring]) -> String? {
        guard vendorLibraries.contains(where: { $0.folder == library }), !segments.isEmpty else { return nil }
        for segment in segments {
            if segment.isEmpty || segment.hasPrefix(".") || segment.contains("/") || segment.contains("\\") || segment.contains("\0") { return nil }
        }
        return root + "/" + library + "/" + segments.joined(separator: "/")
    }

    /// The Content-Type for a served file, by its extension (the files are Debian's, not uploads).
    static func contentType(path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "png": return "image/png"
        case "svg": return "image/svg+xml"
        case "map", "json": return "application/json"
        case "woff2": return "font/woff2"
        case "woff": return "font/woff"
        default: return "application/octet-stream"
        }
    }

    /// The panel's own style sheet: focus always visible, the map's size.
    static let css = """
        :focus-visible { outline: 3px solid #0b5ed7; outline-offset: 2px; }
        .tp-map { height: 28rem; border: 1px solid #6c757d; }
        .tp-grid-label { font: 12px/1.2 system-ui, sans-serif; color: #212529; background: rgba(255,255,255,.85); padding: 0 2px; white-space: nowrap; }
        .skip-link { position: absolute; left: -10000px; }
        .skip-link:focus { position: static; }

        """

    /// The panel's script: progressive enhancement only (pages work without it). Starts the map where a page has one.
    static let js = """
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
                  icon: L.divIcon({ className: "tp-grid-label", html: lat.toFixed(digits) + "\\u00b0", iconSize: null, iconAnchor: [52, 8] }) }).addTo(layer);
              }
              for (var lng = Math.ceil(b.getWest() / s) * s; lng <= b.getEast(); lng += s) {
                L.polyline([[b.getSouth(), lng], [b.getNorth(), lng]], { color: "#6c757d", weight: 1, interactive: false }).addTo(layer);
                L.marker([b.getSouth(), lng], { interactive: false, keyboard: false,
                  icon: L.divIcon({ className: "tp-grid-label", html: lng.toFixed(digits) + "\\u00b0", iconSize: null, iconAnchor: [-2, 36] }) }).addTo(layer);
              }
            }
            layer.on("add", function () { var map = layer._map; draw(map); map.on("moveend", function () { draw(map); }); });
            return layer;
          }
          function startMap(element) {
            var L = window.L;
            if (!L) { return; }
            var map = L.map(element, { keyboard: true });
            var tiles = element.getAttribute("data-tile-url");
            if (tiles) {
              L.tileLayer(tiles, { attribution: element.getAttribute("data-tile-attribution") || "", maxZoom: 19 }).addTo(map);
            } else {
              map.attributionControl.addAttribution("coordinate grid (no base map)");
              gridLayer(L).addTo(map);
            }
            var south = parseFloat(element.getAttribute("data-south")), west = parseFloat(element.getAttribute("data-west"));
            var north = parseFloat(element.getAttribute("data-north")), east = parseFloat(element.getAttribute("data-east"));
            if ([south, west, north, east].every(isFinite)) { map.fitBounds([[south, west], [north, east]]); } else { map.setView([44.4, -122.1], 9); }
          }
          document.addEventListener("DOMContentLoaded", function () {
            var maps = document.querySelectorAll("[data-tp-map]");
            for (var i = 0; i < maps.length; i++) { startMap(maps[i]); }
          });
        })();

        """
}
