import HTTPTypes
import Testing
import TrailPackCore
import TrailPackMap
import TrailPackServer
import TrailPackTestSupport

/// A tile's response headers come from its bytes, never from the map's header (issue #28): raster
/// images inline, anything else an attachment, every tile sandboxed and not sniffed.
@Suite("server: tile headers", .ownThreads)
struct TileHeadersTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
    static let html = Array("<html><script>alert(1)</script></html>".utf8)

    static func header(_ type: PMTilesHeader.TileType, gzip: Bool) -> PMTilesHeader {
        var h = PMTilesHeader()
        h.tileTypeByte = type.rawValue
        h.tileCompression = gzip ? .gzip : .none
        return h
    }

    static let cases: [(String, PMTilesHeader.TileType, Bool, [UInt8], String, Bool)] = [
        ("a PNG tile", .png, false, png, "image/png", true),
        ("a gzipped PNG tile", .png, true, png, "image/png", true),
        ("HTML in a map that says PNG", .png, false, html, "application/octet-stream", false),
        ("gzipped HTML in a map that says PNG", .png, true, html, "application/octet-stream", false),
        (
            "a vector tile (protobuf)", .mvt, true, [0x1A, 0x05, 0x0A, 0x03] + Array("abc".utf8),
            "application/octet-stream",
            false
        ),
        ("text in a vector map", .mvt, false, Array("just text".utf8), "application/octet-stream", false),
    ]

    @Test("each tile's type is read from its bytes", arguments: cases.indices)
    func headers(index: Int) throws {
        let (name, type, gzip, bytes, contentType, inline) = Self.cases[index]
        let body = gzip ? try Gzip.compress(bytes) : bytes
        let headers = PackageTiles.headers(Self.header(type, gzip: gzip), body)
        #expect(headers[.contentType] == contentType, "\(name)")
        #expect(headers[.contentDisposition] == (inline ? nil : "attachment"), "\(name)")
        #expect(headers[.contentSecurityPolicy] == "default-src 'none'; sandbox", "\(name)")
        #expect(headers[.xContentTypeOptions] == "nosniff", "\(name)")
        #expect(headers[.contentEncoding] == (gzip ? "gzip" : nil), "\(name)")
    }
}
