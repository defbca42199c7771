import Foundation

/// The rules for paths inside a package (asset paths and ZIP entry names).
///
/// A path is checked component by component, never by string prefix, so that no
/// spelling of `..` or of an absolute path can lead out of the folder a package is unpacked in.
public enum ArchivePath {
    /// The longest component, in bytes of UTF-8 (the limit of common file systems).
    public static let maxComponentBytes = 255
    /// The longest path, in bytes of UTF-8.
    public static let maxPathBytes = 1024

    private static let windowsReserved: Set<String> = {
        var names: Set<String> = ["con", "prn", "aux", "nul"]
        for i in 1...9 { names.insert("com\(i)"); names.insert("lpt\(i)") }
        return names
    }()

    /// One thing wrong with a path.
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        case empty
        case tooLong
        case controlCharacter
        case backslash
        case colon
        case absolute
        case notNFC
        case emptyComponent
        /// A `.` or `..` component (the component).
        case dotComponent(String)
        /// A component longer than ``maxComponentBytes`` (its first 40 bytes).
        case componentTooLong(String)
        /// A component that ends with a dot or a space (the component).
        case trailingDotOrSpace(String)
        /// A component that is a DOS device name (the component).
        case reservedOnWindows(String)

        /// Whether the path leads out of the folder it is named from: absolute, or through `..`.
        public var leadsOutside: Bool { self == .absolute || self == .dotComponent("..") }

