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

    /// What is wrong with `path`, in words; empty when the path is safe.
    ///
    /// - Parameter allowDirectory: accept one trailing `/` (a ZIP directory entry).
    public static func problems(_ path: String, allowDirectory: Bool = false) -> [String] {
        var problems: [String] = []
        if path.isEmpty { return ["the path is empty"] }
        if path.utf8.count > maxPathBytes { problems.append("the path is longer than \(maxPathBytes) bytes") }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            problems.append("the path contains a control character")
        }
        if path.contains("\\") { problems.append("the path contains a backslash; use '/' between folders") }
        if path.hasPrefix("/") { problems.append("the path is absolute; it must be relative to the package") }
        if path.contains(":") { problems.append("the path contains ':' (a drive letter or stream name on Windows)") }
        if Array(path.utf8) != Array(path.precomposedStringWithCanonicalMapping.utf8) {
            problems.append("the path is not in Unicode normalization form C (NFC)")
        }
        var body = Substring(path)
        if allowDirectory, body.hasSuffix("/") { body = body.dropLast() }
        let components = body.split(separator: "/", omittingEmptySubsequences: false)
        for component in components {
            if component.isEmpty {
                if !path.hasPrefix("/") { problems.append("the path has an empty component ('//' or a trailing '/')") }
                continue
            }
            if component == "." || component == ".." {
                problems.append("the path contains a '\(component)' component")
                continue
            }
            if component.utf8.count > maxComponentBytes {
                problems.append("the component '\(component.prefix(40))…' is longer than \(maxComponentBytes) bytes")
            }
            if component.hasSuffix(".") || component.hasSuffix(" ") {
                problems.append("the component '\(component)' ends with a dot or a space (Windows drops them)")
            }
            let stem = component.split(separator: ".", maxSplits: 1).first.map { String($0).lowercased() } ?? ""
            if windowsReserved.contains(stem) {
                problems.append("the component '\(component)' is a reserved device name on Windows")
            }
        }
        var seen = Set<String>()
        return problems.filter { seen.insert($0).inserted }
    }

    /// The key under which two paths collide on a case-insensitive, normalization-insensitive
    /// file system (as on phones): NFC, then Unicode case folding.
    public static func foldingKey(_ path: String) -> String {
        path.precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    /// The path's folder components, for checking that a path lies under `folder`.
    public static func isInside(_ path: String, folder: String) -> Bool {
        let f = folder.split(separator: "/")
        let p = path.split(separator: "/", omittingEmptySubsequences: false)
        return p.count > f.count && Array(p.prefix(f.count)).map(String.init) == f.map(String.init)
    }
}
