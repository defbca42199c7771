import TrailPackCore

/// Step 4 of reading an archive: names that collide — exactly, after case folding and Unicode
/// normalization (the same file on a phone's case-insensitive file system), or a file that is
/// also used as a folder. Entries are told apart by their names, never by positions.
enum ZipNameRules {
    static func check(_ entries: [ZipEntry], findings: inout [Finding]) {
        var exact: [[UInt8]: Int] = [:]
        var folded: [String: String] = [:]  // folding key -> the first name with that key
        var files: Set<String> = []
        for e in entries {
            if let first = exact[e.nameBytes] {
                findings.append(Finding(.zipNameDuplicate, file: e.name,
                    "two entries are named '\(e.name)' (entries \(first) and \(e.index)); readers would disagree on which one counts"))
                continue
            }
            exact[e.nameBytes] = e.index
            let key = ArchivePath.foldingKey(e.isDirectory ? String(e.name.dropLast()) : e.name)
            if let first = folded[key] {
                findings.append(Finding(.zipNameFoldedDuplicate, file: e.name,
                    "'\(e.name)' and '\(first)' are the same file on case-insensitive phones"))
            } else {
                folded[key] = e.name
            }
            if !e.isDirectory { files.insert(key) }
        }
        for e in entries {
            // A file used as a folder: 'a' and 'a/b' cannot both be extracted.
            for folder in ArchivePath.parentFolders(e.name) {
                let parent = String(decoding: folder.dropLast(), as: UTF8.self)
                if files.contains(ArchivePath.foldingKey(parent)) {
                    findings.append(Finding(.zipNameDuplicate, file: e.name, "'\(parent)' is both a file and a folder"))
                    break
                }
            }
        }
    }
}
