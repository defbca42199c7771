import TrailPackCore

/// The layout of a ZIP archive as read strictly from its end records and central directory,
/// with every local header cross-checked — and everything found wrong with it.
///
/// libarchive and others prefer the local headers when they disagree with the central
/// directory; unzip prefers the central directory. An archive on which they could disagree is
/// rejected here, so that whatever trailpack accepts, every reader reads the same way.
///
/// Reading goes in named steps, each a value of its own: `ZipEndRecords` (where the directory
/// is), `ZipCentralDirectory` (its records), `ZipEntryRules` (each record alone),
/// `ZipNameRules` (names against each other), `ZipLocalHeaders` (each record against its
/// local header) and `ZipLayout` (how the entries fill the file). Every number taken from the
/// file is bounded before it is used to subscript, slice, allocate, seek or loop.
public struct ZipDirectory: Sendable {
    /// Every record of the central directory, in its order: `entries[i].index == i`.
    public var entries: [ZipEntry] {
        // The names' order kept below was made from the entries as read.
        didSet { firstByName = nil }
    }
    /// Where the central directory starts (the end of the entries' data).
    public var centralDirectoryOffset: Int64
    /// Problems found in the end records, the central directory and the local headers.
    public var findings: [Finding]
    /// Whether the end records and the whole central directory could be read, so that the
    /// entries are the archive's entries (each entry's own `dataOffset` says if its data can be read).
    public var isReadable: Bool
    /// The first entry of each name in the names' byte order, as the name rules sorted them (nil
    /// when the directory was incomplete and the rules did not run).
    private var firstByName: [Int32]? = nil

    /// Reads and checks the structure of `source`. Throws only when the source cannot be read.
    public static func read(
        _ source: some ByteSource, limits: ZipLimits = .default
    ) throws(ArchiveError) -> ZipDirectory {
        var (directory, complete) = try records(source, limits: limits)
        guard complete else { return directory }
        let cdOffset = directory.centralDirectoryOffset
        // The entries moved out (not copied) for the check, which sets where each one's data starts and
        // never a name: the names' order stays.
        let firstByName = directory.firstByName
        var entries = directory.entries
        directory.entries = []
        try ZipLocalHeaders.check(&entries, source: source, limit: cdOffset, findings: &directory.findings)
        directory.entries = entries
        directory.firstByName = firstByName
        var total: Int64 = 0
        for e in directory.entries where e.sizesKnown { total = total &+ max(0, e.uncompressedSize) }
        if total > limits.maxTotalSize || total < 0 {
            directory.findings.append(
                Finding(
                    .zipTooLarge,
                    "the entries uncompress to \(total < 0 ? "over 2^63" : String(total)) bytes in all; the limit is \(limits.maxTotalSize)"
                ))
        }
        ZipLayout.check(directory.entries, centralDirectoryOffset: cdOffset, findings: &directory.findings)
        directory.isReadable = true
        return directory
    }

    /// The central directory's first record with its local header, read by themselves before the
    /// rest of the directory (for a reader that starts on the first entry, the manifest, at
    /// once); nil when anything about either is not as `read` would take it. The entry is only a
    /// guess: whoever uses it compares it with the same entry of the whole `read`, which alone
    /// says what the archive is.
    package static func leadingEntry(_ source: some ByteSource, limits: ZipLimits = .default) -> ZipEntry? {
        do throws(ArchiveError) {
            var findings: [Finding] = []
            guard let end = try ZipEndRecords.read(source, limits: limits, findings: &findings), findings.isEmpty,
                end.entryCount > 0, end.centralDirectorySize >= 46,
                end.centralDirectorySize <= limits.maxCentralDirectoryBytes
            else { return nil }
            // The fixed part, then the record with its variable parts (bounded by the directory).
            let fixed = try source.bytes(at: end.centralDirectoryOffset, count: 46)
            var f = LittleEndianReader(fixed)
            guard fixed.count == 46, f.peekSignature == ZipSignature.central else { return nil }
            f.skip(28)
            let variable = Int(f.u16()) + Int(f.u16()) + Int(f.u16())
            guard 46 + Int64(variable) <= end.centralDirectorySize else { return nil }
            var c = LittleEndianReader(try source.bytes(at: end.centralDirectoryOffset, count: 46 + variable))
            guard c.remaining == 46 + variable,
                var entry = ZipCentralDirectory.readRecord(
                    &c, index: 0, names: ZipNames(capacity: Int(fixed[28]) | Int(fixed[29]) << 8), findings: &findings),
                findings.isEmpty
            else { return nil }
            ZipEntryRules.check(entry, limits: limits, findings: &findings)
            try ZipLocalHeaders.check(
                &entry, source: source, limit: end.centralDirectoryOffset, findings: &findings)
            guard findings.isEmpty, entry.dataOffset != nil else { return nil }
            return entry
        } catch {
            return nil
        }
    }

