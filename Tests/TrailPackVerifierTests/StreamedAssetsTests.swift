import Foundation
import Testing
import TrailPackArchive
import TrailPackCrypto
import TrailPackTestSupport

@testable import TrailPackCore
@testable import TrailPackVerifier

/// `Verifier.Options.keepsAssets = false` (what `trailpack verify` asks): each stop's assets are
/// checked against the entries as the manifest is read and let go. Whatever a package holds, the
/// findings must be those of the verification that keeps the whole manifest, in the same order.
@Suite("the stops' assets let go as they are read", .ownThreads)
struct StreamedAssetsTests {
    func verify(_ bytes: [UInt8], threads: Int, keeps: Bool) throws -> VerificationReport {
        var options = Verifier.Options(threads: threads)
        options.keepsAssets = keeps
        return try Verifier.verify(source: MemorySource(bytes), options: options)
    }

    /// Verifies `bytes` on one thread and on two, keeping the assets and letting them go: the same
    /// findings in the same order, the same count of assets, and stops that hold a part of theirs.
    /// Returns the report that kept them (two threads).
    @discardableResult
    func agree(_ bytes: [UInt8], _ label: String) throws -> VerificationReport? {
        var last: VerificationReport?
        for threads in [1, 2] {
            let kept = try verify(bytes, threads: threads, keeps: true)
            let letGo = try verify(bytes, threads: threads, keeps: false)
            #expect(
                kept.findings.map(\.description) == letGo.findings.map(\.description),
                "\(label), \(threads) thread(s): kept \(kept.findings.map(\.description)), let go \(letGo.findings.map(\.description))"
            )
            #expect(kept.assetCount == letGo.assetCount, "\(label)")
            #expect(kept.assetCount == (kept.manifest?.assetCount ?? 0), "\(label)")
            #expect((kept.manifest == nil) == (letGo.manifest == nil), "\(label)")
            if let a = kept.manifest, let b = letGo.manifest {
                #expect(a.waypoints.count == b.waypoints.count, "\(label)")
                var same = a
                for (i, (w, v)) in zip(a.waypoints, b.waypoints).enumerated() {
                    // What a stop keeps is a part of its assets, in their order.
                    var rest = w.assets[...]
                    for asset in v.assets {
                        guard let at = rest.firstIndex(of: asset) else {
                            Issue.record("\(label): stop \(i) keeps '\(asset.path)', which it does not list")
                            break
                        }
                        rest = rest[(at + 1)...]
                    }
                    same.waypoints[i].assets = v.assets
                }
                // (Else compared as printed: a manifest read best-effort may hold a NaN, which equals nothing.)
                #expect(
                    same == b || "\(same)" == "\(b)", "\(label): the manifests differ in more than the stops' assets")
            }
            last = kept
        }
        return last
    }

    /// The family-hikes package with `manifest` as its manifest.
    func package(manifest: [UInt8]) throws -> [UInt8] {
        var f = try ZipForge.from(package: Packages.familyHikes)
        f.entries[0].data = manifest
        return f.bytes()
    }

    @Test("every fixture package, as built", arguments: Support.fixtureNames)
    func fixtures(name: String) throws {
        try Support.withTemporaryDirectory { dir in
            let bytes = try Support.read(try Support.buildWithProgram(name, into: dir))
            let report = try #require(try agree(bytes, name))
            #expect(report.isValid, "\(report.findings)")
            #expect(report.assetCount > 0)
            // What `trailpack verify` keeps of a tour without texts on its files is little.
            let letGo = try verify(bytes, threads: 2, keeps: false)
            let kept = letGo.manifest?.waypoints.reduce(0) { $0 + $1.assets.count } ?? 0
            #expect(kept < report.assetCount, "\(name): every asset kept")
        }
    }

    @Test("a package whose manifest's first `waypoints` is not a list counts none of a second list's assets")
    func secondListOfStops() throws {
        let f = try ZipForge.from(package: Packages.familyHikes)
        guard case .object(let members) = try JSONParser.parse(f.entries[0].data).value,
            let stops = members.first(where: { $0.key == "waypoints" })?.value
        else {
            Issue.record("the fixture's manifest is not an object")
            return
        }
        let moved =
            members.filter { $0.key != "waypoints" } + [
                JSONMember("waypoints", .number(JSONNumber(Int64(0)))), JSONMember("waypoints", stops),
            ]
        let report = try #require(
            try agree(try package(manifest: Array(JSONWriter.string(.object(moved)).utf8)), "moved"))
        // The stops are not the manifest's: their files are unlisted, never matched.
        #expect(!report.findings.contains { $0.code == .contentMissing || $0.code == .contentSHA256 })
        #expect(report.findings.contains { $0.code == .contentUnlisted && $0.file?.hasPrefix("waypoints/") == true })
    }

    @Test("every hostile archive of the verifier's table", arguments: VerifierTests.structureCases.indices)
    func hostile(index: Int) throws {
        let (name, _, mutate) = VerifierTests.structureCases[index]
        var f = try ZipForge.from(package: Packages.familyHikes)
        mutate(&f)
        try agree(f.bytes(), name)
    }

    /// The example manifests (every rule of the validator broken once), each as a package's manifest
    /// (its assets then missing from the package, or there under another case), as written and with
    /// the tour's languages, language rule and translations moved after its waypoints.
    @Test("every example manifest, its languages before its stops and after them")
    func examples() throws {
        let root = ManifestExamples.examplesDir
        var count = 0
        for folder in ["valid", "invalid"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: root + "/" + folder).filter {
                $0.hasSuffix(".json")
            }.sorted()
            for name in names {
                let bytes = try Support.read(root + "/" + folder + "/" + name)
                try agree(try package(manifest: bytes), "\(folder)/\(name)")
                if case .object(let members)? = try? JSONParser.parse(bytes).value {
                    let late = ["languages", "requireAllLanguages", "translations"]
                    let moved = members.filter { !late.contains($0.key) } + members.filter { late.contains($0.key) }
                    try agree(
                        try package(manifest: Array(JSONWriter.string(.object(moved)).utf8)), "\(folder)/\(name), moved"
                    )
                }
                count += 1
            }
        }
        #expect(count >= 70)
    }

    /// The family-hikes manifest, changed by `change` (its members in order).
    func edited(_ change: (inout [JSONMember]) -> Void) throws -> [UInt8] {
        let f = try ZipForge.from(package: Packages.familyHikes)
        guard case .object(var members) = try JSONParser.parse(f.entries[0].data).value else {
            Issue.record("the fixture's manifest is not an object")
            return []
        }
        change(&members)
        return try package(manifest: Array(JSONWriter.string(.object(members)).utf8))
    }

    /// The stops' assets of a manifest's members, changed by `change` (stop, assets).
    func assets(_ members: inout [JSONMember], _ change: (Int, inout [JSONValue]) -> Void) {
        guard let at = members.firstIndex(where: { $0.key == "waypoints" }),
            case .array(var stops) = members[at].value
        else { return }
        for i in stops.indices {
            guard case .object(var stop) = stops[i], let a = stop.firstIndex(where: { $0.key == "assets" }),
                case .array(var list) = stop[a].value
            else { continue }
            change(i, &list)
            stop[a].value = .array(list)
            stops[i] = .object(stop)
        }
        members[at].value = .array(stops)
    }

    static func field(_ asset: JSONValue, _ key: String) -> String? {
        if case .string(let s)? = asset[key] { return s }
        return nil
    }

    static func setting(_ asset: JSONValue, _ key: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var members) = asset else { return asset }
        if let at = members.firstIndex(where: { $0.key == key }) {
            members[at].value = value
        } else {
            members.append(JSONMember(key, value))
        }
        return .object(members)
    }

    @Test("assets listed twice, under another case, in another stop, and of another size, digest or type")
    func listings() throws {
        var paths: [String] = []
        _ = try edited { members in assets(&members) { _, list in paths += list.compactMap { Self.field($0, "path") } }
        }
        #expect(paths.count >= 4)
        let cases: [(String, (inout [JSONMember]) -> Void)] = [
            ("every asset listed twice", { m in assets(&m) { _, list in list += list } }),
            (
                "the first stop's assets listed again by the last stop",
                { m in
                    var first: [JSONValue] = []
                    assets(&m) { i, list in if i == 0 { first = list } }
                    var last = 0
                    assets(&m) { i, _ in last = i }
                    assets(&m) { i, list in if i == last { list += first } }
                }
            ),
            (
                "each path in capitals",
                { m in
                    assets(&m) { _, list in
                        list = list.map { Self.setting($0, "path", .string(Self.field($0, "path")!.uppercased())) }
                    }
                }
            ),
            (
                "each path in capitals beside itself",
                { m in
                    assets(&m) { _, list in
                        list += list.map { Self.setting($0, "path", .string(Self.field($0, "path")!.uppercased())) }
                    }
                }
            ),
            (
                "sizes one more",
                { m in
                    assets(&m) { _, list in
                        list = list.map { a in
                            guard case .number(let n)? = a["size"], let size = n.int64 else { return a }
                            return Self.setting(a, "size", .number(JSONNumber(size + 1)))
                        }
                    }
                }
            ),
            (
                "digests of nothing",
                { m in
                    assets(&m) { _, list in
                        list = list.map { Self.setting($0, "sha256", .string(SHA256.hash([]).hex)) }
                    }
                }
            ),
            (
                "every file a PNG",
                { m in
                    assets(&m) { _, list in
                        list = list.map {
                            Self.setting(Self.setting($0, "kind", .string("image")), "mediaType", .string("image/png"))
                        }
                    }
                }
            ),
            (
                "texts on every file, in a language not declared",
                { m in
                    assets(&m) { _, list in
                        list = list.map {
                            Self.setting(Self.setting($0, "title", .string("A file")), "language", .string("fr"))
                        }
                    }
                }
            ),
            (
                "languages after the stops",
                { m in
                    m.append(JSONMember("languages", .array([.string("en"), .string("es")])))
                    assets(&m) { i, list in
                        if i == 0, !list.isEmpty { list[0] = Self.setting(list[0], "language", .string("es")) }
                    }
                }
            ),
            // The stop's other assets are let go: the findings still name the asset's place in the manifest.
            (
                "a stop's last asset in a language not declared, after assets without texts",
                { m in
                    assets(&m) { _, list in
                        list = list.map { a in
                            guard case .object(let fields) = a else { return a }
                            return .object(
                                fields.filter {
                                    !["title", "alt", "transcript", "captions", "language"].contains($0.key)
                                })
                        }
                        if let last = list.indices.last {
                            list[last] = Self.setting(list[last], "language", .string("fr"))
                        }
                    }
                }
            ),
        ]
        for (label, change) in cases {
            let report = try agree(try edited(change), label)
            if label.hasPrefix("a stop's last asset") {
                let undeclared = report?.findings.filter { $0.code == .languageUndeclared } ?? []
                #expect(
                    !undeclared.isEmpty
                        && undeclared.allSatisfy { !($0.jsonPath?.description ?? "").contains("assets[0]") })
            }
        }
    }
}

