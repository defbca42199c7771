import TrailPackCore

/// Step 2 of reading an archive: the records of the central directory. Every record becomes a
/// `ZipEntry` (with a finding when something in it cannot be used), so an entry's `index` is
/// always its position in the list.
struct ZipCentralDirectory: Sendable {
    var entries: [ZipEntry]
    /// Whether every record the end records announce was read, and nothing else is in the
    /// directory: only then can the entries be trusted as the whole archive.
    var isComplete: Bool

    /// Reads the central directory that `end` locates.
    ///
    /// `pieceSize`: how much of the directory is read at a time (small in tests of the pieces' edges).
    static func read(
        _ source: some ByteSource, end: ZipEndRecords, limits: ZipLimits, findings: inout [Finding],
        pieceSize: Int = 1 << 20
    ) throws(ArchiveError) -> ZipCentralDirectory {
        let incomplete = ZipCentralDirectory(entries: [], isComplete: false)
        guard end.centralDirectorySize <= limits.maxCentralDirectoryBytes else {
            findings.append(
                Finding(
                    .zipCentralDirectory,
                    "the central directory is \(end.centralDirectorySize) bytes; the limit is \(limits.maxCentralDirectoryBytes)"
                ))
            return incomplete
        }
        // Read a piece at a time (`Window`), never whole: 10 MB at 100,000 entries, which was the
        // verifier's peak when it was read whole beside the records parsed from it.
        let size = Int(end.centralDirectorySize)
        let cutShort = Finding(.zipCentralDirectory, "the central directory is cut short")
        guard size == 0 || (end.centralDirectoryOffset >= 0 && end.centralDirectoryOffset + Int64(size) <= source.size)
        else {
            findings.append(cutShort)
            return incomplete
        }
        var window = Window(source: source, start: end.centralDirectoryOffset, size: size, pieceSize: pieceSize)
        // Bytes put in front of an archive (a self-extractor stub, `cat stub pkg.zip`) move
        // everything by the same amount: the directory is then found exactly that many bytes late.
        guard let first = try window.reader(at: 0, count: 4) else {
            findings.append(cutShort)
            return incomplete
        }
        if end.entryCount > 0, first.peekSignature != ZipSignature.central {
            let actual = end.centralDirectoryEnd - end.centralDirectorySize
            if actual > end.centralDirectoryOffset,
                LittleEndianReader(try source.bytes(at: actual, count: 4)).peekSignature == ZipSignature.central
            {
                let n = actual - end.centralDirectoryOffset
                findings.append(
                    Finding(
                        .zipPrefix,
                        "\(n) bytes were put in front of the archive (a self-extractor stub, or files joined with cat): "
                            + "every offset in it is \(n) bytes off. Remove the first \(n) bytes, or build the package "
                            + "again with trailpack build"))
                return incomplete
            }
        }
        if end.centralDirectoryOffset + end.centralDirectorySize < end.centralDirectoryEnd {
            let gapStart = end.centralDirectoryOffset + end.centralDirectorySize
            let gap = end.centralDirectoryEnd - gapStart
            // An end record there is a second one (an archive ended twice, `cat pkg.zip end >> pkg.zip`):
            // a reader that searches from the front, or skips the last one, sees another archive.
            if gap >= 22, LittleEndianReader(try source.bytes(at: gapStart, count: 4)).peekSignature == ZipSignature.end
            {
                findings.append(
                    Finding(
                        .zipEOCDMultiple,
                        "a second end-of-central-directory record lies at byte \(gapStart), before the last one at byte \(end.centralDirectoryEnd): "
                            + "the archive ends twice, and readers could disagree on which end is real; build the package again"
                    ))
            } else {
                findings.append(
                    Finding(
                        .zipGap,
                        "\(gap) bytes between the central directory and the end record belong to nothing"))
            }
        }

        var entries: [ZipEntry] = []
        entries.reserveCapacity(end.entryCount)
        guard let namesLength = try Self.namesLength(&window, records: end.entryCount) else {
            findings.append(cutShort)
            return incomplete
        }
        let names = ZipNames(capacity: namesLength)
        // Where the next record starts, from the directory's start.
        var at = 0
        for index in 0..<end.entryCount {
            // The fixed part, then the whole record (or as much of it as the directory holds).
            guard let fixed = try window.reader(at: at, count: 46) else {
                findings.append(cutShort)
                return incomplete
            }
            guard size - at >= 46, fixed.peekSignature == ZipSignature.central else {
                findings.append(
                    Finding(
                        .zipCentralDirectory,
                        "the central directory holds \(index) entries, but the end record says \(end.entryCount)"))
                return ZipCentralDirectory(entries: entries, isComplete: false)
            }
            guard var c = try window.reader(at: at, count: 46 + Self.variableLength(fixed)) else {
                findings.append(cutShort)
                return incomplete
            }
            let start = c.offset
            guard let entry = readRecord(&c, index: index, names: names, findings: &findings) else {
                findings.append(
                    Finding(
                        .zipCentralDirectory,
                        "central-directory entry \(index) runs past the end of the directory"))
                return ZipCentralDirectory(entries: entries, isComplete: false)
            }
            at += c.offset - start
            entries.append(entry)
        }
        if size - at > 0 {
            findings.append(
                Finding(
                    .zipCentralDirectory,
                    "\(size - at) bytes after the last central-directory entry belong to nothing"))
            return ZipCentralDirectory(entries: entries, isComplete: false)
        }
        return ZipCentralDirectory(entries: entries, isComplete: true)
    }

