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

}
