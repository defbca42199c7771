import Foundation
import SystemPackage
import TrailPackFileIO

/// A strict, streaming XML 1.0 tokenizer for small document formats (GPX): it reads in 64 KiB
/// chunks, keeps only the open elements and the text it is asked for, and refuses what a
/// careful reader must not guess about.
///
/// - Refused, never read: a document type declaration (`<!DOCTYPE`), so no external entity,
///   no parameter entity and no entity expansion exists; any entity but the five predefined ones.
/// - Refused with line and column: malformed markup, unclosed or mismatched elements, a file cut
///   short, anything but comments and processing instructions after the root element, invalid
///   UTF-8, characters XML does not allow, encodings other than UTF-8, ISO-8859-1 and windows-1252.
/// - Line ends are normalized to `\n` in text; attribute whitespace to spaces.
/// - Namespaces are resolved: each element carries its namespace name (`nil` when none applies;
///   an undeclared prefix resolves to `"?prefix"`, so it matches only itself).
///
/// Columns count Unicode scalars from 1.
struct XMLTokenizer {
    /// Where something is in the file; both count from 1.
    struct Position: Sendable, Equatable, CustomStringConvertible {
        var line: Int
        var column: Int
        var description: String { "line \(line), column \(column)" }
    }

    /// A refusal, located.
    struct Failure: Error, Sendable, Equatable {
        var position: Position
        var reason: String
    }

    struct Attribute: Sendable, Equatable {
        var name: String
        var value: String
    }

    struct Element: Sendable {
        /// The name as written: `gpx:wpt`.
        var qualifiedName: String
        /// The name without its prefix: `wpt`.
        var localName: String
        /// The namespace name the prefix (or the default namespace) resolves to.
        var namespace: String?
        var attributes: [Attribute]
        var position: Position

        func attribute(_ name: String) -> String? { attributes.first(where: { $0.name == name })?.value }
    }

    enum Event: Sendable {
        case start(Element)
        case end(qualifiedName: String, position: Position)
        /// Character data or a CDATA section; only while `collectText` is set.
        case text(String)
    }

    /// The deepest nesting accepted (GPX needs fewer than ten).
    static let maxDepth = 256
    /// The longest text run, attribute value or comment kept or scanned in one piece.
    static let maxTextBytes = 1 << 20
    static let maxNameBytes = 1000
    static let maxAttributes = 256

    /// Set by the caller before `next()`: whether character data is returned (else it is checked
    /// and dropped).
    var collectText = false

    private var input: Input
    private var state: DocumentState = .start
    private var open: [(name: String, position: Position, bindings: Int)] = []
    private var bindings: [(prefix: String, uri: String)] = []
    private var pendingEnd: (String, Position)?
    private var text: [UInt8] = []
    private var nameBytes: [UInt8] = []

    private enum DocumentState { case start, prolog, content, epilog, done }

    /// Reads from an open file descriptor (not closed here), refusing more than `limit` bytes.
    init(fileDescriptor: FileDescriptor, name: String, limit: Int64) {
        input = Input(file: (fileDescriptor, name), bytes: [], limit: limit)
    }

    /// Reads from bytes in memory.
    init(bytes: [UInt8]) {
        input = Input(file: nil, bytes: bytes, limit: Int64.max)
    }

    /// The position of the next byte.
    var position: Position { input.position }

    /// The next event; nil once the document has ended (and only whitespace, comments and
    /// processing instructions followed it).
    mutating func next() throws(Failure) -> Event? {
        if let (name, pos) = pendingEnd {
            pendingEnd = nil
            return closeElement(name, pos)
        }
        while true {
            switch state {
            case .done:
                return nil
            case .start:
                try readStart()
                state = .prolog
            case .prolog, .epilog:
                try skipWhitespace()
                let at = input.position
                guard let b = try input.peek() else {
                    if state == .prolog { throw Failure(position: at, reason: "the file holds no XML element") }
                    state = .done
                    return nil
                }
                guard b == 0x3C else {
                    throw Failure(
                        position: at,
                        reason: state == .prolog
                            ? "text before the first element; the file should start with '<?xml' or '<gpx'"
                            : "text after the end of the root element </\(rootName)>; nothing but comments may follow it"
                    )
                }
                _ = try input.take()
                if let event = try readMarkup(at: at) { return event }
            case .content:
                if let event = try readContent() { return event }
            }
        }
    }

