import Foundation
import TrailPackCore

#if canImport(Glibc)
import Glibc
#endif

// MARK: - rows to stops

struct RowReader {
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
        // A column of its own whose header is a near miss of a column the sheet lacks ('Descripton'):
        // read as a stop's detail, its texts would be lost to the stops' descriptions without a word.
        // One letter off at most ('Inscription' and 'Contents' are details of their own), and for the
        // media columns a letter missing or added, not changed ('Audit' is not 'audio'); a role a
        // language's column gives ('description_en') is not missing.
        for role in [CSVImport.Role.description, .photo, .audio, .video]
        where columns[role] == nil && !languageColumns.contains(where: { $0.role == role }) {
            for (index, _) in propertyColumns {
                let header = CSVImport.normalizeHeader(table.header[index])
                let near = role.aliases.contains { alias in
                    guard Spelling.distance(header, alias) == 1 else { return false }
                    return alias.count >= 7 || (alias == role.rawValue && header.count != alias.count)
                }
                guard near else { continue }
                fail(
                    .csvColumn, "column \(CSVImport.columnLetter(index)) (\(table.header[index]))",
                    "did you mean '\(role.rawValue)'? The header is not a column trailpack knows, so it would become a stop detail "
                        + "and the stops would get no \(role.rawValue); rename it '\(role.rawValue)' (or, if it is a detail of its own, give it a name less like '\(role.rawValue)')"
                )
                break
            }
        }
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
        for record in table.records where !table.misaligned.contains(record.row) {
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
        } else if let first = text.first(where: { !$0.isWhitespace }), "NSns".contains(first),
            let split = text.firstIndex(where: { "EWew".contains($0) }),
            text[..<split].contains(where: \.isNumber), text[split...].contains(where: \.isNumber)
        {
            // The hemisphere first, as Garmin units show it: "N 44° 23.550' W 122° 14.517'".
            parts = [String(text[..<split]), String(text[split...])]
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
        var info = FileSystem.statInfo(path)
        if info.kind == .missing {
            // The same name in another Unicode form: macOS writes 'ñ' as 'n' and a combining tilde,
            // a sheet as one letter. They look alike and are the same name (Swift compares them
            // so): the file on the disk is the one meant.
            let folder = PathText.folder(path)
            if let same = listing(folder).first(where: { $0 == fileName }) {
                path = (folder.isEmpty ? "" : folder + "/") + same
                info = FileSystem.statInfo(path)
            }
        }
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
                "the file '\(reference)' is not in '\(folder.isEmpty ? FileManager.default.currentDirectoryPath : folder)'\(which)\(hint)"
            )
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
