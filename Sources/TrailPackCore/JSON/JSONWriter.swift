/// Writes JSON deterministically: members in the order given, two-space indentation,
/// `\n` line ends, non-ASCII characters written as UTF-8 (not escaped), and a final newline.
public enum JSONWriter {
    /// The UTF-8 bytes of `value`, pretty-printed.
    public static func bytes(_ value: JSONValue, pretty: Bool = true) -> [UInt8] {
        var out = ""
        write(value, into: &out, indent: pretty ? 0 : nil)
        if pretty { out += "\n" }
        return Array(out.utf8)
    }

    /// The text of `value`, pretty-printed.
    public static func string(_ value: JSONValue, pretty: Bool = true) -> String {
        String(decoding: bytes(value, pretty: pretty), as: UTF8.self)
    }

    private static func write(_ value: JSONValue, into out: inout String, indent: Int?) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n.literal
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent.map { $0 + 1 })
                write(item, into: &out, indent: indent.map { $0 + 1 })
            }
            newline(&out, indent)
            out += "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent.map { $0 + 1 })
                writeString(member.key, into: &out)
                out += indent == nil ? ":" : ": "
                write(member.value, into: &out, indent: indent.map { $0 + 1 })
            }
            newline(&out, indent)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: Int?) {
        guard let indent else { return }
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    private static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