/// The reader with a sink (the stops' rules run as each is read) and without one (the whole
/// manifest validated at the end) find the same, in the same order.
@Suite("a manifest read stop by stop", .ownThreads)
struct StreamedReaderTests {
    /// A sink that keeps nothing and names each asset by the path it was given.
    final class Paths: ManifestAssetSink {
        var paths: [Int: String] = [:]
        func take(_ assets: [Asset], waypoint: Int, first: Int) {
            for (k, a) in assets.enumerated() { paths[first + k] = a.path }
        }
        func path(ofAsset number: Int) -> String { paths[number] ?? "" }
        var keepsAssets: Bool { false }
        var assetCapacity: Int { 16 }
    }

    func read(_ bytes: [UInt8], sink: (any ManifestAssetSink)?) -> ManifestReading {
        var given = false
        return bytes.withUnsafeBytes { all in
            ManifestReader.read(
                chunks: {
                    defer { given = true }
                    return given ? nil : all
                }, assets: sink)
        }
    }

    func agree(_ bytes: [UInt8], _ label: String) {
        let whole = ManifestReader.read(bytes)
        let streamed = read(bytes, sink: Paths())
        #expect(
            whole.findings.map(\.description) == streamed.findings.map(\.description),
            "\(label): whole \(whole.findings.map(\.description)), stop by stop \(streamed.findings.map(\.description))"
        )
        #expect(whole.assetCount == streamed.assetCount, "\(label)")
    }

    @Test("every example manifest, and stops after an element that is no stop, and a second list of stops")
    func examples() throws {
        let root = ManifestExamples.examplesDir
        for folder in ["valid", "invalid"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: root + "/" + folder).sorted()
            where name.hasSuffix(".json") {
                agree(try Support.read(root + "/" + folder + "/" + name), "\(folder)/\(name)")
            }
        }
        let base = try Support.read(root + "/valid/languages.json")
        guard case .object(let members) = try JSONParser.parse(base).value,
            case .array(let stops)? = members.first(where: { $0.key == "waypoints" })?.value
        else {
            Issue.record("languages.json has no list of stops")
            return
        }
        func with(_ waypoints: [JSONMember]) -> [UInt8] {
            Array(JSONWriter.string(.object(members.filter { $0.key != "waypoints" } + waypoints)).utf8)
        }
        // An element that is not a stop first: the stops after it are decoded one place earlier.
        agree(
            with([JSONMember("waypoints", .array([.number(JSONNumber(Int64(0)))] + stops + stops))]), "a number first")
        agree(with([JSONMember("waypoints", .array(stops + [.string("x")] + stops))]), "a string between")
        // The first `waypoints` is not a list; a second one is (the parser streams that one).
        agree(
            with([JSONMember("waypoints", .number(JSONNumber(Int64(0)))), JSONMember("waypoints", .array(stops))]),
            "a number, then a list")
    }
}