        /// The problem in words.
        public var description: String {
            switch self {
            case .empty: "the path is empty"
            case .tooLong: "the path is longer than \(maxPathBytes) bytes"
            case .controlCharacter: "the path contains a control character"
            case .backslash: "the path contains a backslash; use '/' between folders"
            case .colon: "the path contains ':' (a drive letter or stream name on Windows)"
            case .absolute: "the path is absolute; it must be relative to the package"
            case .notNFC: "the path is not in Unicode normalization form C (NFC)"
            case .emptyComponent: "the path has an empty component ('//' or a trailing '/')"
            case .dotComponent(let c): "the path contains a '\(c)' component"
            case .componentTooLong(let c): "the component '\(c)…' is longer than \(maxComponentBytes) bytes"
            case .trailingDotOrSpace(let c): "the component '\(c)' ends with a dot or a space (Windows drops them)"
            case .reservedOnWindows(let c): "the component '\(c)' is a reserved device name on Windows"
            }
        }
    }

    /// What is wrong with `path`, in words; empty when the path is safe.
    ///
    /// - Parameters:
    ///   - path: the entry path, as stored in the package.
    ///   - allowDirectory: accept one trailing `/` (a ZIP directory entry).
    public static func problems(_ path: String, allowDirectory: Bool = false) -> [String] {
        check(path, allowDirectory: allowDirectory).map(\.description)
    }

    /// What is wrong with `path`, each problem once, in the order found; empty when the path is safe.
    ///
    /// One pass over the UTF-8 bytes (this runs for every entry of every package).
    ///
    /// - Parameters:
    ///   - path: the entry path, as stored in the package.
    ///   - allowDirectory: accept one trailing `/` (a ZIP directory entry).
    public static func check(_ path: String, allowDirectory: Bool = false) -> [Problem] {
        var bytes = path
        return bytes.withUTF8 { check(path, bytes: $0, allowDirectory: allowDirectory) }
    }

    /// ``check(_:allowDirectory:)`` on `path`'s own UTF-8 bytes (no copy of them).
    private static func check(_ path: String, bytes: UnsafeBufferPointer<UInt8>, allowDirectory: Bool) -> [Problem] {
        var problems: [Problem] = []
        func add(_ p: Problem) { if !problems.contains(p) { problems.append(p) } }
        if bytes.isEmpty { return [.empty] }
        if bytes.count > maxPathBytes { add(.tooLong) }
        var ascii = true
        for i in bytes.indices {
            let b = bytes[i]
            if b < 0x20 || b == 0x7F || (b == 0xC2 && i + 1 < bytes.count && (0x80...0x9F).contains(bytes[i + 1])) {
                add(.controlCharacter)
            } else if b == 0x5C {
                add(.backslash)
            } else if b == 0x3A {
                add(.colon)
            }
            if b >= 0x80 { ascii = false }
        }
        if bytes[0] == 0x2F { add(.absolute) }
        if !ascii && !isNFC(path) { add(.notNFC) }
        var end = bytes.count
        if allowDirectory, bytes.last == 0x2F { end -= 1 }
        var start = 0
        while start <= end {
            var stop = start
            while stop < end && bytes[stop] != 0x2F { stop += 1 }
            let component = UnsafeBufferPointer(rebasing: bytes[start..<stop])
            if component.isEmpty {
                if bytes[0] != 0x2F { add(.emptyComponent) }
            } else if component.count <= 2 && component.allSatisfy({ $0 == 0x2E }) {
                add(.dotComponent(String(decoding: component, as: UTF8.self)))
            } else {
                if component.count > maxComponentBytes {
                    add(.componentTooLong(String(decoding: component.prefix(40), as: UTF8.self)))
                }
                if component.last == 0x2E || component.last == 0x20 {
                    add(.trailingDotOrSpace(String(decoding: component, as: UTF8.self)))
                }
                if isWindowsReserved(component) {
                    add(.reservedOnWindows(String(decoding: component, as: UTF8.self)))
                }
            }
            start = stop + 1
        }
        return problems
    }

    /// Whether a file or folder named `name` is a DOS device on Windows (`con`, `NUL.txt`, `com1`).
    public static func isReservedOnWindows(_ name: String) -> Bool { isWindowsReserved(Array(name.utf8)) }

    /// `CON`, `nul.txt`, `Com1.md`…: the part before the first dot is a DOS device name.
    static func isWindowsReserved(_ component: some Collection<UInt8>) -> Bool {
        let stem = component.prefix(while: { $0 != 0x2E })
        guard stem.count == 3 || stem.count == 4 else { return false }
        return windowsReserved.contains(
            String(decoding: stem.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self))
    }

    /// The key under which two paths collide on a case-insensitive, normalization-insensitive
    /// file system (as on phones): NFC, then Unicode case folding.
    public static func foldingKey(_ path: String) -> String {
        // ASCII (nearly every path): NFC is the identity and folding is ASCII lowercase. Skipping
        // Foundation's bridging here is most of the verifier's per-entry cost on small files.
        if path.utf8.allSatisfy({ $0 < 0x80 }) {
            if !path.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return path }
            return String(decoding: path.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        return path.precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    /// Whether `text` is in Unicode normalization form C (compared by bytes: Swift's `==` would
    /// call canonically equivalent strings equal).
    public static func isNFC(_ text: String) -> Bool {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return true }
        return Array(text.utf8) == Array(text.precomposedStringWithCanonicalMapping.utf8)
    }

    /// Whether `path` lies under `folder` (given with a trailing `/`), component by component.
    public static func isInside(_ path: String, folder: String) -> Bool {
        // By UTF-8 bytes, without copying either string: `path` starts with `folder`, then a `/`
        // unless `folder` ends in one, then at least one more byte.
        let (p, f) = (path.utf8, folder.utf8)
        guard p.starts(with: f) else { return false }
        var rest = p.dropFirst(f.count)
        if f.last != 0x2F {
            guard rest.first == 0x2F else { return false }
            rest = rest.dropFirst()
        }
        return !rest.isEmpty
    }

    /// Every folder that holds `path`, each with a trailing `/`: `a/b/c.txt` → `a/`, `a/b/`.
    public static func parentFolders(_ path: String) -> [[UInt8]] {
        let bytes = Array(path.utf8)
        var out: [[UInt8]] = []
        for (i, b) in bytes.enumerated() where b == 0x2F && i > 0 && i < bytes.count - 1 {
            out.append(Array(bytes[...i]))
        }
        return out
    }
}
