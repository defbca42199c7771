import TrailPackCore

/// Step 4 of reading an archive: names that collide — exactly, after case folding and Unicode
/// normalization (the same file on a phone's case-insensitive file system), or a file that is
/// also used as a folder. Entries are told apart by their names, never by positions.
///
/// Names are compared as bytes, folded by ASCII lowercasing when they are ASCII (nearly always)
/// and by ``ArchivePath/foldingKey(_:)`` otherwise: no `String` is made for a name that collides
/// with nothing. This runs for every entry of every package.
///
/// Collisions are found by sorting the entries' positions (4 bytes each) by name, not by tables
/// of names: at 100,000 entries the three hash tables this took were 11.6 MB, held while the
/// manifest was parsed beside them, and the sorts hold 1.2 MB. Writers put entries nearly in name
/// order, and Swift's sort merges runs already in order, so sorting costs little more than the hashing did.
enum ZipNameRules {
    /// Appends the findings, and returns the position of the first entry of each name in the
    /// byte order of the names (what ``ZipNameIndex`` searches, so a verify sorts the names once).
    @discardableResult
    static func check(_ entries: [ZipEntry], findings: inout [Finding]) -> [Int32] {
        // Positions are 32 bits: the central directory's size is bounded far below 2^31 records.
        guard entries.count <= Int(Int32.max) else { return [] }
        let keys = FoldedKeys(entries)
        // 1. The same bytes: every entry after the first of its name is a duplicate of that first.
        let firstByName: [Int32]
        var sameAs: [Int32]
        (firstByName, sameAs) = exactDuplicates(entries)
        // 2. The same once folded, among names that are not exact duplicates (a folder by its name
        // without the last '/', so 'A/' and 'a/' collide).
        var foldedAs = [Int32](repeating: -1, count: entries.count)
        var byKey = (0..<Int32(entries.count)).filter { sameAs[Int($0)] < 0 }
        byKey.sort {
            let order = keys.compare($0, $1)
            return order != 0 ? order < 0 : $0 < $1
        }
        groups(byKey, equal: { keys.compare($0, $1) == 0 }) { first, other in foldedAs[Int(other)] = first }
        for e in entries {
            if sameAs[e.index] >= 0 {
                findings.append(
                    Finding(
                        .zipNameDuplicate, file: e.name,
                        "two entries are named '\(e.name)' (entries \(sameAs[e.index]) and \(e.index)); readers would disagree on which one counts"
                    ))
            } else if foldedAs[e.index] >= 0 {
                findings.append(
                    Finding(
                        .zipNameFoldedDuplicate, file: e.name,
                        "'\(e.name)' and '\(entries[Int(foldedAs[e.index])].name)' are the same file on case-insensitive phones"
                    ))
            }
        }
        sameAs = []
        foldedAs = []
        // 3. A file used as a folder: 'a' and 'a/b' cannot both be extracted. The files, in the
        // order of their folded names, are searched for each folder; whether a folder is also a
        // file is worked out once however many entries it holds, and an entry in the same folder
        // as the one before it (as writers order them) takes that one's answer.
        let files = byKey.filter { !entries[Int($0)].isDirectory }
        byKey = []
        var isFile: [NameKey: Bool] = [:]
        var previous: (name: ZipName, last: Int, clash: String?)?
        for e in entries {
            let bytes = e.nameBytes
            // The folders are the prefixes ending at a '/' that is neither the first nor the last byte.
            var last = bytes.count - 2
            while last >= 1 && bytes[last] != 0x2F { last -= 1 }
            guard last >= 1 else { continue }
            let clash: String?
            if let previous, previous.last == last, Self.samePrefix(previous.name, bytes, through: last) {
                clash = previous.clash
            } else {
                clash = firstFileUsedAsFolder(bytes, through: last, files: files, keys: keys, known: &isFile)
                previous = (bytes, last, clash)
            }
            if let clash {
                findings.append(Finding(.zipNameDuplicate, file: e.name, "'\(clash)' is both a file and a folder"))
            }
        }
        return firstByName
    }

    /// The first entry of each name in the names' byte order, and for every entry after the first
    /// of its name, that first (-1 for the first): the exact duplicates, for the rules and the index.
    static func exactDuplicates(_ entries: [ZipEntry]) -> (firstByName: [Int32], sameAs: [Int32]) {
        var sameAs = [Int32](repeating: -1, count: entries.count)
        var byName = sortedByName(entries)
        groups(byName, equal: { compareExact(entries[Int($0)].nameBytes, entries[Int($1)].nameBytes) == 0 }) {
            first, other in sameAs[Int(other)] = first
        }
        byName.removeAll { sameAs[Int($0)] >= 0 }
        return (byName, sameAs)
    }

    /// The entries' positions in the byte order of their names, equal names by position (what the
    /// duplicates are found in, and what ``ZipNameIndex`` searches).
    static func sortedByName(_ entries: [ZipEntry]) -> [Int32] {
        var order = Array(0..<Int32(clamping: entries.count))
        order.sort {
            let c = compareExact(entries[Int($0)].nameBytes, entries[Int($1)].nameBytes)
            return c != 0 ? c < 0 : $0 < $1
        }
        return order
    }

