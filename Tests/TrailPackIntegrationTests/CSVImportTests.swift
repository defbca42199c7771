import Foundation
import Testing
import TrailPackBuilder
import TrailPackCore
import TrailPackTestSupport
import TrailPackVerifier

@testable import TrailPackBuilder

@Suite("spreadsheet import", .ownThreads)
struct CSVImportTests {
    /// The stops of the worked example, as a sheet: header, then rows.
    static let header = [
        "Nr.", "Stop name", "Latitude", "Longitude", "Description", "Photo", "Audio", "Elevation (ft)", "Trail",
    ]
    static let rows: [[String]] = [
        [
            "1", "House Rock", "44.3925", "-122.2418", "A huge overhanging boulder.\nSettlers sheltered here.",
            "IMG_001.JPG", "", "2,120", "Santiam \"Wagon\" Road",
        ],
        [
            "2", "Tombstone Prairie", "44°23'49\"N", "122°08'33\"W", "Wildflowers in July; a pioneer grave.",
            "IMG_002.JPG", "birds.mp3", "4,236", "Santiam; Old Cascades",
        ],
        ["3", "Fish Lake", "44,4057", "-121,9929", "A lake that dries up in late summer.", "", "", "3,190", "Santiam"],
    ]

    /// Writes the media folder the sheet names.
    static func media(in dir: String) throws -> String {
        let media = dir + "/photos"
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 200)
        try Support.write(jpeg, to: media + "/IMG_001.JPG")
        try Support.write(jpeg + [1], to: media + "/IMG_002.JPG")
        try Support.write(Array("ID3".utf8) + Array(repeating: 1, count: 300), to: media + "/birds.mp3")
        return media
    }

    /// A cell as a spreadsheet quotes it: only when it holds the delimiter, a quote or a line break
    /// (or always, when `quoteAll` is set, as LibreOffice's "quote all text cells").
    static func quote(_ cell: String, delimiter: String, quoteAll: Bool) -> String {
        let needs = cell.contains(delimiter) || cell.contains("\"") || cell.contains("\n")
        let isNumber = Double(cell.replacingOccurrences(of: ",", with: ".")) != nil
        if needs || (quoteAll && !isNumber && !cell.isEmpty) {
            return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return cell
    }

    enum Style: String, CaseIterable, Sendable {
        /// LibreOffice (German locale): semicolons, decimal commas, LF, no BOM, text cells quoted.
        case libreOffice
        /// Excel "CSV UTF-8" (German locale): BOM, semicolons, decimal commas, CRLF between rows, LF
        /// inside cells, empty formatted rows at the end.
        case excelSemicolon
        /// Excel "CSV UTF-8" (US): BOM, commas, decimal points, CRLF.
        case excelComma
        /// Excel "CSV (Comma delimited)": Windows-1252, commas, CRLF.
        case excelWindows1252
        /// Tab-separated text.
        case tabs
    }

    static func sheet(_ style: Style) -> [UInt8] {
        let delimiter = [.libreOffice, .excelSemicolon].contains(style) ? ";" : (style == .tabs ? "\t" : ",")
        let decimalComma = delimiter == ";"
        let lineEnd = style == .libreOffice || style == .tabs ? "\n" : "\r\n"
        var lines: [String] = [
            header.map { quote($0, delimiter: delimiter, quoteAll: style == .libreOffice) }.joined(separator: delimiter)
        ]
        for row in rows {
            var cells = row
            // The sheet's own number format: decimal commas in semicolon files, points elsewhere.
            for i in [2, 3] where !cells[i].contains("°") {
                cells[i] =
                    decimalComma
                    ? cells[i].replacingOccurrences(of: ".", with: ",")
                    : cells[i].replacingOccurrences(of: ",", with: ".")
            }
            cells[7] =
                decimalComma
                ? cells[7].replacingOccurrences(of: ",", with: "") : cells[7].replacingOccurrences(of: ",", with: "")
            if style == .excelWindows1252 && cells[1] == "Fish Lake" { cells[1] = "Fish Lake Café" }
            lines.append(
                cells.map { quote($0, delimiter: delimiter, quoteAll: style == .libreOffice) }.joined(
                    separator: delimiter))
        }
        if style == .excelSemicolon { lines += [";;;;;;;;", ";;;;;;;;"] }
        let text = lines.joined(separator: lineEnd) + lineEnd
        switch style {
        case .excelSemicolon, .excelComma: return [0xEF, 0xBB, 0xBF] + Array(text.utf8)
        case .excelWindows1252: return Array(text.data(using: .windowsCP1252)!)
        default: return Array(text.utf8)
        }
    }

    @Test(
        "a sheet exported by LibreOffice or Excel becomes a tour that validates, builds and verifies",
        arguments: Style.allCases)
    func exportsBuild(style: Style) throws {
        try Support.withTemporaryDirectory { dir in
            let media = try Self.media(in: dir)
            try Support.write(Self.sheet(style), to: dir + "/stops.csv")
            let initOut = try Support.trailpack(
                "init", dir + "/tour", "--from-csv", dir + "/stops.csv", "--media", media)
            #expect(initOut.status == 0, "\(initOut.stderr)")
            let folders = try FileManager.default.contentsOfDirectory(atPath: dir + "/tour/waypoints").sorted()
            let third = style == .excelWindows1252 ? "03-fish-lake-cafe" : "03-fish-lake"
            #expect(folders == ["01-house-rock", "02-tombstone-prairie", third])
            let tourJSON = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/tour/tour.json")))
                    as? [String: Any])
            #expect(tourJSON["bounds"] == nil, "init must not write bounds")
            // The header as written is kept beside the stop, for the panel; the package never holds it.
            let names = try String(
                contentsOfFile: dir + "/tour/waypoints/01-house-rock/" + TourDraft.detailNamesFileName, encoding: .utf8)
            #expect(names.contains("\"elevationFt\": \"Elevation (ft)\""), "\(names)")
            #expect(
                try TourDraft.read(folder: dir + "/tour").stops[0].propertyLabels == [
                    "elevationFt": "Elevation (ft)", "trail": "Trail",
                ])

            let validate = try Support.trailpack("validate", dir + "/tour", "--json")
            #expect(validate.status == 0, "\(validate.stdout)")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(validate.stdout.utf8)) as? [String: Any])
            let codes = (report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            // The sheet's photos have no alt text yet: a warning naming each (the sheet has no column for it).
            #expect(
                Set(codes) == ["source.placeholder", "map.none", "accessibility.missing"],
                "only the template's tour fields are left to fill in, the photos' alt texts, and no map yet: \(codes)")

            let build = try Support.trailpack("build", dir + "/tour", "-o", dir + "/tour.zip", "--quiet")
            #expect(build.status == 0, "\(build.stderr)")
            let verify = try Support.trailpack("verify", dir + "/tour.zip")
            #expect(verify.status == 0, "\(verify.stdout)")
            let manifest = try PackageReader(path: dir + "/tour.zip").manifest
            #expect(
                try PackageReader(path: dir + "/tour.zip").directory.entries.allSatisfy {
                    !$0.name.hasSuffix(TourDraft.detailNamesFileName)
                })
            #expect(
                manifest.waypoints.map(\.name) == [
                    "House Rock", "Tombstone Prairie", style == .excelWindows1252 ? "Fish Lake Café" : "Fish Lake",
                ])
            #expect(manifest.waypoints[0].description == "A huge overhanging boulder.\nSettlers sheltered here.")
            #expect(manifest.waypoints[1].coordinate.latitude == 44.3969444)
            #expect(manifest.waypoints[1].coordinate.longitude == -122.1425)
            #expect(manifest.waypoints[2].coordinate == Coordinate(latitude: 44.4057, longitude: -121.9929))
            #expect(
                manifest.waypoints[1].assets.map(\.path) == [
                    "waypoints/tombstone-prairie/IMG_002.JPG", "waypoints/tombstone-prairie/birds.mp3",
                ])
            #expect(manifest.waypoints[1].assets.map(\.kind) == [.image, .audio])
            let props = Dictionary(uniqueKeysWithValues: manifest.waypoints[0].properties.map { ($0.key, $0.value) })
            #expect(props["elevationFt"] == .number(JSONNumber(literal: "2120")))
            #expect(props["trail"] == .string("Santiam \"Wagon\" Road"))
            #expect(
                manifest.waypoints[1].properties.first { $0.key == "trail" }?.value == .string("Santiam; Old Cascades"))
            // The bounds the builder drew enclose every stop.
            for w in manifest.waypoints { #expect(manifest.bounds.contains(w.coordinate)) }
        }
    }

    @Test("every bad row is reported with its row and column, and nothing is written")
    func everyRowProblem() throws {
        try Support.withTemporaryDirectory { dir in
            let media = try Self.media(in: dir)
            let csv = """
                name,lat,lon,photo,order
                House Rock,44.3925,-122.2418,img_001.jpg,1
                ,44.1,-122.1,,2
                Tombstone,121.99,-122.1,,3
                Fish Lake,44°75'N,-121.99,IMG_02.JPG,x
                Clear Lake,44.37,-121.99,birds.mp3,4
                Clear  lake,44.37,-121.99,,4

                """
            try csv.write(toFile: dir + "/stops.csv", atomically: true, encoding: .utf8)
            let out = try Support.trailpack("init", dir + "/tour", "--from-csv", dir + "/stops.csv", "--media", media)
            #expect(out.status == 1, "\(out.stderr)")
            let expected = [
                "row 2, column D (photo): the file 'img_001.jpg' is not in",
                "did you mean 'IMG_001.JPG'? (names must match upper and lower case exactly)",
                "row 3, column A (name): the stop has no name",
                "row 4, column B (lat): latitude 121.99 must be between -90 and 90 degrees; are latitude and longitude swapped?",
                "row 5, column B (lat): in '44°75'N' the minutes are 75",
                "row 5, column D (photo)", "did you mean 'IMG_002.JPG'?",
                "row 5, column E (order): the order 'x' is not a whole number",
                "row 6, column D (photo): 'birds.mp3' is audio, not image; move it to the audio column",
                "row 7, column E (order): rows 6 and 7 both have the order 4",
                "rows 6 and 7 give stops the same name or folder name ('clear-lake')",
                "nothing was written",
            ]
            for words in expected { #expect(out.stderr.contains(words), "missing: \(words)\n\(out.stderr)") }
            #expect(!FileManager.default.fileExists(atPath: dir + "/tour"))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["photos", "stops.csv"],
                "a staging folder was left behind")
        }
    }

    @Test("a spreadsheet given as GPX, or a GPX file given as a spreadsheet, is named for what it is")
    func wrongKindOfFile() throws {
        try Support.withTemporaryDirectory { dir in
            try "name,lat,lon\nA,44.1,-122.1\n".write(toFile: dir + "/stops.csv", atomically: true, encoding: .utf8)
            let asGPX = try Support.trailpack("init", dir + "/a", "--from-gpx", dir + "/stops.csv")
            #expect(
                asGPX.status == 2 && asGPX.stderr.contains("is not a GPX file") && asGPX.stderr.contains("--from-csv"),
                "\(asGPX.stderr)")
            #expect(!asGPX.stderr.contains("NSXMLParserErrorDomain"))
            let asCSV = try Support.trailpack(
                "init", dir + "/b", "--from-csv", Support.fixture("gpx/santiam-stops.gpx"))
            #expect(asCSV.status == 2 && asCSV.stderr.contains("use --from-gpx"), "\(asCSV.stderr)")
            #expect(
                !FileManager.default.fileExists(atPath: dir + "/a")
                    && !FileManager.default.fileExists(atPath: dir + "/b"))
        }
    }

    @Test("the CSV template reads back, and an init from it validates with only placeholder warnings")
    func template() throws {
        try Support.withTemporaryDirectory { dir in
            let out = try Support.trailpack("init", "--csv-template", dir + "/stops.csv")
            #expect(out.status == 0, "\(out.stderr)")
            #expect(
                try Support.trailpack("init", "--csv-template", dir + "/stops.csv").status == 2,
                "an existing file is never overwritten")
            try Support.write([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3], to: dir + "/trailhead.jpg")
            let made = try Support.trailpack("init", dir + "/tour", "--from-csv", dir + "/stops.csv")
            #expect(made.status == 0, "\(made.stderr)")
            let validate = try Support.trailpack("validate", dir + "/tour")
            #expect(validate.status == 0, "\(validate.stdout)")
            #expect(validate.stderr.contains("warning[source.placeholder]"))
            #expect(FileManager.default.fileExists(atPath: dir + "/tour/waypoints/01-trailhead/trailhead.jpg"))
        }
    }
}
