/// Limits that bound the work and memory a JSON document can make the parser spend.
public struct JSONLimits: Sendable, Equatable {
    /// The largest document, in bytes.
    public var maxBytes: Int
    /// The deepest nesting of arrays and objects.
    public var maxDepth: Int
    /// The longest number literal, in characters.
    public var maxNumberLength: Int
    /// The longest string, in bytes of UTF-8.
    public var maxStringBytes: Int

    /// Limits; the defaults are a manifest's.
    public init(maxBytes: Int = 16 << 20, maxDepth: Int = 32, maxNumberLength: Int = 40, maxStringBytes: Int = 1 << 20)
    {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxNumberLength = maxNumberLength
        self.maxStringBytes = maxStringBytes
    }

    /// The limits of a manifest (documented in `docs/FORMAT.md`).
    public static let manifest = JSONLimits(maxBytes: Manifest.maxBytes)
}

/// A duplicate object key, reported with the JSON path of the object that holds it.
public struct JSONDuplicateKey: Sendable, Equatable {
    /// The JSON path of the object that holds the key (`waypoints[2]`).
    public var path: JSONPath
    /// The repeated key.
    public var key: String
    /// The line of the second occurrence, from 1.
    public var line: Int
    /// The column of the second occurrence, from 1.
    public var column: Int
}

/// The result of parsing: the value, and every duplicate key the document contains.
public struct JSONDocument: Sendable {
    /// The parsed value.
    public var value: JSONValue
    /// Every duplicate key in the document, in order.
    public var duplicateKeys: [JSONDuplicateKey]
}

/// A strict RFC 8259 parser.
///
/// Unlike `JSONSerialization` it reports duplicate keys instead of letting one win (parsers
/// disagree on which one, an ambiguity an attacker can use), rejects a byte-order mark, lone
/// surrogates and invalid UTF-8, and bounds size, depth, number and string length.
public struct JSONParser {
    /// The document; when it comes in chunks (``parse(chunks:limits:streaming:element:)``), the
    /// part of it read and kept: `bytes[i]` is the document's byte `dropped + i`.
    private var bytes: [UInt8]
    private let limits: JSONLimits
    private var index = 0
    /// When the document comes in chunks: gives the next one, nil at the end (then set to nil).
    private var next: (() -> UnsafeRawBufferPointer?)?
    /// When the document comes in chunks: how many of its bytes were let go before `bytes[0]`,
    /// and the line and column of `bytes[0]`.
    private var dropped = 0
    private var droppedLine = 1
    private var droppedColumn = 1
    /// When the document comes in chunks: it went past `limits.maxBytes`, and reading stopped there.
    private var oversized = false
    /// When the document comes in chunks: the most bytes `bytes` held at once (for the tests).
    private var mostKept = 0
    private var depth = 0
    private var duplicates: [JSONDuplicateKey] = []
    /// Where the parser is: the keys and indexes from the top to the value being read. The
    /// path is written out only for a duplicate key (making it for every value was a tenth of
    /// reading a manifest of 20,000 assets).
    private var steps: [JSONPath.Component] = []
    /// The top-level member whose array elements go to a function instead of into the tree.
    private var stream: (key: String, element: (Int, JSONValue) -> Void)?
    /// Source mode (`parseSource`): mistakes people make are recorded and reading goes on.
    private var lenient = false
    private var issues: [JSONSourceIssue] = []
    /// Where the document starts (after a byte-order mark, in source mode): lines and columns count from here.
    private var origin = 0

    /// Parses `bytes` as one JSON document.
    public static func parse(_ bytes: [UInt8], limits: JSONLimits = .manifest) throws(CoreError) -> JSONDocument {
        var parser = JSONParser(bytes: bytes, limits: limits)
        return try parser.document()
    }

