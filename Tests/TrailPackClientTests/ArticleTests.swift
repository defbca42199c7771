import Foundation
import Testing
import TrailPackArchive
import TrailPackClient
import TrailPackTestFixtures
import TrailPackTestSupport

/// The DocC articles' code (and docs/APP-DEVELOPERS.md's) is ArticleCode.swift, compiled with the
/// tests; these tests keep the articles and that file the same, and run the code.
@Suite("docs: the DocC articles' code compiles, matches the articles and runs", .ownThreads)
struct ArticleTests {
    static let catalog = Support.root + "/Sources/TrailPackClient/TrailPackClient.docc"
    static let articles = ["CheckingADownloadedPackage.md", "ReadingOneAssetWhileItPlays.md"]

    /// The ```swift blocks of a Markdown file.
    static func swiftBlocks(_ path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var blocks: [String] = []
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" { current = ""; continue }
            if current != nil, line == "```" { blocks.append(current!); current = nil; continue }
            if current != nil { current! += line + "\n" }
        }
        #expect(current == nil, "\(path): a ```swift block is not closed")
        return blocks
    }

    @Test(
        "every swift block of the articles and of docs/APP-DEVELOPERS.md appears verbatim in ArticleCode.swift",
        arguments: articles.map { catalog + "/" + $0 } + [Support.root + "/docs/APP-DEVELOPERS.md"])
    func articlesMatchTheCode(article: String) throws {
        let code = try String(
            contentsOfFile: Support.root + "/Tests/TrailPackClientTests/ArticleCode.swift", encoding: .utf8)
        let blocks = try Self.swiftBlocks(article)
        #expect(blocks.count >= 2, "\(article) has \(blocks.count) code blocks")
        for block in blocks {
            #expect(
                code.contains(block),
                "\(article): this block is not in ArticleCode.swift (edit both together):\n\(block)")
        }
    }

    @Test(
        "Checking a downloaded package: download from a real server, check the stored file, refuse a malformed hash and an altered file",
        .needs(.curl, .clamscan))
    func checkingADownloadedPackage() async throws {
        let dir = NSTemporaryDirectory() + "trailpack-article-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try ClientServer.setUp(dir, upload: ["santiam-wagon-road"])
        defer { s.server.stop() }

        let installed = try await downloadPackage(
            id: ClientServer.id, from: try #require(URL(string: s.base)), into: s.library)
        #expect(installed.version == "1.0.0")
        let path = s.library + "/" + installed.file
        let manifest = try checkPackage(at: path, expectedSHA256: installed.sha256)
        #expect(manifest.id == ClientServer.id)

        #expect {
            try checkPackage(at: path, expectedSHA256: String(installed.sha256.dropLast()))
        } throws: { error in
            if case PackageCheckError.malformedHash = error { return true } else { return false }
        }
        // One byte changed in the middle of the stored file: refused, with the SHA-256 finding.
        var bytes = try Support.read(path)
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect {
            try checkPackage(at: path, expectedSHA256: installed.sha256)
        } throws: { error in
            guard case PackageCheckError.failed(let findings) = error else { return false }
            return findings.contains { $0.code == .packageSHA256Mismatch }
        }
    }

    @Test(
        "Reading one asset while it plays: the bytes played are the asset's; an altered asset is reported at the end of its stream",
        .needs(.python3))
    func readingOneAssetWhileItPlays() throws {
        try Support.withTemporaryDirectory { dir in
            let package = try Support.buildFixture("santiam-wagon-road", into: dir)
            let reader = try PackageReader(path: package)
            // The largest stored asset: its bytes sit in the file as they are.
            let directory = try ZipDirectory.read(FileSource(path: package))
            let stored = try #require(
                directory.entries.filter {
                    $0.method == 0 && $0.uncompressedSize > 0
                        && Set(reader.manifest.allAssets.map(\.path)).contains($0.name)
                }
                .max { $0.uncompressedSize < $1.uncompressedSize })
            var played: [UInt8] = []
            #expect(playOrExplain(stored.name, from: package) { played += $0 } == "played \(stored.name)")
            // Python's zipfile, an independent reader, gives the same bytes.
            let python = try Support.run(
                "python3",
                [
                    "-c", "import zipfile,sys; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))",
                    package, stored.name,
                ])
            #expect(python.status == 0, "\(python.stderr)")
            #expect(played == Array(python.stdoutBytes))
            #expect(played.count == Int(stored.uncompressedSize))

            var bytes = try Support.read(package)
            let offset = Int(try #require(stored.dataOffset)) + Int(stored.uncompressedSize) / 2
            bytes[offset] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: package))
            var chunks = 0
            let outcome = playOrExplain(stored.name, from: package) { _ in chunks += 1 }
            #expect(outcome.hasPrefix("\(stored.name) is damaged ("), "\(outcome)")
            #expect(outcome.hasSuffix("download the package again"))
            #expect(playOrExplain("waypoints/nowhere.mp3", from: package) { _ in }.contains("has no asset"))
        }
    }

    @Test(
        "every public declaration of the client, verifier, reader and core modules has a doc comment",
        arguments: ["TrailPackClient", "TrailPackVerifier", "TrailPackArchive", "TrailPackCore"])
    func publicDeclarationsAreDocumented(module: String) throws {
        let folder = Support.root + "/Sources/" + module
        let files = try #require(FileManager.default.enumerator(atPath: folder)).compactMap { $0 as? String }.filter {
            $0.hasSuffix(".swift")
        }
        #expect(!files.isEmpty)
        var undocumented: [String] = []
        for file in files {
            let lines = try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() {
                let text = line.drop { $0 == " " }
                guard text.hasPrefix("public ") || text.hasPrefix("open "), !text.hasPrefix("public import"),
                    !text.hasPrefix("public extension")
                else { continue }
                var previous = number - 1
                while previous >= 0,
                    lines[previous].drop(while: { $0 == " " }).first.map({ $0 == "@" || $0 == "#" }) == true
                { previous -= 1 }
                if previous < 0 || !lines[previous].drop(while: { $0 == " " }).hasPrefix("///") {
                    undocumented.append("\(module)/\(file):\(number + 1): \(text.prefix(80))")
                }
            }
        }
        #expect(
            undocumented.isEmpty, "public declarations without a doc comment:\n\(undocumented.joined(separator: "\n"))")
    }
}
