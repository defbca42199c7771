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
        let declared = declaredMismatch(path: path, kind: kind, mediaType: mediaType)
        if let reason = declared.reason { return reason }
        guard let head, let expected = declared.content else { return nil }
        return contentMismatch(path: path, expected: expected, verdict: contentVerdict(expected: expected, head: head))
    }

    /// ``assetMismatch(path:kind:mediaType:head:)``'s first half, what the declaration alone says: why
    /// the `kind` or `mediaType` disagrees with the extension (nil when they agree), and, when they
    /// do, the signature the content must then start with (nil: any). For a reader that has the
    /// declaration and the content at different times (the verifier, as the manifest streams).
    public static func declaredMismatch(
        path: String, kind: AssetKind, mediaType: String
    ) -> (reason: String?, content: Format?) {
        let ext = lowercased(Substring(PathText.fileExtension(path)))
        let declared = essence(mediaType)
        guard let known = MediaTypes.byExtension[ext] else {
            let shown = ext.isEmpty ? "a file without an extension" : "a .\(ext) file"
            if kind != .other && kind != .text {
                return (
                    "kind is '\(kind.rawValue)' but \(shown) is not a type trailpack knows as \(kind.rawValue); "
                        + "give it the extension of its format (\(MediaTypes.supportedList)) or the kind 'other'", nil
                )
            }
            if isRendered(declared) {
                return (
                    "mediaType is '\(mediaType)' but \(shown) is not a type trailpack knows as one; "
                        + "give it the extension of its format or the mediaType 'application/octet-stream'", nil
                )
            }
            return (nil, nil)
        }
        if kind != known.kind {
            return ("kind is '\(kind.rawValue)' but a .\(ext) file is '\(known.kind.rawValue)'", nil)
        }
        if declared != known.mediaType && !(mediaTypeAliases[ext]?.contains(declared) ?? false) {
            return ("mediaType is '\(mediaType)' but a .\(ext) file is '\(known.mediaType)'", nil)
        }
        return (nil, expectedFormat(forExtension: ext))
    }

    /// What a file's first bytes are against the format its extension asks for (``contentVerdict(expected:head:)``).
    public enum ContentVerdict: Sendable, Equatable {
        /// They start as that format must (or the format has no signature to check).
        case fits
        /// The file is empty.
        case empty
        /// They fit no format trailpack knows.
        case unknown
        /// They are another format.
        case seems(Format)
    }

    /// Whether `head` (a file's first bytes) is the `expected` format, and if not, what it seems to be.
    public static func contentVerdict(expected: Format, head: [UInt8]) -> ContentVerdict {
        if matches(expected, head) { return .fits }
        if head.isEmpty { return .empty }
        return sniff(head).map(ContentVerdict.seems) ?? .unknown
    }

    /// ``assetMismatch(path:kind:mediaType:head:)``'s second half: why the content is not the
    /// `expected` format that ``declaredMismatch(path:kind:mediaType:)`` gave (its verdict from
    /// ``contentVerdict(expected:head:)``), or nil.
    public static func contentMismatch(path: String, expected: Format, verdict: ContentVerdict) -> String? {
        let ext = lowercased(Substring(PathText.fileExtension(path)))
        switch verdict {
        case .fits: return nil
        case .empty: return "the file is empty, so it is not \(expected.name) as a .\(ext) file must be"
        case .unknown:
            return
                "its content is not \(expected.name) as a .\(ext) file must be: its first bytes fit no format trailpack knows"
        case .seems(let other):
            return "its content is not \(expected.name) as a .\(ext) file must be: it seems to be \(other.name)"
        }
    }

    /// The signature format of a file named `name` (its UTF-8 bytes): ``expectedFormat(forExtension:)``
    /// of its extension, read from the bytes without making a string of the name (the verifier asks
    /// it of every entry it reads).
    public static func expectedFormat(forName name: UnsafeBufferPointer<UInt8>) -> Format? {
        var dot = name.count
        while dot > 0, name[dot - 1] != UInt8(ascii: "."), name[dot - 1] != UInt8(ascii: "/") { dot -= 1 }
        // The longest signature extension is four letters; a name that is only an extension (".png") has none.
        guard dot > 1, name[dot - 1] == UInt8(ascii: "."), name[dot - 2] != UInt8(ascii: "/"),
            (2...4).contains(name.count - dot)
        else { return nil }
        var ext = ""
        for b in name[dot...] {
            guard b < 0x80 else { return nil }
            ext.unicodeScalars.append(Unicode.Scalar((0x41...0x5A).contains(b) ? b + 0x20 : b))
        }
        return signatureByExtension[ext]
    }

    /// ``signatures`` by extension.
    static let signatureByExtension: [String: Format] = {
        var table: [String: Format] = [:]
        for (format, extensions) in signatures { for ext in extensions where table[ext] == nil { table[ext] = format } }
        return table
    }()

    /// `text` lowercased, without a copy when it already is lowercase ASCII (nearly always).
    static func lowercased(_ text: Substring) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) { return String(text) }
        return text.lowercased()
    }
}
