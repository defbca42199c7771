/// Path arithmetic on text that may be hostile (a sheet's cell, a name an upload gave), done on the
/// UTF-8 bytes: `/` and `.` are ASCII, so splitting there never cuts a character.
///
/// Foundation's `NSString` path methods (`lastPathComponent`, `pathExtension`, …) trap on Linux for
/// a `//` followed by a character of several scalars (`"//e\u{301}"`, `"//.\u{202E}"`): one such name
/// in a form field stopped the whole server. Nothing in trailpack calls them on outside input.
public enum PathText {
    /// The part after the last `/` (all of `path` when it has none; "" when it ends with `/`).
    public static func lastComponent(_ path: String) -> String {
        let bytes = path.utf8
        guard let slash = bytes.lastIndex(of: 0x2F) else { return path }
        return String(decoding: bytes[bytes.index(after: slash)...], as: UTF8.self)
    }

    /// The part before the last `/` ("" when there is none, "/" for a name at the root).
    public static func folder(_ path: String) -> String {
        let bytes = path.utf8
        guard let slash = bytes.lastIndex(of: 0x2F) else { return "" }
        if slash == bytes.startIndex { return "/" }
        return String(decoding: bytes[..<slash], as: UTF8.self)
    }

    /// The last component's ending after its last `.`, as written ("" when there is none, or when
    /// the only dot starts the name: `.hidden`).
    public static func fileExtension(_ path: String) -> String {
        let name = lastComponent(path).utf8
        guard let dot = name.lastIndex(of: 0x2E), dot != name.startIndex else { return "" }
        return String(decoding: name[name.index(after: dot)...], as: UTF8.self)
    }

    /// `path` without its last component's extension and the dot before it.
    public static func droppingExtension(_ path: String) -> String {
        let ext = fileExtension(path)
        guard !ext.isEmpty else { return path }
        return String(decoding: path.utf8.dropLast(ext.utf8.count + 1), as: UTF8.self)
    }
}