    /// The end records and the central directory's records, each checked by itself and the names
    /// against each other (when the directory is complete); not yet readable: the caller decides.
    private static func records(
        _ source: some ByteSource, limits: ZipLimits
    ) throws(ArchiveError) -> (directory: ZipDirectory, complete: Bool) {
        var findings: [Finding] = []
        guard let end = try ZipEndRecords.read(source, limits: limits, findings: &findings) else {
            return (ZipDirectory(entries: [], centralDirectoryOffset: 0, findings: findings, isReadable: false), false)
        }
        let directory = try ZipCentralDirectory.read(source, end: end, limits: limits, findings: &findings)
        var firstByName: [Int32]?
        if directory.isComplete {
            for e in directory.entries { ZipEntryRules.check(e, limits: limits, findings: &findings) }
            firstByName = ZipNameRules.check(directory.entries, findings: &findings)
        }
        return (
            ZipDirectory(
                entries: directory.entries, centralDirectoryOffset: end.centralDirectoryOffset, findings: findings,
                isReadable: false, firstByName: firstByName),
            directory.isComplete
        )
    }

    /// Each entry's position by its name's exact bytes, the first entry of a name (a second one is an
    /// error `ZipNameRules` reports): what the verifier and the reader look assets up by.
    package func positionsByName() -> ZipNameIndex {
        if let firstByName { return ZipNameIndex(entries, firstByName: firstByName) }
        return ZipNameIndex(entries)
    }

    /// Where the central directory lies, read from the end records alone (nil when they cannot be
    /// read or are wrong): a client that holds only the end of an archive learns what else to fetch.
    public static func centralDirectoryRange(
        _ source: some ByteSource, limits: ZipLimits = .default
    ) throws(ArchiveError) -> Range<Int64>? {
        var findings: [Finding] = []
        guard let end = try ZipEndRecords.read(source, limits: limits, findings: &findings),
            !findings.contains(where: { $0.severity == .error })
        else { return nil }
        return end.centralDirectoryOffset..<(end.centralDirectoryOffset + end.centralDirectorySize)
    }

    /// The end records and the central directory alone, each record checked by itself and the
    /// names against each other — no local header is read (every entry's `dataOffset` is nil). For
    /// a client planning which parts of an archive to fetch; the archive it then puts together is
    /// checked in full as any other.
    public static func readCentralDirectory(
        _ source: some ByteSource, limits: ZipLimits = .default
    ) throws(ArchiveError) -> ZipDirectory {
        var (directory, complete) = try records(source, limits: limits)
        directory.isReadable = complete && !directory.findings.contains { $0.severity == .error }
        return directory
    }
}

/// Each name's first entry, found by a binary search of the positions sorted by name: 4 bytes an
/// entry, where a dictionary of the names took 42 (4.2 MB at 100,000 entries, held beside the
/// manifest's model while the assets were checked against the entries).
package struct ZipNameIndex: Sendable {
    /// The directory's entries (its storage, not a copy).
    private let entries: [ZipEntry]
    /// The position of the first entry of each name, in the names' byte order.
    private let sorted: [Int32]

    /// The index of `entries`, sorting their names.
    package init(_ entries: [ZipEntry]) {
        self.init(entries, firstByName: ZipNameRules.exactDuplicates(entries).firstByName)
    }

    /// The index of `entries` from the first entry of each name in the names' byte order, as
    /// ``ZipNameRules`` sorted them while checking the names.
    init(_ entries: [ZipEntry], firstByName: [Int32]) {
        self.entries = entries
        self.sorted = firstByName
        var isFirst = [Bool](repeating: false, count: entries.count)
        for i in firstByName { isFirst[Int(i)] = true }
        self.isFirst = isFirst
    }

    /// Whether each position is the first entry of its name (what a guess is held to).
    private let isFirst: [Bool]

    /// The position of the first entry named by exactly these bytes, or nil.
    package func position(of name: [UInt8]) -> Int? {
        name.withUnsafeBufferPointer { position(of: $0, guess: nil) }
    }

    /// The position of the first entry named by exactly these bytes, or nil.
    package func position(of name: ZipName) -> Int? {
        name.withUnsafeBufferPointer { position(of: $0, guess: nil) }
    }

    /// The position of the first entry named `name` (its UTF-8 bytes), or nil. With `guess` (where
    /// the caller expects it: the entry after the last one found, as packages list the assets in
    /// the entries' order), that entry is compared first, and the names searched only when it is not the one.
    package func position(of name: String, guess: Int? = nil) -> Int? {
        var name = name
        return name.withUTF8 { position(of: $0, guess: guess) }
    }

    private func position(of name: UnsafeBufferPointer<UInt8>, guess: Int?) -> Int? {
        func compare(_ position: Int32) -> Int {
            entries[Int(position)].nameBytes.withUnsafeBufferPointer {
                ZipNameRules.compareBytes($0, lowerX: false, name, lowerY: false)
            }
        }
        if let guess, isFirst.indices.contains(guess), isFirst[guess], compare(Int32(guess)) == 0 { return guess }
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            let c = compare(sorted[mid])
            if c == 0 { return Int(sorted[mid]) }
            if c < 0 { low = mid + 1 } else { high = mid }
        }
        return nil
    }
}