    /// The length of a record's name, extra field and comment, from its fixed part.
    static func variableLength(_ fixed: LittleEndianReader) -> Int {
        var f = fixed
        f.skip(28)
        return Int(f.u16()) + Int(f.u16()) + Int(f.u16())
    }

    /// The bytes of the names of the first `records` records of the directory `window` reads, in
    /// all, as far as records can be walked: room enough for the names
    /// ``read(_:end:limits:findings:)`` takes. Nil when the source gives fewer bytes than it has.
    static func namesLength<Source: ByteSource>(
        _ window: inout Window<Source>, records: Int
    ) throws(ArchiveError) -> Int? {
        var total = 0
        var at = 0
        var walked = 0
        while walked < records, window.size - at >= 46 {
            guard var f = try window.reader(at: at, count: 46) else { return nil }
            let variable = Self.variableLength(f)
            f.skip(28)
            let name = Int(f.u16())
            total += name
            at += 46 + variable
            walked += 1
        }
        return total
    }

    /// The directory's bytes, read a piece of about a mebibyte at a time, in order.
    struct Window<Source: ByteSource> {
        let source: Source
        /// Where the directory starts in the source, and its length.
        let start: Int64
        let size: Int
        /// The piece held, and where it starts in the directory.
        private var piece: [UInt8] = []
        private var pieceStart = 0
        /// How many bytes a piece holds, at least (a record longer than that is read whole).
        let pieceSize: Int

        init(source: Source, start: Int64, size: Int, pieceSize: Int = 1 << 20) {
            self.source = source
            self.start = start
            self.size = size
            self.pieceSize = max(1, pieceSize)
        }

        /// A reader at the directory's byte `at` over at least `count` bytes, or all the
        /// directory has from there when fewer (its `remaining` then ends where the directory
        /// does, as a reader over the whole directory's would). Nil when the source gives fewer
        /// bytes than it has (a file that shrank).
        mutating func reader(at: Int, count: Int) throws(ArchiveError) -> LittleEndianReader? {
            let wanted = min(count, size - at)
            if at < pieceStart || at + max(0, wanted) > pieceStart + piece.count {
                let length = min(max(pieceSize, wanted), size - at)
                piece = try source.bytes(at: start + Int64(at), count: length)
                pieceStart = at
                guard piece.count == length else { return nil }
            }
            return LittleEndianReader(piece, at: at - pieceStart)
        }
    }

