/// The name of one file a stop holds (`view.jpg`, `narration.mp3`): the only way a name that came
/// from outside — a `waypoint.json` in an imported folder, a sheet's cell, a form field, a URL —
/// becomes part of a path on the server.
///
/// A `StopFileName` is exactly one path component, safe in every ZIP tool and on every phone:
/// everything ``ArchivePath`` asks of a component (no control character, backslash or colon, not
/// `.` or `..`, at most 255 bytes, NFC, no DOS device name, no trailing dot or space), and besides
/// no `/` at all, no leading `.` (hidden files, and the server's own `.upload-…` files) and not
/// `waypoint.json` (the stop's own description). It is checked, never repaired: a name that breaks
/// a rule is refused with the rule in words.
public struct StopFileName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The name, as checked.
    public let value: String

    /// What is wrong with a name.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// A rule of every path in a package (see ``ArchivePath/Problem``).
        case path(ArchivePath.Problem)
        /// The name holds a `/`: it names a folder or leads out of the stop's folder.
        case folder
        /// The name starts with a dot.
        case hidden
        /// The name is `waypoint.json`.
        case reserved

        /// The rule broken, in words for the person who chose the name.
        public var description: String {
            switch self {
            case .path(let problem) where problem.leadsOutside:
                "a stop's file is named without folders (such as view.jpg); this name leads out of the stop's folder"
            case .folder:
                "a stop's file is named without folders (such as view.jpg); this name has a '/' in it"
            case .path(let problem): problem.description.replacingOccurrences(of: "the path", with: "the name")
            case .hidden: "the name starts with a dot (hidden files are not part of a tour)"
            case .reserved: "'waypoint.json' is the stop's own description, not one of its files"
            }
        }
    }

    /// The name `raw`, if it follows every rule; otherwise the first rule it breaks.
    public init(_ raw: String) throws(Problem) {
        if raw.utf8.contains(0x2F) {
            // `..` and absolute names say more than "has a '/'" when they lead out.
            if let outside = ArchivePath.check(raw).first(where: \.leadsOutside) { throw .path(outside) }
            throw .folder
        }
        if let problem = ArchivePath.check(raw).first { throw .path(problem) }
        if raw.utf8.first == 0x2E { throw .hidden }
        if raw == "waypoint.json" { throw .reserved }
        value = raw
    }

    /// The name `raw`, or nil when it breaks a rule.
    public static func checked(_ raw: String) -> StopFileName? { try? StopFileName(raw) }

    /// The name itself.
    public var description: String { value }

    /// The ending after the last dot, in lowercase ("" when there is none).
    public var fileExtension: String { PathText.fileExtension(value).lowercased() }

    /// Byte order of the UTF-8 names (what `ls` and the package's entry order use).
    public static func < (a: StopFileName, b: StopFileName) -> Bool {
        Array(a.value.utf8).lexicographicallyPrecedes(Array(b.value.utf8))
    }
}
