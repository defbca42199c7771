import Foundation
import Testing
import TrailPackDiff
import TrailPackTestFixtures
import TrailPackTestSupport
import TrailPackVerifier

/// Pairs of packages built from the Santiam Wagon Road tour, differing in one way at a time.
@Suite("diff: what changed between two versions", .ownThreads)
struct DiffTests {
    /// Builds the tour, then the tour after `edit`, and compares the two packages.
    static func diff(_ edit: (String) throws -> Void) throws -> PackageDiff {
        try Support.withTemporaryDirectory { dir in
            try Support.copyTree(Support.fixture("santiam-wagon-road"), dir + "/v1")
            try Support.copyTree(Support.fixture("santiam-wagon-road"), dir + "/v2")
            try edit(dir + "/v2")
            for v in ["v1", "v2"] {
                let built = try Support.trailpack("build", dir + "/" + v, "-o", dir + "/\(v).zip", "-q")
                try #require(built.status == 0, "\(built.stderr)")
            }
            let old = try PackageReader(path: dir + "/v1.zip"), new = try PackageReader(path: dir + "/v2.zip")
            return PackageDiff(old: old.manifest, new: new.manifest)
        }
    }

    /// Rewrites a JSON file of the tour folder with `change` applied to its object.
    static func editJSON(_ path: String, _ change: (inout [String: Any]) -> Void) throws {
        try Support.editJSON(path, change)
    }

    static func stop(_ tour: String, _ folder: String) -> String { "\(tour)/waypoints/\(folder)/waypoint.json" }

    @Test("the same tour built twice has no changes")
    func identical() throws {
        let d = try Self.diff { _ in }
        #expect(!d.hasChanges && d.stops.isEmpty && d.tour.isEmpty && d.oldOrder == nil && d.oldFrame == nil)
    }

    @Test("a first release says so")
    func firstRelease() throws {
        try Support.withTemporaryDirectory { dir in
            let path = try Support.buildFixture("santiam-wagon-road", into: dir)
            let d = PackageDiff(old: nil, new: try PackageReader(path: path).manifest)
            #expect(d.firstRelease && d.hasChanges && d.old == nil)
            #expect(DiffText.render(d).contains("a first release"))
        }
    }

    @Test("a stop moved 334 m is 'moved' with the distance and both places; one re-typed 0.5 m off is not")
    func moved() throws {
        let d = try Self.diff { tour in
            try Self.editJSON(Self.stop(tour, "03-mountain-house")) { w in
                var c = w["coordinate"] as! [String: Any]
                c["latitude"] = (c["latitude"] as! Double) + 0.003
                w["coordinate"] = c
            }
            try Self.editJSON(Self.stop(tour, "04-house-rock")) { w in
                var c = w["coordinate"] as! [String: Any]
                c["latitude"] = (c["latitude"] as! Double) + 0.000004
                w["coordinate"] = c
            }
        }
        #expect(d.stops.count == 1)
        let stop = try #require(d.stops.first)
        #expect(stop.kind == .changed && stop.name == "Mountain House" && stop.oldName == nil)
        let metres = try #require(stop.movedMetres)
        #expect(abs(metres - 333.6) < 1, "\(metres)")
        #expect(stop.oldCoordinate != nil && stop.newCoordinate != nil)
    }

    @Test("a renamed stop is 'renamed' (matched by its folder), a renamed folder with the same name is the same stop")
    func renamed() throws {
        let d = try Self.diff { tour in
            try Self.editJSON(Self.stop(tour, "05-tombstone-prairie")) { $0["name"] = "Tombstone Prairie Meadow" }
            try FileManager.default.moveItem(
                atPath: tour + "/waypoints/06-fish-lake", toPath: tour + "/waypoints/06-fish-lake-shore")
        }
        #expect(d.stops.count == 1, "\(d.stops)")
        #expect(d.stops.first?.oldName == "Tombstone Prairie" && d.stops.first?.name == "Tombstone Prairie Meadow")
        #expect(!d.stops.contains { $0.kind != .changed })
    }

