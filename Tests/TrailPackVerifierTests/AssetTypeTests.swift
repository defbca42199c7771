import Foundation
import Testing
import TrailPackArchive
import TrailPackCore
import TrailPackCrypto
import TrailPackTestSupport

@testable import TrailPackVerifier

/// `asset.type-mismatch` inside a package: an asset's kind and media type against its extension,
/// and its bytes against all three; and the one manifest the rules check.
@Suite("verifier: asset types and the one manifest", .ownThreads)
struct AssetTypeTests {
    static let html = Array("<!DOCTYPE html><html><body><script src=\"asset?path=x.js\"></script></body></html>\n".utf8)

    @Test("an entry's head keeps its first 16 bytes, whatever sizes the data comes in")
    func entryHead() {
        let bytes = (0..<40).map { UInt8($0) }
        for split in [0, 1, 5, 15, 16, 17, 40] {
            var head = EntryHead()
            bytes[..<split].withUnsafeBytes { head.append($0) }
            bytes[split...].withUnsafeBytes { head.append($0) }
            #expect(head.bytes == Array(bytes.prefix(16)), "split at \(split)")
        }
        var short = EntryHead()
        [UInt8]([7, 8, 9]).withUnsafeBytes { short.append($0) }
        [UInt8]().withUnsafeBytes { short.append($0) }
        #expect(short.bytes == [7, 8, 9])
        #expect(EntryHead().bytes.isEmpty)
        #expect(Verifier.headLength == 16)
    }

    /// The family-hikes package with its first `trail.png` asset changed by `change` (kind, media
    /// type, bytes), the manifest's size and SHA-256 kept honest: only the rule under test is broken.
    static func package(
        _ change: (inout [String: Any], inout [UInt8]) -> Void
    ) throws -> (bytes: [UInt8], path: String) {
        var forge = try ZipForge.from(package: Packages.familyHikes)
        let k = try #require(
            forge.entries.firstIndex { String(decoding: $0.name, as: UTF8.self).hasSuffix("trail.png") })
        let path = String(decoding: forge.entries[k].name, as: UTF8.self)
        var manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(forge.entries[0].data)) as? [String: Any])
        var waypoints = try #require(manifest["waypoints"] as? [[String: Any]])
        var data = forge.entries[k].data
        for w in waypoints.indices {
            var assets = waypoints[w]["assets"] as? [[String: Any]] ?? []
            for a in assets.indices where assets[a]["path"] as? String == path {
                change(&assets[a], &data)
                assets[a]["size"] = data.count
                assets[a]["sha256"] = SHA256.hash(data).hex
            }
            waypoints[w]["assets"] = assets
        }
        manifest["waypoints"] = waypoints
        forge.entries[0].data = Array(try JSONSerialization.data(withJSONObject: manifest))
        forge.entries[k].data = data
        return (forge.bytes(), path)
    }

    @Test("the package re-emitted with nothing changed verifies (the control)")
    func control() throws {
        let report = try Verifier.verify(source: MemorySource(try Self.package { _, _ in }.bytes))
        #expect(report.isValid, "\(report.findings)")
    }

    static let cases: [(String, @Sendable (inout [String: Any], inout [UInt8]) -> Void, String)] = [
        (
            "an HTML page declared text/html under a .png name",
            { a, d in
                a["mediaType"] = "text/html"; d = html
            },
            "mediaType is 'text/html'"
        ),
        ("the media type alone says text/html", { a, _ in a["mediaType"] = "text/html" }, "mediaType is 'text/html'"),
        ("SVG declared for a .png", { a, _ in a["mediaType"] = "image/svg+xml" }, "mediaType is 'image/svg+xml'"),
        ("the kind says text", { a, _ in a["kind"] = "text" }, "kind is 'text'"),
        ("the bytes are HTML, the declaration honest", { _, d in d = html }, "it seems to be an HTML page"),
        ("the bytes are a JPEG", { _, d in d = [0xFF, 0xD8, 0xFF, 0xE0] + d }, "it seems to be a JPEG image"),
    ]

    @Test("an asset whose kind, media type or bytes disagree with its extension is refused", arguments: cases.indices)
    func mismatch(index: Int) throws {
        let (name, change, words) = Self.cases[index]
        let (bytes, path) = try Self.package(change)
        let report = try Verifier.verify(source: MemorySource(bytes))
        let finding = report.findings.first { $0.code == .assetTypeMismatch }
        #expect(!report.isValid, "\(name) was accepted")
        #expect(finding?.file == path && finding?.message.contains(words) == true, "\(name): \(report.findings)")
    }

    @Test("two manifest.json entries: refused as a duplicate, and neither copy is parsed")
    func duplicateManifest() throws {
        var forge = try ZipForge.from(package: Packages.familyHikes)
        // The second copy names another package: were it parsed, the report would carry its id.
        var other = try #require(try JSONSerialization.jsonObject(with: Data(forge.entries[0].data)) as? [String: Any])
        other["id"] = "org.example.impostor"
        forge.entries.append(ZipForge.Entry("manifest.json", Array(try JSONSerialization.data(withJSONObject: other))))
        let report = try Verifier.verify(source: MemorySource(forge.bytes()))
        #expect(!report.isValid)
        #expect(report.findings.contains { $0.code == .zipNameDuplicate && $0.file == "manifest.json" })
        #expect(report.manifest == nil, "a manifest was parsed: \(report.manifest?.id ?? "")")
        // And the reader apps use refuses it too.
        #expect(throws: PackageError.self) { try PackageReader(source: MemorySource(forge.bytes())) }
    }

    @Test("a second end record appended is reported as a second end record, not as a gap")
    func secondEndRecord() throws {
        let bytes = Packages.familyHikes
        try #require(bytes.count > 22)
        let report = try Verifier.verify(source: MemorySource(bytes + bytes.suffix(22)))
        #expect(!report.isValid)
        #expect(report.findings.codes.contains(.zipEOCDMultiple), "\(report.findings)")
        #expect(!report.findings.codes.contains(.zipGap), "\(report.findings)")
    }
}