    /// Parses `bytes` as `parse` does, except that the elements of the array that is the value of
    /// the top-level member `key` (its first occurrence) are handed to `element` one by one, as
    /// they are read, and not kept: the document holds an empty array there. For a document whose
    /// one long list need not be held whole (a manifest's waypoints).
    package static func parse(
        _ bytes: [UInt8], limits: JSONLimits = .manifest, streaming key: String,
        element: @escaping (Int, JSONValue) -> Void
    ) throws(CoreError) -> JSONDocument {
        var parser = JSONParser(bytes: bytes, limits: limits)
        parser.stream = (key, element)
        return try parser.document()
    }

    /// Parses the document `next` gives in chunks, as `parse(_:limits:streaming:element:)` parses
    /// one buffer, with the same results and errors (an oversized document's message gives the
    /// limit, not the size). Only about 64 KiB of the document are held at a time, and the token
    /// being read: a caller that inflates a manifest need not hold all of it. A chunk's bytes are
    /// copied before `next` is called again; `next` returns nil at the end.
    package static func parse(
        chunks next: @escaping () -> UnsafeRawBufferPointer?, limits: JSONLimits = .manifest,
        streaming key: String, element: @escaping (Int, JSONValue) -> Void
    ) throws(CoreError) -> JSONDocument {
        var parser = JSONParser(chunks: next, limits: limits)
        parser.stream = (key, element)
        return try parser.document()
    }

    /// In chunked reading, how many bytes already read are kept before they are let go.
    static let keptBytes = 64 << 10

    /// `parse(chunks:…)`'s outcome, and the most bytes of the document it held at once.
    static func parseCountingKept(
        chunks next: @escaping () -> UnsafeRawBufferPointer?, limits: JSONLimits = .manifest
    ) -> (Result<JSONDocument, CoreError>, mostKept: Int) {
        var parser = JSONParser(chunks: next, limits: limits)
        let result = Result { () throws(CoreError) in try parser.document() }
        return (result, parser.mostKept)
    }

