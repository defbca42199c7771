import Foundation
import TrailPackCore

#if canImport(Glibc)
import Glibc
#endif

/// A spreadsheet of stops turned into a tour folder: `trailpack init FOLDER --from-csv stops.csv`.
///
/// Reads what Excel and LibreOffice write when a sheet is saved as CSV: comma, semicolon or tab
/// between cells (sniffed from the header row), UTF-8 with or without a byte-order mark (or
/// Windows-1252, Excel's "CSV (Comma delimited)"), CRLF or LF line ends, quoted cells with line
/// breaks and doubled quotes, and decimal commas. Columns are matched by their header, forgivingly;
/// every problem is a finding naming the row and column, and nothing is written until every row is good.
public enum CSVImport {
    /// One stop read from a row.
    public struct Stop: Sendable, Equatable {
        /// The spreadsheet row (the header is row 1).
        public var row: Int
        public var name: String
        public var order: Int?
        public var coordinate: Coordinate
        public var description: String
        /// Files to copy into the stop's folder, in column order (photo, audio, video).
        public var media: [MediaFile]
        /// Every other column, by its property name.
        public var properties: [JSONMember]
    }

    /// A photo, audio or video file named in a cell and found on disk.
    public struct MediaFile: Sendable, Equatable {
        /// The file on disk.
        public var sourcePath: String
        /// Its name in the stop folder.
        public var fileName: String
    }

    /// What a column is for.
    enum Role: String, CaseIterable {
        case name, latitude, longitude, coordinates, description, order, photo, audio, video

        /// Header spellings, normalized (lowercase ASCII letters and digits).
        var aliases: [String] {
            switch self {
            case .name:
                [
                    "name", "stop", "stopname", "title", "waypoint", "waypointname", "place", "placename", "nom",
                    "nombre",
                ]
            case .latitude: ["lat", "latitude", "breite", "latitud"]
            case .longitude: ["lon", "lng", "long", "longitude", "lange", "laenge", "longitud"]
            case .coordinates:
                ["coordinates", "coordinate", "coords", "position", "location", "latlon", "latlong", "latlng", "gps"]
            case .description:
                [
                    "description", "desc", "text", "about", "notes", "note", "comment", "comments", "beschreibung",
                    "descripcion",
                ]
            case .order: ["order", "number", "no", "nr", "num", "stopnumber", "stopno", "sequence", "seq"]
            case .photo:
                [
                    "photo", "photos", "image", "images", "picture", "pictures", "img", "foto", "fotos", "photofile",
                    "imagefile",
                ]
            case .audio: ["audio", "sound", "audiofile", "soundfile"]
            case .video: ["video", "videofile", "movie", "film"]
            }
        }

        var kind: AssetKind? {
            switch self {
            case .photo: .image
            case .audio: .audio
            case .video: .video
            default: nil
            }
        }
    }

    /// The header a template gives each role.
    public static let templateHeader = [
        "order", "name", "latitude", "longitude", "description", "photo", "audio", "video",
    ]

    /// The CSV a ranger who starts from nothing fills in: `trailpack init --csv-template stops.csv`.
    /// UTF-8 with a byte-order mark, so that Excel shows accents correctly; CRLF line ends.
    public static var template: [UInt8] {
        let rows = [
            templateHeader.joined(separator: ","),
            "1,Trailhead,44.4200,-122.1500,\"Welcome! Replace this text with what visitors should know at this stop.\",trailhead.jpg,,",
            "2,Fish Lake,44°24'08\"N,122°00'14\"W,\"Write a sentence about this stop.\nLine breaks inside quotes are kept.\",,,",
        ]
        return [0xEF, 0xBB, 0xBF] + Array((rows.joined(separator: "\r\n") + "\r\n").utf8)
    }

    // MARK: reading