    @Test("a stop renamed and moved a little, in a new folder, is still that stop (within 25 m)")
    func renamedAndMoved() throws {
        let d = try Self.diff { tour in
            try FileManager.default.moveItem(
                atPath: tour + "/waypoints/02-cascadia", toPath: tour + "/waypoints/02-cascadia-state-park")
            try Self.editJSON(Self.stop(tour, "02-cascadia-state-park")) { w in
                w["name"] = "Cascadia State Park"
                var c = w["coordinate"] as! [String: Any]
                c["longitude"] = (c["longitude"] as! Double) + 0.0001
                w["coordinate"] = c
            }
        }
        let stop = try #require(d.stops.first)
        #expect(
            d.stops.count == 1 && stop.kind == .changed && stop.oldName == "Cascadia" && (stop.movedMetres ?? 0) > 5)
    }

    @Test(
        "a stop moved to a new folder (2 km away) whose name only changed case (and whose files all changed) is still that stop, 'renamed'"
    )
    func renamedByCase() throws {
        let d = try Self.diff { tour in
            try FileManager.default.moveItem(
                atPath: tour + "/waypoints/06-fish-lake", toPath: tour + "/waypoints/06-lake-of-fish")
            // Every file changed too: only the name, folded, says which stop this is.
            for file in try FileManager.default.contentsOfDirectory(atPath: tour + "/waypoints/06-lake-of-fish")
            where file != "waypoint.json" {
                let handle = try #require(FileHandle(forWritingAtPath: tour + "/waypoints/06-lake-of-fish/" + file))
                handle.seekToEndOfFile()
                let extra: [UInt8] = file.hasSuffix(".md") ? Array("\nMore to read.\n".utf8) : [0, 0, 0, 0]
                handle.write(Data(extra))
                try handle.close()
            }
            try Self.editJSON(Self.stop(tour, "06-lake-of-fish")) { w in
                w["name"] = "FISH LAKE"
                var c = w["coordinate"] as! [String: Any]
                c["latitude"] = (c["latitude"] as! Double) + 0.02
                w["coordinate"] = c
            }
        }
        let stop = try #require(d.stops.first)
        #expect(
            d.stops.count == 1 && stop.kind == .changed && stop.oldName == "Fish Lake" && stop.name == "FISH LAKE",
            "\(d.stops)")
        #expect((stop.movedMetres ?? 0) > 2000)
        #expect(stop.assets.count == 3 && stop.assets.allSatisfy { $0.kind == .changed })
    }

    @Test("stops added and removed, and two stops swapped, are listed as such")
    func addedRemovedReordered() throws {
        let d = try Self.diff { tour in
            let w = tour + "/waypoints"
            try FileManager.default.removeItem(atPath: w + "/08-cache-creek-toll-station")
            try FileManager.default.moveItem(atPath: w + "/06-fish-lake", toPath: w + "/tmp")
            try FileManager.default.moveItem(atPath: w + "/07-santiam-pass", toPath: w + "/06-santiam-pass")
            try FileManager.default.moveItem(atPath: w + "/tmp", toPath: w + "/07-fish-lake")
            try FileManager.default.createDirectory(atPath: w + "/08-lost-lake", withIntermediateDirectories: true)
            try
                #"{"name": "Lost Lake", "coordinate": {"latitude": 44.43, "longitude": -121.9}, "description": "A lake that drains through lava tubes each summer.", "assets": ["about.md"]}"#
                .write(toFile: w + "/08-lost-lake/waypoint.json", atomically: true, encoding: .utf8)
            try "Lost Lake fills in winter and drains in summer.\n".write(
                toFile: w + "/08-lost-lake/about.md", atomically: true, encoding: .utf8)
        }
        #expect(d.stops.filter { $0.kind == .added }.map(\.name) == ["Lost Lake"])
        #expect(d.stops.filter { $0.kind == .removed }.map(\.name) == ["Cache Creek Toll Station"])
        #expect(
            d.oldOrder?.suffix(2) == ["Fish Lake", "Santiam Pass"]
                && d.newOrder?.suffix(2) == ["Santiam Pass", "Fish Lake"], "\(String(describing: d.newOrder))")
        // In the ranger's numbering: only the two that changed places, each with its number before and now.
        #expect(
            d.moves?.map { "\($0.name) \($0.oldPosition)→\($0.newPosition)" } == [
                "Santiam Pass 7→6", "Fish Lake 6→7",
            ], "\(String(describing: d.moves))")
        let text = DiffText.render(d)
        #expect(
            text.contains("+ Stop 8 \"Lost Lake\" added")
                && text.contains("- Stop 8 \"Cache Creek Toll Station\" removed"), "\(text)")
    }

    @Test("a description change is a word diff; properties added, changed and removed are listed with their values")
    func descriptionAndProperties() throws {
        let d = try Self.diff { tour in
            try Self.editJSON(Self.stop(tour, "01-sweet-home")) { w in
                var texts = w["description"] as! [String: Any]
                texts["en"] = (texts["en"] as! String).replacingOccurrences(of: "wagons", with: "ox teams")
                w["description"] = texts
                var p = w["properties"] as! [String: Any]
                p["roadMile"] = 0.5
                p["season"] = "all year"
                w["properties"] = p
            }
        }
        let stop = try #require(d.stops.first)
        let words = try #require(stop.description)
        #expect(
            words.runs.contains { $0.kind == .removed && $0.text == "wagons," }
                && words.runs.contains { $0.kind == .added && $0.text == "ox teams," }, "\(words.marked)")
        #expect(stop.properties.map(\.key) == ["roadMile", "season"])
        #expect(
            stop.properties.map(\.old) == ["0", nil] && stop.properties.map(\.new) == ["0.5", "\"all year\""],
            "\(stop.properties)")
    }

    @Test("a photo replaced is 'changed' with both SHA-256s and sizes; a file added and one removed are listed")
    func assets() throws {
        let d = try Self.diff { tour in
            let folder = tour + "/waypoints/01-sweet-home"
            let png = try Data(contentsOf: URL(fileURLWithPath: folder + "/view.png"))
            try (png + Data(repeating: 0, count: 100)).write(to: URL(fileURLWithPath: folder + "/view.png"))
            try FileManager.default.removeItem(atPath: folder + "/about.md")
            try "Notes for the ranger walk.\n".write(toFile: folder + "/walk.md", atomically: true, encoding: .utf8)
            try Self.editJSON(folder + "/waypoint.json") { w in
                w["assets"] = ["walk.md", ["file": "view.png", "title": "The view at Sweet Home"]]
            }
        }
        let stop = try #require(d.stops.first)
        let changed = try #require(stop.assets.first { $0.kind == .changed })
        #expect(
            changed.file == "view.png" && changed.oldSHA256 != changed.newSHA256
                && (changed.newSize ?? 0) == (changed.oldSize ?? 0) + 100)
        #expect(
            stop.assets.contains { $0.kind == .added && $0.file == "walk.md" }
                && stop.assets.contains { $0.kind == .removed && $0.file == "about.md" })
    }

    @Test("a frame change and a tour text change are reported")
    func frameAndTour() throws {
        let d = try Self.diff { tour in
            try Self.editJSON(tour + "/tour.json") { t in
                var b = t["bounds"] as! [String: Any]
                var sw = b["southwest"] as! [String: Any]
                sw["latitude"] = 44.35
                b["southwest"] = sw
                t["bounds"] = b
                t["park"] = "Willamette NF"
            }
        }
        #expect(d.oldFrame?.southwest.latitude == 44.3 && d.newFrame?.southwest.latitude == 44.35)
        #expect(
            d.tour.contains {
                $0.field == "park" && $0.old == "Willamette National Forest" && $0.new == "Willamette NF"
            })
    }

    @Test(
        "a hostile pair of 200,000-word descriptions is compared in bounded work (replaced whole, flagged approximate)")
    func boundedWordDiff() {
        let a = (0..<200_000).map { "w\($0 % 997)" }.joined(separator: " ")
        let b = (0..<200_000).map { "v\($0 % 991)" }.joined(separator: " ")
        let d = WordDiff(old: a, new: b)
        #expect(d.approximate && d.changed)
        #expect(d.runs.count == 2 && d.runs[0].kind == .removed && d.runs[1].kind == .added)
        // A small change inside a long text is still exact: the common prefix and suffix are set aside first.
        let long = (0..<100_000).map { "w\($0)" }.joined(separator: " ")
        let edited = long.replacingOccurrences(of: " w50000 ", with: " changed ")
        let small = WordDiff(old: long, new: edited)
        #expect(!small.approximate && small.runs.filter { $0.kind != .same }.map(\.text) == ["w50000", "changed"])
    }
}