    private init(bytes: [UInt8], limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    private init(chunks next: @escaping () -> UnsafeRawBufferPointer?, limits: JSONLimits) {
        self.init(bytes: [], limits: limits)
        bytes.reserveCapacity(2 * Self.keptBytes)
        self.next = next
    }

    private mutating func document() throws(CoreError) -> JSONDocument {
        var tooLarge: CoreError {
            CoreError(
                code: .tooLarge, message: "the document is more than \(limits.maxBytes) bytes, the limit", line: 1,
                column: 1)
        }
        let document: JSONDocument
        do { document = try parseDocument() } catch {
            // One buffer is judged too large before it is parsed: in chunks, an error before the
            // limit gives way to it too (the rest is counted, not kept).
            var total = dropped + bytes.count
            while !oversized, let chunk = next?() {
                total += chunk.count
                oversized = total > limits.maxBytes
            }
            next = nil
            if oversized { throw tooLarge }
            throw error
        }
        // Whitespace past the limit ends a document as its end does.
        if oversized { throw tooLarge }
        return document
    }

    private mutating func parseDocument() throws(CoreError) -> JSONDocument {
        if bytes.count > limits.maxBytes {
            throw error(.tooLarge, "the document is \(bytes.count) bytes; the limit is \(limits.maxBytes)", at: 0)
        }
        if !has() { throw error(.syntax, "the file is empty; expected a JSON object", at: 0) }
        _ = has(3)  // what the checks below look at, when the document comes in chunks
        if lenient, bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3
            origin = 3
            issues.append(
                JSONSourceIssue(
                    forgiven: true, kind: .encoding, line: 1, column: 1,
                    message:
                        "the file starts with a byte-order mark (BOM), which JSON does not allow; it was ignored this time. Save the file as UTF-8 without BOM"
                ))
        } else if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw error(.encoding, "the file starts with a byte-order mark; save it as UTF-8 without BOM", at: 0)
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) || (bytes.count > 1 && bytes[1] == 0) {
            throw error(.encoding, "the file looks like UTF-16; save it as UTF-8", at: 0)
        }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if has() {
            throw error(.syntax, "unexpected \(describe(index)) after the end of the JSON value", at: index)
        }
        return JSONDocument(value: value, duplicateKeys: duplicates)
    }

    // MARK: values

    /// The JSON path of the value being read (`waypoints[2].assets[0]`).
    private var currentPath: JSONPath { JSONPath(steps) }

    private mutating func parseValue() throws(CoreError) -> JSONValue {
        guard has() else { throw error(.syntax, "unexpected end of file; expected a value", at: index) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""):
            var text = try parseString()
            var reported = false
            while lenient, let quote = earlyEnd() {
                if !reported { reported = true } else { text += "\"" + (try parseString(opened: true)); continue }
                issue(
                    .syntax, at: quote,
                    "a quote (\") inside the text ends the text early; write \\\" for a quote inside text, or use ’ or “ ” instead"
                )
                text += "\"" + (try parseString(opened: true))
            }
            return .string(text)
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case 0xE2 where lenient && isCurlyQuote(at: index):
            curlyQuotes(at: index)
            return .string(try parseString())
        case UInt8(ascii: "'") where lenient:
            throw error(.syntax, "text in JSON goes between double quotes \", not single quotes '", at: index)
        case UInt8(ascii: "a")...UInt8(ascii: "z") where lenient, UInt8(ascii: "A")...UInt8(ascii: "Z") where lenient:
            throw error(.syntax, "text in JSON goes between double quotes: write \"\(word(at: index))\"", at: index)
        default:
            throw error(
                .syntax,
                "unexpected \(describe(index)); expected a value (object, list, string, number, true, false or null)",
                at: index)
        }
    }

    private mutating func enter() throws(CoreError) {
        depth += 1
        if depth > limits.maxDepth {
            throw error(.tooDeep, "nesting is deeper than \(limits.maxDepth) levels", at: index)
        }
    }

    private mutating func parseObject() throws(CoreError) -> JSONValue {
        try enter()
        index += 1
        var members: [JSONMember] = []
        // Keys seen, for duplicates: a small object's members are searched instead (most
        // objects have a handful, and a set per object was an allocation per asset).
        var seen: Set<String>?
        var lastComma: Int?
        skipWhitespace()
        if peek(UInt8(ascii: "}")) { index += 1; depth -= 1; return .object(members) }
        while true {
            skipWhitespace()
            if lenient, peek(UInt8(ascii: "}")), let comma = lastComma {
                forgive(trailingCommaAt: comma)
                index += 1
                break
            }
            if lenient, isCurlyQuote(at: index) {
                curlyQuotes(at: index)
            } else if lenient, peek(UInt8(ascii: "'")) {
                throw error(.syntax, "names in JSON go between double quotes \", not single quotes '", at: index)
            } else if lenient, index < bytes.count, (bytes[index] | 0x20) >= UInt8(ascii: "a"),
                (bytes[index] | 0x20) <= UInt8(ascii: "z")
            {
                let name = String(word(at: index).prefix { $0 != ":" && $0 != " " })
                throw error(.syntax, "names in JSON go between double quotes: write \"\(name)\"", at: index)
            } else if !peek(UInt8(ascii: "\"")) {
                throw error(.syntax, "expected a quoted member name, found \(describe(index))", at: index)
            }
            let keyStart = index
            let key = try parseString()
            // Whether the key was given before, and where it is, is found out before its value is
            // read: in chunked reading, the key's bytes may be let go while the value is read.
            let duplicate: Bool
            if seen == nil && members.count < 16 {
                duplicate = members.contains { $0.key == key }
            } else {
                if seen == nil { seen = Set(members.map(\.key)) }
                duplicate = !seen!.insert(key).inserted
            }
            let duplicateAt = duplicate ? position(of: keyStart) : nil
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else {
                throw error(.syntax, "expected ':' after member name \"\(key)\"", at: index)
            }
            index += 1
            skipWhitespace()
            steps.append(.key(key))
            var value = try parseValue()
            steps.removeLast()
            if lenient { value = decimalComma(after: value) }
            if let (line, column) = duplicateAt {
                duplicates.append(JSONDuplicateKey(path: currentPath, key: key, line: line, column: column))
            }
            members.append(JSONMember(key, value))
            let valueEnd = index
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { lastComma = index; index += 1; continue }
            lastComma = nil
            if peek(UInt8(ascii: "}")) { index += 1; break }
            if lenient, peek(UInt8(ascii: "\"")) || isCurlyQuote(at: index) {
                missingComma(after: valueEnd)
                continue
            }
            throw error(.syntax, "expected ',' or '}' in an object, found \(describe(index))", at: index)
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseArray() throws(CoreError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        // The streamed array: the top-level member named so, the first time it is met.
        var sink: ((Int, JSONValue) -> Void)?
        if let stream, depth == 2, steps.count == 1, case .key(let key) = steps[0], key == stream.key {
            sink = stream.element
            self.stream = nil
        }
        var count = 0
        var lastComma: Int?
        skipWhitespace()
        if peek(UInt8(ascii: "]")) { index += 1; depth -= 1; return .array(elements) }
        while true {
            skipWhitespace()
            if lenient, peek(UInt8(ascii: "]")), let comma = lastComma {
                forgive(trailingCommaAt: comma)
                index += 1
                break
            }
            steps.append(.index(count))
            let value = try parseValue()
            if let sink { sink(count, value) } else { elements.append(value) }
            count += 1
            steps.removeLast()
            let valueEnd = index
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { lastComma = index; index += 1; continue }
            lastComma = nil
            if peek(UInt8(ascii: "]")) { index += 1; break }
            if lenient, index < bytes.count,
                bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "{") || isCurlyQuote(at: index)
            {
                missingComma(after: valueEnd)
                continue
            }
            throw error(.syntax, "expected ',' or ']' in a list, found \(describe(index))", at: index)
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func literal(_ word: StaticString) throws(CoreError) {
        let text = word.withUTF8Buffer { Array($0) }
        guard has(text.count), Array(bytes[index..<index + text.count]) == text else {
            throw error(.syntax, "unexpected \(describe(index)); expected a value", at: index)
        }
        index += text.count
    }

    private mutating func parseNumber() throws(CoreError) -> JSONNumber {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard has(), isDigit(bytes[index]) else {
            throw error(.number, "a number must have a digit after '-'", at: index)
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if has(), isDigit(bytes[index]) {
                throw error(.number, "numbers may not have leading zeros", at: start)
            }
        } else {
            while has(), isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard has(), isDigit(bytes[index]) else {
                throw error(.number, "expected a digit after the decimal point", at: index)
            }
            while has(), isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard has(), isDigit(bytes[index]) else {
                throw error(.number, "expected a digit in the exponent", at: index)
            }
            while has(), isDigit(bytes[index]) { index += 1 }
        }
        let length = index - start
        if length > limits.maxNumberLength {
            throw error(
                .number, "a number of \(length) characters is longer than the limit of \(limits.maxNumberLength)",
                at: start)
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let d = Double(text), d.isFinite else {
            throw error(.number, "the number \(text) is out of range", at: start)
        }
        return JSONNumber(literal: text)
    }

    /// A string from its opening quote; with `opened`, from just after it (reading on past a quote
    /// that ended the text early). In source mode a curly quote opens and closes a string too.
    private mutating func parseString(opened: Bool = false) throws(CoreError) -> String {
        let start = index
        var curly = false
        if opened {
        } else if lenient, isCurlyQuote(at: index) {
            curly = true
            index += 3
        } else {
            index += 1  // opening quote
        }
        // Most strings have no escape: find the closing quote and make the string from the bytes
        // between, without copying them one by one. Anything else goes the byte-by-byte way below.
        if !curly {
            var end = index
            var high: UInt8 = 0
            // No further than one byte past the longest string (the way below reports it).
            while end - index <= limits.maxStringBytes, end < bytes.count || readMore(toHold: end + 1),
                bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20
            {
                high |= bytes[end]
                end += 1
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\""), end - index <= limits.maxStringBytes {
                // ASCII (most of a manifest) is valid UTF-8 as it is: `String(decoding:)` is
                // specialized and copies; `String(validating:)` went through the runtime's
                // generic metadata for every string (a twentieth of a verify of 20,000 entries).
                let text = bytes.withUnsafeBufferPointer {
                    high < 0x80
                        ? String(decoding: UnsafeBufferPointer(rebasing: $0[index..<end]), as: UTF8.self)
                        : String(validating: UnsafeBufferPointer(rebasing: $0[index..<end]), as: UTF8.self)
                }
                if let text {
                    index = end + 1
                    return text
                }
            }
        }
        var out: [UInt8] = []
        var badEscape: Int?
        while true {
            guard has() else {
                throw error(.syntax, "a string is not closed; add the missing '\"'", at: start)
            }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") { index += 1; break }
            if curly, isCurlyQuote(at: index) { index += 3; break }
            if b < 0x20 {
                throw error(.syntax, "a control character (byte \(b)) inside a string must be escaped", at: index)
            }
            if b == UInt8(ascii: "\\") {
                index += 1
                guard has() else { throw error(.syntax, "a string ends inside an escape", at: index) }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard has(2), bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw error(
                                .encoding, "a lone UTF-16 surrogate \\u\(String(scalar, radix: 16)) is not a character",
                                at: index)
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error(
                                .encoding, "a UTF-16 high surrogate is not followed by a low surrogate", at: index)
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error(
                            .encoding, "a lone UTF-16 surrogate \\u\(String(scalar, radix: 16)) is not a character",
                            at: index)
                    }
                    out.append(contentsOf: Array(String(Unicode.Scalar(scalar)!).utf8))
                default:
                    guard lenient else {
                        throw error(
                            .syntax, "unknown escape '\\\(Character(Unicode.Scalar(e)))' in a string", at: index - 2)
                    }
                    // Keep the backslash as written; say once per string what to write instead.
                    badEscape = badEscape ?? index - 2
                    out.append(0x5C)
                    index -= 1
                }
            } else {
                out.append(b)
                index += 1
            }
            if out.count > limits.maxStringBytes {
                throw error(.tooLarge, "a string is longer than \(limits.maxStringBytes) bytes", at: start)
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else {
            throw error(.encoding, "a string is not valid UTF-8", at: start)
        }
        if let badEscape {
            let fixed = s.replacingOccurrences(of: "\\", with: "/")
            let looksLikePath = !s.contains(" ") && s.contains(".")
            issue(
                .syntax, at: badEscape,
                looksLikePath
                    ? "a backslash (\\) in a file name: use / instead (\(fixed))"
                    : "a backslash (\\) starts a special character in JSON; write \\\\ for a backslash, or use / in a file name"
            )
        }
        return s
    }

    private mutating func hex4() throws(CoreError) -> UInt32 {
        guard has(4) else { throw error(.syntax, "a \\u escape needs four hex digits", at: index) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error(.syntax, "a \\u escape needs four hex digits", at: index)
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    // MARK: source mode: mistakes people make

    /// The most mistakes one run reports: enough for any file a person wrote, and a bound on the
    /// work a hostile file can cause (each one costs a scan for its line number).
    public static let maxIssues = 100

    private mutating func issue(_ kind: CoreError.Code, at offset: Int, forgiven: Bool = false, _ message: String) {
        guard issues.count < Self.maxIssues else { return }
        let (line, column) = position(of: offset)
        issues.append(JSONSourceIssue(forgiven: forgiven, kind: kind, line: line, column: column, message: message))
    }

    /// The run of letters, digits and spaces at `i`, for a message.
    private func word(at i: Int) -> String {
        var end = i
        while end < bytes.count, end - i < 40, bytes[end] >= 0x20,
            ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "\"")].contains(bytes[end])
        { end += 1 }
        return String(decoding: bytes[i..<end], as: UTF8.self).trimmingTrailingSpaces
    }

    private mutating func forgive(trailingCommaAt comma: Int) {
        guard issues.count < Self.maxIssues else { return }
        let (line, _) = position(of: comma)
        issue(
            .syntax, at: comma, forgiven: true,
            "there is a comma after the last item on line \(line); remove it (JSON allows no comma before a closing } or ])"
        )
    }

    private mutating func missingComma(after valueEnd: Int) {
        guard issues.count < Self.maxIssues else { return }
        let (line, _) = position(of: valueEnd)
        issue(.syntax, at: valueEnd, "a comma is missing at the end of line \(line): put a comma between two items")
    }

    /// “ or ” (and ‘ ’), as word processors and some phones type them: E2 80 9C/9D/98/99.
    private func isCurlyQuote(at i: Int) -> Bool {
        i + 2 < bytes.count && bytes[i] == 0xE2 && bytes[i + 1] == 0x80
            && [0x9C, 0x9D, 0x98, 0x99].contains(bytes[i + 2])
    }

    private mutating func curlyQuotes(at i: Int) {
        guard issues.count < Self.maxIssues else { return }
        let (line, _) = position(of: i)
        if issues.contains(where: { $0.line == line && $0.message.hasPrefix("this line uses curly quotes") }) { return }
        issue(
            .syntax, at: i,
            "this line uses curly quotes “ ” from a word processor; use straight quotes \" (or edit the file in a plain text editor)"
        )
    }

    /// `"latitude": 44,28`: a number, a comma and digits where a member name should come.
    private mutating func decimalComma(after value: JSONValue) -> JSONValue {
        guard case .number(let n) = value, !n.literal.contains("."), !n.literal.contains("e"), !n.literal.contains("E"),
            peek(UInt8(ascii: ",")), index + 1 < bytes.count, isDigit(bytes[index + 1])
        else { return value }
        let comma = index
        index += 1
        let digitsStart = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        let fraction = String(decoding: bytes[digitsStart..<index], as: UTF8.self)
        issue(
            .number, at: comma,
            "a decimal comma in \(n.literal),\(fraction): write \(n.literal).\(fraction) with a point")
        return .number(JSONNumber(literal: n.literal + "." + fraction))
    }

    /// After a string value: the position of its closing quote if the text goes on on the same
    /// line (`"the "Old" mill"`), as happens when a quote inside text is not escaped.
    private func earlyEnd() -> Int? {
        var i = index
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"), 0x0A, 0x0D: return nil
        case UInt8(ascii: "\""): return nil
        default: return index - 1
        }
    }

    // MARK: helpers

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
    private mutating func peek(_ b: UInt8) -> Bool { has() && bytes[index] == b }

    /// Whether the `n` bytes from `index` on are there; when the document comes in chunks, reads
    /// on until they are or the document ends.
    @inline(__always)
    private mutating func has(_ n: Int = 1) -> Bool {
        index + n <= bytes.count || readMore(toHold: index + n)
    }

    /// When the document comes in chunks: reads chunks until `bytes` holds `count` bytes; false
    /// when the document ends first (or went past its limit: `oversized`).
    private mutating func readMore(toHold count: Int) -> Bool {
        guard next != nil else { return false }
        while bytes.count < count {
            guard let chunk = next?() else {
                next = nil
                return false
            }
            if dropped + bytes.count + chunk.count > limits.maxBytes {
                oversized = true
                next = nil
                return false
            }
            bytes.append(contentsOf: chunk)
            mostKept = max(mostKept, bytes.count)
        }
        return true
    }

    private mutating func skipWhitespace() {
        while has() {
            // The run among the bytes held, scanned with no check per byte but the byte's own (a
            // manifest's indentation is a third of its bytes).
            let held = bytes.count
            index = bytes.withUnsafeBufferPointer { b in
                var i = index
                while i < held, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x09 || b[i] == 0x0D { i += 1 }
                return i
            }
            // A long run of whitespace is let go as it is read, not kept whole: before more is read.
            if next != nil, index >= Self.keptBytes { letGoOfReadBytes() }
            if index < bytes.count { return }
        }
    }

    /// When the document comes in chunks: lets go of the bytes before `index`, between two
    /// tokens (no position into `bytes` is held then), keeping the line and column they end at.
    private mutating func letGoOfReadBytes() {
        (droppedLine, droppedColumn) = position(of: index)
        bytes.removeSubrange(0..<index)
        dropped += index
        index = 0
    }

    private func describe(_ at: Int) -> String {
        guard at < bytes.count else { return "end of file" }
        let b = bytes[at]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x\(String(b, radix: 16, uppercase: true))"
    }

    /// The line and column of `bytes[offset]`: from those of `bytes[0]`, a line per `\n` and a
    /// column per character (a byte that does not continue a UTF-8 sequence).
    private func position(of offset: Int) -> (Int, Int) {
        var line = droppedLine, column = droppedColumn
        let start = dropped == 0 ? origin : 0
        bytes.withUnsafeBufferPointer { b in
            for byte in b[start..<max(start, min(offset, b.count))] {
                if byte == 0x0A {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
        }
        return (line, column)
    }

    private func error(_ kind: CoreError.Code, _ message: String, at offset: Int) -> CoreError {
        let (line, column) = position(of: offset)
        return CoreError(code: kind, message: message, line: line, column: column)
    }
}

/// A mistake in a person's JSON file (`tour.json`, `waypoint.json`), found in source mode.
public struct JSONSourceIssue: Sendable, Equatable, CustomStringConvertible {
    /// A mistake trailpack read past (a byte-order mark, a trailing comma): a warning, not an error.
    public var forgiven: Bool
    /// The kind of mistake, as the strict parser names it.
    public var kind: CoreError.Code
    /// Where it is, from 1.
    public var line: Int
    /// The column on that line, from 1.
    public var column: Int
    /// What is wrong and how to fix it, in plain words.
    public var message: String
    /// `line 8, column 3: …`
    public var description: String { "line \(line), column \(column): \(message)" }
}

/// What source mode found: the value (nil when reading could not go on), and every issue.
public struct JSONSourceDocument: Sendable {
    /// The document's value, or nil when reading could not go on.
    public var value: JSONValue?
    /// Every key given twice in one object.
    public var duplicateKeys: [JSONDuplicateKey]
    /// Every mistake found, forgiven ones included.
    public var issues: [JSONSourceIssue]
}

extension JSONParser {
    /// Parses a file a person wrote (not a package's manifest, which stays strict): a byte-order
    /// mark and trailing commas are accepted with a warning; curly quotes, backslashes in file
    /// names, decimal commas, unescaped quotes in text and missing commas are errors in plain
    /// words, and reading goes on past them so that one run reports them all.
    public static func parseSource(_ bytes: [UInt8], limits: JSONLimits = .manifest) -> JSONSourceDocument {
        var parser = JSONParser(bytes: bytes, limits: limits)
        parser.lenient = true
        do {
            let document = try parser.document()
            return JSONSourceDocument(
                value: document.value, duplicateKeys: document.duplicateKeys, issues: parser.issues)
        } catch {
            return JSONSourceDocument(
                value: nil, duplicateKeys: parser.duplicates,
                issues: parser.issues + [
                    JSONSourceIssue(
                        forgiven: false, kind: error.code, line: error.line ?? 1, column: error.column ?? 1,
                        message: error.message)
                ])
        }
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