    /// Reads the stops of `csvPath`; `mediaFolder` is where photo, audio and video names are
    /// looked up (the spreadsheet's own folder when nil). Returns the stops only when there are
    /// no errors; the findings name `displayName` (the file as the ranger gave it).
    /// With `ignoreMedia` the photo, audio and video columns are not read (the control panel's import:
    /// the files are added on each stop's page).
    /// `columns` names, for a role (`name`, `latitude`, …: ``choosableRoles``), the header of the column
    /// that holds it, when the ranger chose it on a form; other roles are found by their header as usual.
    ///
    /// With `confined` (the control panel's import of a zipped sheet) a cell may only name a file
    /// inside `mediaFolder`: an absolute path, a drive letter or a `..` is refused with its row and
    /// column, and a "did you mean" only ever names files inside it.
    public static func read(
        csvPath: String, mediaFolder: String?, ignoreMedia: Bool = false, columns: [String: String] = [:],
        confined: Bool = false
    ) throws -> SheetReading {
        let bytes = try FileSystem.readFile(csvPath, limit: 16 << 20)
        let displayName = URL(fileURLWithPath: csvPath).lastPathComponent
        let csvFolder = PathText.folder(csvPath)
        let media = mediaFolder ?? (csvFolder.isEmpty ? "." : csvFolder)
        if let mediaFolder, FileSystem.statInfo(mediaFolder).kind != .directory {
            throw BuildError.usage(
                "--media '\(mediaFolder)' is not a folder; give the folder that holds the photos, audio and video")
        }
        return parse(
            bytes, fileName: displayName, mediaFolder: media, mediaFolderGiven: mediaFolder != nil,
            ignoreMedia: ignoreMedia, columns: columns, confined: confined)
    }

    /// The roles a column can be chosen for on a form, in the order a form asks for them.
    public static let choosableRoles = [
        "name", "latitude", "longitude", "coordinates", "description", "order", "photo", "audio", "video",
    ]

    /// What reading a sheet gave.
    public struct SheetReading: Sendable {
        /// The stops, one per row; nil when a finding is an error.
        public var stops: [Stop]?
        /// Every finding, errors and warnings, in the sheet's order.
        public var findings: [Finding]
    }

    /// The start of a sheet, for a form that asks which column is which.
    public struct Preview: Sendable {
        /// The column names, as written.
        public var headers: [String]
        /// The first records' cells.
        public var rows: [[String]]
    }

    /// The header row of a CSV file (its column names, as written) and its first `rows` records, or nil
    /// when it cannot be read as CSV.
    public static func preview(csvPath: String, rows: Int = 3) -> Preview? {
        guard let bytes = try? FileSystem.readFile(csvPath, limit: 16 << 20),
            case .success(let table) = CSVTable.parse(bytes)
        else { return nil }
        return Preview(headers: table.header, rows: table.records.prefix(rows).map(\.cells))
    }

    /// The role a header names by its spelling (`"Lat"` → `latitude`), or nil.
    public static func guessRole(header: String) -> String? {
        let key = normalizeHeader(header)
        return Role.allCases.first { $0.aliases.contains(key) }?.rawValue
    }

    /// Whether `findings` say that a column the stops need (name, latitude, longitude) was not found:
    /// the sheet may still be read once someone says which column is which.
    public static func needsColumnChoice(_ findings: [Finding]) -> Bool {
        findings.contains { $0.code == .csvColumn && $0.path == "row 1" && $0.message.hasPrefix("there is no ") }
    }

    /// Reads stops from the bytes of a CSV file.
    public static func parse(
        _ bytes: [UInt8], fileName: String, mediaFolder: String, mediaFolderGiven: Bool = true,
        ignoreMedia: Bool = false,
        columns: [String: String] = [:], confined: Bool = false
    ) -> SheetReading {
        var findings: [Finding] = []
        let table: CSVTable
        switch CSVTable.parse(bytes) {
        case .success(let t): table = t
        case .failure(let problem):
            return SheetReading(
                stops: nil,
                findings: [
                    Finding(
                        .csvSyntax, file: fileName, location: problem.location.map(Finding.Location.text),
                        problem.message)
                ])
        }
        findings += table.problems.map {
            Finding(.csvSyntax, file: fileName, location: $0.location.map(Finding.Location.text), $0.message)
        }
        var reader = RowReader(
            table: table, fileName: fileName, mediaFolder: mediaFolder, mediaFolderGiven: mediaFolderGiven)
        reader.ignoreMedia = ignoreMedia
        reader.confined = confined
        reader.chosen = columns
        let stops = reader.read()
        findings += reader.findings
        return SheetReading(stops: findings.hasErrors ? nil : stops, findings: sortedByPlace(findings))
    }

    /// Findings in the order of the sheet: by row, then by column (stable otherwise).
    static func sortedByPlace(_ findings: [Finding]) -> [Finding] {
        func key(_ f: Finding) -> (Int, String) {
            let words = (f.path ?? "").split(separator: " ")
            let row = words.count > 1 && words[0] == "row" ? Int(words[1].trimmingCharacters(in: [","])) ?? 0 : 0
            let column = words.count > 3 && words[2] == "column" ? String(words[3]) : ""
            return (row, column.count == 1 ? " " + column : column)
        }
        return findings.enumerated().sorted { a, b in
            let ka = key(a.element), kb = key(b.element)
            return ka != kb ? ka < kb : a.offset < b.offset
        }.map(\.element)
    }

