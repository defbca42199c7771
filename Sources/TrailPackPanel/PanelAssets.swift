import Foundation
import TrailPackCrypto

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
            if segment.isEmpty || segment.hasPrefix(".") || segment.contains("/") || segment.contains("\\")
                || segment.contains("\0")
            {
                return nil
            }
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

    /// The version of the panel's own style sheet and script: the first 16 hex digits of the SHA-256
    /// of their bytes. Pages link them under `/static/v/VERSION/`, where they are cached for a year
    /// (a new program has new addresses), so the style sheet is in the browser before a reload's
    /// scroll restoration starts, and an old page never mixes with a new script.
    static let version: String = {
        var bytes = PackageResources.panel_css
        for name in modules.keys.sorted() { bytes += Array(name.utf8) + [0] + (modules[name] ?? []) }
        return String(SHA256.hash(bytes).hex.prefix(16))
    }()

    /// The panel's own style sheet: focus always visible, the map's size.
    static let css = String(decoding: PackageResources.panel_css, as: UTF8.self)

    /// The panel's script: ES modules in `Resources/js/`, served at `/static/js/NAME` (pages load
    /// `panel.js`, which imports the rest). Progressive enhancement only (every form works without
    /// it): the map (click to place a stop, drag or arrow keys to move one), autosave, drag-and-drop
    /// ordering, file uploads with progress.
    static let modules: [String: [UInt8]] = [
        "autosave.js": PackageResources.autosave_js,
        "forms.js": PackageResources.forms_js,
        "grid.js": PackageResources.grid_js,
        "map.js": PackageResources.map_js,
        "net.js": PackageResources.net_js,
        "ordering.js": PackageResources.ordering_js,
        "panel.js": PackageResources.panel_js,
        "route.js": PackageResources.route_js,
        "uploads.js": PackageResources.uploads_js,
    ]
}
