/// Plain text of a text that a mapping program wrote as HTML (`<p>`, `<br>`, `<b>`, `&eacute;` in a
/// GPX `<desc>`, often inside CDATA): what a visitor should read, with paragraphs and line breaks
/// kept and every tag gone. A text with no HTML tag and no HTML entity is returned as it is, so a
/// description such as "a boulder <by the river>" keeps its angle brackets.
///
/// One pass over the text, each character looked at a bounded number of times: a hostile text costs
/// time in proportion to its length, never more.
enum HTMLText {
    /// `text` as plain text when it looks like HTML, else `text` unchanged.
    static func plain(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard looksLikeHTML(scalars) else { return text }
        return convert(scalars)
    }

    /// Whether `scalars` hold an HTML element we know (`<p>`, `</b>`, `<br/>`, `<a href=…>`) or an
    /// HTML character reference (`&eacute;`, `&#233;`).
    static func looksLikeHTML(_ scalars: [Unicode.Scalar]) -> Bool {
        var i = 0
        while i < scalars.count {
            if scalars[i] == "<", let tag = tag(scalars, at: i), knownElements.contains(tag.name) { return true }
            if scalars[i] == "&", reference(scalars, at: i) != nil { return true }
            i += 1
        }
        return false
    }

    private static func convert(_ scalars: [Unicode.Scalar]) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        func emit(_ u: Unicode.Scalar) {
            if pendingSpace, let last = out.last, last != "\n" { out.append(" ") }
            pendingSpace = false
            out.append(u)
        }
        func breakLine(_ count: Int) {
            pendingSpace = false
            while let last = out.last, last == " " { out.removeLast() }
            guard !out.isEmpty else { return }
            var trailing = 0
            for u in out.reversed() {
                guard u == "\n" else { break }
                trailing += 1
            }
            for _ in trailing..<max(trailing, count) { out.append("\n") }
        }
        var i = 0
        while i < scalars.count {
            let u = scalars[i]
            if u == "<", starts(scalars, at: i, with: "<!--") {
                i = end(of: "-->", in: scalars, from: i + 4)
                continue
            }
            if u == "<", let tag = tag(scalars, at: i), knownElements.contains(tag.name) {
                i = tag.end
                if !tag.closing, tag.name == "script" || tag.name == "style" {
                    i = end(of: "</\(tag.name)", in: scalars, from: i, caseInsensitive: true)
                    if let close = scalars[i...].firstIndex(of: ">") { i = close + 1 }
                    continue
                }
                switch tag.name {
                case "br": breakLine(out.last == "\n" ? 2 : 1)
                case "li":
                    if !tag.closing {
                        breakLine(1)
                        out.append("•")
                        out.append(" ")
                    }
                case "td", "th": pendingSpace = !out.isEmpty
                case _ where blockElements.contains(tag.name): breakLine(2)
                default: break
                }
                continue
            }
            if u == "&", let (value, next) = reference(scalars, at: i) {
                if value == " " { pendingSpace = !out.isEmpty } else { emit(value) }
                i = next
                continue
            }
            if u.properties.isWhitespace {
                pendingSpace = !out.isEmpty
            } else {
                emit(u)
            }
            i += 1
        }
        while let last = out.last, last == " " || last == "\n" { out.removeLast() }
        return String(out)
    }

    // MARK: tags

    /// An element's tag at `start` (`<name attributes>`, `</name>`, `<name/>`): its lowercased name,
    /// whether it closes, and the index after its `>`; nil when the text there is not a tag.
    static func tag(_ s: [Unicode.Scalar], at start: Int) -> (name: String, closing: Bool, end: Int)? {
        var i = start + 1
        let closing = i < s.count && s[i] == "/"
        if closing { i += 1 }
        var name = String.UnicodeScalarView()
        while i < s.count, name.count < 12, isASCIILetterOrDigit(s[i]), !(name.isEmpty && isDigit(s[i])) {
            name.append(s[i].properties.lowercaseMapping.unicodeScalars.first ?? s[i])
            i += 1
        }
        guard !name.isEmpty, i < s.count else { return nil }
        guard s[i] == ">" || s[i] == "/" || s[i].properties.isWhitespace else { return nil }
        // Attributes up to the `>`, quoted values skipped (a `>` inside quotes does not end the tag).
        // A `<` before the end, even quoted, means no tag: so a scan never passes the next `<`, and
        // the scans of a whole text together read each character at most twice.
        var quote: Unicode.Scalar?
        let limit = min(s.count, i + 4096)
        while i < limit {
            let u = s[i]
            if u == "<" { return nil }
            if let q = quote {
                if u == q { quote = nil }
            } else if u == "\"" || u == "'" {
                quote = u
            } else if u == ">" {
                return (String(name), closing, i + 1)
            }
            i += 1
        }
        return nil
    }

    /// Elements whose tags are taken as HTML (others, such as `<by the river>`, stay as written).
    static let knownElements: Set<String> = [
        "a", "abbr", "address", "article", "b", "big", "blockquote", "body", "br", "caption", "center", "cite", "code",
        "dd", "del", "div", "dl", "dt", "em", "font", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header",
        "hr", "html", "i", "img", "ins", "kbd", "li", "mark", "nobr", "ol", "p", "pre", "q", "s", "script", "section",
        "small", "span", "strike", "strong", "style", "sub", "sup", "table", "tbody", "td", "tfoot", "th", "thead",
        "title", "tr", "tt", "u", "ul", "wbr",
    ]

    /// Elements that start and end a paragraph.
    static let blockElements: Set<String> = [
        "address", "article", "blockquote", "body", "caption", "center", "dd", "div", "dl", "dt", "footer", "h1", "h2",
        "h3", "h4", "h5", "h6", "header", "hr", "ol", "p", "pre", "section", "table", "title", "tr", "ul",
    ]

    // MARK: character references

    /// The character a reference at `start` stands for (`&eacute;`, `&#233;`, `&#xE9;`; a
    /// non-breaking space as a space) and the index after its `;`, or nil when it is not one.
    static func reference(_ s: [Unicode.Scalar], at start: Int) -> (Unicode.Scalar, Int)? {
        var i = start + 1
        var body = String.UnicodeScalarView()
        while i < s.count, body.count < 10, s[i] != ";" {
            body.append(s[i])
            i += 1
        }
        guard i < s.count, s[i] == ";", !body.isEmpty else { return nil }
        let text = String(body)
        let value: Unicode.Scalar?
        if text.hasPrefix("#x") || text.hasPrefix("#X") {
            value = UInt32(text.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
        } else if text.hasPrefix("#") {
            value = UInt32(text.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
        } else {
            value = namedReferences[text].flatMap(Unicode.Scalar.init)
        }
        guard var value, value.value >= 0x20 || value == "\t" || value == "\n", !(0x7F...0x9F).contains(value.value)
        else { return nil }
        if value == "\u{A0}" || value == "\t" || value == "\n" { value = " " }
        return (value, i + 1)
    }

    /// HTML's named references that mapping programs write: XML's five, Latin-1's and the typographic ones.
    static let namedReferences: [String: UInt32] = {
        var table: [String: UInt32] = [
            "amp": 0x26, "lt": 0x3C, "gt": 0x3E, "quot": 0x22, "apos": 0x27, "ndash": 0x2013, "mdash": 0x2014,
            "lsquo": 0x2018, "rsquo": 0x2019, "sbquo": 0x201A, "ldquo": 0x201C, "rdquo": 0x201D, "bdquo": 0x201E,
            "bull": 0x2022, "hellip": 0x2026, "prime": 0x2032, "Prime": 0x2033, "euro": 0x20AC, "trade": 0x2122,
            "larr": 0x2190, "uarr": 0x2191, "rarr": 0x2192, "darr": 0x2193, "minus": 0x2212, "thinsp": 0x2009,
            "ensp": 0x2002, "emsp": 0x2003, "OElig": 0x152, "oelig": 0x153, "Scaron": 0x160, "scaron": 0x161,
            "Yuml": 0x178, "circ": 0x2C6, "tilde": 0x2DC, "dagger": 0x2020, "Dagger": 0x2021, "permil": 0x2030,
        ]
        // Latin-1, U+00A0 to U+00FF, in order.
        let latin1 = [
            "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf", "laquo", "not",
            "shy", "reg", "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro", "para", "middot", "cedil", "sup1",
            "ordm", "raquo", "frac14", "frac12", "frac34", "iquest", "Agrave", "Aacute", "Acirc", "Atilde", "Auml",
            "Aring", "AElig", "Ccedil", "Egrave", "Eacute", "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH",
            "Ntilde", "Ograve", "Oacute", "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc",
            "Uuml", "Yacute", "THORN", "szlig", "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig",
            "ccedil", "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde",
            "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute", "ucirc", "uuml",
            "yacute", "thorn", "yuml",
        ]
        for (offset, name) in latin1.enumerated() { table[name] = 0xA0 + UInt32(offset) }
        return table
    }()

    // MARK: scanning

    private static func starts(_ s: [Unicode.Scalar], at i: Int, with prefix: String) -> Bool {
        var j = i
        for p in prefix.unicodeScalars {
            guard j < s.count, s[j] == p else { return false }
            j += 1
        }
        return true
    }

    /// The index after the first `marker` at or after `from` (the end of the text when there is none).
    private static func end(
        of marker: String, in s: [Unicode.Scalar], from: Int, caseInsensitive: Bool = false
    ) -> Int {
        let m = Array(marker.unicodeScalars)
        var i = from
        while i + m.count <= s.count {
            var matched = true
            for k in 0..<m.count {
                let a = s[i + k], b = m[k]
                if a == b { continue }
                if caseInsensitive, a.properties.lowercaseMapping == b.properties.lowercaseMapping { continue }
                matched = false
                break
            }
            if matched { return i + m.count }
            i += 1
        }
        return s.count
    }

    private static func isDigit(_ u: Unicode.Scalar) -> Bool { u.value >= 0x30 && u.value <= 0x39 }

    private static func isASCIILetterOrDigit(_ u: Unicode.Scalar) -> Bool {
        isDigit(u) || (u.value >= 0x41 && u.value <= 0x5A) || (u.value >= 0x61 && u.value <= 0x7A)
    }
}