@Suite("diff: changes per language", .ownThreads)
struct LanguageDiffTests {
    @Test("a changed Spanish description is reported under Spanish, word by word; English is untouched")
    func spanishDescription() throws {
        let diff = try DiffTests.diff { dir in
            try DiffTests.editJSON(dir + "/waypoints/03-mountain-house/waypoint.json") { w in
                var description = w["description"] as? [String: Any] ?? [:]
                description["es"] = "Aquí había una posada famosa para viajeros y arrieros."
                w["description"] = description
            }
        }
        #expect(diff.stops.isEmpty, "the default language did not change")
        let change = try #require(diff.translations.first)
        #expect(diff.translations.count == 1)
        #expect(change.language == "es" && change.stop == "Mountain House" && change.position == 3)
        #expect(change.field == "description" && change.words != nil)
        let text = DiffText.render(diff)
        #expect(text.contains("In Spanish (es):"))
        #expect(text.contains("Stop 3 \"Mountain House\""))
    }

    @Test("a new Spanish narration shows as a file in Spanish; a removed translation as removed")
    func narrationAndRemoval() throws {
        let diff = try DiffTests.diff { dir in
            let stop = dir + "/waypoints/04-house-rock"
            try FileManager.default.copyItem(atPath: stop + "/birdsong.wav", toPath: stop + "/narration.es.wav")
            try DiffTests.editJSON(stop + "/waypoint.json") { w in
                var assets = w["assets"] as? [Any] ?? []
                assets.append(["file": "narration.es.wav", "transcript": "Canto de aves, sin palabras."])
                w["assets"] = assets
                w["name"] = "House Rock"
            }
        }
        let stop = try #require(diff.stops.first { $0.name == "House Rock" })
        let added = try #require(stop.assets.first { $0.file == "narration.es.wav" })
        #expect(added.kind == .added && added.language == "es")
        #expect(DiffText.render(diff).contains("narration.es.wav (Spanish (es)) added"))
        let removed = try #require(diff.translations.first { $0.field == "name" })
        #expect(removed.language == "es" && removed.old == "House Rock" && removed.new == nil)
        #expect(DiffText.render(diff).contains("name translation removed"))
    }

    @Test("a stop added with its Spanish texts is one 'added' line, not also a list of translations")
    func addedStop() throws {
        let diff = try DiffTests.diff { dir in
            try FileManager.default.copyItem(
                atPath: dir + "/waypoints/08-cache-creek-toll-station", toPath: dir + "/waypoints/09-second-toll")
            try DiffTests.editJSON(dir + "/waypoints/09-second-toll/waypoint.json") { w in
                w["name"] = ["en": "Second Toll", "es": "Segundo Peaje"]
            }
        }
        #expect(diff.stops.contains { $0.kind == .added && $0.name == "Second Toll" })
        #expect(!diff.translations.contains { $0.stop == "Second Toll" }, "\(diff.translations)")
    }
}