    private var rootName = ""

    // MARK: content

    /// Character data up to the next markup, or one piece of markup.
    private mutating func readContent() throws(Failure) -> Event? {
        let at = input.position
        guard let b = try input.peek() else {
            let (name, opened, _) = open[open.count - 1]
            throw Failure(
                position: at,
                reason:
                    "the file ends inside <\(name)> (opened at \(opened)); it is cut short: export or copy it again")
        }
        if b == 0x3C {
            _ = try input.take()
            return try readMarkup(at: at)
        }
        text.removeAll(keepingCapacity: true)
        try readCharacterData()
        if collectText && !text.isEmpty { return .text(String(decoding: text, as: UTF8.self)) }
        return nil
    }

    /// Text up to the next `<` (or the end), with references resolved and `]]>` refused.
    private mutating func readCharacterData() throws(Failure) {
        var brackets = 0
        var lastCR = false
        while let b = try input.peek() {
            if b == 0x3C { return }
            let at = input.position
            _ = try input.take()
            if b == 0x26 {
                try readReference(at: at, into: collectText)
                brackets = 0
                lastCR = false
                continue
            }
            if b == 0x3E && brackets >= 2 {
                throw Failure(position: at, reason: "']]>' is not allowed in text; write it as ']]&gt;'")
            }
            brackets = b == 0x5D ? brackets + 1 : 0
            if b == 0x0A && lastCR { lastCR = false; continue }
            lastCR = b == 0x0D
            try appendChar(b, at: at, into: collectText, crAsLF: true)
        }
    }

    /// After `<`: an element, an end tag, a comment, a CDATA section or a processing instruction.
    private mutating func readMarkup(at: Position) throws(Failure) -> Event? {
        guard let b = try input.peek() else { throw cutShort(at) }
        switch b {
        case 0x2F:  // </
            _ = try input.take()
            guard state == .content else { throw Failure(position: at, reason: "an end tag with no element open") }
            let name = try readName()
            try skipWhitespace()
            try expect(0x3E, "'>' to end the end tag </\(name)")
            let (openName, opened, _) = open[open.count - 1]
            guard name == openName else {
                throw Failure(position: at, reason: "</\(name)> does not close <\(openName)> (opened at \(opened))")
            }
            return closeElement(name, at)
        case 0x21:  // <!
            _ = try input.take()
            if try input.skip("--") {
                try skipComment(at: at)
                return nil
            }
            if try input.skip("[CDATA[") {
                guard state == .content else {
                    throw Failure(position: at, reason: "a CDATA section outside the root element")
                }
                text.removeAll(keepingCapacity: true)
                try readCDATA(at: at)
                if collectText && !text.isEmpty { return .text(String(decoding: text, as: UTF8.self)) }
                return nil
            }
            if try input.skip("DOCTYPE") {
                throw Failure(
                    position: at,
                    reason:
                        "the file has a document type declaration (<!DOCTYPE ...>); GPX needs none, and trailpack never reads one "
                        + "(it can pull in other files and define entities): delete the <!DOCTYPE ...> block and use plain text"
                )
            }
            throw Failure(position: at, reason: "'<!' starts neither a comment '<!--' nor a CDATA section '<![CDATA['")
        case 0x3F:  // <?
            _ = try input.take()
            let target = try readName()
            if target.lowercased() == "xml" {
                throw Failure(
                    position: at,
                    reason: "the XML declaration '<?xml ...?>' is allowed only at the very start of the file")
            }
            try skipUntil("?>", at: at, what: "processing instruction <?\(target)")
            return nil
        default:
            return try readStartTag(at: at)
        }
    }

