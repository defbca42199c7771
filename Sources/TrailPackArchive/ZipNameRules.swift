import TrailPackCore

/// Step 4 of reading an archive: names that collide — exactly, after case folding and Unicode
/// normalization (the same file on a phone's case-insensitive file system), or a file that is
/// also used as a folder. Entries are told apart by their names, never by positions.
enum ZipNameRules {
    static func check(_ entries: [ZipEntry], findings: inout [Finding]) {
        var exact: [NameKey: Int] = [:]
        var folded: [String: String] = [:]  // folding key -> the first name with that key
        var files: Set<String> = []
        for e in entries {
            if let first = exact[NameKey(e.nameBytes)] {
                findings.append(
                    Finding(
                        .zipNameDuplicate, file: e.name,
                        "two entries are named '\(e.name)' (entries \(first) and \(e.index)); readers would disagree on which one counts"
                    ))
                continue
            }
            exact[NameKey(e.nameBytes)] = e.index
            let key = ArchivePath.foldingKey(e.isDirectory ? String(e.name.dropLast()) : e.name)
            if let first = folded[key] {
                findings.append(
                    Finding(
                        .zipNameFoldedDuplicate, file: e.name,
                        "'\(e.name)' and '\(first)' are the same file on case-insensitive phones"))
            } else {
                folded[key] = e.name
            }
            if !e.isDirectory { files.insert(key) }
        }
        // Whether each folder is also a file, worked out once however many entries it holds.
        var isFile: [NameKey: Bool] = [:]
        for e in entries {
            // A file used as a folder: 'a' and 'a/b' cannot both be extracted.
            for folder in ArchivePath.parentFolders(e.name) {
                var parent: String { String(decoding: folder.dropLast(), as: UTF8.self) }
                let clash: Bool
                if let known = isFile[NameKey(folder)] {
                    clash = known
                } else {
                    clash = files.contains(ArchivePath.foldingKey(parent))
                    isFile[NameKey(folder)] = clash
                }
                if clash {
                    findings.append(Finding(.zipNameDuplicate, file: e.name, "'\(parent)' is both a file and a folder"))
                    break
                }
            }
        }
    }
}
