import Foundation
import Testing
import TrailPackCore
import TrailPackTestSupport

@testable import TrailPackBuilder

/// The sheet itself, before any tour is made from it: CSVImport.parse's findings.
@Suite("spreadsheet import: reading the sheet", .ownThreads)
struct CSVParseTests {
    @Test("header problems: missing columns with a did-you-mean, a comma that splits a row, an unclosed quote, UTF-16")
    func sheetProblems() throws {
        func findings(_ text: String, _ bytes: [UInt8]? = nil) -> [Finding] {
            CSVImport.parse(bytes ?? Array(text.utf8), fileName: "stops.csv", mediaFolder: "/nonexistent").findings
        }
        let missing = findings("Name;Lattitude;Longitude\nA;1;2\n")
        #expect(missing.map(\.code) == [.csvColumn])
        #expect(
            missing.first?.message.contains(
                "there is no latitude column; did you mean the column 'Lattitude'? rename it 'latitude'") == true,
            "\(missing)")
        // A near miss of an optional column is said, not kept as a stop detail while the stops get none.
        let misspelt = findings("name,lat,lon,Descripton\nA,44.1,-122.1,The lake\n")
        #expect(
            misspelt.map(\.code) == [.csvColumn] && misspelt[0].path == "column D (Descripton)"
                && misspelt[0].message.contains("did you mean 'description'?"), "\(misspelt)")
        #expect(
            findings("name,lat,lon,Vido\nA,44.1,-122.1,\n").first?.message.contains("did you mean 'video'?") == true)
        // Details of their own that only look alike are kept as details.
        #expect(
            findings("name,lat,lon,Radio,Border,Inscription,Contents,Audit\nA,44.1,-122.1,146.52,no,x,y,z\n").isEmpty)
        let noName = findings("lat,lon\n1,2\n")
        #expect(noName.first?.message.contains("there is no name column") == true)
        let split = findings("name,lat,lon\nA,44,28,-122.1\n")
        #expect(
            split.contains {
                $0.code == .csvSyntax && $0.path == "row 2"
                    && $0.message.contains("decimal comma (44,28) must be a point")
            }, "\(split)")
        // Said once: the split row's shifted cells are not read as well (its description in the photo
        // column was "a file not in the folder", its longitude "28"); the rows around it are read.
        let shifted = findings(
            "name,lat,lon,photo\nA,44.2,-122.1,\nB,44,28,-122.1,The lake in spring.\nC,44.3,-122.2,\n")
        #expect(shifted.map(\.code) == [.csvSyntax], "\(shifted)")
        let unclosed = findings("name,lat,lon,description\nA,1,2,\"never closed\nB,1,2,x\n")
        #expect(unclosed.map(\.code) == [.csvSyntax])
        #expect(unclosed.first?.path == "row 2, column D")
        // A workbook given as the sheet: said so, not read as a header row of gibberish.
        for workbook in [
            [UInt8]([0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]),
            [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1],
        ] {
            let found = findings("", workbook + Array("name,latitude\n".utf8))
            #expect(found.count == 1 && found[0].message.contains("save it again as 'CSV UTF-8"), "\(found)")
        }
        let utf16 = findings("", [0xFF, 0xFE, 0x41, 0x00])
        #expect(utf16.first?.message.contains("UTF-16") == true)
        #expect(findings("").first?.message.contains("--csv-template") == true)
        let twice = findings("name,lat,latitude,lon\nA,1,1,2\n")
        #expect(
            twice.first?.message.contains("columns B (lat) and C (latitude) both look like the latitude column")
                == true, "\(twice)")
        let noRows = findings("name,lat,lon\n")
        #expect(noRows.first?.message.contains("no stops") == true)
        // One coordinates column, as "lat, lon".
        let pair = CSVImport.parse(
            Array(
                "name;coordinates\nA;\"44,42, -122,15\"\nB;44.42 -122.15\nC;44°25'12\"N 122°09'W\nD;N 44° 25.200' W 122° 09.000'\n"
                    .utf8),
            fileName: "s.csv", mediaFolder: "/")
        let stops = try #require(pair.stops, "\(pair.findings)")
        #expect(stops.map(\.coordinate) == Array(repeating: Coordinate(latitude: 44.42, longitude: -122.15), count: 4))
    }
}