    private mutating func readStartTag(at: Position) throws(Failure) -> Event? {
        if state == .epilog {
            throw Failure(
                position: at,
                reason: "an element after the end of the root element </\(rootName)>; a file holds one <\(rootName)>")
        }
        let name = try readName()
        var attributes: [Attribute] = []
        var selfClosing = false
        while true {
            let hadSpace = try skipWhitespace()
            let pos = input.position
            guard let b = try input.peek() else { throw cutShort(at) }
            if b == 0x3E { _ = try input.take(); break }
            if b == 0x2F {
                _ = try input.take()
                try expect(0x3E, "'>' after '/' in <\(name)")
                selfClosing = true
                break
            }
            guard hadSpace else {
                throw Failure(position: pos, reason: "a space is needed between attributes in <\(name)>")
            }
            let attrName = try readName()
            try skipWhitespace()
            try expect(0x3D, "'=' after the attribute \(attrName) in <\(name)>")
            try skipWhitespace()
            let value = try readAttributeValue()
            if attributes.contains(where: { $0.name == attrName }) {
                throw Failure(position: pos, reason: "the attribute \(attrName) appears twice in <\(name)>")
            }
            if attributes.count == Self.maxAttributes {
                throw Failure(position: pos, reason: "<\(name)> has more than \(Self.maxAttributes) attributes")
            }
            attributes.append(Attribute(name: attrName, value: value))
        }
        if open.count == Self.maxDepth {
            throw Failure(position: at, reason: "elements are nested more than \(Self.maxDepth) deep")
        }
        // Namespace declarations of this element.
        var declared = 0
        for a in attributes {
            if a.name == "xmlns" {
                bindings.append(("", a.value)); declared += 1
            } else if a.name.hasPrefix("xmlns:") {
                bindings.append((String(a.name.dropFirst(6)), a.value)); declared += 1
            }
        }
        let (prefix, local) = Self.split(name)
        let namespace = resolve(prefix)
        if state == .prolog {
            rootName = name
            state = .content
        }
        open.append((name, at, declared))
        if selfClosing { pendingEnd = (name, at) }
        return .start(
            Element(qualifiedName: name, localName: local, namespace: namespace, attributes: attributes, position: at))
    }

    private mutating func closeElement(_ name: String, _ at: Position) -> Event {
        let (_, _, declared) = open.removeLast()
        bindings.removeLast(declared)
        if open.isEmpty { state = .epilog }
        return .end(qualifiedName: name, position: at)
    }

    static func split(_ name: String) -> (prefix: String, local: String) {
        guard let colon = name.firstIndex(of: ":") else { return ("", name) }
        return (String(name[..<colon]), String(name[name.index(after: colon)...]))
    }

    private func resolve(_ prefix: String) -> String? {
        if prefix == "xml" { return "http://www.w3.org/XML/1998/namespace" }
        if let b = bindings.last(where: { $0.prefix == prefix }) {
            return b.uri.isEmpty && prefix.isEmpty ? nil : b.uri
        }
        return prefix.isEmpty ? nil : "?" + prefix
    }

    // MARK: pieces

