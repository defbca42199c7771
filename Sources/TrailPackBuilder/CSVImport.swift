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
        /// The column headers that were not already property names, by the name made from them
        /// (`elevationFt` → `Elevation (ft)`): the panel shows the ranger's words.
        public var propertyLabels: [String: String] = [:]
        /// The stop's name and description in the tour's other languages, by language tag, from columns
        /// such as `name_es` and `Description (es)`; `name` and `description` are in the default language.
        public var translations: [String: Texts] = [:]
    }

    /// A stop's texts in one language; nil where the sheet's cell is empty.
    public struct Texts: Sendable, Equatable {
        public var name: String?
        public var description: String?

        public init(name: String? = nil, description: String? = nil) {
            self.name = name
            self.description = description
        }
    }

    /// A photo, audio or video file named in a cell and found on disk.
    public struct MediaFile: Sendable, Equatable {
        /// The file on disk.
        public var sourcePath: String
        /// Its name in the stop folder.
        public var fileName: String
        /// The language it is in, when it was named in a language's column (`audio_es`); nil: shared.
        public var language: String? = nil
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
    ///
    /// `language` is the language of the plain columns (`name`, `description`), a BCP 47 tag (`init
    /// --language`); when nil and the sheet has columns for other languages (`name_es`, `Description (es)`),
    /// it is English (`en`), and a note says so.
    public static func read(
        csvPath: String, mediaFolder: String?, ignoreMedia: Bool = false, columns: [String: String] = [:],
        confined: Bool = false, language: String? = nil
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
            ignoreMedia: ignoreMedia, columns: columns, confined: confined, language: language)
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
        /// The tour's languages, the default (the plain columns') first, then the others in column order;
        /// empty when the sheet has no language columns and no language was given.
        public var languages: [String] = []
        /// What the ranger should know about how the sheet was read (the language assumed for the plain columns).
        public var notes: [String] = []
        /// With `ignoreMedia`, the files the photo, audio and video columns name, by row: they did not
        /// come with the sheet, and the ranger should be told which.
        public var filesNotLookedFor: [NamedFile] = []
    }

    /// A file a sheet's cell names.
    public struct NamedFile: Sendable, Equatable {
        /// The sheet's row (the header is row 1).
        public var row: Int
        /// Row and column, as findings name them: `row 3, column F (photo)`.
        public var place: String
        /// The name as the cell wrote it.
        public var name: String
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
        columns: [String: String] = [:], confined: Bool = false, language: String? = nil
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
        reader.givenLanguage = language.map(canonicalTag)
        let stops = reader.read()
        findings += reader.findings
        return SheetReading(
            stops: findings.hasErrors ? nil : stops, findings: sortedByPlace(findings), languages: reader.languages,
            notes: reader.notes, filesNotLookedFor: reader.notLookedFor)
    }

    /// Findings in the order of the sheet: by row, then by column (stable otherwise).
    static func sortedByPlace(_ findings: [Finding]) -> [Finding] {
        func key(_ f: Finding) -> (Int, String) {
            let words = (f.path ?? "").split(separator: " ")
            let row = words.count > 1 && words[0] == "row" ? Int(words[1].trimmingCharacters(in: [","])) ?? 0 : 0
            var column = words.count > 3 && words[2] == "column" ? String(words[3]) : ""
            if words.count > 1 && words[0] == "column" { column = String(words[1]) }  // a header problem
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

    /// A column header (or a detail's name as a ranger typed it) as a property name:
    /// `"Elevation (ft)"` → `"elevationFt"`; letters, digits, at most 64, starting with a letter.
    public static func propertyName(_ header: String) -> String {
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

    // MARK: languages

    /// The roles a column may give in one language: `name_es`, `Description (es)`, `audio_es`.
    static let languageRoles: [Role] = [.name, .description, .photo, .audio, .video]

    /// What a header with a language after it names: the role, and the tag as written.
    struct LanguageHeader: Equatable {
        var role: Role
        var tag: String
    }

    /// The role and language of a header that names one of ``languageRoles`` followed by a language:
    /// `name_es`, `Description-es-419`, `Nombre (ES)`, `photo [fr]`; nil for any other header. The tag
    /// is returned as written and may be malformed (the caller says so). What follows the role must start
    /// with a two- or three-letter language code, so `Description (short)` stays the description. After
    /// `_` or `-`, `id` and the words the importer knows for other columns are not languages: `stop_id`
    /// is an identifier (a property; write `Name (id)` for Indonesian), `stop_no` the order.
    static func languageHeader(_ header: String) -> LanguageHeader? {
        let text = header.trimmingCharacters(in: .whitespaces)
        var candidates: [(base: Substring, tag: Substring, bracketed: Bool)] = []
        for (open, close) in [("(", ")"), ("[", "]")] where text.hasSuffix(close) {
            if let start = text.lastIndex(of: Character(open)) {
                let inside = text[text.index(after: start)..<text.index(before: text.endIndex)]
                candidates.append((text[..<start], inside, true))
            }
        }
        for i in text.indices where text[i] == "_" || text[i] == "-" {
            candidates.append((text[..<i], text[text.index(after: i)...], false))
        }
        for candidate in candidates {
            let baseKey = normalizeHeader(String(candidate.base))
            guard let role = languageRoles.first(where: { $0.aliases.contains(baseKey) }) else { continue }
            let tag = candidate.tag.trimmingCharacters(in: .whitespaces)
            let primary = tag.prefix { $0 != "-" && $0 != "_" }
            guard (2...3).contains(primary.count), primary.allSatisfy({ $0.isASCII && $0.isLetter }) else { continue }
            if !candidate.bracketed {
                let key = normalizeHeader(tag)
                if key == "id" || Role.allCases.contains(where: { $0.aliases.contains(key) }) { continue }
            }
            return LanguageHeader(role: role, tag: tag)
        }
        return nil
    }

    /// A tag in the case BCP 47 recommends: `ES_mx` → `es-MX` (``LanguageTag/canonicalCase(_:)``).
    public static func canonicalTag(_ tag: String) -> String { LanguageTag.canonicalCase(tag) }

    /// Why `tag` (with hyphens between its parts) is not a well-formed BCP 47 tag, in plain words.
    static func tagProblem(_ tag: String) -> String {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        if let odd = tag.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber)) && $0 != "-" }) {
            return "a language tag holds only letters, digits and hyphens, not '\(odd)'"
        }
        if parts.contains(where: \.isEmpty) {
            return "a language tag has no empty part (no two hyphens in a row, none at the end)"
        }
        if let long = parts.first(where: { $0.count > 8 }) {
            return "each part of a language tag is 1 to 8 letters or digits, and '\(long)' has \(long.count)"
        }
        return
            "after the language code come, in this order, a script (Hant), a region (MX or 419) and variants "
            + "(5 to 8 letters or digits)"
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
    /// The files of a zipped sheet's folder by lowercased name (``zipIndex()``), once listed.
    var zipFiles: [String: [String]]?
    /// The files the media columns name, when they are not looked for (`ignoreMedia`): the sheet came alone.
    var notLookedFor: [CSVImport.NamedFile] = []
    /// Role name → header, chosen by the ranger; these columns are not guessed.
    var chosen: [String: String] = [:]
    var findings: [Finding] = []
    var columns: [CSVImport.Role: Int] = [:]
    var propertyColumns: [(index: Int, name: String)] = []
    var listings: [String: [String]] = [:]
    /// The language of the plain columns, as given (`init --language`), canonical case.
    var givenLanguage: String?
    /// The columns in one language (`name_es`, `Audio (es)`), in column order; a column in the default
    /// language takes the plain column's place for the name and description.
    var languageColumns: [(index: Int, role: CSVImport.Role, language: String)] = []
    /// The tour's languages, the default first; empty when the sheet names none and none was given.
    var languages: [String] = []
    /// Notes for the ranger: the language assumed for the plain columns.
    var notes: [String] = []

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
            if !CSVImport.Role.allCases.contains(where: { $0.aliases.contains(key) }),
                let named = CSVImport.languageHeader(header)
            {
                addLanguageColumn(index, named)
                continue
            }
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
        resolveLanguages()
        var needed: [CSVImport.Role] = [.name]
        if columns[.coordinates] == nil { needed += [.latitude, .longitude] }
        for role in needed where columns[role] == nil {
            if let hint = missingInDefaultLanguage(role) {
                fail(.csvColumn, "row 1", hint)
                continue
            }
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

    /// A column named for a role in one language: kept when the tag is well-formed and the column is the
    /// first for that role and language, else a finding.
    mutating func addLanguageColumn(_ index: Int, _ named: CSVImport.LanguageHeader) {
        let header = table.header[index]
        let column = "column \(CSVImport.columnLetter(index)) (\(header))"
        let written = named.tag.replacingOccurrences(of: "_", with: "-")
        guard LanguageTag.isWellFormed(written) else {
            fail(
                .csvColumn, column,
                "the header reads as the \(named.role.rawValue) in another language, but '\(named.tag)' is not a "
                    + "language tag: \(CSVImport.tagProblem(written)). Write a language code, with a region or "
                    + "script if needed, such as \(named.role.rawValue)_es, \(named.role.rawValue)_es-419 or "
                    + "\(named.role.rawValue)_zh-Hant; or rename the column if it is not about a language")
            return
        }
        let tag = CSVImport.canonicalTag(written)
        if let previous = languageColumns.first(where: { $0.role == named.role && $0.language == tag }) {
            fail(
                .csvColumn, column,
                "columns \(CSVImport.columnLetter(previous.index)) (\(table.header[previous.index])) and "
                    + "\(CSVImport.columnLetter(index)) (\(header)) both give the \(named.role.rawValue) in "
                    + "\(LanguageTag.describe(tag)); keep one (delete or rename the other)")
            return
        }
        languageColumns.append((index, named.role, tag))
    }

    /// The tour's languages: the plain columns' (given, else English when the sheet has language columns)
    /// first, then the others in column order. A name or description column in the default language is the
    /// plain column when there is none, and a finding when there is one as well.
    mutating func resolveLanguages() {
        guard !languageColumns.isEmpty || givenLanguage != nil else { return }
        if let given = givenLanguage, !LanguageTag.isWellFormed(given) {
            fail(
                .csvColumn, nil,
                "the language given for the plain columns, '\(given)', is not a language tag; give one such as en, "
                    + "es, es-419 or zh-Hant (BCP 47)")
            return
        }
        let base = givenLanguage ?? "en"
        let plainTexts = [CSVImport.Role.name, .description].filter { columns[$0] != nil }
        for role in [CSVImport.Role.name, .description] {
            guard let own = languageColumns.first(where: { $0.role == role && $0.language == base }) else { continue }
            languageColumns.removeAll { $0.index == own.index }
            guard let plain = columns[role] else {
                columns[role] = own.index
                continue
            }
            fail(
                .csvColumn, "column \(CSVImport.columnLetter(own.index)) (\(table.header[own.index]))",
                "columns \(CSVImport.columnLetter(plain)) (\(table.header[plain])) and "
                    + "\(CSVImport.columnLetter(own.index)) (\(table.header[own.index])) both give the "
                    + "\(role.rawValue) in \(LanguageTag.describe(base)), the language of the plain columns; keep one "
                    + "(delete the other, or rename it)")
        }
        languages = [base]
        for c in languageColumns where !languages.contains(c.language) { languages.append(c.language) }
        if columns[.description] == nil, languageColumns.contains(where: { $0.role == .description }) {
            notes.append(
                "the sheet has no description column in \(LanguageTag.describe(base)), the language of the plain "
                    + "columns, so each stop's description in it is left as the template's text; add a description "
                    + "column, or pass --language to make another language the default")
        }
        guard givenLanguage == nil, languages.count > 1 else { return }
        let others = languages.dropFirst().map(LanguageTag.describe).joined(separator: " and ")
        notes.append(
            plainTexts.isEmpty
                ? "the sheet has \(others) columns; the tour's default language (the one visitors fall back to) is "
                    + "taken as English (en); pass --language to say otherwise"
                : "the sheet has \(others) columns; the plain columns are taken as English (en); pass --language "
                    + "to say otherwise")
    }

    /// Why a needed column is missing when the sheet has it only in languages other than the default, or nil.
    func missingInDefaultLanguage(_ role: CSVImport.Role) -> String? {
        let given = languageColumns.filter { $0.role == role }
        guard let first = given.first, let base = languages.first else { return nil }
        let which = given.map { "\(CSVImport.columnLetter($0.index)) (\(table.header[$0.index]))" }
        return
            "there is no \(role.rawValue) column in \(LanguageTag.describe(base)), the language of the plain "
            + "columns: the sheet gives the \(role.rawValue) only in column\(given.count == 1 ? "" : "s") "
            + "\(which.joined(separator: ", ")). Pass --language \(first.language) if "
            + "\(LanguageTag.describe(first.language)) is the tour's default language, or add a column named "
            + "'\(role.rawValue)' in \(LanguageTag.describe(base))"
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
                fail(
                    .csvValue, place(row, columns[.name]!),
                    languages.count > 1
                        ? "the stop has no name in \(LanguageTag.describe(languages[0])), the language of the plain "
                            + "columns; every stop needs one"
                        : "the stop has no name; every stop needs one")
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
            // The plain files (photo, audio, video), then each language's, in column order. A plain column
            // is the default language's when the sheet has the same column in another language (`audio`
            // beside `audio_es`: the English narration); else its files are shared by every language.
            var mediaColumns: [(role: CSVImport.Role, index: Int, language: String?)] = [
                CSVImport.Role.photo, .audio, .video,
            ].compactMap { role in
                columns[role].map { index in
                    let inLanguages = languageColumns.contains { $0.role == role }
                    return (role, index, inLanguages ? languages.first : nil)
                }
            }
            mediaColumns += languageColumns.filter { $0.role.kind != nil }.map { ($0.role, $0.index, $0.language) }
            for (role, c, language) in mediaColumns {
                let text = c < record.cells.count ? record.cells[c].trimmingCharacters(in: .whitespaces) : ""
                guard !text.isEmpty else { continue }
                for reference in text.split(whereSeparator: { ";,|\n".contains($0) }).map({
                    $0.trimmingCharacters(in: .whitespaces)
                }) where !reference.isEmpty {
                    if ignoreMedia {
                        notLookedFor.append(CSVImport.NamedFile(row: row, place: place(row, c), name: reference))
                        continue
                    }
                    if var file = mediaFile(reference, role: role, at: place(row, c)) {
                        file.language = language
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
            var propertyLabels: [String: String] = [:]
            for (index, key) in propertyColumns {
                guard index < record.cells.count else { continue }
                let text = record.cells[index].trimmingCharacters(in: .whitespaces)
                if text.isEmpty { continue }
                properties.append(JSONMember(key, propertyValue(text)))
                let header = table.header[index].trimmingCharacters(in: .whitespaces)
                if header != key { propertyLabels[key] = header }
            }

            // The name and description in the other languages; an empty cell gives nothing.
            var translations: [String: CSVImport.Texts] = [:]
            for c in languageColumns where c.role == .name || c.role == .description {
                guard c.index < record.cells.count else { continue }
                let raw = record.cells[c.index]
                if c.role == .name {
                    let text = raw.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
                    if !text.isEmpty { translations[c.language, default: CSVImport.Texts()].name = text }
                } else {
                    let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                    if !text.isEmpty { translations[c.language, default: CSVImport.Texts()].description = text }
                }
            }

            guard findings.count == errorsBefore else { continue }
            stops.append(
                CSVImport.Stop(
                    row: row, name: name, order: order, coordinate: coordinate,
                    description: (cell(.description) ?? "").trimmingCharacters(in: .whitespacesAndNewlines),
                    media: media, properties: properties, propertyLabels: propertyLabels, translations: translations))
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
        if confined {
            // A zipped sheet: the file where the cell says, else the one file of that name anywhere
            // in the zip; every message names places in the zip, never the server's folders.
            guard let found = zippedFile(relative, fileName: fileName, at: location) else { return nil }
            path = found
        }
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

    /// The file a cell of a zipped sheet names, at `relative` in the zip, else found by its name
    /// anywhere in it (exactly, else ignoring case); nil, with a finding, when it is in no place or in
    /// several.
    mutating func zippedFile(_ relative: String, fileName: String, at location: String) -> String? {
        let direct = mediaFolder + "/" + relative
        if FileSystem.statInfo(direct).kind != .missing { return direct }
        let index = zipIndex()
        var places = index[fileName.lowercased(), default: []]
        if places.count > 1 {
            let exact = places.filter { PathText.lastComponent($0) == fileName }
            if !exact.isEmpty { places = exact }
        }
        switch places.count {
        case 1:
            return mediaFolder + "/" + places[0]
        case 0:
            let names = index.values.flatMap { $0 }.map(PathText.lastComponent)
            var hint = ": add it to the zip (anywhere in it), or correct the name in the sheet"
            if let near = Spelling.closest(to: fileName, among: names) {
                hint = "; did you mean '\(near)'?"
            } else if let sameBase = names.first(where: {
                PathText.droppingExtension($0).lowercased() == fileName.lowercased()
            }) {
                hint = "; did you mean '\(sameBase)'? (write the name with its extension)"
            }
            fail(.csvMedia, location, "the file '\(TerminalText.escaped(relative))' is not in the zip\(hint)")
        default:
            let shown = places.sorted().prefix(5).map { "'\(TerminalText.escaped($0))'" }.joined(separator: ", ")
            fail(
                .csvMedia, location,
                "there are \(places.count) files called '\(TerminalText.escaped(fileName))' in the zip (\(shown)): write which one, such as '\(TerminalText.escaped(places.sorted()[0]))', or rename the others"
            )
        }
        return nil
    }

    /// Every file of a zipped sheet's folder, by its lowercased name: their places in the zip (hidden
    /// files, `__MACOSX` and what operating systems leave behind skipped). Listed once.
    mutating func zipIndex() -> [String: [String]] {
        if let zipFiles { return zipFiles }
        var index: [String: [String]] = [:]
        var folders = [""]
        while let relative = folders.popLast() {
            for name in FileSystem.list(relative.isEmpty ? mediaFolder : mediaFolder + "/" + relative)
            where !FileSystem.isIgnored(name) && name != "__MACOSX" {
                let place = relative.isEmpty ? name : relative + "/" + name
                switch FileSystem.statInfo(mediaFolder + "/" + place).kind {
                case .directory: folders.append(place)
                case .file: index[name.precomposedStringWithCanonicalMapping.lowercased(), default: []].append(place)
                default: break
                }
            }
        }
        zipFiles = index
        return index
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
    ///
    /// With `languages` (``SheetReading/languages``: the default first), `tour.json` declares them, and a
    /// stop with a text in another language gets its `name` and `description` as objects by language
    /// (`{"en": …, "es": …}`); a file named in a language's column is listed with its `"language"`.
    public static func writeTour(folder: String, stops: [Stop], languages: [String] = []) throws -> [String] {
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
            var tour = TourInit.templateTour(slug: slug, name: nil)
            if !languages.isEmpty, case .object(var members) = tour {
                let at = (members.firstIndex { $0.key == "version" } ?? -1) + 1
                members.insert(JSONMember("languages", .array(languages.map { .string($0) })), at: at)
                tour = .object(members)
            }
            try write(tour, to: staging + "/tour.json")
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
                let description = stop.description.isEmpty ? TourInit.Placeholder.stopDescription : stop.description
                var members: [JSONMember] = [
                    JSONMember("name", text(stop.name, stop, \.name, languages)),
                    JSONMember("coordinate", stop.coordinate.jsonValue),
                    JSONMember("description", text(description, stop, \.description, languages)),
                    JSONMember("assets", .array(stop.media.map(assetReference))),
                ]
                if !stop.properties.isEmpty { members.append(JSONMember("properties", .object(stop.properties))) }
                try write(.object(members), to: staging + "/" + dir + "/waypoint.json")
                written.append(dir + "/waypoint.json")
                if let names = TourDraft.detailNamesJSON(stop.propertyLabels, properties: stop.properties) {
                    try write(names, to: staging + "/" + dir + "/" + TourDraft.detailNamesFileName)
                    written.append(dir + "/" + TourDraft.detailNamesFileName)
                }
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

    /// A stop's text: one string, or, when the stop has a text in another language, an object by language
    /// (the default first, then each language that gives this text).
    private static func text(
        _ plain: String, _ stop: Stop, _ field: KeyPath<Texts, String?>, _ languages: [String]
    ) -> JSONValue {
        guard let base = languages.first, languages.dropFirst().contains(where: { stop.translations[$0] != nil })
        else { return .string(plain) }
        var members = [JSONMember(base, .string(plain))]
        for tag in languages.dropFirst() {
            if let translated = stop.translations[tag]?[keyPath: field] {
                members.append(JSONMember(tag, .string(translated)))
            }
        }
        return .object(members)
    }

    /// A file in `waypoint.json`'s `assets`: its name, or, for a file in one language, its name and language.
    private static func assetReference(_ file: MediaFile) -> JSONValue {
        guard let language = file.language else { return .string(file.fileName) }
        return .object([JSONMember("file", .string(file.fileName)), JSONMember("language", .string(language))])
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
