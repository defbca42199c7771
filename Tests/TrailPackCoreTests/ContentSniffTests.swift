import Testing
import TrailPackCore
import TrailPackTestSupport

/// The one table of what a file is, read from its first bytes: what the builder, the verifier
/// (`asset.type-mismatch`) and the servers (the type a package's file is sent as) all use.
@Suite("content sniffing", .ownThreads)
struct ContentSniffTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + Array("JFIF".utf8)
    static func riff(_ kind: String) -> [UInt8] { Array("RIFF".utf8) + [36, 0, 0, 0] + Array(kind.utf8) }
    static func ftyp(_ brand: String) -> [UInt8] { [0, 0, 0, 0x18] + Array("ftyp".utf8) + Array(brand.utf8) }
    static let html = Array("\n  <!DOCTYPE html><html><body><script>alert(1)</script>".utf8)
    static let svg = Array("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>".utf8)

    /// Bytes, what they are, the type they are served as, and whether a browser may show them.
    static let table: [(String, [UInt8], ContentSniff.Format?, String, Bool)] = [
        ("PNG", png, .png, "image/png", true),
        ("JPEG", jpeg, .jpeg, "image/jpeg", true),
        ("GIF", Array("GIF89a".utf8) + [1, 0], .gif, "image/gif", true),
        ("WebP", riff("WEBP"), .webp, "image/webp", true),
        ("WAV", riff("WAVE"), .wav, "audio/wav", true),
        ("Ogg", Array("OggS".utf8) + [0, 2], .ogg, "audio/ogg", true),
        ("FLAC", Array("fLaC".utf8), .flac, "audio/flac", true),
        ("MP3 with ID3", Array("ID3".utf8) + [4, 0], .mp3, "audio/mpeg", true),
        ("WebM", [0x1A, 0x45, 0xDF, 0xA3, 0x9F], .webm, "video/webm", true),
        ("MP4", ftyp("isom"), .isoMedia, "video/mp4", true),
        ("M4A", ftyp("M4A "), .isoMedia, "audio/mp4", true),
        ("HEIC (a still image browsers do not all show)", ftyp("heic"), .isoMedia, "application/octet-stream", false),
        ("AVIF", ftyp("avif"), .isoMedia, "application/octet-stream", false),
        ("WebVTT", Array("WEBVTT\n\n00:00.000 --> 00:01.000\nHello".utf8), .webvtt, "text/vtt; charset=utf-8", true),
        ("WebVTT after a BOM", [0xEF, 0xBB, 0xBF] + Array("WEBVTT".utf8), .webvtt, "text/vtt; charset=utf-8", true),
        ("plain text", Array("Trail notes: the bridge is out.\n".utf8), .text, "text/plain; charset=utf-8", true),
        ("UTF-8 text", Array("Café au lait près du lac\n".utf8), .text, "text/plain; charset=utf-8", true),
        (
            "script text (inline as text/plain with nosniff, never as script)", Array("fetch('/x')".utf8), .text,
            "text/plain; charset=utf-8", true
        ),
        ("HTML", html, .html, "application/octet-stream", false),
        ("an HTML fragment", Array("<img src=x onerror=alert(1)>".utf8), .html, "application/octet-stream", false),
        ("SVG", svg, .svg, "application/octet-stream", false),
        ("bare SVG", Array("<svg onload=alert(1)>".utf8), .svg, "application/octet-stream", false),
        ("XML", Array("<?xml version=\"1.0\"?><gpx></gpx>".utf8), .xml, "application/octet-stream", false),
        ("PDF", Array("%PDF-1.7\n".utf8), .pdf, "application/octet-stream", false),
        ("binary", [0, 1, 2, 3, 0xFE, 0xFF], nil, "application/octet-stream", false),
        ("Latin-1 text (not UTF-8)", Array("caf".utf8) + [0xE9, 0x0A], nil, "application/octet-stream", false),
        ("empty", [], .text, "text/plain; charset=utf-8", true),
    ]

    @Test(
        "each format is read from its bytes and served inline only when it is media or plain text",
        arguments: table.indices)
    func sniffTable(index: Int) {
        let (name, bytes, format, type, inline) = Self.table[index]
        #expect(ContentSniff.sniff(bytes) == format, "\(name)")
        let served = ContentSniff.served(bytes)
        #expect(served.contentType == type && served.inline == inline, "\(name): \(served)")
    }

    @Test("a PNG/HTML polyglot that starts with the PNG signature is a PNG; HTML with a PNG name is HTML")
    func polyglot() {
        #expect(ContentSniff.served(Self.png + Self.html).contentType == "image/png")
        #expect(!ContentSniff.served(Self.html).inline)
    }

    @Test("a multi-byte character cut by the end of the prefix is still text; a bad byte inside it is not")
    func cutCharacter() {
        let long = Array(String(repeating: "a", count: ContentSniff.prefixLength - 1).utf8) + [0xC3]
        #expect(ContentSniff.sniff(long) == .text)
        #expect(ContentSniff.sniff(Array("ab".utf8) + [0xC3] + Array("cd".utf8)) == nil)
    }

    // MARK: asset.type-mismatch: each rule broken on its own

    /// path, kind, mediaType, first bytes, and the words the reason must hold (nil: no mismatch).
    static let assetCases: [(String, String, AssetKind, String, [UInt8]?, String?)] = [
        ("agrees", "waypoints/a/view.png", .image, "image/png", png, nil),
        (
            "agrees, media type in another case with a parameter", "waypoints/a/view.png", .image, "Image/PNG; x=1",
            png,
            nil
        ),
        ("an alias of the media type", "waypoints/a/birds.wav", .audio, "audio/x-wav", riff("WAVE"), nil),
        (
            "no content read (damaged entry): the declared type alone", "waypoints/a/view.png", .image, "image/png",
            nil,
            nil
        ),
        ("a text file's content is not judged", "waypoints/a/notes.txt", .text, "text/plain", html, nil),
        ("an unknown extension as other", "waypoints/a/route.fit", .other, "application/octet-stream", [0, 1], nil),
        ("kind disagrees with the extension", "waypoints/a/view.png", .text, "image/png", png, "kind is 'text'"),
        (
            "media type disagrees with the extension (the stored-script attack)", "waypoints/a/page.png", .image,
            "text/html", html, "mediaType is 'text/html'"
        ),
        ("SVG called PNG", "waypoints/a/view.png", .image, "image/svg+xml", svg, "mediaType is 'image/svg+xml'"),
        (
            "content disagrees with the extension", "waypoints/a/page.png", .image, "image/png", html,
            "it seems to be an HTML page"
        ),
        ("a JPEG named .png", "waypoints/a/view.png", .image, "image/png", jpeg, "it seems to be a JPEG image"),
        ("an empty .mp3", "waypoints/a/a.mp3", .audio, "audio/mpeg", [], "the file is empty"),
        (
            "an unknown extension claiming to be an image", "waypoints/a/page.xyz", .image, "image/png", png,
            "kind is 'image'"
        ),
        (
            "an unknown extension with a type browsers render", "waypoints/a/page.xyz", .other, "text/html", html,
            "mediaType is 'text/html'"
        ),
        ("no extension, script type", "waypoints/a/run", .text, "application/javascript", [], "mediaType is"),
    ]

    @Test("asset.type-mismatch: kind, media type and content against the extension", arguments: assetCases.indices)
    func assetRule(index: Int) {
        let (name, path, kind, mediaType, head, words) = Self.assetCases[index]
        let reason = ContentSniff.assetMismatch(path: path, kind: kind, mediaType: mediaType, head: head)
        if let words {
            #expect(reason?.contains(words) == true, "\(name): \(reason ?? "accepted")")
        } else {
            #expect(reason == nil, "\(name): \(reason ?? "")")
        }
    }

    @Test("every extension trailpack knows agrees with its own kind and media type")
    func ownTableAgrees() {
        for (ext, entry) in MediaTypes.byExtension {
            #expect(
                ContentSniff.assetMismatch(path: "a/f.\(ext)", kind: entry.kind, mediaType: entry.mediaType, head: nil)
                    == nil, "\(ext)")
        }
    }
}