    private mutating func readAttributeValue() throws(Failure) -> String {
        let at = input.position
        guard let quote = try input.take(), quote == 0x22 || quote == 0x27 else {
            throw Failure(position: at, reason: "an attribute value must be in quotes")
        }
        text.removeAll(keepingCapacity: true)
        var lastCR = false
        while true {
            let pos = input.position
            guard let b = try input.take() else { throw cutShort(at) }
            if b == quote { break }
            if b == 0x3C {
                throw Failure(position: pos, reason: "'<' is not allowed in an attribute value; write '&lt;'")
            }
            if b == 0x26 { try readReference(at: pos, into: true); lastCR = false; continue }
            if b == 0x0A && lastCR { lastCR = false; continue }
            lastCR = b == 0x0D
            if b == 0x09 || b == 0x0A || b == 0x0D {
                try appendChar(0x20, at: pos, into: true, crAsLF: false)
            } else {
                try appendChar(b, at: pos, into: true, crAsLF: false)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// After `&`: a predefined entity or a character reference.
    private mutating func readReference(at: Position, into keep: Bool) throws(Failure) {
        var name: [UInt8] = []
        while true {
            guard let b = try input.take() else { throw cutShort(at) }
            if b == 0x3B { break }
            let isNameByte =
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == 0x23 || b == 0x5F || b == 0x2D || b == 0x2E || b >= 0x80
            guard isNameByte, name.count < 32 else {
                throw Failure(position: at, reason: "a bare '&' must be written '&amp;'")
            }
            name.append(b)
        }
        let word = String(decoding: name, as: UTF8.self)
        var scalar: UInt32
        switch word {
        case "lt": scalar = 0x3C
        case "gt": scalar = 0x3E
        case "amp": scalar = 0x26
        case "apos": scalar = 0x27
        case "quot": scalar = 0x22
        default:
            if word.hasPrefix("#x"), word.count > 2, let v = UInt32(word.dropFirst(2), radix: 16) {
                scalar = v
            } else if word.hasPrefix("#"), !word.hasPrefix("#x"), word.count > 1,
                word.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }), let v = UInt32(word.dropFirst())
            {
                scalar = v
            } else if word.hasPrefix("#") {
                throw Failure(
                    position: at, reason: "'&\(word);' is not a character reference; write '&#233;' or '&#xE9;'")
            } else {
                throw Failure(
                    position: at,
                    reason:
                        "the entity '&\(word);' is not defined; GPX text may use only &lt; &gt; &amp; &apos; &quot; and numbered characters such as &#233;"
                )
            }
            guard Self.isXMLChar(scalar), let u = Unicode.Scalar(scalar) else {
                throw Failure(position: at, reason: "'&\(word);' names a character XML does not allow")
            }
            if keep { try appendBytes(Array(String(Character(u)).utf8), at: at) }
            return
        }
        if keep { try appendByte(UInt8(scalar), at: at) }
    }

    private mutating func readCDATA(at: Position) throws(Failure) {
        var brackets = 0
        var lastCR = false
        while true {
            let pos = input.position
            guard let b = try input.take() else { throw cutShort(at) }
            if b == 0x3E && brackets >= 2 {
                if collectText { text.removeLast(2) }
                return
            }
            brackets = b == 0x5D ? brackets + 1 : 0
            if b == 0x0A && lastCR { lastCR = false; continue }
            lastCR = b == 0x0D
            try appendChar(b, at: pos, into: collectText, crAsLF: true)
        }
    }

    private mutating func skipComment(at: Position) throws(Failure) {
        var dashes = 0
        var firstDash = at
        while true {
            let pos = input.position
            guard let b = try input.take() else { throw cutShort(at) }
            if dashes >= 2 {
                guard b == 0x3E else {
                    throw Failure(position: firstDash, reason: "'--' is not allowed inside a comment")
                }
                return
            }
            if b == 0x2D && dashes == 0 { firstDash = pos }
            dashes = b == 0x2D ? dashes + 1 : 0
            try appendChar(b, at: pos, into: false, crAsLF: false)
        }
    }

    private mutating func skipUntil(_ end: String, at: Position, what: String) throws(Failure) {
        let terminator = Array(end.utf8)
        var matched = 0
        while true {
            let pos = input.position
            guard let b = try input.take() else { throw cutShort(at) }
            matched = b == terminator[matched] ? matched + 1 : (b == terminator[0] ? 1 : 0)
            if matched == terminator.count { return }
            try appendChar(b, at: pos, into: false, crAsLF: false)
        }
    }

    @discardableResult
    private mutating func skipWhitespace() throws(Failure) -> Bool {
        var any = false
        while let b = try input.peek(), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
            _ = try input.take()
            any = true
        }
        return any
    }