/// The matcher itself, in each order its two sides can come in.
@Suite("an asset meets its entry in either order", .ownThreads)
struct ContentMatcherTests {
    /// The family-hikes package's directory, an entry of it with data, and that entry's check.
    func setting() throws -> (ZipDirectory, ZipEntry, Verifier.EntryCheck) {
        let source = MemorySource(Packages.familyHikes)
        let directory = try ZipDirectory.read(source)
        let entry = try #require(directory.entries.first { $0.name.hasSuffix(".txt") && $0.uncompressedSize > 0 })
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        let check = try Verifier.checkData(source: source, entry: entry, buffer: buffer)
        #expect(check.sha256 != nil)
        return (directory, entry, check)
    }

    /// The entry's asset with a wrong digest, then an asset no entry holds.
    func assets(_ entry: ZipEntry) -> [Asset] {
        [
            Asset(
                path: entry.name, kind: .text, mediaType: "text/plain", size: entry.uncompressedSize,
                sha256: String(repeating: "0", count: 64)),
            Asset(path: "waypoints/nowhere/gone.txt", kind: .text, mediaType: "text/plain", size: 1, sha256: ""),
        ]
    }

    func codes(_ findings: [Finding]) -> [FindingCode] {
        findings.map(\.code).filter { $0 != .contentUnlisted }
    }

