import Foundation
import Testing
import TrailPackBuilder
import TrailPackTestFixtures
import TrailPackTestSupport
import TrailPackVerifier

@testable import TrailPackCore

@Suite("builder", .ownThreads)
struct BuilderTests {
    @Test(
        "every fixture builds, opens cleanly in unzip, bsdtar, 7z and Python's zipfile with manifest.json first, and sha256sum -c accepts the sidecar",
        .needs(.unzip, .bsdtar, .sevenZip, .python3, .sha256sum), arguments: Support.fixtureNames)
    func crossToolChecks(name: String) throws {
        try Support.withTemporaryDirectory { dir in
            let out = try Support.trailpack("build", Support.fixture(name), "-o", dir + "/\(name).zip", "--quiet")
            #expect(out.status == 0, "\(out.stderr)")
            let pkg = dir + "/\(name).zip"
            #expect(try Support.run("unzip", ["-tq", pkg]).status == 0)
            let listing = try Support.run("bsdtar", ["-tf", pkg])
            #expect(listing.status == 0)
            #expect(listing.stdout.split(separator: "\n").first == "manifest.json")
            let sevenZip = try Support.run("7z", ["t", pkg])
            #expect(sevenZip.status == 0 && sevenZip.stdout.contains("Everything is Ok"), "\(sevenZip.stdout)")
            let python = try Support.run(
                "python3",
                [
                    "-c",
                    "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(z.namelist()[0])",
                    pkg,
                ])
            #expect(python.status == 0, "\(python.stderr)")
            #expect(python.stdout == "manifest.json\n")
            let check = try Support.run("sha256sum", ["-c", "\(name).zip.sha256"], directory: dir)
            #expect(check.status == 0 && check.stdout.contains(": OK"), "\(check.stdout) \(check.stderr)")
            // The package verifies, and the compression policy holds: media stored, text deflated.
            let report = try Verifier.verify(path: pkg)
            #expect(report.isValid, "\(report.findings)")
            // Info-ZIP's own reading of the methods ("compression method: none (stored)" / "deflated").
            let verbose = try Support.run("unzip", ["-Zv", pkg])
            #expect(verbose.status == 0, "\(verbose.stderr)")
            let methodsRun = try Support.run(
                "python3",
                [
                    "-c",
                    "import zipfile,sys\nfor i in zipfile.ZipFile(sys.argv[1]).infolist(): print(i.filename, i.compress_type)",
                    pkg,
                ])
            #expect(methodsRun.status == 0, "\(methodsRun.stderr)")
            let methods = methodsRun.stdout
            #expect(methods.split(separator: "\n").count == report.entryCount)
            // unzip and Python agree on every entry's method.
            let unzipMethods = verbose.stdout.split(separator: "\n").filter { $0.contains("compression method:") }
            #expect(unzipMethods.count == report.entryCount)
            #expect(
                unzipMethods.filter { $0.contains("none (stored)") }.count
                    == methods.split(separator: "\n").filter { $0.hasSuffix(" 0") }.count)
            for line in methods.split(separator: "\n") {
                let parts = line.split(separator: " ")
                let file = String(parts[0]), method = String(parts[1])
                let expectStored = MediaTypes.lookup(fileName: file).map { !$0.compress } ?? false
                #expect(method == (expectStored ? "0" : "8"), "\(file) has method \(method)")
            }
        }
    }

    @Test(
        "the same tour gives the same bytes from a copy with shuffled mtimes, permissions and creation order, under another TZ, locale and umask",
        .needs(.python3), arguments: Support.fixtureNames)
    func determinism(name: String) throws {
        try Support.withTemporaryDirectory { dir in
            let first = try Support.trailpack("build", Support.fixture(name), "-o", dir + "/a.zip", "--quiet")
            #expect(first.status == 0, "\(first.stderr)")
            // A copy made in reverse order, file by file, with other times and modes.
            let copy = dir + "/copy"
            let files = try FileManager.default.subpathsOfDirectory(atPath: Support.fixture(name)).sorted().reversed()
            var seed: UInt64 = 42
            for rel in files {
                let src = Support.fixture(name) + "/" + rel
                var isDir: ObjCBool = false
                FileManager.default.fileExists(atPath: src, isDirectory: &isDir)
                if isDir.boolValue { continue }
                let dst = copy + "/" + rel
                try FileManager.default.createDirectory(
                    atPath: (dst as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: src, toPath: dst)
                seed = seed &* 6364136223846793005 &+ 1
                let date = Date(timeIntervalSince1970: Double(seed % 2_000_000_000))
                try FileManager.default.setAttributes(
                    [.modificationDate: date, .posixPermissions: [0o600, 0o644, 0o444, 0o755][Int(seed % 4)]],
                    ofItemAtPath: dst)
            }
            let env = ["PATH": "/usr/bin:/bin", "TZ": "Pacific/Chatham", "LC_ALL": "C", "LANG": "C"]
            let second = try Support.run(
                "/bin/sh",
                [
                    "-c", "umask 077 && exec \"$0\" build \"$1\" -o \"$2\" --quiet", Support.binary, copy,
                    dir + "/b.zip",
                ], environment: env)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(try Support.read(dir + "/a.zip") == Support.read(dir + "/b.zip"), "\(name): packages differ")
            // SOURCE_DATE_EPOCH changes the stamped time, and only that.
            let third = try Support.trailpack(
                "build", copy, "-o", dir + "/c.zip", "--quiet",
                environment: ["SOURCE_DATE_EPOCH": "1700000000", "PATH": "/usr/bin:/bin"])
            #expect(third.status == 0)
            let c = try Support.read(dir + "/c.zip")
            #expect(c != (try Support.read(dir + "/a.zip")))
            #expect(c.count == (try Support.read(dir + "/a.zip")).count)
            let dates = try Support.run(
                "python3",
                [
                    "-c",
                    "import zipfile,sys; print(set(i.date_time for i in zipfile.ZipFile(sys.argv[1]).infolist()))",
                    dir + "/c.zip",
                ])
            #expect(dates.status == 0, "\(dates.stderr)")
            #expect(dates.stdout.contains("(2023, 11, 14, 22, 13, 20)"), "\(dates.stdout)")
        }
    }

    @Test(
        "sign stamps SOURCE_DATE_EPOCH in its trusted comment, and refuses an invalid one as build does (it used to sign with the current time)"
    )
    func signingTime() throws {
        try Support.withTemporaryDirectory { dir in
            let package = try Support.buildFixture("family-hikes", into: dir)
            #expect(
                try Support.trailpack(["keygen", "-s", dir + "/k.key", "-p", dir + "/k.pub", "--unencrypted"]).status
                    == 0)
            let env = ["PATH": "/usr/bin:/bin"]
            let good = try Support.trailpack(
                ["sign", package, "-s", dir + "/k.key", "-o", dir + "/a.minisig"],
                environment: env.merging(["SOURCE_DATE_EPOCH": "1700000000"]) { $1 })
            #expect(good.status == 0, "\(good.stderr)")
            #expect(try String(contentsOfFile: dir + "/a.minisig", encoding: .utf8).contains("timestamp:1700000000"))
            let bad = try Support.trailpack(
                ["sign", package, "-s", dir + "/k.key", "-o", dir + "/b.minisig"],
                environment: env.merging(["SOURCE_DATE_EPOCH": "yesterday"]) { $1 })
            #expect(
                bad.status == 2 && bad.stderr.contains("SOURCE_DATE_EPOCH='yesterday'"), "\(bad.status) \(bad.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/b.minisig"))
        }
    }

    /// A copy of the Santiam fixture to break.
    func brokenTour(_ dir: String, _ breakIt: (String) throws -> Void) throws -> Support.Output {
        let tour = dir + "/tour"
        try Support.copyTree(Support.fixture("santiam-wagon-road"), tour)
        try breakIt(tour)
        return try Support.trailpack("build", tour, "-o", dir + "/out.zip")
    }

    func editWaypoint(_ tour: String, _ folder: String, _ edit: (inout String) -> Void) throws {
        let path = tour + "/waypoints/" + folder + "/waypoint.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        edit(&text)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test(
        "ranger errors: each is reported with its code, the file, and a message that says how to fix it; nothing is written"
    )
    func rangerErrors() throws {
        struct Case { var code: String; var message: String; var breakIt: (String) throws -> Void }
        let cases: [Case] = [
            Case(code: "source.asset-missing", message: "did you mean 'about.md'?") { tour in
                try editWaypoint(tour, "01-sweet-home") {
                    $0 = $0.replacingOccurrences(of: "\"about.md\"", with: "\"About.md\"")
                }
            },
            Case(code: "source.asset-missing", message: "did you mean 'view.png'?") { tour in
                try editWaypoint(tour, "02-cascadia") {
                    $0 = $0.replacingOccurrences(of: "\"view.png\"", with: "\"veiw.png\"")
                }
            },
            Case(code: "source.asset-outside", message: "points outside the waypoint folder") { tour in
                try editWaypoint(tour, "03-mountain-house") {
                    $0 = $0.replacingOccurrences(of: "\"about.md\"", with: "\"../02-cascadia/about.md\"")
                }
            },
            Case(code: "source.asset-outside", message: "outside the tour folder") { tour in
                let target = tour + "/../secret.txt"
                try "secret".write(toFile: target, atomically: true, encoding: .utf8)
                try FileManager.default.removeItem(atPath: tour + "/waypoints/04-house-rock/about.md")
                try FileManager.default.createSymbolicLink(
                    atPath: tour + "/waypoints/04-house-rock/about.md", withDestinationPath: target)
            },
            Case(code: "source.asset-not-file", message: "not a regular file") { tour in
                let path = tour + "/waypoints/05-tombstone-prairie/about.md"
                try FileManager.default.removeItem(atPath: path)
                #expect(mkfifo(path, 0o644) == 0)
            },
            Case(code: "source.asset-empty", message: "is empty") { tour in
                try Data().write(to: URL(fileURLWithPath: tour + "/waypoints/06-fish-lake/about.md"))
            },
            Case(code: "waypoint.name-duplicate", message: "already used") { tour in
                try editWaypoint(tour, "07-santiam-pass") {
                    $0 = $0.replacingOccurrences(of: "\"Santiam Pass\"", with: "\"FISH LAKE\"")
                }
            },
            Case(code: "waypoint.order-duplicate", message: "give each stop its own number") { tour in
                try FileManager.default.moveItem(
                    atPath: tour + "/waypoints/08-cache-creek-toll-station",
                    toPath: tour + "/waypoints/07-cache-creek-toll-station")
            },
            Case(code: "coordinate.latitude", message: "swapped") { tour in
                try editWaypoint(tour, "02-cascadia") {
                    $0 = $0.replacingOccurrences(of: "\"latitude\": 44.3979", with: "\"latitude\": -122.481")
                        .replacingOccurrences(of: "\"longitude\": -122.481", with: "\"longitude\": 44.3979")
                }
            },
            Case(code: "waypoint.outside-bounds", message: "widen the bounds") { tour in
                try editWaypoint(tour, "02-cascadia") {
                    $0 = $0.replacingOccurrences(of: "\"latitude\": 44.3979", with: "\"latitude\": 45.3979")
                }
            },
            Case(code: "source.asset-type", message: "use one of") { tour in
                try "MZ".write(toFile: tour + "/waypoints/01-sweet-home/setup.exe", atomically: true, encoding: .utf8)
                try editWaypoint(tour, "01-sweet-home") {
                    $0 = $0.replacingOccurrences(of: "\"about.es.md\",", with: "\"about.es.md\", \"setup.exe\",")
                }
            },
            Case(code: "source.waypoint-file-missing", message: "is empty; delete it if it is not a stop") { tour in
                try FileManager.default.createDirectory(
                    atPath: tour + "/waypoints/09-sisters", withIntermediateDirectories: true)
            },
            Case(code: "source.tour-missing", message: "trailpack init") { tour in
                try FileManager.default.removeItem(atPath: tour + "/tour.json")
            },
            Case(code: "json.syntax", message: "line") { tour in
                try editWaypoint(tour, "01-sweet-home") { $0 = $0.replacingOccurrences(of: "\"name\":", with: "name:") }
            },
            Case(code: "manifest.unknown-field", message: "did you mean 'description'?") { tour in
                try editWaypoint(tour, "01-sweet-home") {
                    $0 = $0.replacingOccurrences(of: "\"description\":", with: "\"descripton\":")
                }
            },
        ]
        for c in cases {
            try Support.withTemporaryDirectory { dir in
                let out = try brokenTour(dir, c.breakIt)
                #expect(out.status == 1, "\(c.code): exit \(out.status), \(out.stderr)")
                let line = out.stderr.split(separator: "\n").first { $0.contains("[\(c.code)]") }
                #expect(line != nil, "\(c.code) (\(c.message)) not reported: \(out.stderr)")
                #expect(line?.contains(c.message) == true, "\(c.code): \(line ?? "")")
                #expect(!FileManager.default.fileExists(atPath: dir + "/out.zip"))
                #expect(
                    try FileManager.default.contentsOfDirectory(atPath: dir) == ["tour"]
                        || FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["secret.txt", "tour"])
            }
        }
    }

    @Test(
        "an asset that cannot be read is reported (run as an unprivileged user when the tests run as root)",
        .enabled(
            if: getuid() != 0 || PeerTool.setpriv.isAvailable,
            "needs \(PeerTool.setpriv) to build as an unprivileged user when the tests run as root"))
    func unreadableAsset() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("santiam-wagon-road"), tour)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: dir)
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o000], ofItemAtPath: tour + "/waypoints/05-tombstone-prairie/about.md")
            // The builder's own file without its owner's read bit (the builder decides a file it
            // owns from its mode, without asking `access`).
            let own = tour + "/waypoints/05-tombstone-prairie/view.png"
            if getuid() == 0 { #expect(chown(own, 65534, 65534) == 0) }
            try FileManager.default.setAttributes([.posixPermissions: 0o244], ofItemAtPath: own)
            let out =
                getuid() == 0
                ? try Support.run(
                    "setpriv",
                    [
                        "--reuid=65534", "--regid=65534", "--clear-groups", Support.binary, "build", tour, "-o",
                        dir + "/out.zip",
                    ])
                : try Support.trailpack("build", tour, "-o", dir + "/out.zip")
            #expect(out.status == 1, "\(out.stderr)")
            #expect(
                out.stderr.contains(
                    "error[source.asset-unreadable] waypoints/05-tombstone-prairie/waypoint.json: asset 'waypoints/05-tombstone-prairie/about.md' cannot be read; check its permissions"
                ), "\(out.stderr)")
            #expect(
                out.stderr.contains(
                    "error[source.asset-unreadable] waypoints/05-tombstone-prairie/waypoint.json: asset 'waypoints/05-tombstone-prairie/view.png' cannot be read; check its permissions"
                ), "\(out.stderr)")
        }
    }

    @Test("several problems are reported together, and an unused file is only a warning")
    func reportedTogether() throws {
        try Support.withTemporaryDirectory { dir in
            let out = try brokenTour(dir) { tour in
                try editWaypoint(tour, "01-sweet-home") {
                    $0 = $0.replacingOccurrences(of: "\"about.md\"", with: "\"missing.md\"")
                }
                try editWaypoint(tour, "02-cascadia") {
                    $0 = $0.replacingOccurrences(of: "\"longitude\": -122.481", with: "\"longitude\": -222.481")
                }
            }
            #expect(out.status == 1)
            #expect(out.stderr.contains("[source.asset-missing]") && out.stderr.contains("[coordinate.longitude]"))
            #expect(out.stderr.contains("warning[source.unused-file] waypoints/01-sweet-home/about.md"))
            let warnOnly = try brokenTour(dir + "/w") { tour in
                try "notes".write(
                    toFile: tour + "/waypoints/01-sweet-home/draft.txt", atomically: true, encoding: .utf8)
                try "junk".write(toFile: tour + "/waypoints/01-sweet-home/.DS_Store", atomically: true, encoding: .utf8)
            }
            #expect(warnOnly.status == 0, "\(warnOnly.stderr)")
            #expect(warnOnly.stderr.contains("warning[source.unused-file] waypoints/01-sweet-home/draft.txt"))
            #expect(!warnOnly.stderr.contains(".DS_Store"))
        }
    }

    @Test("a link that stays inside the tour folder is followed")
    func linkInside() throws {
        try Support.withTemporaryDirectory { dir in
            let out = try brokenTour(dir) { tour in
                let path = tour + "/waypoints/02-cascadia/view.png"
                try FileManager.default.removeItem(atPath: path)
                try FileManager.default.createSymbolicLink(
                    atPath: path, withDestinationPath: "../01-sweet-home/view.png")
            }
            #expect(out.status == 0, "\(out.stderr)")
            #expect(try Verifier.verify(path: dir + "/out.zip").isValid)
        }
    }

    @Test(
        "a tour folder reached through a link, with a stop's file linked to another stop's: the same package, byte for byte, as from the folder itself"
    )
    func tourThroughALink() throws {
        try Support.withTemporaryDirectory { dir in
            // Files are read by their real paths, made from the real folder, the stop's folder and
            // the name (TourSource.SourceFile), and held whole only when a link leads elsewhere: a
            // root that is a link, and a file that is one, both part from the names the ranger gave.
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("santiam-wagon-road"), tour)
            let linked = tour + "/waypoints/02-cascadia/view.png"
            try FileManager.default.removeItem(atPath: linked)
            try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: "../01-sweet-home/view.png")
            try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: tour)
            let direct = try Support.trailpack("build", tour, "-o", dir + "/direct.zip", "-q")
            #expect(direct.status == 0, "\(direct.stderr)")
            let throughLink = try Support.trailpack("build", dir + "/link", "-o", dir + "/link.zip", "-q")
            #expect(throughLink.status == 0, "\(throughLink.stderr)")
            #expect(try Support.read(dir + "/link.zip") == Support.read(dir + "/direct.zip"))
            // Every asset's hash in the manifest is of its entry's bytes, and the linked file's entry
            // holds the bytes of the file it leads to (Python's zipfile and hashlib, not ours).
            let check = try Support.run(
                "/usr/bin/python3",
                [
                    "-c",
                    """
                    import hashlib, json, sys, zipfile
                    z = zipfile.ZipFile(sys.argv[1])
                    m = json.loads(z.read('manifest.json'))
                    assets = [a for w in m['waypoints'] for a in w['assets']] + m.get('mapAssets', [])
                    bad = [a['path'] for a in assets if hashlib.sha256(z.read(a['path'])).hexdigest() != a['sha256']]
                    views = [a['path'] for a in assets if a['path'].endswith(('sweet-home/view.png', 'cascadia/view.png'))]
                    target = open(sys.argv[2], 'rb').read()
                    print(json.dumps({'assets': len(assets), 'maps': len(m.get('mapAssets', [])), 'bad': bad, 'views': len(views),
                                      'same': all(z.read(p) == target for p in views)}))
                    """, dir + "/link.zip", tour + "/waypoints/01-sweet-home/view.png",
                ])
            #expect(check.status == 0, "\(check.stderr)")
            let report = try JSON.parse(check.stdout)
            #expect(report["bad"]?.array?.isEmpty == true, "\(check.stdout)")
            #expect(report["views"]?.int == 2, "\(check.stdout)")
            #expect(report["same"] == .bool(true), "\(check.stdout)")
            #expect((report["assets"]?.int ?? 0) > 2, "\(check.stdout)")
            #expect(report["maps"]?.int ?? 0 >= 1, "the map's hash is checked too: \(check.stdout)")
        }
    }

    @Test(
        "a stop folder that is a link, outside the tour or to another stop, is an error naming it and its target; nothing is read through it or written"
    )
    func stopFolderLink() throws {
        try Support.withTemporaryDirectory { dir in
            let out = try brokenTour(dir) { tour in
                try FileManager.default.moveItem(atPath: tour + "/waypoints/02-cascadia", toPath: dir + "/elsewhere")
                try FileManager.default.createSymbolicLink(
                    atPath: tour + "/waypoints/02-cascadia", withDestinationPath: dir + "/elsewhere")
                try FileManager.default.createSymbolicLink(
                    atPath: tour + "/waypoints/09-again", withDestinationPath: "01-sweet-home")
            }
            #expect(out.status == 1, "\(out.stdout)\(out.stderr)")
            #expect(
                out.stderr.contains(
                    "error[source.asset-outside] waypoints/02-cascadia: the stop folder 'waypoints/02-cascadia' is a link to '"
                ),
                "\(out.stderr)")
            #expect(out.stderr.contains("elsewhere'"), "\(out.stderr)")
            #expect(out.stderr.contains("error[source.asset-outside] waypoints/09-again:"), "\(out.stderr)")
            #expect(!out.stderr.contains("source.unused-file] waypoints/02-cascadia"), "\(out.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/out.zip"))
        }
    }

    @Test("a failed build leaves the previous package intact, and leaves no temporary files")
    func failedBuildKeepsPrevious() throws {
        try Support.withTemporaryDirectory { dir in
            let out = dir + "/pkg.zip"
            #expect(try Support.trailpack("build", Support.fixture("family-hikes"), "-o", out, "-q").status == 0)
            let before = try Support.read(out)
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("family-hikes"), tour)
            try FileManager.default.removeItem(atPath: tour + "/waypoints/01-sahalie-and-koosah-falls/trail.png")
            #expect(try Support.trailpack("build", tour, "-o", out).status == 1)
            #expect(try Support.read(out) == before)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == [
                    "pkg.zip", "pkg.zip.sha256", "tour",
                ])
        }
    }

    /// A tour with one large asset, so that a build takes long enough to be interrupted.
    func bigTour(_ dir: String, megabytes: Int) throws -> String {
        let tour = dir + "/big"
        try Support.copyTree(Support.fixture("family-hikes"), tour)
        let video = tour + "/waypoints/01-sahalie-and-koosah-falls/falls.mp4"
        FileManager.default.createFile(atPath: video, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: video))
        var block = [UInt8](repeating: 0, count: 1 << 20)
        block.replaceSubrange(4..<8, with: Array("ftyp".utf8))  // an MP4's first box, as the builder checks
        for m in 0..<megabytes {
            for i in stride(from: 0, to: block.count, by: 4096) { block[i] = UInt8(truncatingIfNeeded: m &+ i) }
            handle.write(Data(block))
        }
        try handle.close()
        try editWaypoint(tour, "01-sahalie-and-koosah-falls") {
            $0 = $0.replacingOccurrences(of: "\"notes.txt\",", with: "\"notes.txt\", \"falls.mp4\",")
        }
        return tour
    }

    @Test(
        "a build killed half-way (SIGKILL) leaves the previous package; Ctrl-C (SIGINT) also removes its temporary file",
        arguments: [SIGKILL, SIGINT])
    func interruptedBuild(signal: Int32) throws {
        try Support.withTemporaryDirectory { dir in
            let out = dir + "/pkg.zip"
            #expect(try Support.trailpack("build", Support.fixture("family-hikes"), "-o", out, "-q").status == 0)
            let before = try Support.read(out)
            let tour = try bigTour(dir, megabytes: 1200)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Support.binary)
            process.arguments = ["build", tour, "-o", out, "-q"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Wait until the temporary package has some bytes in it: the build is half-way.
            let temp = dir + "/.pkg.zip.\(process.processIdentifier).trailpack-tmp"
            var waited = 0
            while waited < 600 {
                if let size = (try? FileManager.default.attributesOfItem(atPath: temp))?[.size] as? Int, size > 8 << 20
                {
                    break
                }
                usleep(50_000)
                waited += 1
            }
            #expect(FileManager.default.fileExists(atPath: temp), "the build never started writing")
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal || process.terminationStatus == 128 + signal)
            #expect(try Support.read(out) == before, "the previous package was changed")
            #expect(try Verifier.verify(path: out).isValid)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter {
                $0.hasSuffix(".trailpack-tmp")
            }
            if signal == SIGINT { #expect(leftovers.isEmpty, "\(leftovers)") }
            // The next build of the same output removes what a killed one left.
            #expect(try Support.trailpack("build", Support.fixture("family-hikes"), "-o", out, "-q").status == 0)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".trailpack-tmp") }
                    .isEmpty)
        }
    }

    @Test("init scaffolds a tour that builds; --from-gpx turns <wpt> points into stops")
    func initAndGPX() throws {
        try Support.withTemporaryDirectory { dir in
            #expect(try Support.trailpack("init", dir + "/plain").status == 0)
            #expect(try Support.trailpack("validate", dir + "/plain").status == 0)
            let again = try Support.trailpack("init", dir + "/plain")
            #expect(again.status == 2 && again.stderr.contains("already holds a tour.json"))

            let out = try Support.trailpack(
                "init", dir + "/from-gpx", "--from-gpx", Support.fixture("gpx/santiam-stops.gpx"))
            #expect(out.status == 0, "\(out.stderr)")
            let folders = try FileManager.default.contentsOfDirectory(atPath: dir + "/from-gpx/waypoints").sorted()
            #expect(folders == ["01-house-rock", "02-tombstone-prairie", "03-fish-lake"])
            let build = try Support.trailpack("build", dir + "/from-gpx", "-o", dir + "/gpx.zip", "--json")
            #expect(build.status == 0, "\(build.stdout)")
            let manifest = try PackageReader(path: dir + "/gpx.zip").manifest
            #expect(manifest.waypoints.map(\.name) == ["House Rock", "Tombstone Prairie", "Fish Lake"])
            #expect(manifest.waypoints[2].coordinate == Coordinate(latitude: 44.4057, longitude: -121.9929))
            #expect(manifest.waypoints[0].description.hasPrefix("A huge overhanging boulder"))

            try "<gpx><wpt lat=\"99\" lon=\"0\"/></gpx>".write(
                toFile: dir + "/bad.gpx", atomically: true, encoding: .utf8)
            let bad = try Support.trailpack("init", dir + "/bad", "--from-gpx", dir + "/bad.gpx")
            #expect(
                bad.status == 2
                    && bad.stderr.contains("line 1, column 6: lat=\"99\" in <wpt> is outside -90 to 90 degrees"),
                "\(bad.stderr)")
            try "not xml at all <".write(toFile: dir + "/garbage.gpx", atomically: true, encoding: .utf8)
            #expect(try Support.trailpack("init", dir + "/bad2", "--from-gpx", dir + "/garbage.gpx").status == 2)
        }
    }

    @Test(
        "a build on a terminal shows progress (files, bytes, rate, time left); off a terminal it does not",
        .needs(.script))
    func progressOnTerminal() throws {
        try Support.withTemporaryDirectory { dir in
            // `script` gives the build a pseudo-terminal, as a ranger's shell would.
            let tty = try Support.run(
                "script",
                [
                    "-q", "-c", "\(Support.binary) build \(Support.fixture("santiam-wagon-road")) -o \(dir)/a.zip",
                    "/dev/null",
                ])
            #expect(tty.status == 0)
            let screen = tty.stdout.replacingOccurrences(of: "\r", with: "\n")
            #expect(screen.contains("hashing 28/28 files"), "\(screen)")
            #expect(screen.contains("writing 28/28 files"))
            #expect(screen.contains("left"))
            let plain = try Support.trailpack("build", Support.fixture("santiam-wagon-road"), "-o", dir + "/b.zip")
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(!plain.stderr.contains("files") && !plain.stdout.contains("hashing"))
        }
    }

    @Test("the build summary and --json report what was built", .needs(.sha256sum))
    func summary() throws {
        try Support.withTemporaryDirectory { dir in
            let out = try Support.trailpack("build", Support.fixture("santiam-wagon-road"), "--json", directory: dir)
            #expect(out.status == 0)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
            #expect(json["package"] as? String == "gov.usda.fs.willamette.santiam-wagon-road-1.0.0.zip")
            #expect(json["waypoints"] as? Int == 8)
            #expect(json["assets"] as? Int == 28)
            let sha = try #require(json["sha256"] as? String)
            #expect(try Support.sha256sum(dir + "/gov.usda.fs.willamette.santiam-wagon-road-1.0.0.zip") == sha)
            let text = try Support.trailpack("build", Support.fixture("santiam-wagon-road"), "-o", dir + "/x.zip")
            #expect(text.status == 0, "\(text.stderr)")
            for word in ["waypoints  8", "assets     28", "sha256     \(sha)", "time"] {
                #expect(text.stdout.contains(word), "\(text.stdout)")
            }
        }
    }

    @Test("a tour whose manifest.json would be larger than readers accept is refused, and nothing is written")
    func manifestTooLarge() throws {
        try Support.withTemporaryDirectory { dir in
            // 40 stops of 10 recordings, each with a 95,000-character transcript: about 38 MB of
            // manifest (the limit is 32 MiB) from a tour folder of 38 MB of waypoint.json files.
            let tour = dir + "/big"
            try FileManager.default.createDirectory(atPath: tour + "/waypoints", withIntermediateDirectories: true)
            try
                #"{"id": "org.trailpack.test.big", "version": "1", "name": "Big", "park": "Test Forest", "site": {"id": "test", "name": "Test"}, "mapName": "Big", "description": "Too much text."}"#
                .write(toFile: tour + "/tour.json", atomically: true, encoding: .utf8)
            let transcript = String(repeating: "a ", count: 47_500)
            for stop in 1...40 {
                let folder = tour + "/waypoints/\(String(format: "%02d", stop))-stop-\(stop)"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                var assets: [String] = []
                for k in 1...10 {
                    try Data([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0, UInt8(k)]).write(
                        to: URL(fileURLWithPath: folder + "/clip-\(k).mp3"))
                    assets.append(#"{"file": "clip-\#(k).mp3", "transcript": "\#(transcript)"}"#)
                }
                try
                    #"{"name": "Stop \#(stop)", "coordinate": {"latitude": \#(44.4 + Double(stop) * 0.001), "longitude": -122.2}, "description": "Stop \#(stop).", "assets": [\#(assets.joined(separator: ", "))]}"#
                    .write(toFile: folder + "/waypoint.json", atomically: true, encoding: .utf8)
            }
            let planned = try TourBuilder.plan(tour), plan = planned.plan, findings = planned.findings
            #expect(plan == nil)
            let finding = try #require(
                findings.first { $0.code == .jsonTooLarge }, "\(findings.filter { $0.severity == .error })")
            #expect(finding.file == "manifest.json")
            #expect(
                finding.message.contains("400") && finding.message.contains("\(Manifest.maxBytes)"),
                "\(finding.message)")
            let out = try Support.trailpack("build", tour, "-o", dir + "/big.zip", "--quiet")
            #expect(out.status == 1, "\(out.stderr)")
            #expect(out.stderr.contains("json.too-large"), "\(out.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/big.zip"))
        }
    }
}
