/// An element of an S3 XML response: its name (without a namespace prefix), its child elements and
/// the text directly inside it (entities decoded).
struct XMLElement: Sendable, Equatable {
    var name: String
    var children: [XMLElement] = []
    var text: String = ""

    /// The first child named `name`.
    func child(_ name: String) -> XMLElement? { children.first { $0.name == name } }

    /// Every child named `name`, in order.
    func children(_ name: String) -> [XMLElement] { children.filter { $0.name == name } }

    /// The text of the first child named `name`.
    func text(of name: String) -> String? { child(name)?.text }
}

/// What was wrong with an XML document, and where.
struct XMLError: Error, Sendable, CustomStringConvertible {
    var message: String
    var offset: Int
    var description: String { "\(message) at byte \(offset)" }
}

/// A small, strict XML reader for what S3 answers: elements, attributes (read and dropped), text,
/// CDATA sections, comments, processing instructions and the five named entities and numeric
/// character references. No DTD (a `<!DOCTYPE` is refused, so no entity can expand), no external
/// anything. Bounded: the caller bounds the input; nesting is at most ``maximumDepth``.
enum S3XML {
    static let maximumDepth = 32

    /// The document's root element.
    static func parse(_ bytes: [UInt8]) throws(XMLError) -> XMLElement {
        var reader = Reader(bytes: bytes)
        return try reader.document()
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            // A UTF-8 byte order mark.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { at = 3 }
        }

        func fail(_ message: String) -> XMLError { XMLError(message: message, offset: at) }

        func peek(_ text: String) -> Bool { bytes[at...].starts(with: text.utf8) }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        /// Skips past the next `end`, failing when there is none.
        mutating func skip(past end: String, what: String) throws(XMLError) {
            let pattern = Array(end.utf8)
            var index = at
            while index + pattern.count <= bytes.count {
                if bytes[index..<index + pattern.count].elementsEqual(pattern) {
                    at = index + pattern.count
                    return
                }
                index += 1
            }
            throw fail("\(what) does not end")
        }

        /// Comments, processing instructions and spaces (between elements, outside the root).
        mutating func skipMisc() throws(XMLError) {
            while true {
                skipSpace()
                if peek("<?") {
                    try skip(past: "?>", what: "a processing instruction")
                } else if peek("<!--") {
                    try skip(past: "-->", what: "a comment")
                } else if peek("<!") && !peek("<![CDATA[") {
                    throw fail("a document type declaration (<!DOCTYPE) is not accepted")
                } else {
                    return
                }
            }
        }

        mutating func document() throws(XMLError) -> XMLElement {
            try skipMisc()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "<") else { throw fail("no root element") }
            let root = try element(depth: 0)
            try skipMisc()
            guard at == bytes.count else { throw fail("content after the root element") }
            return root
        }

        mutating func name() throws(XMLError) -> String {
            let start = at
            while at < bytes.count {
                let byte = bytes[at]
                if [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "=")].contains(byte) {
                    break
                }
                at += 1
            }
            guard at > start else { throw fail("a name is missing") }
            return String(decoding: bytes[start..<at], as: UTF8.self)
        }

        mutating func element(depth: Int) throws(XMLError) -> XMLElement {
            guard depth < S3XML.maximumDepth else { throw fail("elements are nested too deep") }
            at += 1  // "<"
            let qualified = try name()
            var element = XMLElement(name: qualified.split(separator: ":").last.map(String.init) ?? qualified)
            // Attributes: read and dropped (S3 sends only xmlns).
            while true {
                skipSpace()
                guard at < bytes.count else { throw fail("<\(qualified)> does not end") }
                if bytes[at] == UInt8(ascii: "/") {
                    guard at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: ">") else {
                        throw fail("'/' not before '>'")
                    }
                    at += 2
                    return element
                }
                if bytes[at] == UInt8(ascii: ">") {
                    at += 1
                    break
                }
                _ = try name()
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "=") else { throw fail("an attribute has no '='") }
                at += 1
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'") else {
                    throw fail("an attribute's value is not quoted")
                }
                let quote = bytes[at]
                at += 1
                guard let end = bytes[at...].firstIndex(of: quote) else {
                    throw fail("an attribute's value does not end")
                }
                at = end + 1
            }
            // Content.
            var text: [UInt8] = []
            while true {
                guard at < bytes.count else { throw fail("<\(qualified)> is not closed") }
                let byte = bytes[at]
                if byte == UInt8(ascii: "<") {
                    if peek("</") {
                        at += 2
                        let closing = try name()
                        guard closing == qualified else { throw fail("</\(closing)> closes <\(qualified)>") }
                        skipSpace()
                        guard at < bytes.count, bytes[at] == UInt8(ascii: ">") else {
                            throw fail("'</\(closing)' has no '>'")
                        }
                        at += 1
                        guard let decoded = String(validating: text, as: UTF8.self) else {
                            throw fail("the text of <\(qualified)> is not UTF-8")
                        }
                        element.text = decoded
                        return element
                    } else if peek("<![CDATA[") {
                        at += 9
                        let start = at
                        try skip(past: "]]>", what: "a CDATA section")
                        text.append(contentsOf: bytes[start..<at - 3])
                    } else if peek("<!--") {
                        try skip(past: "-->", what: "a comment")
                    } else if peek("<?") {
                        try skip(past: "?>", what: "a processing instruction")
                    } else if peek("<!") {
                        throw fail("a declaration inside an element is not accepted")
                    } else {
                        element.children.append(try self.element(depth: depth + 1))
                    }
                } else if byte == UInt8(ascii: "&") {
                    try entity(into: &text)
                } else {
                    text.append(byte)
                    at += 1
                }
            }
        }

        /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#NN;` `&#xHH;` into UTF-8.
        mutating func entity(into text: inout [UInt8]) throws(XMLError) {
            guard let semicolon = bytes[at...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                throw fail("'&' does not start an entity (write &amp;)")
            }
            let body = String(decoding: bytes[(at + 1)..<semicolon], as: UTF8.self)
            switch body {
            case "amp": text.append(UInt8(ascii: "&"))
            case "lt": text.append(UInt8(ascii: "<"))
            case "gt": text.append(UInt8(ascii: ">"))
            case "quot": text.append(UInt8(ascii: "\""))
            case "apos": text.append(UInt8(ascii: "'"))
            default:
                var value: UInt32?
                if body.hasPrefix("#x") || body.hasPrefix("#X") {
                    let digits = body.dropFirst(2)
                    if !digits.isEmpty, digits.allSatisfy(\.isHexDigit) { value = UInt32(digits, radix: 16) }
                } else if body.hasPrefix("#") {
                    let digits = body.dropFirst()
                    if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) { value = UInt32(digits) }
                }
                guard let value, value != 0, let scalar = Unicode.Scalar(value) else {
                    throw fail("unknown entity '&\(printable(body));'")
                }
                text.append(contentsOf: String(Character(scalar)).utf8)
            }
            at = semicolon + 1
        }
    }
}