    @Test("declared before the directory is read, before the data, after it, or by a reading that does not count")
    func orders() throws {
        let (directory, entry, check) = try setting()
        let expected: [FindingCode] = [.contentSHA256, .contentMissing]

        // The stop taken before the directory is read waits in the feed, its paths still named.
        var matcher = ContentMatcher()
        var feed = ContentMatcher.Feed(matcher, keepsAssets: false)
        feed.take(assets(entry), waypoint: 0, first: 0)
        #expect(feed.path(ofAsset: 0) == entry.name && feed.path(ofAsset: 1) == "waypoints/nowhere/gone.txt")
        matcher.open(directory, accepting: feed)
        matcher.record(check, at: entry.index)
        feed.drain()
        #expect(codes(matcher.findings(feed: feed)) == expected)
        #expect(feed.path(ofAsset: 0) == entry.name && feed.path(ofAsset: 1) == "waypoints/nowhere/gone.txt")

        // The data first, then the declaration; and the declaration first, then the data.
        for dataFirst in [true, false] {
            matcher = ContentMatcher()
            feed = ContentMatcher.Feed(matcher, keepsAssets: false)
            matcher.open(directory, accepting: feed)
            if dataFirst { matcher.record(check, at: entry.index) }
            feed.take(assets(entry), waypoint: 0, first: 0)
            if !dataFirst { matcher.record(check, at: entry.index) }
            #expect(codes(matcher.findings(feed: feed)) == expected, "data first: \(dataFirst)")
            // Data found damaged afterwards (a CRC-32 taken on another thread): its digest no longer counts.
            matcher.damaged(at: [entry.index])
            #expect(codes(matcher.findings(feed: feed)) == [.contentMissing])
            #expect(matcher.digest(at: entry.index) == nil)
        }

        // A reading that does not count declares nothing; another accepted later does.
        matcher = ContentMatcher()
        let early = ContentMatcher.Feed(matcher, keepsAssets: false)
        matcher.open(directory, accepting: nil)
        matcher.record(check, at: entry.index)
        early.take(assets(entry), waypoint: 0, first: 0)
        #expect(codes(matcher.findings(feed: early)).isEmpty)
        #expect(early.path(ofAsset: 1) == "waypoints/nowhere/gone.txt")
        let again = ContentMatcher.Feed(matcher, keepsAssets: false)
        matcher.accept(again)
        again.take(assets(entry), waypoint: 0, first: 0)
        #expect(codes(matcher.findings(feed: again)) == expected)
        #expect(matcher.digest(at: entry.index) == check.sha256)
    }

