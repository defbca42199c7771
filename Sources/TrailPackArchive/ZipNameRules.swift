import TrailPackCore

/// Step 4 of reading an archive: names that collide — exactly, after case folding and Unicode
/// normalization (the same file on a phone's case-insensitive file system), or a file that is
/// also used as a folder. Entries are told apart by their names, never by positions.
///
/// Names are compared as bytes (``NameKey``), folded by ASCII lowercasing when they are ASCII
/// (nearly always) and by ``ArchivePath/foldingKey(_:)`` otherwise: no `String` is made for a
/// name that collides with nothing. This runs for every entry of every package.
enum ZipNameRules {
    static func check(_ entries: [ZipEntry], findings: inout [Finding]) {
        var exact: [NameKey: Int] = [:]
        var folded: [NameKey: Int] = [:]  // folding key -> the first entry with that key
        var files: Set<NameKey> = []
        exact.reserveCapacity(entries.count)
        folded.reserveCapacity(entries.count)
        for e in entries {
            let name = NameKey(e.nameBytes)
            if let first = exact[name] {
                findings.append(
                    Finding(
                        .zipNameDuplicate, file: e.name,
                        "two entries are named '\(e.name)' (entries \(first) and \(e.index)); readers would disagree on which one counts"
                    ))
                continue
            }
            exact[name] = e.index
            let key = e.isDirectory ? foldingKey(e.nameBytes.dropLast()) : foldingKey(e.nameBytes)
            if let first = folded[key] {
                findings.append(
                    Finding(
                        .zipNameFoldedDuplicate, file: e.name,
                        "'\(e.name)' and '\(entries[first].name)' are the same file on case-insensitive phones"))
            } else {
                folded[key] = e.index
            }
            if !e.isDirectory { files.insert(key) }
        }
        // A file used as a folder: 'a' and 'a/b' cannot both be extracted. Whether each folder is
        // also a file is worked out once however many entries it holds, and an entry in the same
        // folder as the one before it (as writers order them) takes that one's answer.
        var isFile: [NameKey: Bool] = [:]
        var previous: (folders: ArraySlice<UInt8>, clash: String?)?
        for e in entries {
            let bytes = e.nameBytes
            // The folders are the prefixes ending at a '/' that is neither the first nor the last byte.
            var last = bytes.count - 2
            while last >= 1 && bytes[last] != 0x2F { last -= 1 }
            guard last >= 1 else { continue }
            let folders = bytes[...last]
            let clash: String?
            if let previous, previous.folders == folders {
                clash = previous.clash
            } else {
                clash = firstFileUsedAsFolder(bytes, through: last, files: files, known: &isFile)
                previous = (folders, clash)
            }
            if let clash {
                findings.append(Finding(.zipNameDuplicate, file: e.name, "'\(clash)' is both a file and a folder"))
            }
        }
    }

    /// The first folder of `bytes` (a prefix ending at a '/' at or before `last`) that is also a
    /// file, as text; nil when none is.
    private static func firstFileUsedAsFolder(
        _ bytes: [UInt8], through last: Int, files: Set<NameKey>, known: inout [NameKey: Bool]
    ) -> String? {
        for i in 1...last where bytes[i] == 0x2F {
            let folder = NameKey(Array(bytes[...i]))
            let clash: Bool
            if let answer = known[folder] {
                clash = answer
            } else {
                clash = files.contains(foldingKey(bytes[..<i]))
                known[folder] = clash
            }
            if clash { return String(decoding: bytes[..<i], as: UTF8.self) }
        }
        return nil
    }

    /// The key of a whole name: its own bytes, shared and not copied, when it is ASCII without
    /// capitals (nearly always; a copy of each was 6.3 MB at 100,000 entries).
    static func foldingKey(_ name: [UInt8]) -> NameKey {
        name.allSatisfy { $0 < 0x80 && !($0 >= 0x41 && $0 <= 0x5A) } ? NameKey(name) : foldingKey(name[...])
    }

    /// The key under which names collide on a phone: ASCII lowercased bytes, else the bytes of
    /// ``ArchivePath/foldingKey(_:)`` of the name decoded (invalid bytes replaced, as in `name`).
    static func foldingKey(_ bytes: ArraySlice<UInt8>) -> NameKey {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            return NameKey(bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
        }
        return NameKey(ArchivePath.foldingKey(String(decoding: bytes, as: UTF8.self)))
    }
}