    private mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String) throws(Failure) {
        let at = input.position
        guard let b = try input.take() else { throw cutShort(at) }
        guard b == byte else { throw Failure(position: at, reason: "expected \(what())") }
    }

    /// An XML name (ASCII letters, digits, `_ : - .` and any non-ASCII character XML allows).
    private mutating func readName() throws(Failure) -> String {
        let at = input.position
        nameBytes.removeAll(keepingCapacity: true)
        while let b = try input.peek() {
            let start = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x3A || b >= 0x80
            let more = (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E
            guard start || (!nameBytes.isEmpty && more) else { break }
            _ = try input.take()
            if b >= 0x80 {
                let (bytes, count) = try readScalar(b, at: at)
                nameBytes.append(bytes.0)
                nameBytes.append(bytes.1)
                if count > 2 { nameBytes.append(bytes.2) }
                if count > 3 { nameBytes.append(bytes.3) }
            } else {
                nameBytes.append(b)
            }
            if nameBytes.count > Self.maxNameBytes {
                throw Failure(position: at, reason: "a name longer than \(Self.maxNameBytes) bytes")
            }
        }
        guard !nameBytes.isEmpty else {
            if try input.peek() == nil { throw cutShort(at) }
            throw Failure(
                position: at, reason: "expected a name here (an element or attribute name starts with a letter)")
        }
        return String(decoding: nameBytes, as: UTF8.self)
    }

    /// Checks one character starting with byte `b` (reading its continuation bytes) and keeps it
    /// in `text` when `keep` is set.
    @inline(__always)
    private mutating func appendChar(_ b: UInt8, at: Position, into keep: Bool, crAsLF: Bool) throws(Failure) {
        if b < 0x80 {
            guard b >= 0x20 || b == 0x09 || b == 0x0A || b == 0x0D else {
                throw Failure(
                    position: at, reason: String(format: "the control character U+%04X is not allowed in XML", b))
            }
            if keep { try appendByte(crAsLF && b == 0x0D ? 0x0A : b, at: at) }
            return
        }
        let (bytes, count) = try readScalar(b, at: at)
        if keep {
            try appendByte(bytes.0, at: at)
            try appendByte(bytes.1, at: at)
            if count > 2 { try appendByte(bytes.2, at: at) }
            if count > 3 { try appendByte(bytes.3, at: at) }
        }
    }

    /// The rest of the UTF-8 sequence that starts with `b` (≥ 0x80), checked: well-formed,
    /// shortest form, and a character XML allows.
    @inline(__always)
    private mutating func readScalar(_ b: UInt8, at: Position) throws(Failure) -> ((UInt8, UInt8, UInt8, UInt8), Int) {
        var bytes: (UInt8, UInt8, UInt8, UInt8) = (b, 0, 0, 0)
        var scalar: UInt32
        let count: Int
        switch b {
        case 0xC2...0xDF: count = 2; scalar = UInt32(b & 0x1F)
        case 0xE0...0xEF: count = 3; scalar = UInt32(b & 0x0F)
        case 0xF0...0xF4: count = 4; scalar = UInt32(b & 0x07)
        default: throw invalidUTF8(at)
        }
        for i in 1..<count {
            guard let c = try input.peek(), c & 0xC0 == 0x80 else { throw invalidUTF8(at) }
            _ = try input.take()
            scalar = scalar << 6 | UInt32(c & 0x3F)
            switch i {
            case 1: bytes.1 = c;
            case 2: bytes.2 = c;
            default: bytes.3 = c
            }
        }
        let minimum: UInt32 = count == 2 ? 0x80 : count == 3 ? 0x800 : 0x10000
        guard scalar >= minimum, Self.isXMLChar(scalar) else {
            if scalar >= minimum && scalar <= 0x10FFFF && !(0xD800...0xDFFF).contains(scalar) {
                throw Failure(
                    position: at, reason: String(format: "the character U+%04X is not allowed in XML", scalar))
            }
            throw invalidUTF8(at)
        }
        return (bytes, count)
    }

    @inline(__always)
    private mutating func appendByte(_ byte: UInt8, at: Position) throws(Failure) {
        guard text.count < Self.maxTextBytes else {
            throw Failure(position: at, reason: "a text or attribute value longer than 1 MiB")
        }
        text.append(byte)
    }

    private mutating func appendBytes(_ bytes: [UInt8], at: Position) throws(Failure) {
        guard text.count + bytes.count <= Self.maxTextBytes else {
            throw Failure(position: at, reason: "a text or attribute value longer than 1 MiB")
        }
        text += bytes
    }

    static func isXMLChar(_ v: UInt32) -> Bool {
        v == 0x09 || v == 0x0A || v == 0x0D || (0x20...0xD7FF).contains(v) || (0xE000...0xFFFD).contains(v)
            || (0x10000...0x10FFFF).contains(v)
    }

    private func invalidUTF8(_ at: Position) -> Failure {
        Failure(
            position: at,
            reason:
                "the bytes here are not valid UTF-8; save the file as UTF-8 (or declare its real encoding in '<?xml ... encoding=\"...\"?>')"
        )
    }

    private func cutShort(_ at: Position) -> Failure {
        if let (name, opened, _) = open.last {
            return Failure(
                position: input.position,
                reason:
                    "the file ends inside <\(name)> (opened at \(opened)); it is cut short: export or copy it again")
        }
        return Failure(
            position: input.position,
            reason: "the file ends in the middle of the markup that starts at \(at); it is cut short")
    }

    // MARK: the start of the file

    /// A byte-order mark and the XML declaration, which names the encoding.
    private mutating func readStart() throws(Failure) {
        let at = input.position
        if try input.skip("\u{FEFF}") {
            input.resetColumn()
        }
        if let b = try input.peek(), b == 0xFE || b == 0xFF || b == 0x00 {
            throw Failure(position: at, reason: "the file is in UTF-16 or UTF-32; save it as UTF-8")
        }
        guard try input.skip("<?xml") else { return }
        guard let b = try input.peek(), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D else {
            throw Failure(position: at, reason: "a processing instruction named like '<?xml...' is not allowed")
        }
        var pseudo: [Attribute] = []
        while true {
            try skipWhitespace()
            if try input.skip("?>") { break }
            let pos = input.position
            let name = try readName()
            try skipWhitespace()
            try expect(0x3D, "'=' after \(name) in the XML declaration")
            try skipWhitespace()
            pseudo.append(Attribute(name: name, value: try readAttributeValue()))
            if pseudo.count > 3 {
                throw Failure(
                    position: pos, reason: "the XML declaration has more than version, encoding and standalone")
            }
        }
        guard pseudo.first?.name == "version", let version = pseudo.first?.value, version.hasPrefix("1.") else {
            throw Failure(position: at, reason: "the XML declaration must start with version=\"1.0\"")
        }
        if let encoding = pseudo.first(where: { $0.name == "encoding" })?.value {
            switch encoding.lowercased() {
            case "utf-8", "utf8", "us-ascii", "ascii":
                break  // ASCII is a subset of UTF-8: a mislabelled UTF-8 file still reads right
            case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1":
                input.setLegacy(Input.latin1)
            case "windows-1252", "cp1252":
                input.setLegacy(Input.windows1252)
            default:
                throw Failure(
                    position: at,
                    reason:
                        "the file is encoded as '\(encoding)'; trailpack reads UTF-8, ISO-8859-1 and windows-1252: save it as UTF-8"
                )
            }
        }
    }
}

