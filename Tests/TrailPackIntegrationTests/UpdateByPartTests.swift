import Foundation
import Testing
import TrailPackArchive
import TrailPackClient
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// `trailpack fetch` of a newer version of an installed package: only the entries that changed are
/// fetched (one single range per run of them), the result is exactly the published file, and
/// anything unexpected falls back to the full download with the installed version intact.
@Suite("client: updates by part", .ownThreads, .needs(.curl, .clamscan, .python3), .serialized)
struct UpdateByPartTests {
    static let id = ClientServer.id

    /// santiam 1.2.0: 1.1.0 with one recording replaced (other bytes of the same kind).
    static func replacedRecording(_ dir: String) throws -> (package: String, recordingSize: Int64) {
        let tour = dir + "/santiam-v3"
        try Support.copyTree(Support.fixture("santiam-wagon-road"), tour)
        try Support.editJSON(tour + "/tour.json") { $0["version"] = "1.2.0" }
        let sound = tour + "/waypoints/04-house-rock/birdsong.wav"
        var bytes = try Support.read(sound)
        // The samples changed, the header kept: another recording of the same length.
        for i in stride(from: 64, to: bytes.count, by: 7) { bytes[i] ^= 0x5A }
        try Support.write(bytes, to: sound)
        let built = try Support.trailpack("build", tour, "-o", dir + "/santiam-v3.zip", "-q")
        #expect(built.status == 0, "\(built.stderr)")
        return (dir + "/santiam-v3.zip", Int64(bytes.count))
    }

    static func upload(_ s: ClientServer.Setup, _ package: String) throws {
        let up = try ServeProcess.curl([
            "-w", "%{http_code}", "-o", "/dev/null", "-H", "Authorization: Bearer \(ServeProcess.token)",
            "--data-binary", "@" + package, s.base + "/v1/admin/packages",
        ])
        #expect(up.stdout == "201", "\(up.stdout) \(up.stderr)")
    }

    static func number(_ value: JSONValue?) -> Int64 {
        if case .number(let n)? = value { return Int64(n.literal) ?? -1 }
        return -1
    }

