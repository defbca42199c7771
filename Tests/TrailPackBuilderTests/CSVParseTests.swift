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
        let noName = findings("lat,lon\n1,2\n")
        #expect(noName.first?.message.contains("there is no name column") == true)
        let split = findings("name,lat,lon\nA,44,28,-122.1\n")
        #expect(
            split.contains {
                $0.code == .csvSyntax && $0.path == "row 2"
                    && $0.message.contains("decimal comma (44,28) must be a point")
            }, "\(split)")
        let unclosed = findings("name,lat,lon,description\nA,1,2,\"never closed\nB,1,2,x\n")
        #expect(unclosed.map(\.code) == [.csvSyntax])
        #expect(unclosed.first?.path == "row 2, column D")
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
            Array("name;coordinates\nA;\"44,42, -122,15\"\nB;44.42 -122.15\nC;44°25'12\"N 122°09'W\n".utf8),
            fileName: "s.csv", mediaFolder: "/")
        let stops = try #require(pair.stops, "\(pair.findings)")
        #expect(stops.map(\.coordinate) == Array(repeating: Coordinate(latitude: 44.42, longitude: -122.15), count: 3))
    }
}
