/// What a file is, read from its first bytes rather than from its name or a manifest's word for it:
/// one table for the builder (a ranger's file against its extension), the verifier (an asset's
/// content and declared type against its extension, `asset.type-mismatch`) and the servers (the
/// type a package's file is served as, and whether a browser may show it inline).
public enum ContentSniff {
    /// How many leading bytes ``sniff(_:)`` and ``served(_:)`` look at; fewer are fine for short files.
    public static let prefixLength = 512

    /// A format trailpack recognizes by its first bytes.
    public enum Format: String, Sendable, CaseIterable {
        case jpeg, png, gif, webp, wav, ogg, flac, mp3, aac, webm
        /// ISO base media (MP4, QuickTime, M4A, HEIC, AVIF): a box, usually `ftyp`, at byte 4.
        case isoMedia
        case pdf, html, svg, xml, webvtt
        /// UTF-8 (or ASCII) text with no control characters but tab, line ends and form feed, not markup.
        case text

        /// The format's name in messages ("a PNG image").
        public var name: String {
            switch self {
            case .jpeg: "a JPEG image"
            case .png: "a PNG image"
            case .gif: "a GIF image"
            case .webp: "a WebP image"
            case .wav: "a WAV recording"
            case .ogg: "an Ogg file"
            case .flac: "a FLAC recording"
            case .mp3: "an MP3 recording"
            case .aac: "an AAC recording"
            case .webm: "a WebM video"
            case .isoMedia: "an MP4/QuickTime (ISO media) file"
            case .pdf: "a PDF document"
            case .html: "an HTML page"
            case .svg: "an SVG drawing"
            case .xml: "an XML document"
            case .webvtt: "a WebVTT captions file"
            case .text: "plain text"
            }
        }
    }

    /// The formats with a fixed signature, in the order they are tried, each with the extensions it
    /// is named by (the first is the one to suggest).
    public static let signatures: [(format: Format, extensions: [String])] = [
        (.jpeg, ["jpg", "jpeg"]), (.png, ["png"]), (.gif, ["gif"]), (.webp, ["webp"]), (.wav, ["wav"]),
        (.ogg, ["ogg", "oga", "opus"]), (.flac, ["flac"]), (.mp3, ["mp3"]), (.aac, ["aac"]), (.webm, ["webm"]),
        (.isoMedia, ["mp4", "m4v", "mov", "m4a", "heic", "avif"]), (.pdf, ["pdf"]),
    ]

    /// The signature format files with extension `ext` (lowercase, no dot) must have, if any.
    public static func expectedFormat(forExtension ext: String) -> Format? {
        signatures.first { $0.extensions.contains(ext) }?.format
    }