    /// Calls `body(first, other)` for every element of `sorted` after the first of its run of
    /// equal elements, with that first (the lowest position: the sorts order equal names by position).
    private static func groups(_ sorted: [Int32], equal: (Int32, Int32) -> Bool, _ body: (Int32, Int32) -> Void) {
        var start = 0
        for k in sorted.indices.dropFirst() {
            if equal(sorted[start], sorted[k]) {
                body(sorted[start], sorted[k])
            } else {
                start = k
            }
        }
    }

    /// The first folder of `bytes` (a prefix ending at a '/' at or before `last`) that is also a
    /// file, as text; nil when none is.
    private static func firstFileUsedAsFolder(
        _ bytes: ZipName, through last: Int, files: [Int32], keys: FoldedKeys, known: inout [NameKey: Bool]
    ) -> String? {
        for i in 1...last where bytes[i] == 0x2F {
            let folder = NameKey(Array(bytes[...i]))
            let clash: Bool
            if let answer = known[folder] {
                clash = answer
            } else {
                clash = keys.contains(FoldedKeys.key(bytes[..<i]), among: files)
                known[folder] = clash
            }
            if clash { return String(decoding: bytes[..<i], as: UTF8.self) }
        }
        return nil
    }

    /// Whether `a` and `b` have the same bytes up to and with position `last` (both are longer).
    private static func samePrefix(_ a: ZipName, _ b: ZipName, through last: Int) -> Bool {
        a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                UnsafeBufferPointer(rebasing: x[...last]).elementsEqual(UnsafeBufferPointer(rebasing: y[...last]))
            }
        }
    }

    /// Byte order of two names: negative, zero or positive.
    static func compareExact(_ a: ZipName, _ b: ZipName) -> Int {
        a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in compareBytes(x, lowerX: false, y, lowerY: false) }
        }
    }

    /// Byte order of two byte strings, each ASCII-lowercased as it is read when asked.
    static func compareBytes(
        _ x: UnsafeBufferPointer<UInt8>, lowerX: Bool, _ y: UnsafeBufferPointer<UInt8>, lowerY: Bool
    ) -> Int {
        let n = min(x.count, y.count)
        var k = 0
        while k < n {
            var a = x[k]
            var b = y[k]
            if lowerX && a >= 0x41 && a <= 0x5A { a |= 0x20 }
            if lowerY && b >= 0x41 && b <= 0x5A { b |= 0x20 }
            if a != b { return Int(a) - Int(b) }
            k += 1
        }
        return x.count - y.count
    }
}

/// The names' folding keys, compared without being made: an ASCII name's key is its bytes
/// lowercased as they are read (a folder's without its last '/'); only names that are not ASCII
/// (rare) have theirs made, by ``ArchivePath/foldingKey(_:)``.
struct FoldedKeys {
    private let entries: [ZipEntry]
    /// The keys of the names that are not ASCII, by position.
    private let made: [Int32: [UInt8]]

    init(_ entries: [ZipEntry]) {
        self.entries = entries
        var made: [Int32: [UInt8]] = [:]
        for e in entries where !e.nameBytes.withUnsafeBufferPointer({ $0.allSatisfy { $0 < 0x80 } }) {
            made[Int32(e.index)] = Self.key(e.isDirectory ? e.nameBytes.dropLast() : e.nameBytes[...])
        }
        self.made = made
    }

    /// The folding key of `bytes` as bytes: ASCII lowercased, else the bytes of
    /// ``ArchivePath/foldingKey(_:)`` of the name decoded (invalid bytes replaced, as in `name`).
    static func key(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if bytes.allSatisfy({ $0 < 0x80 }) { return bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 } }
        return Array(ArchivePath.foldingKey(String(decoding: bytes, as: UTF8.self)).utf8)
    }

    /// Calls `body` with entry `i`'s key: its bytes and whether they are still to be lowercased.
    private func withKey<R>(_ i: Int32, _ body: (UnsafeBufferPointer<UInt8>, Bool) -> R) -> R {
        if let key = made[i] { return key.withUnsafeBufferPointer { body($0, false) } }
        let name = entries[Int(i)].nameBytes
        return name.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(rebasing: all[0..<(name.last == 0x2F ? all.count - 1 : all.count)]), true)
        }
    }

    /// The order of entries `a` and `b`'s keys: negative, zero or positive.
    func compare(_ a: Int32, _ b: Int32) -> Int {
        withKey(a) { x, lowerX in
            withKey(b) { y, lowerY in ZipNameRules.compareBytes(x, lowerX: lowerX, y, lowerY: lowerY) }
        }
    }

    /// Whether `key` is the key of one of `sorted` (positions in the order of their keys).
    func contains(_ key: [UInt8], among sorted: [Int32]) -> Bool {
        key.withUnsafeBufferPointer { k in
            var low = 0
            var high = sorted.count
            while low < high {
                let mid = (low + high) / 2
                let order = withKey(sorted[mid]) { x, lower in
                    ZipNameRules.compareBytes(x, lowerX: lower, k, lowerY: false)
                }
                if order == 0 { return true }
                if order < 0 { low = mid + 1 } else { high = mid }
            }
            return false
        }
    }
}