// MARK: - input

extension XMLTokenizer {
    /// Bytes from a file descriptor in 64 KiB chunks (or from memory), with line and column.
    struct Input {
        /// The file read, and its name for messages; nil for bytes in memory.
        let file: (descriptor: FileDescriptor, name: String)?
        var buffer: [UInt8]
        var index = 0
        let limit: Int64
        var total: Int64 = 0
        var eof: Bool
        var line = 1
        /// Column bookkeeping: the offset of the line's first byte and the continuation bytes since.
        var lineStart: Int64 = 0
        var continuation = 0
        var consumed: Int64 = 0
        var lastCR = false
        var legacy: [UInt16]?
        /// The read buffer, reused for every chunk.
        var chunk: [UInt8] = []

        init(file: (FileDescriptor, String)?, bytes: [UInt8], limit: Int64) {
            self.file = file
            self.buffer = bytes
            self.limit = limit
            self.eof = file == nil
        }

        var position: Position { Position(line: line, column: Int(consumed - lineStart) - continuation + 1) }

        mutating func resetColumn() {
            lineStart = consumed
            continuation = 0
        }

        @inline(__always)
        mutating func peek() throws(Failure) -> UInt8? {
            if index < buffer.count { return buffer[index] }
            if eof { return nil }
            try refill()
            return index < buffer.count ? buffer[index] : nil
        }

