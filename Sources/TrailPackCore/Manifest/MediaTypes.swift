/// The file types a tour may contain, by file-name extension.
public enum MediaTypes {
    /// What trailpack knows about one file type.
    public struct Entry: Sendable, Hashable {
        /// What files of this type are for.
        public var kind: AssetKind
        /// The IANA media type (`audio/mpeg`).
        public var mediaType: String
        /// Whether deflate pays: false for media that is already compressed.
        public var compress: Bool

        /// A file type: what its files are for, its IANA media type, and whether deflate pays.
        public init(kind: AssetKind, mediaType: String, compress: Bool) {
            (self.kind, self.mediaType, self.compress) = (kind, mediaType, compress)
        }
    }

    /// Every supported extension (lowercase, without the dot).
    public static let byExtension: [String: Entry] = [
        // video: already compressed, stored
        "mp4": Entry(kind: .video, mediaType: "video/mp4", compress: false),
        "m4v": Entry(kind: .video, mediaType: "video/x-m4v", compress: false),
        "mov": Entry(kind: .video, mediaType: "video/quicktime", compress: false),
        "webm": Entry(kind: .video, mediaType: "video/webm", compress: false),
        // audio
        "mp3": Entry(kind: .audio, mediaType: "audio/mpeg", compress: false),
        "m4a": Entry(kind: .audio, mediaType: "audio/mp4", compress: false),
        "aac": Entry(kind: .audio, mediaType: "audio/aac", compress: false),
        "ogg": Entry(kind: .audio, mediaType: "audio/ogg", compress: false),
        "oga": Entry(kind: .audio, mediaType: "audio/ogg", compress: false),
        "opus": Entry(kind: .audio, mediaType: "audio/opus", compress: false),
        "flac": Entry(kind: .audio, mediaType: "audio/flac", compress: false),
        "wav": Entry(kind: .audio, mediaType: "audio/wav", compress: true),
        // images
        "jpg": Entry(kind: .image, mediaType: "image/jpeg", compress: false),
        "jpeg": Entry(kind: .image, mediaType: "image/jpeg", compress: false),
        "png": Entry(kind: .image, mediaType: "image/png", compress: false),
        "webp": Entry(kind: .image, mediaType: "image/webp", compress: false),
        "gif": Entry(kind: .image, mediaType: "image/gif", compress: false),
        "heic": Entry(kind: .image, mediaType: "image/heic", compress: false),
        "avif": Entry(kind: .image, mediaType: "image/avif", compress: false),
        "svg": Entry(kind: .image, mediaType: "image/svg+xml", compress: true),
        // text
        "txt": Entry(kind: .text, mediaType: "text/plain", compress: true),
        "md": Entry(kind: .text, mediaType: "text/markdown", compress: true),
        "markdown": Entry(kind: .text, mediaType: "text/markdown", compress: true),
        "html": Entry(kind: .text, mediaType: "text/html", compress: true),
        "htm": Entry(kind: .text, mediaType: "text/html", compress: true),
        "vtt": Entry(kind: .text, mediaType: "text/vtt", compress: true),
        "srt": Entry(kind: .text, mediaType: "application/x-subrip", compress: true),
        "json": Entry(kind: .text, mediaType: "application/json", compress: true),
        "geojson": Entry(kind: .text, mediaType: "application/geo+json", compress: true),
        "gpx": Entry(kind: .text, mediaType: "application/gpx+xml", compress: true),
        "kml": Entry(kind: .text, mediaType: "application/vnd.google-earth.kml+xml", compress: true),
        // offline map tiles: stored
        "mbtiles": Entry(kind: .tiles, mediaType: "application/vnd.mapbox-vector-tile+sqlite3", compress: false),
        "pmtiles": Entry(kind: .tiles, mediaType: "application/vnd.pmtiles", compress: false),
        "pbf": Entry(kind: .tiles, mediaType: "application/x-protobuf", compress: false),
        "mvt": Entry(kind: .tiles, mediaType: "application/vnd.mapbox-vector-tile", compress: false),
        // other documents
        "pdf": Entry(kind: .other, mediaType: "application/pdf", compress: true),
    ]

    /// Every distinct entry of ``byExtension``, in the order of their media types: a record that
    /// keeps many files' types holds each as its number here (``number(of:)``) in one byte (so
    /// there are fewer than 255: a test holds it).
    public static let known: [Entry] = Array(Set(byExtension.values)).sorted {
        ($0.mediaType, $0.kind.rawValue, $0.compress ? 1 : 0) < ($1.mediaType, $1.kind.rawValue, $1.compress ? 1 : 0)
    }
    private static let numbers: [Entry: Int] = Dictionary(uniqueKeysWithValues: known.enumerated().map { ($1, $0) })

    /// The position of `entry` in ``known``; nil for an entry none of the extensions has.
    public static func number(of entry: Entry) -> Int? { numbers[entry] }

    /// The entry for `fileName`'s extension, ignoring case; nil when the type is not supported.
    public static func lookup(fileName: String) -> Entry? {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return nil }
        let ext = fileName[fileName.index(after: dot)...].lowercased()
        return byExtension[ext]
    }

    /// The supported extensions, sorted, for messages.
    public static var supportedList: String { byExtension.keys.sorted().joined(separator: ", ") }
}
