import Foundation
import Testing
import TrailPackBuilder
import TrailPackCore
import TrailPackTestSupport

@Suite("CSV media cells: confined to the sheet's upload in the panel; names checked as stop file names", .ownThreads)
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

    @Test(
        "confined: a file is found anywhere in the zip by its name (exactly, else ignoring case); one name in two places, or in none, is said by row with places in the zip only"
    )
    func anywhereInTheZip() throws {
        try Support.withTemporaryDirectory { dir in
            let upload = dir + "/upload"
            let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 1, count: 32)
            for place in [
                "media/photos/view.jpg", "media/IMG_0042.JPG", "a/sign.jpg", "b/sign.jpg", "c/Sign.jpg",
                "d/Twice.jpg", "e/twice.JPG", "__MACOSX/media/lake.jpg", ".hidden/lake.jpg",
            ] {
                try FileManager.default.createDirectory(
                    atPath: PathText.folder(upload + "/" + place), withIntermediateDirectories: true)
                try Support.write(jpeg, to: upload + "/" + place)
            }
            let cells = [
                "view.jpg", "img_0042.jpg", "sign.jpg", "lake.jpg", "twice.jpg", "photos/view.jpg", "a/sign.jpg",
                "vew.jpg",
            ]
            var csv = "name,latitude,longitude,photo\n"
            for (n, cell) in cells.enumerated() { csv += "Stop \(n + 1),44.\(n + 1),-122.1,\(cell)\n" }
            try Support.write(Array(csv.utf8), to: upload + "/stops.csv")
            let reading = try CSVImport.read(csvPath: upload + "/stops.csv", mediaFolder: upload, confined: true)
            func said(_ row: Int) -> String {
                reading.findings.filter { $0.path == "row \(row), column D (photo)" }.map(\.message).joined()
            }
            #expect(said(2).isEmpty && said(3).isEmpty, "found by name, ignoring case: \(reading.findings)")
            // sign.jpg is so named in a/ and b/ (c/Sign.jpg only ignoring case): which one is not known.
            #expect(
                said(4).contains("2 files called 'sign.jpg'") && said(4).contains("'a/sign.jpg', 'b/sign.jpg'"),
                "\(said(4))")
            #expect(said(5).contains("not in the zip"), "hidden and __MACOSX copies are not the ranger's: \(said(5))")
            #expect(said(6).contains("2 files called 'twice.jpg'") && said(6).contains("'d/Twice.jpg', 'e/twice.JPG'"))
            #expect(said(7).isEmpty && said(8).isEmpty, "a folder in the cell that is not the file's is forgiven")
            #expect(said(9).contains("did you mean 'view.jpg'"), "\(said(9))")
            let all = reading.findings.map(\.message).joined(separator: "\n")
            #expect(!all.contains(dir) && !all.contains("--media"), "no server folder, no flag: \(all)")
        }
    }

    @Test("a sheet that came alone: the files its media columns name are listed by row and column, not looked for")
    func notLookedFor() throws {
        let csv = "name,latitude,longitude,photo,audio\nA,44.1,-122.1,view.jpg; sign.jpg,\nB,44.2,-122.1,,talk.mp3\n"
        let reading = CSVImport.parse(
            Array(csv.utf8), fileName: "stops.csv", mediaFolder: "/nowhere", ignoreMedia: true, confined: true)
        #expect(reading.stops?.count == 2 && reading.stops?.allSatisfy { $0.media.isEmpty } == true)
        #expect(
            reading.filesNotLookedFor.map { "\($0.place) \($0.name)" } == [
                "row 2, column D (photo) view.jpg", "row 2, column D (photo) sign.jpg",
                "row 3, column E (audio) talk.mp3",
            ])
    }

    @Test("the command line (not confined) still reads a sheet's files wherever the ranger keeps them")
    func commandLine() throws {
        try Support.withTemporaryDirectory { dir in
            let upload = try Self.layout(dir, cells: ["../secret.jpg"])
            let reading = try CSVImport.read(csvPath: upload + "/stops.csv", mediaFolder: upload)
            #expect(reading.stops?.first?.media.first?.fileName == "secret.jpg", "\(reading.findings)")
        }
    }

    @Test(
        "a file saved with its accents decomposed (as macOS writes 'Cañón.jpg') is the file the sheet names with them composed, and the other way round"
    )
    func accentsInEitherForm() throws {
        let composed = "Ca\u{00F1}\u{00F3}n.jpg"
        let decomposed = "Can\u{0303}o\u{0301}n.jpg"
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        for (onDisk, inSheet) in [(decomposed, composed), (composed, decomposed)] {
            try Support.withTemporaryDirectory { dir in
                try Support.write([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 1, count: 32), to: dir + "/" + onDisk)
                try Support.write(
                    Array("name,latitude,longitude,photo\nRiver,44.1,-122.1,\(inSheet)\n".utf8), to: dir + "/s.csv")
                let reading = try CSVImport.read(csvPath: dir + "/s.csv", mediaFolder: dir)
                let file = reading.stops?.first?.media.first
                // (Compared as bytes: Swift's == holds the two forms equal.)
                #expect(
                    file.map { Array($0.sourcePath.utf8) } == Array((dir + "/" + onDisk).utf8), "\(reading.findings)")
                // Named in the tour in one form, whatever the disk or the sheet had (NFC).
                #expect(file.map { Array($0.fileName.utf8) } == Array(composed.utf8))
            }
        }
    }
}
