import Foundation
import TrailPackCore

#if canImport(Glibc)
import Glibc
#endif

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
    /// The rows with more cells than the header (reported in `problems`): every cell after the one
    /// that split is in the wrong column, so nothing more is read from them (a photo column holding
    /// a description would be "a file not in the folder", a second message for the same mistake).
    var misaligned: Set<Int> = []

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
        // A workbook, not a sheet saved as text: .xlsx and .ods are zips, .xls an OLE compound file
        // (whose bytes read as Windows-1252 would be a header row of gibberish).
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0xD0, 0xCF, 0x11, 0xE0]) {
            return .failure(
                Problem(
                    location: nil,
                    message:
                        "the file is a spreadsheet workbook (Excel .xlsx or .xls, or LibreOffice .ods), not a sheet saved as CSV: "
                        + "open it and save it again as 'CSV UTF-8 (Comma delimited)' (Excel: File, Save As) or 'Text CSV' (LibreOffice), then give that file"
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
            table.misaligned.insert(r.row)
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
