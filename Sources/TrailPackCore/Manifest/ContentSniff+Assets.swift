extension ContentSniff {
    /// Media types other writers use for an extension besides the one trailpack writes
    /// (``MediaTypes/byExtension``): the same format under an older or unregistered name.
    public static let mediaTypeAliases: [String: Set<String>] = [
        "wav": ["audio/x-wav", "audio/wave", "audio/vnd.wave"],
        "mp3": ["audio/mp3"],
        "m4a": ["audio/x-m4a", "audio/m4a"],
        "aac": ["audio/x-aac"],
        "m4v": ["video/mp4"],
        "md": ["text/x-markdown"],
        "markdown": ["text/x-markdown"],
        "srt": ["text/srt"],
        "gpx": ["application/xml", "text/xml"],
        "kml": ["application/xml", "text/xml"],
        "geojson": ["application/json"],
        "mbtiles": ["application/x-sqlite3", "application/vnd.sqlite3"],
    ]

    /// The media type without parameters, lowercased (`Text/HTML; charset=utf-8` → `text/html`).
    static func essence(_ mediaType: String) -> String {
        // One pass over the bytes: this runs for every asset of every package, and nearly every
        // media type is already its own essence (lowercase ASCII, no parameters, no blanks).
        let utf8 = mediaType.utf8
        var end = utf8.firstIndex(of: UInt8(ascii: ";")) ?? utf8.endIndex
        var start = utf8.startIndex
        func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        while start < end, isBlank(utf8[start]) { start = utf8.index(after: start) }
        while end > start, isBlank(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        return lowercased(Substring(utf8[start..<end]))
    }

    /// Whether a browser would render or run a file of this media type (markup, script, an image, a
    /// recording or a video) rather than offer it as a download.
    static func isRendered(_ essence: String) -> Bool {
        let top = essence.split(separator: "/").first.map(String.init) ?? ""
        return ["image", "audio", "video"].contains(top) || essence.contains("html") || essence.contains("xml")
            || essence.contains("script") || essence == "text/css"
    }

    /// Why an asset's `kind` or `mediaType` disagrees with its extension, or its content (its first
    /// bytes, `head`: ``prefixLength`` or the whole of a shorter file) with its extension; nil when
    /// all three agree. Each reason names the field, what it says and what the extension asks for.
    ///
    /// An extension trailpack knows (``MediaTypes/byExtension``) fixes the kind and the media type
    /// (or one of its ``mediaTypeAliases``), and, for media with a signature, the first bytes. A file
    /// with another extension is `other` or `text`, and its media type is not one a browser renders.
    public static func assetMismatch(path: String, kind: AssetKind, mediaType: String, head: [UInt8]?) -> String? {
        let ext = lowercased(Substring(PathText.fileExtension(path)))
        let declared = essence(mediaType)
        guard let known = MediaTypes.byExtension[ext] else {
            let shown = ext.isEmpty ? "a file without an extension" : "a .\(ext) file"
            if kind != .other && kind != .text {
                return "kind is '\(kind.rawValue)' but \(shown) is not a type trailpack knows as \(kind.rawValue); "
                    + "give it the extension of its format (\(MediaTypes.supportedList)) or the kind 'other'"
            }
            if isRendered(declared) {
                return "mediaType is '\(mediaType)' but \(shown) is not a type trailpack knows as one; "
                    + "give it the extension of its format or the mediaType 'application/octet-stream'"
            }
            return nil
        }
        if kind != known.kind {
            return "kind is '\(kind.rawValue)' but a .\(ext) file is '\(known.kind.rawValue)'"
        }
        if declared != known.mediaType && !(mediaTypeAliases[ext]?.contains(declared) ?? false) {
            return "mediaType is '\(mediaType)' but a .\(ext) file is '\(known.mediaType)'"
        }
        guard let head, let expected = expectedFormat(forExtension: ext), !matches(expected, head) else { return nil }
        if head.isEmpty { return "the file is empty, so it is not \(expected.name) as a .\(ext) file must be" }
        let seems = sniff(head).map { "it seems to be \($0.name)" } ?? "its first bytes fit no format trailpack knows"
        return "its content is not \(expected.name) as a .\(ext) file must be: \(seems)"
    }

    /// `text` lowercased, without a copy when it already is lowercase ASCII (nearly always).
    static func lowercased(_ text: Substring) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) { return String(text) }
        return text.lowercased()
    }
}