    /// `A`, `B`, … `Z`, `AA`: the column letters a spreadsheet shows.
    static func columnLetter(_ index: Int) -> String {
        var n = index + 1
        var out = ""
        while n > 0 {
            let r = (n - 1) % 26
            out = String(UnicodeScalar(UInt8(65 + r))) + out
            n = (n - 1) / 26
        }
        return out
    }

    /// Lowercase ASCII letters and digits only, accents dropped: `"Latitude (WGS84)"` → `"latitudewgs84"`.
    static func normalizeHeader(_ text: String) -> String {
        var out = ""
        for s in text.decomposedStringWithCanonicalMapping.lowercased().unicodeScalars
        where (s >= "a" && s <= "z") || (s >= "0" && s <= "9") {
            out.unicodeScalars.append(s)
        }
        return out
    }

    /// A column header as a property name: `"Elevation (ft)"` → `"elevationFt"`.
    static func propertyName(_ header: String) -> String {
        let words = header.decomposedStringWithCanonicalMapping.unicodeScalars
            .split { !(($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9")) }
            .map { String(String.UnicodeScalarView($0)) }
        var name = ""
        for (i, w) in words.enumerated() {
            name += i == 0 ? w.prefix(1).lowercased() + w.dropFirst() : w.prefix(1).uppercased() + w.dropFirst()
        }
        if let first = name.first, !first.isLetter { name = "p" + name }
        return String(name.prefix(64))
    }
}

// MARK: - the table

/// A CSV file's cells, as RFC 4180 describes and spreadsheets write them.
struct CSVTable {
    struct Record {
        /// The spreadsheet row: the header is row 1; a cell with line breaks does not add rows.
        var row: Int
        var cells: [String]
    }

    struct Problem: Error {
        var location: String?
        var message: String
    }

    var delimiter: UInt8
    var header: [String]
    var records: [Record]
    /// Rows with more cells than the header, and similar: reported, reading goes on.
    var problems: [Problem] = []

    static func parse(_ input: [UInt8]) -> Result<CSVTable, Problem> {
        var bytes = input
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return .failure(
                Problem(
                    location: nil,
                    message:
                        "the file is saved as UTF-16 (Unicode text); save it again as 'CSV UTF-8' (Excel) or 'Text CSV' with the UTF-8 character set (LibreOffice)"
                ))
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if String(validating: bytes, as: UTF8.self) == nil {
            // Excel's plain "CSV (Comma delimited)" writes Windows-1252; read it as that.
            guard let text = String(data: Data(bytes), encoding: .windowsCP1252) else {
                return .failure(
                    Problem(location: nil, message: "the file is not text in UTF-8; save it again as 'CSV UTF-8'"))
            }
            bytes = Array(text.utf8)
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return .failure(
                Problem(
                    location: nil,
                    message:
                        "the file is empty; it needs a header row (name, latitude, longitude, …) and one row per stop (see 'trailpack init --csv-template stops.csv')"
                ))
        }
        let delimiter = sniffDelimiter(bytes)
        var records: [Record] = []
        var cells: [String] = []
        var cell: [UInt8] = []
        var i = 0
        var row = 1
        var recordRow = 1
        var quoted = false
        var quoteStartRow = 0
        var quoteStartColumn = 0
        func endCell() {
            cells.append(String(decoding: cell, as: UTF8.self))
            cell.removeAll(keepingCapacity: true)
        }
        func endRecord() {
            endCell()
            records.append(Record(row: recordRow, cells: cells))
            cells.removeAll()
            row += 1
            recordRow = row
        }
        while i < bytes.count {
            let b = bytes[i]
            if quoted {
                if b == 0x22 {
                    if i + 1 < bytes.count, bytes[i + 1] == 0x22 {
                        cell.append(0x22)
                        i += 2
                        continue
                    }
                    quoted = false
                    i += 1
                    continue
                }
                if b == 0x0D {
                    // A line break inside a cell: keep it as \n, whatever the file's line ends.
                    cell.append(0x0A)
                    i += (i + 1 < bytes.count && bytes[i + 1] == 0x0A) ? 2 : 1
                    continue
                }
                cell.append(b)
                i += 1
                continue
            }
            switch b {
            case 0x22 where cell.allSatisfy({ $0 == 0x20 }):
                cell.removeAll()
                quoted = true
                quoteStartRow = recordRow
                quoteStartColumn = cells.count
                i += 1
            case delimiter:
                endCell()
                i += 1
            case 0x0D:
                endRecord()
                i += (i + 1 < bytes.count && bytes[i + 1] == 0x0A) ? 2 : 1
            case 0x0A:
                endRecord()
                i += 1
            default:
                // A quote in the middle of an unquoted cell, or after a closing quote, is kept as text.
                cell.append(b)
                i += 1
            }
        }
        if quoted {
            return .failure(
                Problem(
                    location: "row \(quoteStartRow), column \(CSVImport.columnLetter(quoteStartColumn))",
                    message:
                        "a cell starts with a quote (\") that is never closed, so the rest of the file is read as one cell; add the closing quote"
                ))
        }
        if !cell.isEmpty || !cells.isEmpty { endRecord() }
        // Rows with nothing in them (Excel writes ";;;;" for formatted empty rows) are skipped.
        records.removeAll { $0.cells.allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty } }
        guard let first = records.first else {
            return .failure(Problem(location: nil, message: "the file has no rows"))
        }
        var table = CSVTable(
            delimiter: delimiter, header: first.cells.map { $0.trimmingCharacters(in: .whitespaces) },
            records: Array(records.dropFirst()))
        for r in table.records where r.cells.count > table.header.count {
            let extra = r.cells[table.header.count...]
            guard extra.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { continue }
            let hint =
                delimiter == UInt8(ascii: ",")
                ? "; a comma inside a cell needs quotes around the cell, and a decimal comma (44,28) must be a point (44.28) in a comma-separated file"
                : "; check for a stray \(delimiter == UInt8(ascii: ";") ? "semicolon" : "tab") inside a cell"
            table.problems.append(
                Problem(
                    location: "row \(r.row)",
                    message:
                        "the row has \(r.cells.count) cells but the header row has \(table.header.count)\(hint)"))
        }
        return .success(table)
    }

    /// The delimiter the header row uses most (outside quotes): tab, semicolon or comma.
    static func sniffDelimiter(_ bytes: [UInt8]) -> UInt8 {
        var counts: [UInt8: Int] = [0x2C: 0, 0x3B: 0, 0x09: 0]
        var quoted = false
        for b in bytes {
            if b == 0x22 { quoted.toggle(); continue }
            if quoted { continue }
            if b == 0x0A || b == 0x0D { break }
            if counts[b] != nil { counts[b]! += 1 }
        }
        let best = [UInt8(0x09), 0x3B, 0x2C].max { counts[$0]! < counts[$1]! }!
        return counts[best]! == 0 ? 0x2C : best
    }
}

// MARK: - rows to stops

private struct RowReader {
    let table: CSVTable
    let fileName: String
    let mediaFolder: String
    let mediaFolderGiven: Bool
    var ignoreMedia = false
    /// Media names may not leave `mediaFolder` (an uploaded zip's folder).
    var confined = false
    /// Role name → header, chosen by the ranger; these columns are not guessed.
    var chosen: [String: String] = [:]
    var findings: [Finding] = []
    var columns: [CSVImport.Role: Int] = [:]
    var propertyColumns: [(index: Int, name: String)] = []
    var listings: [String: [String]] = [:]

    init(table: CSVTable, fileName: String, mediaFolder: String, mediaFolderGiven: Bool) {
        self.table = table
        self.fileName = fileName
        self.mediaFolder = mediaFolder
        self.mediaFolderGiven = mediaFolderGiven
    }

    func place(_ row: Int, _ column: Int) -> String {
        let header = column < table.header.count ? table.header[column] : ""
        return "row \(row), column \(CSVImport.columnLetter(column))\(header.isEmpty ? "" : " (\(header))")"
    }

    mutating func fail(_ code: FindingCode, _ location: String?, _ message: String) {
        findings.append(Finding(code, file: fileName, location: location.map(Finding.Location.text), message))
    }

    mutating func matchColumns() {
        var propertyNames: [String: Int] = [:]
        var taken = Set<Int>()
        for (roleName, header) in chosen.sorted(by: { $0.key < $1.key }) where !header.isEmpty {
            guard let role = CSVImport.Role(rawValue: roleName) else {
                fail(
                    .csvColumn, "row 1",
                    "'\(roleName)' is not something a column can hold; choose from \(CSVImport.choosableRoles.joined(separator: ", "))"
                )
                continue
            }
            guard let index = table.header.firstIndex(of: header) else {
                fail(
                    .csvColumn, "row 1",
                    "the sheet has no column '\(header)' (chosen for the \(roleName)); its columns are \(table.header.map { "'\($0)'" }.joined(separator: ", "))"
                )
                continue
            }
            guard !taken.contains(index) else {
                fail(
                    .csvColumn, "row 1", "the column '\(header)' was chosen for two things; choose one column for each")
                continue
            }
            columns[role] = index
            taken.insert(index)
        }
        for (index, header) in table.header.enumerated() where !taken.contains(index) {
            let key = CSVImport.normalizeHeader(header)
            let beforeParenthesis = CSVImport.normalizeHeader(String(header.prefix { $0 != "(" && $0 != "[" }))
            let role =
                CSVImport.Role.allCases.first { $0.aliases.contains(key) || $0.aliases.contains(beforeParenthesis) }
                ?? (header == "#" ? .order : nil)
            if let role, chosen[role.rawValue]?.isEmpty == false {
                // The ranger chose another column for this: this one is a detail (a property).
                let name = CSVImport.propertyName(header)
                if !name.isEmpty, propertyNames[name.lowercased()] == nil {
                    propertyNames[name.lowercased()] = index; propertyColumns.append((index, name))
                }
                continue
            }
            if let role {
                if let previous = columns[role] {
                    fail(
                        .csvColumn, "column \(CSVImport.columnLetter(index)) (\(header))",
                        "columns \(CSVImport.columnLetter(previous)) (\(table.header[previous])) and \(CSVImport.columnLetter(index)) (\(header)) both look like the \(role.rawValue) column; rename or delete one"
                    )
                } else {
                    columns[role] = index
                }
                continue
            }
            if header.isEmpty {
                if let r = table.records.first(where: {
                    index < $0.cells.count && !$0.cells[index].trimmingCharacters(in: .whitespaces).isEmpty
                }) {
                    fail(
                        .csvColumn, "column \(CSVImport.columnLetter(index))",
                        "the column has no name in the header row (row 1) but row \(r.row) has a value in it; give the column a name or delete it"
                    )
                }
                continue
            }
            let name = CSVImport.propertyName(header)
            if name.isEmpty { continue }
            if let previous = propertyNames[name.lowercased()] {
                fail(
                    .csvColumn, "column \(CSVImport.columnLetter(index)) (\(header))",
                    "columns \(CSVImport.columnLetter(previous)) and \(CSVImport.columnLetter(index)) both become the property '\(name)'; rename one"
                )
                continue
            }
            propertyNames[name.lowercased()] = index
            propertyColumns.append((index, name))
        }
        if columns[.latitude] != nil || columns[.longitude] != nil, let both = columns[.coordinates] {
            // "location" beside latitude and longitude is a property, not the coordinate.
            columns[.coordinates] = nil
            propertyColumns.append((both, CSVImport.propertyName(table.header[both])))
        }
        var needed: [CSVImport.Role] = [.name]
        if columns[.coordinates] == nil { needed += [.latitude, .longitude] }
        for role in needed where columns[role] == nil {
            let unclaimed = propertyColumns.map { table.header[$0.index] }
            let near = unclaimed.first { header in
                role.aliases.filter { $0.count >= 4 }.contains {
                    Spelling.distance(CSVImport.normalizeHeader(header), $0) <= 2
                }
            }
            let hint =
                near.map { "; did you mean the column '\($0)'? rename it '\(role.rawValue)'" }
                ?? "; add a column named '\(role.rawValue)'" + (role == .name ? " (or 'stop', 'title')" : "")
                + " to the header row (row 1)"
            fail(
                .csvColumn, "row 1",
                "there is no \(role.rawValue) column\(hint). The header row has: \(table.header.filter { !$0.isEmpty }.map { "'\($0)'" }.joined(separator: ", "))"
            )
        }
    }

    mutating func read() -> [CSVImport.Stop] {
        matchColumns()
        if findings.hasErrors { return [] }
        if table.records.isEmpty {
            fail(.csvValue, "row 2", "the spreadsheet has a header row but no stops; add one row per stop")
            return []
        }
        var stops: [CSVImport.Stop] = []
        var orders: [Int: Int] = [:]
        var slugs: [String: Int] = [:]
        for record in table.records {
            func cell(_ role: CSVImport.Role) -> String? {
                guard let c = columns[role] else { return nil }
                return c < record.cells.count ? record.cells[c].trimmingCharacters(in: .whitespaces) : ""
            }
            let row = record.row
            let errorsBefore = findings.count

            let name = (cell(.name) ?? "").split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            if name.isEmpty {
                fail(.csvValue, place(row, columns[.name]!), "the stop has no name; every stop needs one")
            }

            var coordinate = Coordinate(latitude: .nan, longitude: .nan)
            if let both = columns[.coordinates] {
                if let c = pair(cell(.coordinates) ?? "", at: place(row, both)) { coordinate = c }
            } else {
                if case .some(let lat) = number(
                    cell(.latitude) ?? "", axis: .latitude, at: place(row, columns[.latitude]!))
                {
                    coordinate.latitude = lat
                }
                if case .some(let lon) = number(
                    cell(.longitude) ?? "", axis: .longitude, at: place(row, columns[.longitude]!))
                {
                    coordinate.longitude = lon
                }
            }

            var order: Int?
            if let text = cell(.order), let c = columns[.order] {
                if let n = Int(text), (1...1_000_000).contains(n) {
                    if let other = orders[n] {
                        fail(
                            .csvValue, place(row, c),
                            "rows \(other) and \(row) both have the order \(n); give each stop its own number")
                    }
                    orders[n] = row
                    order = n
                } else {
                    fail(
                        .csvValue, place(row, c),
                        text.isEmpty
                            ? "the order is empty; number every stop, or clear the whole order column to keep the rows' order"
                            : "the order '\(text)' is not a whole number from 1 to 1000000")
                }
            }

            var slug = Slug.make(from: name)
            if slug.isEmpty { slug = "stop" }
            if !name.isEmpty {
                if let other = slugs[slug] {
                    fail(
                        .csvValue, place(row, columns[.name]!),
                        "rows \(other) and \(row) give stops the same name or folder name ('\(slug)'); give each stop its own name"
                    )
                }
                slugs[slug] = row
            }

            var media: [CSVImport.MediaFile] = []
            for role in [CSVImport.Role.photo, .audio, .video] where !ignoreMedia {
                guard let c = columns[role], let text = cell(role), !text.isEmpty else { continue }
                for reference in text.split(whereSeparator: { ";,|\n".contains($0) }).map({
                    $0.trimmingCharacters(in: .whitespaces)
                }) where !reference.isEmpty {
                    if let file = mediaFile(reference, role: role, at: place(row, c)) {
                        if let clash = media.first(where: { $0.fileName.lowercased() == file.fileName.lowercased() }) {
                            fail(
                                .csvMedia, place(row, c),
                                "'\(clash.fileName)' and '\(reference)' would have the same name in the stop's folder; rename one of the files"
                            )
                        } else {
                            media.append(file)
                        }
                    }
                }
            }

            var properties: [JSONMember] = []
            for (index, key) in propertyColumns {
                guard index < record.cells.count else { continue }
                let text = record.cells[index].trimmingCharacters(in: .whitespaces)
                if text.isEmpty { continue }
                properties.append(JSONMember(key, propertyValue(text)))
            }

            guard findings.count == errorsBefore else { continue }
            stops.append(
                CSVImport.Stop(
                    row: row, name: name, order: order, coordinate: coordinate,
                    description: (cell(.description) ?? "").trimmingCharacters(in: .whitespacesAndNewlines),
                    media: media, properties: properties))
        }
        if columns[.order] != nil { stops.sort { ($0.order ?? 0) < ($1.order ?? 0) } }
        return stops
    }

    mutating func number(_ text: String, axis: CoordinateText.Axis, at location: String) -> Double? {
        switch CoordinateText.parse(text, axis: axis) {
        case .success(let v): return v
        case .failure(let e):
            fail(.csvValue, location, e.message)
            return nil
        }
    }

    /// `"44.42, -122.15"`, `"44,42; -122,15"`, `"44°25'12\"N 122°09'W"`.
    mutating func pair(_ text: String, at location: String) -> Coordinate? {
        var parts: [String]
        if text.contains(";") {
            parts = text.split(separator: ";").map(String.init)
        } else if text.contains(", ") {
            parts = text.components(separatedBy: ", ")
        } else if text.filter({ $0 == "," }).count == 1 {
            parts = text.split(separator: ",").map(String.init)
        } else if let split = text.firstIndex(where: { "NSns".contains($0) }),
            split != text.index(before: text.endIndex)
        {
            parts = [String(text[...split]), String(text[text.index(after: split)...])]
        } else {
            parts = text.split(separator: " ").map(String.init)
        }
        parts = parts.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard parts.count == 2 else {
            fail(
                .csvValue, location,
                "cannot read '\(text)' as latitude and longitude; write them as '44.4200, -122.1500', or use separate latitude and longitude columns"
            )
            return nil
        }
        guard let lat = number(parts[0], axis: .latitude, at: location),
            let lon = number(parts[1], axis: .longitude, at: location)
        else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }

    /// Numbers as numbers (a decimal comma too, outside comma-separated files), the rest as text.
    func propertyValue(_ text: String) -> JSONValue {
        var t = text
        if table.delimiter != UInt8(ascii: ","), t.filter({ $0 == "," }).count == 1, !t.contains(".") {
            t = t.replacingOccurrences(of: ",", with: ".")
        }
        let plain = t.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D }
        if plain, t.count <= 15, t.first != ".", t.last != ".",
            !(t.hasPrefix("0") && t.count > 1 && !t.hasPrefix("0.")),
            let d = Double(t), d.isFinite
        {
            return .number(JSONNumber(literal: t))
        }
        if text.lowercased() == "yes" || text.lowercased() == "true" { return .bool(true) }
        if text.lowercased() == "no" || text.lowercased() == "false" { return .bool(false) }
        return .string(text)
    }

    /// Finds a named file in the media folder, or says why it cannot be used.
    mutating func mediaFile(_ reference: String, role: CSVImport.Role, at location: String) -> CSVImport.MediaFile? {
        let relative = reference.replacingOccurrences(of: "\\", with: "/")
        if confined, Self.leavesFolder(relative) {
            fail(
                .csvMedia, location,
                "'\(TerminalText.escaped(reference))' names a file outside the uploaded zip; a sheet may only name the files zipped with it, by their place in the zip (such as view.jpg or photos/view.jpg)"
            )
            return nil
        }
        var path = relative.hasPrefix("/") ? relative : mediaFolder + "/" + relative
        let fileName = PathText.lastComponent(path).precomposedStringWithCanonicalMapping
        // A path written from elsewhere ('photos\IMG_2.JPG' with --media photos): the file itself
        // in the media folder is what was meant.
        if FileSystem.statInfo(path).kind != .file, relative.contains("/"), !relative.hasPrefix("/"),
            FileSystem.statInfo(mediaFolder + "/" + fileName).kind == .file
        {
            path = mediaFolder + "/" + fileName
        }
        let info = FileSystem.statInfo(path)
        guard info.kind == .file else {
            if info.kind == .directory {
                fail(.csvMedia, location, "'\(reference)' is a folder; name the files inside it")
                return nil
            }
            let folder = PathText.folder(path)
            let names = listing(folder)
            var hint = ""
            if let exact = names.first(where: { $0.lowercased() == fileName.lowercased() }) {
                hint = "; did you mean '\(exact)'? (names must match upper and lower case exactly)"
            } else if let near = Spelling.closest(to: fileName, among: names) {
                hint = "; did you mean '\(near)'?"
            } else if let sameBase = names.first(where: {
                PathText.droppingExtension($0).lowercased() == fileName.lowercased()
            }) {
                hint = "; did you mean '\(sameBase)'? (write the name with its extension)"
            } else {
                hint = "; copy the file there, or give the folder that holds it with --media"
            }
            let which =
                folder == mediaFolder
                ? (mediaFolderGiven
                    ? " (the --media folder)" : " (the spreadsheet's folder; give another with --media)") : ""
            fail(
                .csvMedia, location,
                "the file '\(reference)' is not in '\(folder.isEmpty ? "." : folder)'\(which)\(hint)")
            return nil
        }
        guard let type = MediaTypes.lookup(fileName: fileName) else {
            fail(
                .csvMedia, location,
                "'\(reference)' has a file type trailpack does not package; use one of: \(MediaTypes.supportedList)")
            return nil
        }
        if let kind = role.kind, type.kind != kind {
            fail(
                .csvMedia, location,
                "'\(reference)' is \(type.kind.rawValue), not \(kind.rawValue); move it to the \(type.kind == .image ? "photo" : type.kind.rawValue) column"
            )
            return nil
        }
        if info.size == 0 {
            fail(.csvMedia, location, "'\(reference)' is empty (0 bytes); replace it with the real file")
            return nil
        }
        guard FileSystem.isReadable(path) else {
            fail(.csvMedia, location, "'\(reference)' cannot be read; check its permissions")
            return nil
        }
        do throws(StopFileName.Problem) { _ = try StopFileName(fileName) } catch {
            fail(
                .csvMedia, location,
                "the file name '\(TerminalText.escaped(fileName))' cannot be used in a package: \(error); rename the file"
            )
            return nil
        }
        return CSVImport.MediaFile(sourcePath: path, fileName: fileName)
    }

    /// Whether a cell's path (with `/` between folders) leads out of the folder it is read in:
    /// absolute, a drive letter (`C:/…`), or a `..` anywhere.
    static func leavesFolder(_ relative: String) -> Bool {
        if relative.hasPrefix("/") || relative.hasPrefix("~") { return true }
        let bytes = Array(relative.utf8)
        if bytes.count >= 2, bytes[1] == 0x3A, (0x41...0x5A).contains(bytes[0] & ~0x20) { return true }
        return relative.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == ".." }
    }