        @inline(__always)
        mutating func take() throws(Failure) -> UInt8? {
            guard let b = try peek() else { return nil }
            index += 1
            consumed += 1
            if b == 0x0A {
                if !lastCR { line += 1 }
                lineStart = consumed
                continuation = 0
            } else if b == 0x0D {
                line += 1
                lineStart = consumed
                continuation = 0
            } else if b & 0xC0 == 0x80 {
                continuation += 1
            }
            lastCR = b == 0x0D
            return b
        }

        /// Consumes `literal` if the input continues with it.
        mutating func skip(_ literal: String) throws(Failure) -> Bool {
            let bytes = Array(literal.utf8)
            while buffer.count - index < bytes.count && !eof { try refill() }
            guard buffer.count - index >= bytes.count, buffer[index..<(index + bytes.count)].elementsEqual(bytes) else {
                return false
            }
            for _ in bytes { _ = try take() }
            return true
        }

        private mutating func refill() throws(Failure) {
            if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: 65536) }
            guard let file else { eof = true; return }
            let n: Int
            do throws(FileIOError) {
                n = try FileOperations.typed {
                    try chunk.withUnsafeMutableBytes { try file.descriptor.readFully(into: $0, path: file.name) }
                }
            } catch {
                throw Failure(
                    position: position,
                    reason: "cannot read the file: \(error.systemCall?.errno.description ?? error.message)")
            }
            if n == 0 { eof = true; return }
            total += Int64(n)
            if total > limit {
                throw Failure(
                    position: position, reason: "the file is larger than \(limit >> 20) MiB, the limit for a GPX file")
            }
            buffer.removeFirst(index)
            index = 0
            if let legacy { buffer += Self.transcode(chunk[0..<n], legacy) } else { buffer += chunk[0..<n] }
        }

        /// From here on, bytes are read as a one-byte encoding and turned into UTF-8.
        mutating func setLegacy(_ table: [UInt16]) {
            legacy = table
            buffer = Array(buffer[..<index]) + Self.transcode(buffer[index...], table)
        }

        static func transcode(_ bytes: ArraySlice<UInt8>, _ table: [UInt16]) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            for b in bytes {
                if b < 0x80 { out.append(b); continue }
                let u = table[Int(b) - 0x80]
                out += Array(String(Character(Unicode.Scalar(u) ?? "\u{FFFD}")).utf8)
            }
            return out
        }

        static let latin1: [UInt16] = (0x80...0xFF).map { UInt16($0) }
        /// windows-1252: 0x80–0x9F hold typographic characters; undefined ones stay C1 controls.
        static let windows1252: [UInt16] =
            [
                0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152,
                0x8D, 0x017D, 0x8F,
                0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153,
                0x9D, 0x017E, 0x0178,
            ] + (0xA0...0xFF).map { UInt16($0) }
    }
}