    @Test(
        "a version fix (1.0.0 → 1.1.0) fetches the end records, the directory and the manifest only; one recording replaced (→ 1.2.0) fetches about that recording; both end byte for byte as published, with single ranges only"
    )
    func textFixAndReplacedAsset() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try ClientServer.setUp(dir)
            defer { s.server.stop() }
            var result = try s.fetch(Self.id, "--into", s.library, "--package-version", "1.0.0", "--json")
            #expect(result.status == 0, "\(result.stderr)")
            let proxy = try ClientTests.Proxy(upstream: s.server.port, log: dir + "/proxy.log", arguments: [])
            defer { proxy.stop() }
            result = try s.fetch(Self.id, "--into", s.library, "--json", through: proxy.base)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            var update = try s.json(result)["update"]
            let size = Int64(try Support.read(s.packages["santiam-v2"]!).count)
            #expect(update?["mode"] == .string("by-part"), "\(result.stdout)")
            let fetched = Self.number(update?["fetchedBytes"])
            // The last 16 KiB (end records and directory) and the manifest's entry: two requests.
            #expect(fetched > 0 && fetched * 10 < size, "fetched \(fetched) of \(size)")
            #expect(Self.number(update?["requests"]) == 2, "\(result.stdout)")
            #expect(try Support.read(s.library + "/\(Self.id)/1.1.0.zip") == Support.read(s.packages["santiam-v2"]!))
            let ranges = proxy.requests.filter { $0.contains("/v1/blobs/") }
            #expect(
                !ranges.isEmpty && ranges.allSatisfy { $0.contains("range=bytes=") && !$0.contains(",") }, "\(ranges)")

            let (v3, recordingSize) = try Self.replacedRecording(dir)
            try Self.upload(s, v3)
            result = try s.fetch(Self.id, "--into", s.library, "--json")
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            update = try s.json(result)["update"]
            #expect(update?["mode"] == .string("by-part"), "\(result.stdout)")
            let second = Self.number(update?["fetchedBytes"])
            let v3Size = Int64(try Support.read(v3).count)
            #expect(
                second >= recordingSize / 4 && second <= recordingSize + v3Size / 100 + 32_768,
                "fetched \(second), the recording \(recordingSize)")
            #expect(Self.number(update?["entriesFetched"]) == 2, "the manifest and the recording: \(result.stdout)")
            #expect(try Support.read(s.library + "/\(Self.id)/1.2.0.zip") == Support.read(v3))
        }
    }

    @Test(
        "a proxy that answers ranges with 200, or cuts a range short: the update by part is given up, the full download installs the same bytes; --full never tries"
    )
    func fallsBackOnWholeAnswers() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try ClientServer.setUp(dir)
            defer { s.server.stop() }
            var result = try s.fetch(Self.id, "--into", s.library, "--package-version", "1.0.0")
            #expect(result.status == 0, "\(result.stderr)")
            let proxy = try ClientTests.Proxy(
                upstream: s.server.port, log: dir + "/proxy.log", arguments: ["--no-ranges"])
            defer { proxy.stop() }
            result = try s.fetch(Self.id, "--into", s.library, "--json", through: proxy.base)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            let update = try s.json(result)["update"]
            #expect(update?["mode"] == .string("full"), "\(result.stdout)")
            if case .string(let why)? = update?["fallback"] {
                #expect(why.contains("200"), "\(why)")
            } else {
                Issue.record("no fallback reason: \(result.stdout)")
            }
            #expect(try Support.read(s.library + "/\(Self.id)/1.1.0.zip") == Support.read(s.packages["santiam-v2"]!))

            // A range cut short (the proxy drops its first blob answer after 100 bytes): given up, full download.
            let (v3, _) = try Self.replacedRecording(dir)
            try Self.upload(s, v3)
            let cut = try ClientTests.Proxy(
                upstream: s.server.port, log: dir + "/cut.log", arguments: ["--cut-after", "100"])
            defer { cut.stop() }
            result = try s.fetch(Self.id, "--into", s.library, "--json", through: cut.base)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            let cutUpdate = try s.json(result)["update"]
            #expect(cutUpdate?["mode"] == .string("full"), "\(result.stdout)")
            if case .string(let why)? = cutUpdate?["fallback"] {
                #expect(why.contains("ended after") || why.contains("broke"), "\(why)")
            }
            #expect(try Support.read(s.library + "/\(Self.id)/1.2.0.zip") == Support.read(v3))

            // --full: the whole file, no range asked for (1.3.0: 1.2.0 again under a new number).
            let tour = dir + "/santiam-v4"
            try Support.copyTree(Support.fixture("santiam-wagon-road"), tour)
            try Support.editJSON(tour + "/tour.json") { $0["version"] = "1.3.0" }
            #expect(try Support.trailpack("build", tour, "-o", dir + "/santiam-v4.zip", "-q").status == 0)
            try Self.upload(s, dir + "/santiam-v4.zip")
            let plain = try ClientTests.Proxy(upstream: s.server.port, log: dir + "/plain.log", arguments: [])
            defer { plain.stop() }
            result = try s.fetch(Self.id, "--into", s.library, "--full", "--json", through: plain.base)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            #expect(try s.json(result)["update"]?["mode"] == .string("full"))
            #expect(plain.requests.filter { $0.contains("/v1/blobs/") }.allSatisfy { $0.hasSuffix("range=-") })
        }
    }

    @Test(
        "a server whose new package does not hash right (its manifest altered on disk): the update by part is refused on the hash, the full download too; nothing is installed and the installed version stays intact"
    )
    func hostileServer() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try ClientServer.setUp(dir)
            defer { s.server.stop() }
            var result = try s.fetch(Self.id, "--into", s.library, "--package-version", "1.0.0")
            #expect(result.status == 0, "\(result.stderr)")
            let installed = s.library + "/\(Self.id)/1.0.0.zip"
            let before = try Support.read(installed)
            // The stored 1.1.0 altered in a part the update fetches (the manifest's data), CRC left as it was.
            let sha = try ServerFixtures.sha(s.packages["santiam-v2"]!)
            let blob = dir + "/data/blobs/\(sha.prefix(2))/\(sha).zip"
            var bytes = try Support.read(blob)
            bytes[120] ^= 0x01
            try Support.write(bytes, to: blob)
            result = try s.fetch(Self.id, "--into", s.library, "--json")
            #expect(result.status != 0, "\(result.stdout)")
            #expect(try Support.read(installed) == before, "the installed version is untouched")
            #expect(!FileManager.default.fileExists(atPath: s.library + "/\(Self.id)/1.1.0.zip"))
            let partial = (try? FileManager.default.contentsOfDirectory(atPath: s.library + "/.partial")) ?? []
            #expect(partial.isEmpty, "nothing half-made is left: \(partial)")
        }
    }

    @Test(
        "through --download-base-url to nginx serving the blobs: the update by part follows the redirect, nginx answers the single ranges, the result is the published file",
        .needs(.nginx))
    func throughNginx() throws {
        try Support.withTemporaryDirectory { dir in
            let packages = try ServerFixtures.packages(dir)
            let cdn = dir + "/cdn", tmp = dir + "/nginx-tmp"
            for folder in [cdn, tmp] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) }
            }
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &length) }
            }
            let port = Int(UInt16(bigEndian: address.sin_port))
            close(probe)
            try """
            master_process off;
            daemon off;
            pid \(dir)/nginx.pid;
            error_log \(dir)/nginx.err;
            events { worker_connections 64; }
            http {
              log_format ranges '$request range=$http_range status=$status';
              access_log \(dir)/access.log ranges;
              client_body_temp_path \(tmp); proxy_temp_path \(tmp); fastcgi_temp_path \(tmp); uwsgi_temp_path \(tmp); scgi_temp_path \(tmp);
              server { listen 127.0.0.1:\(port); root \(cdn); location / { } }
            }
            """.write(toFile: dir + "/nginx.conf", atomically: true, encoding: .utf8)
            let nginx = Process()
            nginx.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            nginx.arguments = ["-c", dir + "/nginx.conf", "-p", dir]
            // One process (master_process off), its output to nowhere: nothing outlives the test holding
            // the runner's pipes.
            nginx.standardOutput = FileHandle.nullDevice
            nginx.standardError = FileHandle.nullDevice
            try nginx.run()
            defer {
                kill(nginx.processIdentifier, SIGKILL)
                nginx.waitUntilExit()
            }
            try ServeProcess.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let server = try ServeProcess.launch([
                "--data", dir + "/data", "--admin-token-file", dir + "/token", "--approvals", "0", "--no-malware-scan",
                "--download-base-url", "http://127.0.0.1:\(port)/",
            ])
            defer { server.stop() }
            for name in ["santiam-wagon-road", "santiam-v2"] {
                let up = try ServeProcess.curl([
                    "-w", "%{http_code}", "-o", "/dev/null", "-H", "Authorization: Bearer \(ServeProcess.token)",
                    "--data-binary", "@" + packages[name]!, server.base + "/v1/admin/packages",
                ])
                #expect(up.stdout == "201", "\(up.stdout) \(up.stderr)")
                let sha = try ServerFixtures.sha(packages[name]!)
                try FileManager.default.copyItem(atPath: packages[name]!, toPath: cdn + "/\(sha).zip")
            }
            let library = dir + "/library"
            var result = try Support.run(
                Support.binary, ["fetch", server.base, Self.id, "--into", library, "--package-version", "1.0.0"])
            #expect(result.status == 0, "\(result.stderr)")
            result = try Support.run(Support.binary, ["fetch", server.base, Self.id, "--into", library, "--json"])
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            let report = try JSONParser.parse(Array(result.stdoutBytes)).value
            #expect(report["update"]?["mode"] == .string("by-part"), "\(result.stdout)")
            #expect(try Support.read(library + "/\(Self.id)/1.1.0.zip") == Support.read(packages["santiam-v2"]!))
            let log = (try? String(contentsOfFile: dir + "/access.log", encoding: .utf8)) ?? ""
            let ranged = log.split(separator: "\n").filter { $0.contains("range=bytes=") && $0.contains("status=206") }
            #expect(ranged.count == 2, "\(log)")
        }
    }

    @Test(
        "hostile blob answers: ranges from another file, or a file whose manifest lists an asset its directory lacks, are refused (and their full download too: nothing installed); an entry changed on the server under its old CRC is taken from the installed copy, so what is installed is exactly the published file"
    )
    func hostileRanges() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try ClientServer.setUp(dir)
            defer { s.server.stop() }
            var result = try s.fetch(Self.id, "--into", s.library, "--package-version", "1.0.0")
            #expect(result.status == 0, "\(result.stderr)")
            let installed = try Support.read(s.library + "/\(Self.id)/1.0.0.zip")
            // Another file answers for 1.1.0's blob: 1.0.0's own bytes.
            let other = try ClientTests.Proxy(
                upstream: s.server.port, log: dir + "/other.log",
                arguments: ["--blob-file", s.packages["santiam-wagon-road"]!])
            result = try s.fetch(Self.id, "--into", s.library, "--json", through: other.base)
            other.stop()
            #expect(result.status != 0, "\(result.stdout) \(result.stderr)")
            #expect(try Support.read(s.library + "/\(Self.id)/1.0.0.zip") == installed)
            #expect(!FileManager.default.fileExists(atPath: s.library + "/\(Self.id)/1.1.0.zip"))
            try? FileManager.default.removeItem(atPath: s.library + "/.partial")
            // 1.1.0 without one of the assets its manifest lists (the central directory lacks it).
            let altered0 = try Support.read(s.packages["santiam-v2"]!)
            var forged = try ZipForge.from(package: try Support.read(s.packages["santiam-v2"]!))
            forged.entries.removeAll { String(decoding: $0.name, as: UTF8.self).hasSuffix("/cascadia/view.png") }
            try Support.write(forged.bytes(), to: dir + "/missing.zip")
            let missing = try ClientTests.Proxy(
                upstream: s.server.port, log: dir + "/missing.log", arguments: ["--blob-file", dir + "/missing.zip"])
            result = try s.fetch(Self.id, "--into", s.library, "--json", through: missing.base)
            missing.stop()
            #expect(result.status != 0, "\(result.stdout) \(result.stderr)")
            #expect(try Support.read(s.library + "/\(Self.id)/1.0.0.zip") == installed)
            #expect(!FileManager.default.fileExists(atPath: s.library + "/\(Self.id)/1.1.0.zip"))
            #expect(forged.entries.count == (try ZipForge.from(package: altered0)).entries.count - 1)
            // (A full download broken off is resumed next time rather than tried by part: start afresh.)
            try? FileManager.default.removeItem(atPath: s.library + "/.partial")
            // 1.1.0 with a byte of an unchanged entry's data flipped, its CRC and sizes left as they were.
            var altered = try Support.read(s.packages["santiam-v2"]!)
            let source = try FileSource(path: s.packages["santiam-v2"]!)
            let entry = try #require(try ZipDirectory.read(source).entries.first { $0.name.hasSuffix(".png") })
            altered[Int(try #require(entry.dataOffset)) + 10] ^= 0x01
            try Support.write(altered, to: dir + "/altered.zip")
            let lying = try ClientTests.Proxy(
                upstream: s.server.port, log: dir + "/lying.log", arguments: ["--blob-file", dir + "/altered.zip"])
            defer { lying.stop() }
            result = try s.fetch(Self.id, "--into", s.library, "--json", through: lying.base)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            #expect(try s.json(result)["update"]?["mode"] == .string("by-part"), "\(result.stdout)")
            #expect(
                try Support.read(s.library + "/\(Self.id)/1.1.0.zip") == Support.read(s.packages["santiam-v2"]!),
                "exactly the published bytes, not the altered ones")
        }
    }
}
