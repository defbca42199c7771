import Foundation
import SystemPackage
import Testing
import TrailPackArchive
import TrailPackTestFixtures
import TrailPackTestSupport
import TrailPackVerifier

#if canImport(Glibc)
import Glibc
#endif

/// The reader/writer split and libraries that behave as libraries: what a phone app links holds
/// no writer and no libarchive, and nothing the libraries do changes the host process.
@Suite("split: the client links no writer; the libraries leave the process alone", .ownThreads)
struct SplitTests {
    static var buildFolder: String { URL(fileURLWithPath: Support.binary).deletingLastPathComponent().path }
    static var example: String { buildFolder + "/trailpack-client-example" }

    /// The shared libraries a binary needs (its DT_NEEDED entries), from `readelf -d`.
    static func needed(_ binary: String) throws -> [String] {
        let out = try Support.run("readelf", ["-d", binary])
        #expect(out.status == 0, "readelf -d \(binary): \(out.stderr)")
        return out.stdout.split(separator: "\n").compactMap { line in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]")
            else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    @Test(
        "the example client binary links no libarchive (readelf -d and ldd); the trailpack binary does",
        .needs(.readelf, .ldd))
    func exampleLinksNoLibarchive() throws {
        let example = try Self.needed(Self.example)
        #expect(!example.isEmpty, "readelf found no NEEDED entries in \(Self.example)")
        #expect(example.contains { $0.hasPrefix("libz.") }, "\(example)")
        #expect(!example.contains { $0.contains("archive") }, "\(example)")
        let ldd = try Support.run("ldd", [Self.example])
        #expect(ldd.status == 0, "\(ldd.stderr)")
        #expect(ldd.stdout.contains("libz.so"), "\(ldd.stdout)")
        #expect(!ldd.stdout.contains("libarchive"), "\(ldd.stdout)")
        // The same check on the CLI, which builds packages, finds libarchive: the test can fail.
        #expect(try Self.needed(Support.binary).contains { $0.hasPrefix("libarchive.") })
    }

    /// Every node the build plan (`.build/debug.yaml`, what llbuild runs) needs to produce `node`.
    static func planClosure(of node: String) throws -> Set<String> {
        let yaml = try String(contentsOfFile: Support.root + "/.build/debug.yaml", encoding: .utf8)
        var inputsOf: [String: [String]] = [:]
        var current: [String] = []
        var pendingInputs: [String] = []
        func decode(_ line: Substring, _ key: String) -> [String]? {
            let trimmed = line.drop(while: { $0 == " " })
            guard trimmed.hasPrefix(key + ": [") else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(trimmed.dropFirst(key.count + 2).utf8))) as? [String]
        }
        for line in yaml.split(separator: "\n") {
            if let inputs = decode(line, "inputs") { pendingInputs = inputs; current = [] }
            if let outputs = decode(line, "outputs") {
                current = outputs
                for output in current { inputsOf[output, default: []] += pendingInputs }
            }
        }
        var seen: Set<String> = []
        var queue = [node]
        while let next = queue.popLast() {
            guard seen.insert(next).inserted else { continue }
            queue += inputsOf[next] ?? []
        }
        return seen
    }

    @Test(
        "building the client module alone compiles no writer: its closure in the build plan holds no TrailPackArchiveWriter or libarchive; the builder's does",
        .enabled(
            if: FileManager.default.fileExists(atPath: Support.root + "/.build/debug.yaml"),
            "needs the debug build plan (swift build)"))
    func clientPlanHasNoWriter() throws {
        let plan = try String(contentsOfFile: Support.root + "/.build/debug.yaml", encoding: .utf8)
        func moduleNode(_ name: String) throws -> String {
            let prefix = "\"<\(name)-"
            let start = try #require(plan.range(of: prefix), "no node for \(name) in the build plan")
            let end = try #require(plan[start.upperBound...].firstIndex(of: "\""))
            return String(plan[plan.index(after: start.lowerBound)..<end])
        }
        let client = try Self.planClosure(of: try moduleNode("TrailPackClient"))
        #expect(
            client.contains { $0.hasSuffix("/Sources/TrailPackVerifier/Verifier.swift") },
            "the walk did not reach the verifier's sources")
        #expect(client.contains { $0.hasSuffix("/Sources/TrailPackArchive/ZipDirectory.swift") })
        let writer = client.filter {
            $0.contains("TrailPackArchiveWriter") || $0.contains("ZipWriter") || $0.contains("CLibArchive")
        }
        #expect(writer.isEmpty, "\(writer.sorted())")
        // The verifier's reader-only test target: no writer either.
        let verifierTests = try Self.planClosure(of: try moduleNode("TrailPackVerifierTests"))
        #expect(verifierTests.contains { $0.hasSuffix("/Tests/TrailPackVerifierTests/ReaderOnlyVerifierTests.swift") })
        let writerInTests = verifierTests.filter {
            $0.contains("TrailPackArchiveWriter") || $0.contains("TrailPackBuilder") || $0.contains("CLibArchive")
        }
        #expect(writerInTests.isEmpty, "\(writerInTests.sorted())")
        let builder = try Self.planClosure(of: try moduleNode("TrailPackBuilder"))
        #expect(
            builder.contains { $0.hasSuffix("/Sources/TrailPackArchiveWriter/ZipWriter.swift") },
            "the same walk from the builder must reach the writer")
    }

    @Test(
        "the example program fetches, verifies and reads one asset from a real server using the client product alone",
        .needs(.curl, .clamscan))
    func exampleEndToEnd() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try ClientServer.setUp(dir, upload: ["santiam-wagon-road"])
            defer { s.server.stop() }
            let reader = try PackageReader(path: s.packages["santiam-wagon-road"]!)
            let asset = try #require(reader.manifest.allAssets.last)
            let run = try Support.run(Self.example, [s.base, ClientServer.id, s.library, asset.path])
            #expect(run.status == 0, "\(run.stderr)")
            struct Printed: Decodable {
                struct Read: Decodable { var path: String; var size: Int64; var sha256: String }
                var id: String; var version: String; var sha256: String; var asset: Read
            }
            let json = try JSONDecoder().decode(Printed.self, from: run.stdoutBytes)
            #expect(json.id == ClientServer.id)
            #expect(json.version == "1.0.0")
            #expect(json.asset.path == asset.path)
            #expect(json.asset.sha256 == asset.sha256)
            #expect(json.asset.size == asset.size)
            #expect(
                try FileManager.default.contentsEqual(
                    atPath: s.library + "/" + ClientServer.id + "/1.0.0.zip", andPath: s.packages["santiam-wagon-road"]!
                ))
            // A misspelt asset: a clear message and exit status 1, nothing on standard output.
            let wrong = try Support.run(Self.example, [s.base, ClientServer.id, s.library, asset.path + "x"])
            #expect(wrong.status == 1)
            #expect(wrong.stderr.contains("has no asset"), "\(wrong.stderr)")
            #expect(wrong.stdout.isEmpty)
            let usage = try Support.run(Self.example, [s.base])
            #expect(usage.status == 2)
            #expect(usage.stderr.contains("usage:"))
        }
    }

    @Test(
        "DOS times are stamped from UTC whatever TZ the builder runs under (three zones, one package)",
        .needs(.python3),
        .enabled(
            if: ["Asia/Kathmandu", "America/St_Johns"].allSatisfy {
                FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/" + $0)
            },
            "tzdata is needed: without the zone files every TZ falls back to UTC and the test could not fail"),
        arguments: ["Asia/Kathmandu", "America/St_Johns"])
    func timeZones(zone: String) throws {
        try Support.withTemporaryDirectory { dir in
            let reference = try Support.trailpack(
                "build", Support.fixture("santiam-wagon-road"), "-o", dir + "/utc.zip", "--quiet",
                environment: ["PATH": "/usr/bin:/bin", "TZ": "UTC", "SOURCE_DATE_EPOCH": "1700000000"])
            #expect(reference.status == 0, "\(reference.stderr)")
            let other = try Support.trailpack(
                "build", Support.fixture("santiam-wagon-road"), "-o", dir + "/zone.zip", "--quiet",
                environment: ["PATH": "/usr/bin:/bin", "TZ": zone, "SOURCE_DATE_EPOCH": "1700000000"])
            #expect(other.status == 0, "\(other.stderr)")
            #expect(
                try Support.read(dir + "/utc.zip") == Support.read(dir + "/zone.zip"),
                "TZ=\(zone) changed the package's bytes")
            // Python's zipfile reads the DOS fields and the UT extra field independently of libarchive.
            let script =
                "import zipfile,struct,sys\nfor i in zipfile.ZipFile(sys.argv[1]).infolist():\n e=i.extra; k=e.find(b'UT')\n print(i.date_time, struct.unpack('<I', e[k+5:k+9])[0] if k>=0 else None)"
            let dates = try Support.run("python3", ["-c", script, dir + "/zone.zip"])
            #expect(dates.status == 0, "\(dates.stderr)")
            let lines = Set(dates.stdout.split(separator: "\n"))
            #expect(lines == ["(2023, 11, 14, 22, 13, 20) 1700000000"], "\(lines)")
        }
    }

    /// Undefined dynamic symbols of a binary, from `nm -D --undefined-only`.
    static func importedSymbols(_ binary: String) throws -> Set<String> {
        let out = try Support.run("nm", ["-D", "--undefined-only", binary])
        #expect(out.status == 0, "nm \(binary): \(out.stderr)")
        return Set(
            out.stdout.split(separator: "\n").compactMap {
                $0.split(separator: " ").last.map { String($0.split(separator: "@").first ?? $0) }
            })
    }

    @Test(
        "no library calls mallopt: the test program (every library, no CLI) and the example import no mallopt; the CLI's main does",
        .needs(.nm))
    func noMallopt() throws {
        let host = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let hostSymbols = try Self.importedSymbols(host)
        #expect(hostSymbols.contains("pthread_create"), "nm found too little in \(host)")
        #expect(!hostSymbols.contains("mallopt"), "\(host) calls mallopt")
        #expect(!(try Self.importedSymbols(Self.example)).contains("mallopt"))
        #expect(try Self.importedSymbols(Support.binary).contains("mallopt"))
    }
}