    /// One record, its name added to `names`; nil when its variable-length parts run past the
    /// directory (or its name does not fit in `names`).
    static func readRecord(
        _ c: inout LittleEndianReader, index: Int, names: ZipNames, findings: inout [Finding]
    ) -> ZipEntry? {
        c.skip(4)  // signature
        let madeBy = c.u16()
        let versionNeeded = c.u16()
        let flags = c.u16(), method = c.u16()
        c.skip(4)  // DOS time and date
        let crc = c.u32(), compressed32 = c.u32(), uncompressed32 = c.u32()
        let nameLength = Int(c.u16()), extraLength = Int(c.u16()), commentLength = Int(c.u16())
        let diskStart = c.u16()
        c.skip(2)  // internal attributes
        let external = c.u32(), offset32 = c.u32()
        guard c.remaining >= nameLength + extraLength + commentLength,
            let nameBytes = names.append(c.slice(nameLength))
        else { return nil }
        let extra = ZipExtraFields(c.slice(extraLength))
        c.skip(commentLength)
        checkNameEncoding(nameBytes, flags: flags, index: index, findings: &findings)
        var name: String { nameBytes.description }  // made only for a finding

        var entry = ZipEntry(
            index: index, nameBytes: nameBytes, flags: flags, compressedSize: Int64(compressed32),
            uncompressedSize: Int64(uncompressed32), localHeaderOffset: Int64(offset32), descriptorLength: 0,
            dataOffset: nil, method: method, versionMadeBy: madeBy, versionNeeded: versionNeeded,
            crc32: crc, externalAttributes: external)
        if let problem = extra.malformed { findings.append(Finding(.zipExtraField, file: name, problem)) }
        // ZIP64 extended information: only the fields whose 32-bit value is all ones, in order.
        let needs = (uncompressed32 == 0xFFFF_FFFF, compressed32 == 0xFFFF_FFFF, offset32 == 0xFFFF_FFFF)
        let needed = [needs.0, needs.1, needs.2].filter { $0 }.count * 8 + (diskStart == 0xFFFF ? 4 : 0)
        if needed > 0 {
            if let z = extra.field(0x0001), z.count >= needed {
                var zr = LittleEndianReader(Array(z))
                if needs.0 { entry.uncompressedSize = Int64(bitPattern: zr.u64()) }
                if needs.1 { entry.compressedSize = Int64(bitPattern: zr.u64()) }
                if needs.2 { entry.localHeaderOffset = Int64(bitPattern: zr.u64()) }
            } else {
                // Kept in the list, with nothing known of its sizes: later checks skip its data.
                entry.sizesKnown = false
                findings.append(
                    Finding(
                        .zipZip64Invalid, file: name,
                        "the entry needs ZIP64 sizes or offset but has no (or a short) ZIP64 extra field"))
            }
        }
        if diskStart != 0 && diskStart != 0xFFFF {
            findings.append(Finding(.zipEOCDInvalid, file: name, "the entry claims to start on disk \(diskStart)"))
        }
        if !extra.unicodePathAgrees(with: nameBytes) {
            findings.append(
                Finding(
                    .zipExtraField, file: name,
                    "the entry carries a second, different name in a Unicode-path extra field; readers would disagree on its name"
                ))
        }
        return entry
    }

    /// A name must be valid UTF-8, and flagged as UTF-8 unless it is ASCII.
    private static func checkNameEncoding(_ bytes: ZipName, flags: UInt16, index: Int, findings: inout [Finding]) {
        // Nearly every name: no String made.
        if bytes.withUnsafeBufferPointer({ $0.allSatisfy { $0 < 0x80 } }) { return }
        if let s = bytes.withUnsafeBufferPointer({ String(validating: $0, as: UTF8.self) }) {
            if flags & 0x0800 == 0, bytes.contains(where: { $0 >= 0x80 }) {
                findings.append(
                    Finding(
                        .zipNameEncoding, file: s,
                        "the name is not ASCII but the UTF-8 flag is not set: readers would decode it as code page 437 and get another name"
                    ))
            }
            return
        }
        let shown = bytes.description
        findings.append(Finding(.zipNameEncoding, file: shown, "entry \(index)'s name is not valid UTF-8"))
    }
}
