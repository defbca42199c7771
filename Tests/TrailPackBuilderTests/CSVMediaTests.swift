import Foundation
import Testing
import TrailPackBuilder
import TrailPackCore
import TrailPackTestSupport

@Suite("CSV media cells: confined to the sheet's upload in the panel; names checked as stop file names")
struct CSVMediaTests {
    /// A sheet in `dir/upload/` with `photos/view.jpg`, and a file `dir/secret.jpg` beside the upload.
    static func layout(_ dir: String, cells: [String]) throws -> String {
        let upload = dir + "/upload"
        try FileManager.default.createDirectory(atPath: upload + "/photos", withIntermediateDirectories: true)
        try Support.write([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 1, count: 32), to: upload + "/photos/view.jpg")
        try Support.write([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 2, count: 32), to: dir + "/secret.jpg")
        var csv = "name,latitude,longitude,photo\n"
        for (n, cell) in cells.enumerated() { csv += "Stop \(n + 1),44.\(n + 1),-122.1,\(cell)\n" }
        try Support.write(Array(csv.utf8), to: upload + "/stops.csv")
        return upload
    }

    @Test(
        "confined: an absolute path, a drive letter, ~ or a ../ is refused with its row and column; the files inside are read"
    )
    func confined() throws {
        try Support.withTemporaryDirectory { dir in
            let outside = dir + "/secret.jpg"
            let upload = try Self.layout(
                dir,
                cells: [
                    "photos/view.jpg", outside, "../secret.jpg", "photos/../../secret.jpg", "C:\\secret.jpg",
                    "~/secret.jpg",
                ])
            let reading = try CSVImport.read(csvPath: upload + "/stops.csv", mediaFolder: upload, confined: true)
            #expect(reading.stops == nil)
            let outsideRows = reading.findings.filter { $0.message.contains("outside the uploaded zip") }.compactMap(
                \.path)
            #expect(outsideRows.count == 5, "\(reading.findings)")
            #expect(outsideRows.allSatisfy { $0.hasSuffix("column D (photo)") }, "\(outsideRows)")
            #expect(outsideRows.first == "row 3, column D (photo)")
            #expect(!reading.findings.contains { $0.path == "row 2, column D (photo)" }, "the file inside is fine")
        }
    }

    @Test("confined: a near miss is answered with a file inside the upload, never one beside it")
    func suggestions() throws {
        try Support.withTemporaryDirectory { dir in
            let upload = try Self.layout(dir, cells: ["../secrt.jpg", "photos/veiw.jpg"])
            let reading = try CSVImport.read(csvPath: upload + "/stops.csv", mediaFolder: upload, confined: true)
            let said = reading.findings.map(\.message).joined(separator: "\n")
            #expect(!said.contains("secret.jpg"), "\(said)")
            #expect(said.contains("did you mean 'view.jpg'"), "\(said)")
            // Not confined (the command line), the same near miss beside the sheet's folder is suggested:
            // the check above is what confinement changes.
            let open = try CSVImport.read(csvPath: upload + "/stops.csv", mediaFolder: upload)
            #expect(open.findings.map(\.message).joined().contains("did you mean 'secret.jpg'"), "\(open.findings)")
        }
    }

    @Test(
        "cells that trap Foundation's path methods ('//' then a character of several scalars) are findings, not a crash",
        arguments: ["a//.\u{202E}", "//e\u{301}.jpg", "photos//\u{202E}x", "x//.\u{301}"])
    func noTrap(_ cell: String) throws {
        try Support.withTemporaryDirectory { dir in
            let upload = try Self.layout(dir, cells: [cell])
            for confined in [true, false] {
                let reading = try CSVImport.read(
                    csvPath: upload + "/stops.csv", mediaFolder: upload, confined: confined)
                #expect(reading.stops == nil && reading.findings.contains { $0.path == "row 2, column D (photo)" })
            }
        }
    }

    @Test("the command line (not confined) still reads a sheet's files wherever the ranger keeps them")
    func commandLine() throws {
        try Support.withTemporaryDirectory { dir in
            let upload = try Self.layout(dir, cells: ["../secret.jpg"])
            let reading = try CSVImport.read(csvPath: upload + "/stops.csv", mediaFolder: upload)
            #expect(reading.stops?.first?.media.first?.fileName == "secret.jpg", "\(reading.findings)")
        }
    }
}
