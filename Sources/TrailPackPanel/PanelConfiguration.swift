import Foundation
import TrailPackBuilder

/// What `trailpack serve` tells the web control panel: where the Debian web libraries are, the base map, the public URL.
public struct PanelConfiguration: Sendable {
    /// The folder holding Debian's web libraries (`leaflet/`, `bootstrap5/`): `--web-assets`.
    public var webAssets: String
    /// A tile URL template (`https://tile.example/{z}/{x}/{y}.png`) for the base map, or nil for the coordinate grid.
    public var tileURL: String?
    /// The attribution shown with the tiles (required with `tileURL`).
    public var tileAttribution: String?
    /// The URL the panel is reached by (`https://…` makes the session cookie Secure).
    public var publicURL: String?
    /// The largest file a ranger may upload to a stop (a phone downloads the whole package: keep tours small).
    public var maxMediaBytes: Int64 = 2 << 30
    /// The phones' budget the panel warns against while a ranger edits (`--asset-budget-mb`, `--package-budget-mb`).
    public var budget: PhoneBudget = .default
    /// The most the drafts of one site may hold on disk (`--draft-quota-mb`; 10 GiB by default):
    /// an import or upload that would pass it is refused before it is written.
    public var draftQuotaBytes: Int64 = 10 << 30
    /// A folder several servers share for the drafts (`drafts/`, `drafts-removed/` inside it), on a
    /// file system with locks (NFSv4, CephFS, …); nil: the server's own data folder.
    public var draftsFolder: String?

    public static let defaultWebAssets = "/usr/share/javascript"

    public init(
        webAssets: String = PanelConfiguration.defaultWebAssets, tileURL: String? = nil, tileAttribution: String? = nil,
        publicURL: String? = nil, maxMediaBytes: Int64 = 2 << 30, budget: PhoneBudget = .default,
        draftQuotaBytes: Int64 = 10 << 30
    ) {
        self.draftQuotaBytes = draftQuotaBytes
        self.maxMediaBytes = maxMediaBytes
        self.budget = budget
        self.webAssets = webAssets
        self.tileURL = tileURL
        self.tileAttribution = tileAttribution
        self.publicURL = publicURL
    }

    /// Whether cookies must be marked Secure (the panel is reached over TLS).
    public var secureCookies: Bool { publicURL?.lowercased().hasPrefix("https://") ?? false }

    /// The settings' problems, in words naming the option and the fix (empty: usable).
    public func problems() -> [String] {
        var found: [String] = []
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: webAssets, isDirectory: &isDirectory) || !isDirectory.boolValue {
            found.append(
                "--web-assets '\(webAssets)' is not a folder: install libjs-leaflet and libjs-bootstrap5 or name the folder holding them"
            )
        } else {
            for library in PanelAssets.vendorLibraries
            where !FileManager.default.fileExists(atPath: webAssets + "/" + library.folder + "/" + library.probe) {
                found.append(
                    "--web-assets '\(webAssets)' has no \(library.folder)/\(library.probe): install the Debian package \(library.debianPackage)"
                )
            }
        }
        if let tileURL {
            let lower = tileURL.lowercased()
            if !(lower.hasPrefix("https://") || lower.hasPrefix("http://"))
                || !["{z}", "{x}", "{y}"].allSatisfy(tileURL.contains)
            {
                found.append(
                    "--tile-url '\(tileURL)' must be an http(s) URL template holding {z}, {x} and {y}, such as https://tile.openstreetmap.org/{z}/{x}/{y}.png"
                )
            }
            if (tileAttribution ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
                found.append(
                    "--tile-url needs --tile-attribution: name the map's source as its licence asks (such as '© OpenStreetMap contributors')"
                )
            }
        } else if tileAttribution != nil {
            found.append(
                "--tile-attribution is given without --tile-url: add the tile URL template or drop the attribution")
        }
        if maxMediaBytes <= 0 {
            found.append(
                "--max-media-mb must be a whole number of MiB from 1 to 1073741824, such as --max-media-mb 2048")
        }
        if draftQuotaBytes <= 0 {
            found.append(
                "--draft-quota-mb must be a whole number of MiB from 1 to 1073741824, such as --draft-quota-mb 10240")
        }
        if let publicURL {
            let lower = publicURL.lowercased()
            if !(lower.hasPrefix("https://") || lower.hasPrefix("http://")) || URL(string: publicURL)?.host == nil {
                found.append(
                    "--public-url '\(publicURL)' must be an http(s) URL with a host, such as https://tours.example.org")
            }
        }
        return found
    }
}
