import TrailPackCore

/// Step 6 of reading an archive: the entries must tile the entry area — no bytes before the
/// first, between two or after the last, and no two entries sharing bytes.
enum ZipLayout {
    static func check(_ entries: [ZipEntry], centralDirectoryOffset: Int64, findings: inout [Finding]) {
        // An unreadable entry is already reported. Positions are sorted, not copies of the entries.
        guard entries.allSatisfy({ $0.dataOffset != nil }) else { return }
        let placed = entries.indices.sorted { entries[$0].localHeaderOffset < entries[$1].localHeaderOffset }
        var position: Int64 = 0
        var previous: ZipEntry?
        for i in placed {
            let e = entries[i]
            guard let end = e.endOffset else { continue }
            if e.localHeaderOffset > position {
                if let p = previous {
                    findings.append(
                        Finding(
                            .zipGap, file: e.name,
                            "\(e.localHeaderOffset - position) bytes between '\(p.name)' and this entry belong to nothing"
                        ))
                } else {
                    findings.append(
                        Finding(
                            .zipPrefix,
                            "\(e.localHeaderOffset) bytes before the first entry belong to nothing (a self-extractor or a disguised file?)"
                        ))
                }
            } else if e.localHeaderOffset < position, let p = previous {
                findings.append(
                    Finding(.zipOverlap, file: e.name, "the entry overlaps '\(p.name)'; entries must not share bytes"))
            }
            position = max(position, end)
            previous = e
        }
        if entries.isEmpty && centralDirectoryOffset > 0 {
            findings.append(
                Finding(.zipPrefix, "\(centralDirectoryOffset) bytes before the central directory belong to no entry"))
        } else if position < centralDirectoryOffset {
            findings.append(
                Finding(
                    .zipGap,
                    "\(centralDirectoryOffset - position) bytes between the last entry and the central directory belong to nothing"
                ))
        }
    }
}
