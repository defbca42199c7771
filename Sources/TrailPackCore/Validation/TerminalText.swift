/// Text from a file made safe to print on a terminal or in a log line.
///
/// A package's entry names, a tour's texts and a GPX file's names are chosen by whoever made
/// the file. Printed raw, a control character could move the cursor, recolour the screen or
/// retitle the window (ESC sequences), and a bidirectional override could make a name read
/// backwards. ``escaped(_:)`` writes each such character as a visible `\u{…}` escape instead.
public enum TerminalText {
    /// `text` with control characters (C0, DEL, C1), bidirectional marks, embeddings, overrides
    /// and isolates, and the line and paragraph separators written as `\u{1b}`-style escapes.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Like ``escaped(_:)``, but keeps line feeds and tabs: for text of several lines whose
    /// untrusted parts were escaped already, or hold none.
    public static func escapedKeepingLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map {
                $0.split(separator: "\t", omittingEmptySubsequences: false).map { escaped(String($0)) }.joined(
                    separator: "\t")
            }
            .joined(separator: "\n")
    }

    /// Whether `scalar` must not reach a terminal as it is.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0, DEL, C1 (ESC, CSI, OSC among them)
        case 0x061C, 0x200E, 0x200F: true  // Arabic letter mark, left-to-right and right-to-left marks
        case 0x202A...0x202E: true  // embeddings and overrides
        case 0x2066...0x2069: true  // isolates
        case 0x2028, 0x2029: true  // line and paragraph separators
        default: false
        }
    }
}