    /// Whether `head` (a file's first bytes) starts with `format`'s signature. Formats without a
    /// fixed signature (markup, captions, text) are told by ``sniff(_:)``.
    public static func matches(_ format: Format, _ head: [UInt8]) -> Bool {
        func starts(_ s: String) -> Bool { head.starts(with: s.utf8) }
        func riff(_ kind: String) -> Bool {
            starts("RIFF") && head.count >= 12 && head[8..<12].elementsEqual(kind.utf8)
        }
        switch format {
        case .jpeg: return head.starts(with: [0xFF, 0xD8, 0xFF])
        case .png: return head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case .gif: return starts("GIF87a") || starts("GIF89a")
        case .webp: return riff("WEBP")
        case .wav: return riff("WAVE")
        case .ogg: return starts("OggS")
        case .flac: return starts("fLaC")
        case .mp3: return starts("ID3") || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0)
        case .aac: return starts("ADIF") || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xF6 == 0xF0)
        case .webm: return head.starts(with: [0x1A, 0x45, 0xDF, 0xA3])
        case .isoMedia:
            return head.count >= 8
                && ["ftyp", "moov", "mdat", "free", "wide", "skip", "pnot"].contains {
                    head[4..<8].elementsEqual($0.utf8)
                }
        case .pdf: return starts("%PDF-")
        case .html, .svg, .xml, .webvtt, .text: return sniff(head) == format
        }
    }

    /// What `head` (a file's first bytes, ``prefixLength`` or all of a shorter file) is, or nil when
    /// it is none of the formats (binary data, or text in an encoding other than UTF-8).
    public static func sniff(_ head: [UInt8]) -> Format? {
        if let signed = signatures.first(where: { matches($0.format, head) }) { return signed.format }
        var body = head[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if body.starts(with: "WEBVTT".utf8),
            body.count == 6 || [0x20, 0x09, 0x0A, 0x0D].contains(body[body.startIndex + 6])
        {
            return .webvtt
        }
        let trimmed = body.drop { [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains($0) }
        if trimmed.first == UInt8(ascii: "<") { return markup(trimmed) }
        return isText(body) ? .text : nil
    }

    /// Markup told apart as HTML, SVG or other XML; anything else that starts with `<` counts as HTML,
    /// the reading a browser that sniffs would give it.
    private static func markup(_ bytes: ArraySlice<UInt8>) -> Format {
        let lower = String(decoding: bytes.prefix(prefixLength), as: UTF8.self).lowercased()
        if lower.hasPrefix("<svg") || (lower.contains("<svg") && !lower.contains("<html")) { return .svg }
        if lower.hasPrefix("<?xml") && !lower.contains("<html") && !lower.contains("<!doctype html") { return .xml }
        return .html
    }

    /// Whether `bytes` are UTF-8 text: no NUL or other control characters but tab, line ends and form
    /// feed; a multi-byte character cut off by the prefix's end counts as text.
    private static func isText(_ bytes: ArraySlice<UInt8>) -> Bool {
        if bytes.contains(where: { ($0 < 0x20 && ![0x09, 0x0A, 0x0D, 0x0C].contains($0)) || $0 == 0x7F }) {
            return false
        }
        var it = bytes.makeIterator()
        var decoder = UTF8()
        var consumed = 0
        while true {
            switch decoder.decode(&it) {
            case .scalarValue(let scalar): consumed += UTF8.width(scalar)
            case .emptyInput: return true
            // A prefix (after a byte-order mark) may end inside a character; a whole file may not.
            case .error: return bytes.count - consumed < 4 && bytes.count >= prefixLength - 3
            }
        }
    }

    /// How the servers send a package's file: the type read from its bytes, and whether a browser may
    /// show it in our origin. Only images (PNG, JPEG, WebP, GIF), audio, video, WebVTT and plain text
    /// are `inline`; everything else (HTML, SVG, XML, PDF, unknown bytes) is `application/octet-stream`,
    /// to be sent with `Content-Disposition: attachment`.
    public struct Served: Sendable, Equatable {
        /// The `Content-Type` to send.
        public var contentType: String
        /// Whether the browser may show it (else: an attachment).
        public var inline: Bool

        /// What every response carrying a package's file says besides its type: a page or script it
        /// holds gets no origin and no resources, and the type is not second-guessed.
        public static let contentSecurityPolicy = "default-src 'none'; sandbox"
        /// The `Content-Disposition` of a file that is not inline.
        public static let attachment = "attachment"
        /// The type of everything not inline.
        public static let download = Served(contentType: "application/octet-stream", inline: false)
    }

    /// The type and disposition a file whose first bytes are `head` is served with; never the
    /// manifest's word (a manifest may call an HTML page `image/png`).
    public static func served(_ head: [UInt8]) -> Served {
        switch sniff(head) {
        case .jpeg: Served(contentType: "image/jpeg", inline: true)
        case .png: Served(contentType: "image/png", inline: true)
        case .gif: Served(contentType: "image/gif", inline: true)
        case .webp: Served(contentType: "image/webp", inline: true)
        case .wav: Served(contentType: "audio/wav", inline: true)
        case .ogg: Served(contentType: "audio/ogg", inline: true)
        case .flac: Served(contentType: "audio/flac", inline: true)
        case .mp3: Served(contentType: "audio/mpeg", inline: true)
        case .aac: Served(contentType: "audio/aac", inline: true)
        case .webm: Served(contentType: "video/webm", inline: true)
        case .isoMedia: isoMedia(head)
        case .webvtt: Served(contentType: "text/vtt; charset=utf-8", inline: true)
        case .text: Served(contentType: "text/plain; charset=utf-8", inline: true)
        case .pdf, .html, .svg, .xml, nil: .download
        }
    }

    /// An ISO media file by its `ftyp` brand: still images (HEIC, AVIF) are downloads, M4A is audio,
    /// the rest video.
    private static func isoMedia(_ head: [UInt8]) -> Served {
        guard head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) else {
            return Served(contentType: "video/mp4", inline: true)
        }
        let brand = String(decoding: head[8..<12], as: UTF8.self)
        if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis"].contains(brand) {
            return .download
        }
        if brand == "M4A " || brand == "M4B " { return Served(contentType: "audio/mp4", inline: true) }
        return Served(contentType: "video/mp4", inline: true)
    }
}