    @Test("an entry's first bytes are judged against the signature its name asks for, whichever side comes first")
    func signatures() throws {
        let (directory, _, _) = try setting()
        let png = try #require(directory.entries.first { $0.name.hasSuffix(".png") })
        // A .png whose data is text (the check as the entry walk would make it).
        var head = EntryHead()
        Array("Not a picture at all".utf8).withUnsafeBytes { head.append($0) }
        let check = Verifier.EntryCheck.intact(sha256: SHA256.hash([]), head: head)
        let asset = Asset(
            path: png.name, kind: .image, mediaType: "image/png", size: png.uncompressedSize,
            sha256: SHA256.hash([]).hex)
        for dataFirst in [true, false] {
            let matcher = ContentMatcher()
            let feed = ContentMatcher.Feed(matcher, keepsAssets: true)
            matcher.open(directory, accepting: feed)
            if dataFirst { matcher.record(check, at: png.index) }
            feed.take([asset], waypoint: 0, first: 0)
            if !dataFirst { matcher.record(check, at: png.index) }
            let found = matcher.findings(feed: feed).filter { $0.code == .assetTypeMismatch }
            #expect(found.map(\.file) == [png.name], "data first: \(dataFirst)")
            #expect(
                found.first?.message
                    == ContentSniff.assetMismatch(
                        path: png.name, kind: .image, mediaType: "image/png", head: head.bytes))
            #expect(found.first?.message.contains("it seems to be plain text") == true)
        }
        // Names whose extension asks for a signature, read from the bytes as from the string.
        for name in ["a/b.PNG", "a/b.jpeg", "a/.png", ".png", "a.b/c", "a/b.txt", "b.mp4", "b.Opus", "a/b.", "x.pdf/"] {
            let fromBytes = Array(name.utf8).withUnsafeBufferPointer(ContentSniff.expectedFormat(forName:))
            let ext = PathText.fileExtension(name.hasSuffix("/") ? "" : name).lowercased()
            #expect(fromBytes == ContentSniff.expectedFormat(forExtension: ext), "\(name)")
        }
    }
}