    mutating func listing(_ folder: String) -> [String] {
        if let cached = listings[folder] { return cached }
        let names = FileSystem.list(folder).filter { !FileSystem.isIgnored($0) }
        listings[folder] = names
        return names
    }
}

// MARK: - writing the tour

extension CSVImport {
    /// Writes a tour folder from checked stops: `tour.json` without bounds (the builder computes
    /// them), and one folder per stop with its `waypoint.json` and copies of its files.
    ///
    /// Everything is written into a hidden folder beside `folder` and moved into place at the
    /// end: a failure leaves nothing behind. `folder` must not exist, or be an empty folder.
    public static func writeTour(folder: String, stops: [Stop]) throws -> [String] {
        let fm = FileManager.default
        let target = URL(fileURLWithPath: folder)
        let targetInfo = FileSystem.lstatInfo(folder)
        if targetInfo.kind == .directory, !FileSystem.list(folder).isEmpty {
            throw BuildError.usage("'\(folder)' already exists and is not empty; give a new folder name")
        }
        if targetInfo.kind != .directory, targetInfo.kind != .missing {
            throw BuildError.usage("'\(folder)' is a file; give a new folder name")
        }
        let parent = target.deletingLastPathComponent().path
        guard FileSystem.statInfo(parent).kind == .directory else {
            throw BuildError.usage(
                "the folder '\(parent)' does not exist; create it first or give another place for the tour")
        }
        let staging = parent + "/.\(target.lastPathComponent).trailpack-init-\(getpid())"
        var written: [String] = []
        do {
            try fm.createDirectory(atPath: staging + "/waypoints", withIntermediateDirectories: true)
            let slug = Slug.isValid(target.lastPathComponent) ? target.lastPathComponent : "my-tour"
            try write(TourInit.templateTour(slug: slug, name: nil), to: staging + "/tour.json")
            written.append("tour.json")
            let width = max(2, String(stops.count).count)
            for (i, stop) in stops.enumerated() {
                let n = stop.order ?? (i + 1)
                let number = String(repeating: "0", count: max(0, width - String(n).count)) + String(n)
                var stopSlug = Slug.make(from: stop.name)
                if stopSlug.isEmpty { stopSlug = "stop" }
                let dir = "waypoints/\(number)-\(stopSlug)"
                try fm.createDirectory(atPath: staging + "/" + dir, withIntermediateDirectories: true)
                for file in stop.media {
                    try copyFile(file.sourcePath, to: staging + "/" + dir + "/" + file.fileName)
                    written.append(dir + "/" + file.fileName)
                }
                var members: [JSONMember] = [
                    JSONMember("name", .string(stop.name)),
                    JSONMember("coordinate", stop.coordinate.jsonValue),
                    JSONMember(
                        "description",
                        .string(stop.description.isEmpty ? TourInit.Placeholder.stopDescription : stop.description)),
                    JSONMember("assets", .array(stop.media.map { .string($0.fileName) })),
                ]
                if !stop.properties.isEmpty { members.append(JSONMember("properties", .object(stop.properties))) }
                try write(.object(members), to: staging + "/" + dir + "/waypoint.json")
                written.append(dir + "/waypoint.json")
            }
            if targetInfo.kind == .missing {
                try fm.moveItem(atPath: staging, toPath: folder)
            } else {
                for name in ["tour.json", "waypoints"] {
                    try fm.moveItem(atPath: staging + "/" + name, toPath: folder + "/" + name)
                }
                try fm.removeItem(atPath: staging)
            }
        } catch {
            try? fm.removeItem(atPath: staging)
            if let error = error as? BuildError { throw error }
            throw BuildError.io(
                "cannot create the tour in '\(folder)': \(error.localizedDescription); nothing was written")
        }
        return written
    }

    private static func write(_ value: JSONValue, to path: String) throws {
        try Data(JSONWriter.bytes(value)).write(to: URL(fileURLWithPath: path))
    }

    /// Copies the bytes of a file (never a link), in chunks.
    private static func copyFile(_ from: String, to: String) throws {
        guard let input = FileHandle(forReadingAtPath: from) else {
            throw BuildError.io("cannot read '\(from)': \(String(cString: strerror(errno))); nothing was written")
        }
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: to, contents: nil), let output = FileHandle(forWritingAtPath: to)
        else {
            throw BuildError.io("cannot write '\(to)'; nothing was written")
        }
        defer { try? output.close() }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
    }
}
