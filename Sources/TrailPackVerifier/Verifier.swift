import TrailPackArchive
import TrailPackCore
import TrailPackCrypto
import TrailPackMap

/// Checks a received package and trusts nothing in it: the whole-file SHA-256, the ZIP
/// structure (our own strict parse, cross-checked against every local header), every entry's
/// data (bounded inflate, size, CRC-32), the manifest, and every asset against the manifest.
///
/// Memory stays flat: entries are streamed in fixed-size chunks, and the manifest is parsed as it
/// is inflated, each stop's assets met with their entries as they are decoded (``ContentMatcher``);
/// only the central directory (bounded), a slot an entry and the manifest's model are held, the
/// model without most of its stops' assets when ``Options/keepsAssets`` is false. The whole-file
/// hash runs on a second thread while the entries are checked.
public enum Verifier {
    /// The largest `manifest.json` read.
    public static let maxManifestBytes = Int64(Manifest.maxBytes)
    static let chunkSize = 1 << 20

    /// What to check besides the package itself, and how.
    public struct Options: Sendable {
        /// The SHA-256 the package must have (compared in constant time).
        public var expectedSHA256: SHA256Digest?
        /// Bounds on what the package may make the reader do.
        public var limits: ZipLimits
        /// 2 (default) works beside the calling thread: one thread hashes the whole file, and
        /// the manifest is read on another while the calling thread checks the entries (so up
        /// to three run at once, for a while); 1 does everything on the calling thread.
        public var threads: Int
        /// Also compute the file's BLAKE2b-512 (what minisign signatures sign), in the same read.
        public var prehash: Bool
        /// What the package's maps are checked against (the minimum detail zoom).
        public var map = MapCheckOptions()
        /// Whether the report's manifest keeps every stop's assets (the default). Without them (a
        /// caller that needs the verdict, not the tour: `trailpack verify`), each stop holds only
        /// its assets with any detail (a title, texts, a language, translations or map fields) and
        /// the captions files those name, and the rest are let go as the manifest is read: the
        /// memory of a 100,000-asset verification no longer holds them all at once. The findings
        /// are the same either way.
        public var keepsAssets = true

        /// Options; the defaults check the package alone, on two threads.
        public init(
            expectedSHA256: SHA256Digest? = nil, limits: ZipLimits = .default, threads: Int = 2, prehash: Bool = false
        ) {
            self.expectedSHA256 = expectedSHA256
            self.limits = limits
            self.threads = threads
            self.prehash = prehash
        }
    }

    /// Verifies the package at `path`. Throws only when the file cannot be opened or read.
    public static func verify(path: String, options: Options = Options()) throws(ArchiveError) -> VerificationReport {
        try verify(source: FileSource(path: path), options: options)
    }

    /// Verifies a package held by any byte source.
    public static func verify(
        source: some ByteSource, options: Options = Options()
    ) throws(ArchiveError) -> VerificationReport {
        var findings: [Finding] = []
        // Each asset declared meets its entry's check in the matcher, whichever is read first.
        let matcher = ContentMatcher()
        // The manifest (the first entry) is read, parsed, decoded and validated on a thread of its
        // own from the start, found by the central directory's first record and its local header
        // alone, while this thread reads the whole directory and checks every other entry's data:
        // on 20,000 small entries each side takes about as long, and the second core was idle.
        // What it read counts only if the whole directory's manifest entry is that same entry. (The
        // manifest's CRC-32 is never left to the whole-file thread: its data is parsed only if intact.)
        let leading = options.threads > 1 ? ZipDirectory.leadingEntry(source, limits: options.limits) : nil
        // (A manifest of 100,000 assets is about 25 MB: room is made for one asset per 256 bytes.)
        let earlyFeed = ContentMatcher.Feed(
            matcher, keepsAssets: options.keepsAssets,
            expectedAssets: Int(min(leading?.uncompressedSize ?? 0, maxManifestBytes) / 256))
        let early = leading.flatMap { entry in
            EarlyManifest.canRead(entry, limits: options.limits)
                ? OwnedThread { try? EarlyManifest.read(source: source, entry: entry, feed: earlyFeed) } : nil
        }
        defer { early?.join() }
        // First on every way out: a manifest thread still reading resolves nothing more.
        defer { matcher.abandon() }
        // The structure and the entries are walked in file order through one block (small
        // records cost no system call each); the whole-file hash and the maps read `source` itself.
        let sequential = ReadAheadSource(source)
        let directory = try ZipDirectory.read(sequential, limits: options.limits)
        findings += directory.findings
        var manifestFindings: [Finding] = []
        let manifestIndex = directory.isReadable ? manifestToRead(in: directory, findings: &manifestFindings) : nil
        let earlyIndex =
            early != nil && manifestIndex.map { directory.entries[$0] == leading } == true ? manifestIndex : nil
        if directory.isReadable {
            matcher.open(directory, accepting: earlyIndex != nil ? earlyFeed : nil)
        } else {
            matcher.abandon()
        }

        // The whole-file hash runs on a thread this call owns and joins on every way out,
        // a thrown error included: nothing keeps reading the file after `verify` returns. As it
        // reads every byte anyway, it also takes the CRC-32 of about half of the stored data,
        // which this thread then skips: the two threads then do about the same work (before, this
        // one did an entry's SHA-256 and CRC-32 while the other did one SHA-256, and it waited).
        let crcJobs =
            options.threads > 1 && directory.isReadable
            ? Self.delegatedCRCs(directory).filter { $0.index != manifestIndex } : []
        let wholeFile = WholeFileHash(source: source, prehash: options.prehash, crcJobs: crcJobs)
        let hashing = options.threads > 1 ? OwnedThread { wholeFile.run() } : nil
        defer { hashing?.join() }
        // Which entries' CRC-32 that thread takes, by position (a `Set<Int>` of them was 1.6 MB at 100,000).
        var delegated = [Bool](repeating: false, count: crcJobs.isEmpty ? 0 : directory.entries.count)
        for job in crcJobs { delegated[job.index] = true }

        // What each entry's data came to goes to the matcher, by position.
        // Otherwise (one thread, or a manifest that is not the first record) it is read in the loop.
        var loopReading: ManifestReading?
        // The reading whose assets count.
        var feed: ContentMatcher.Feed?
        // Where the early manifest's finding goes if its data is damaged: where this thread would have put it.
        var earlySlot = 0
        if directory.isReadable {
            // In file order, by position (no copies of the entries).
            // (As `Int32`s: 400 KB less at 100,000 entries than `Int`s.)
            let ordered = directory.entries.indices.lazy.filter { directory.entries[$0].dataOffset != nil }
                .map { Int32($0) }.sorted {
                    directory.entries[Int($0)].dataOffset! < directory.entries[Int($1)].dataOffset!
                }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 64)
            defer { buffer.deallocate() }
            let inflater = Inflater()  // one zlib stream for every entry this loop checks
            for i in ordered {
                let entry = directory.entries[Int(i)]
                guard readsData(entry, limits: options.limits) else { continue }
                if entry.index == earlyIndex {
                    earlySlot = findings.count
                    continue
                }
                let check: EntryCheck
                if entry.index == manifestIndex {
                    let loopFeed = ContentMatcher.Feed(matcher, keepsAssets: options.keepsAssets)
                    matcher.accept(loopFeed)
                    let read = try readManifest(source: sequential, entry: entry, feed: loopFeed)
                    check = read.check
                    loopReading = read.reading
                    feed = loopFeed
                } else {
                    check = try checkData(
                        source: sequential, entry: entry, buffer: buffer,
                        checkCRC: delegated.isEmpty || !delegated[entry.index], inflater: inflater)
                }
                if case .damaged(let finding) = check { findings.append(finding) }
                matcher.record(check, at: entry.index)
            }
        }

        var earlyReading: ManifestReading?
        if let earlyIndex, let early {
            // Read on the other thread; read here only when that thread could not read the file.
            let read: EarlyManifest
            if let done = early.join() {
                read = done
                feed = earlyFeed
            } else {
                // What that thread declared before it failed does not count.
                let again = ContentMatcher.Feed(matcher, keepsAssets: options.keepsAssets)
                matcher.accept(again)
                read = try EarlyManifest.read(source: source, entry: directory.entries[earlyIndex], feed: again)
                feed = again
            }
            matcher.record(read.check, at: earlyIndex)
            if case .damaged(let finding) = read.check { findings.insert(finding, at: earlySlot) }
            earlyReading = read.reading
        }
        findings += manifestFindings
        var manifest: Manifest?
        let reading = earlyReading ?? loopReading
        if let reading {
            findings += reading.findings.map { $0.inFile(Manifest.entryName) }
            manifest = reading.manifest
        }
        if let hashing, !crcJobs.isEmpty {
            // The CRC-32s the other thread took: an entry whose data is damaged counts as unread.
            var damaged: [Int] = []
            defer { matcher.damaged(at: damaged) }
            for (job, crc) in zip(crcJobs, hashing.join().crcs) {
                guard matcher.digest(at: job.index) != nil else { continue }
                let entry = directory.entries[job.index]
                let finding =
                    crc == nil
                    ? Finding(
                        .zipCRC, file: entry.name,
                        "the data could not be read to its end to check its CRC-32 (the file shrank while it was read)")
                    : crc != entry.crc32 ? Self.crcFinding(entry, actual: crc!) : nil
                guard let finding else { continue }
                findings.append(finding)
                damaged.append(job.index)
            }
        }
        if let manifest, let reading, let feed {
            checkContents(manifest: manifest, reading: reading, feed: feed, findings: &findings)
        }
        // The route (format 1.2), then the maps: judged against its corridor when there is one.
        // Read only when its bytes are the manifest's (a changed file is a content finding, never read as a route).
        let route = try PackageRoute.check(
            source: source, directory: directory, manifest: manifest,
            damaged: { entry in
                guard let actual = matcher.digest(at: entry.index),
                    let declared = manifest?.mapAssets.first(where: { $0.path == Route.entryName }).flatMap(
                        SHA256Digest.init(of:))
                else { return true }
                return !(declared == actual)
            })
        findings += route.findings
        var mapOptions = options.map
        if let line = route.route, let manifest, mapOptions.route == nil {
            mapOptions.route = MapCheckOptions.Route(
                lines: line.lines.map { $0.map(\.coordinate) }, stops: manifest.waypoints.map(\.coordinate))
        }
        let maps = try PackageMaps.check(
            source: source, directory: directory, manifest: manifest,
            damaged: { matcher.digest(at: $0.index) == nil },
            options: mapOptions)
        findings += maps.findings

        let hashed = hashing?.join() ?? wholeFile.run()
        let digest = try hashed.digest.get()
        if let expected = options.expectedSHA256, !(expected == digest) {
            findings.append(
                Finding(
                    .packageSHA256Mismatch,
                    "the package's SHA-256 is \(digest.hex), not the expected \(expected.hex): the download is damaged or is not the package you asked for; download it again"
                ))
        }
        return VerificationReport(
            size: source.size, sha256: digest, expectedSHA256: options.expectedSHA256, manifest: manifest,
            entryCount: directory.entries.count, findings: findings, blake2b512: hashed.blake2b, maps: maps.maps,
            assetCount: reading?.assetCount ?? 0)
    }

    // MARK: entry data

    /// What reading one entry's data came to.
    enum EntryCheck: Sendable {
        /// Every byte was read and passed its checks: the data's SHA-256 and its first
        /// ``headLength`` bytes (what `asset.type-mismatch` reads).
        case intact(sha256: SHA256Digest, head: EntryHead)
        /// The data is damaged, or could not be read to its end: the finding that says so. Boxed
        /// (rare, and larger than the intact case): every entry's check is then 56 bytes, not 72.
        indirect case damaged(Finding)

        /// The data's SHA-256, when it is intact.
        var sha256: SHA256Digest? {
            if case .intact(let sha256, _) = self { return sha256 }
            return nil
        }

        /// The data's first bytes, when it is intact.
        var head: [UInt8]? {
            if case .intact(_, let head) = self { return head.bytes }
            return nil
        }
    }

    /// Whether an entry's data is read at all: not encrypted, stored or deflated, within the size limit.
    static func readsData(_ entry: ZipEntry, limits: ZipLimits) -> Bool {
        !entry.isEncrypted && (entry.method == 0 || entry.method == 8) && entry.uncompressedSize <= limits.maxEntrySize
    }

    /// One CRC-32 the whole-file thread takes: a stored entry's data, `start..<end` in the file.
    struct CRCJob: Sendable {
        var index: Int
        var start: Int64
        var end: Int64
    }

    /// Stored entries (their data is in the file as it is) whose CRC-32 the whole-file thread
    /// takes, in file order, until they add up to about half of all the entries' data. Entries
    /// whose data overlaps another's (a hostile archive; reported by the layout check) stay here.
    static func delegatedCRCs(_ directory: ZipDirectory) -> [CRCJob] {
        // Sizes are the archive's word (a hostile one says 2^63 - 1): the sum saturates, and a job's
        // data must lie inside the entry area.
        let data = directory.entries.reduce(Int64(0)) { sum, e in
            let size = (e.dataOffset != nil && e.sizesKnown) ? max(0, e.uncompressedSize) : 0
            let (total, overflow) = sum.addingReportingOverflow(size)
            return overflow ? .max : total
        }
        let stored = directory.entries.compactMap { e -> CRCJob? in
            guard e.method == 0, !e.isEncrypted, e.sizesKnown, e.compressedSize == e.uncompressedSize,
                e.compressedSize > 0,
                let start = e.dataOffset, start >= 0, e.compressedSize <= directory.centralDirectoryOffset - start
            else { return nil }
            return CRCJob(index: e.index, start: start, end: start + e.compressedSize)
        }.sorted { $0.start < $1.start }
        var jobs: [CRCJob] = []
        var taken: Int64 = 0
        var previousEnd: Int64 = 0
        for (k, job) in stored.enumerated() {
            let overlaps = job.start < previousEnd || (k + 1 < stored.count && stored[k + 1].start < job.end)
            previousEnd = max(previousEnd, job.end)
            guard !overlaps, taken + (job.end - job.start) <= data / 2 + (1 << 20) else { continue }
            jobs.append(job)
            taken += job.end - job.start
        }
        return jobs
    }

    static func crcFinding(_ entry: ZipEntry, actual: UInt32) -> Finding {
        Finding(
            .zipCRC, file: entry.name,
            "the data's CRC-32 is \(hex32(actual)), not the declared \(hex32(entry.crc32)): the entry is damaged; download or copy the package again"
        )
    }

    /// How many leading bytes of each entry are kept for the content rule: enough for every
    /// signature `ContentSniff` checks, little enough to keep for 100,000 entries.
    static let headLength = EntryHead.capacity

    /// Reads an entry's data through every check (bounded inflate, size, CRC-32 unless another
    /// thread takes it), handing each chunk to `consume` (which may keep it: the package reader's
    /// `manifest.json`). Throws only when the file cannot be read.
    static func checkData(
        source: some ByteSource, entry: ZipEntry, buffer: UnsafeMutableRawBufferPointer, checkCRC: Bool = true,
        inflater: Inflater? = nil, consume: (UnsafeRawBufferPointer) -> Void = { _ in }
    ) throws(ArchiveError) -> EntryCheck {
        var data = EntryData(entry: entry, checkCRC: checkCRC)
        do throws(ArchiveError) {
            let reader = try EntryReader(source: source, entry: entry, inflater: inflater)
            while let chunk = try data.next(reader, buffer) { consume(chunk) }
        } catch {
            return try data.damaged(error)
        }
        return data.check()
    }

    /// The checks of one entry's data, taken chunk by chunk as it is read (inline: one is made
    /// for every entry).
    struct EntryData: ~Copyable {
        let entry: ZipEntry
        let checkCRC: Bool
        private var sha = SHA256()
        private var crc = CRC32()
        private var head = EntryHead()

        init(entry: ZipEntry, checkCRC: Bool) {
            self.entry = entry
            self.checkCRC = checkCRC
        }

        /// The next chunk `reader` gives, in `buffer`, hashed; nil at the end.
        mutating func next(
            _ reader: EntryReader, _ buffer: UnsafeMutableRawBufferPointer
        ) throws(ArchiveError)
            -> UnsafeRawBufferPointer?
        {
            let n = try reader.read(into: buffer)
            if n == 0 { return nil }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            sha.update(chunk)
            if checkCRC { crc.update(chunk) }
            head.append(chunk)
            return chunk
        }

        /// What reading the data to its end came to.
        consuming func check() -> EntryCheck {
            if checkCRC, crc.value != entry.crc32 {
                return .damaged(crcFinding(entry, actual: crc.value))
            }
            return .intact(sha256: sha.finalize(), head: head)
        }

        /// What a reading that failed came to; rethrows when the file itself could not be read
        /// (not a problem of the package, and the check cannot go on).
        func damaged(_ error: ArchiveError) throws(ArchiveError) -> EntryCheck {
            guard let code = error.code.findingCode else { throw error }
            return .damaged(Finding(code, file: entry.name, error.message))
        }
    }

    /// Checks the `manifest.json` entry's data as ``checkData(source:entry:buffer:checkCRC:inflater:consume:)``
    /// checks any entry's, and reads the manifest from it as it is inflated: only about 64 KiB of
    /// it are held at a time (a manifest of 100,000 assets is 25 MB). The reading is nil when the
    /// data is damaged (what was parsed then does not count). Throws only when the file cannot be read.
    static func readManifest(
        source: some ByteSource, entry: ZipEntry, feed: ContentMatcher.Feed? = nil
    ) throws(ArchiveError) -> (check: EntryCheck, reading: ManifestReading?) {
        let read = try parseManifest(source: source, entry: entry) { ManifestReader.read(chunks: $0, assets: feed) }
        return (read.check, read.parsed)
    }

    /// Checks the `manifest.json` entry's data as ``checkData(source:entry:buffer:checkCRC:inflater:consume:)``
    /// checks any entry's, while `parse` reads it in chunks as it is inflated; what `parse` made counts
    /// (is not nil) only when the data is intact. Throws only when the file cannot be read.
    static func parseManifest<Parsed>(
        source: some ByteSource, entry: ZipEntry, _ parse: (@escaping () -> UnsafeRawBufferPointer?) -> Parsed
    ) throws(ArchiveError) -> (check: EntryCheck, parsed: Parsed?) {
        let data = EntryData(entry: entry, checkCRC: true)
        let reader: EntryReader
        do { reader = try EntryReader(source: source, entry: entry) } catch { return (try data.damaged(error), nil) }
        let chunks = ManifestChunks(data, reader)
        let parsed = parse(chunks.next)
        // The parser stops at its first error: the rest of the data is checked all the same.
        while chunks.next() != nil {}
        let check = try chunks.check()
        return (check, check.sha256 == nil ? nil : parsed)
    }

    /// The manifest's data as the parser pulls it: each chunk checked on its way; a failure to
    /// read ends the document for the parser and is kept for ``check()``.
    private final class ManifestChunks {
        private var data: EntryData?
        private let reader: EntryReader
        private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 64)
        private var failure: ArchiveError?

        init(_ data: consuming EntryData, _ reader: EntryReader) {
            self.data = consume data
            self.reader = reader
        }

        deinit { buffer.deallocate() }

        func next() -> UnsafeRawBufferPointer? {
            guard failure == nil else { return nil }
            do throws(ArchiveError) { return try data!.next(reader, buffer) } catch {
                failure = error
                return nil
            }
        }

        /// What the data came to, once read to its end (asked once).
        func check() throws(ArchiveError) -> EntryCheck {
            let data = data.take()!
            if let failure { return try data.damaged(failure) }
            return data.check()
        }
    }

    static func hex32(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 8 - s.count) + s
    }

    // MARK: manifest and contents

    /// The `manifest.json` entry, if the package has one.
    static func manifestEntry(in directory: ZipDirectory) -> ZipEntry? {
        let name = Array(Manifest.entryName.utf8)
        return directory.entries.first { $0.nameBytes == name }
    }

    /// Checks and reads the manifest, as ``verify(source:options:)`` does; nil, with the findings,
    /// when there is none or its data is damaged. Throws only when the file cannot be read.
    static func checkManifest(
        directory: ZipDirectory, source: some ByteSource, findings: inout [Finding]
    ) throws(ArchiveError) -> Manifest? {
        guard directory.isReadable, let index = manifestToRead(in: directory, findings: &findings) else { return nil }
        let read = try readManifest(source: source, entry: directory.entries[index])
        if case .damaged(let finding) = read.check { findings.append(finding) }
        guard let reading = read.reading else { return nil }
        findings += reading.findings.map { $0.inFile(Manifest.entryName) }
        return reading.manifest
    }

    /// The position of the one `manifest.json` entry that is read (the first by name), after the
    /// rules on where it is and how large; nil, with the finding, when there is none to read.
    static func manifestToRead(in directory: ZipDirectory, findings: inout [Finding]) -> Int? {
        guard let entry = manifestEntry(in: directory) else {
            findings.append(Finding(.manifestMissing, missingManifestMessage(directory)))
            return nil
        }
        // Two entries named manifest.json: readers disagree on which one they read (the first or the
        // last), so neither is parsed; the name rules report the duplicate.
        let copies = directory.entries.lazy.filter { $0.nameBytes == entry.nameBytes }.count
        if copies > 1 {
            findings.append(
                Finding(
                    .zipNameDuplicate, file: Manifest.entryName,
                    "the package holds \(copies) entries named manifest.json; readers disagree on which one counts, so none is read"
                ))
            return nil
        }
        let firstByOffset = directory.entries.min { $0.localHeaderOffset < $1.localHeaderOffset }
        if entry.index != 0 || firstByOffset?.index != entry.index {
            findings.append(
                Finding(
                    .manifestNotFirst, file: Manifest.entryName,
                    "manifest.json must be the first entry (it is entry \(entry.index))"))
        }
        if entry.uncompressedSize > maxManifestBytes {
            findings.append(
                Finding(
                    .jsonTooLarge, file: Manifest.entryName,
                    "manifest.json is \(entry.uncompressedSize) bytes; the limit is \(maxManifestBytes)"))
            return nil
        }
        return entry.index
    }

    /// The manifest read from the package's first entry before the whole directory is (see
    /// ``ZipDirectory/leadingEntry(_:limits:)``): its data checked as every entry's is, and read.
    struct EarlyManifest: Sendable {
        /// What its data came to (without the bytes: they went to the parser).
        var check: EntryCheck
        /// The manifest read, when its data was intact.
        var reading: ManifestReading?

        /// Whether `entry` is a manifest the verifier would read (as the loop over the entries does).
        static func canRead(_ entry: ZipEntry, limits: ZipLimits) -> Bool {
            entry.nameBytes == Array(Manifest.entryName.utf8) && readsData(entry, limits: limits)
                && entry.uncompressedSize <= maxManifestBytes
        }

        /// Checks the entry's data and reads it; throws only when the file cannot be read.
        static func read(
            source: some ByteSource, entry: ZipEntry, feed: ContentMatcher.Feed
        ) throws(ArchiveError) -> EarlyManifest {
            let read = try readManifest(source: source, entry: entry, feed: feed)
            return EarlyManifest(check: read.check, reading: read.reading)
        }
    }

    /// Why there is no manifest, and what to do: a package zipped one folder too deep
    /// (`tour-1.0.0/manifest.json`) is the common case.
    static func missingManifestMessage(_ directory: ZipDirectory) -> String {
        let nested = directory.entries.filter { $0.name.hasSuffix("/" + Manifest.entryName) }
            .map { String($0.name.dropLast(Manifest.entryName.count)) }
        if let folder = nested.min(by: { $0.utf8.count < $1.utf8.count }) {
            return
                "the package has no manifest.json at its top; it has '\(folder)\(Manifest.entryName)': the tour was zipped "
                + "one folder too deep. Zip the folder's contents instead (cd '\(folder.dropLast())' && zip -r ../package.zip .), "
                + "or better, build the package with: trailpack build <tour folder>"
        }
        return "the package has no manifest.json; it is not a trailpack package"
    }

    /// The manifest's assets against the entries: the stops' went to `feed` as they were read
    /// (unless the reading could not hand them over), the maps' go now, then what no asset lists.
    static func checkContents(
        manifest: Manifest, reading: ManifestReading, feed: ContentMatcher.Feed, findings: inout [Finding]
    ) {
        let matcher = feed.matcher
        feed.drain()
        if let position = matcher.byName?.position(of: Manifest.entryName) { matcher.list(position: position) }
        var number = reading.assetCount - manifest.mapAssets.count
        var feed = feed
        if !reading.assetsTaken {
            // The stops the reader decoded are not those it streamed (a manifest whose first
            // `waypoints` is not a list, and a later one is): what was streamed does not count.
            feed = ContentMatcher.Feed(matcher, keepsAssets: true)
            matcher.accept(feed)
            number = 0
            for (i, w) in manifest.waypoints.enumerated() {
                feed.take(w.assets, waypoint: i, first: number)
                number += w.assets.count
            }
        }
        // (Not a stop's: the map assets, numbered after the stops', handed over here.)
        feed.take(manifest.mapAssets, waypoint: -1, first: number)
        findings += matcher.findings(feed: feed)
    }
}

/// The SHA-256 of a whole source, read sequentially in chunks (run on its own thread, whose
/// ``Outcome`` the verifier takes from `OwnedThread.join()`).
struct WholeFileHash: Sendable {
    /// What reading the whole source gave.
    struct Outcome: Sendable {
        /// The SHA-256, or why the source could not be read to its end.
        var digest: Result<SHA256Digest, ArchiveError>
        /// The BLAKE2b-512, when it was asked for and the source was read to its end.
        var blake2b: [UInt8]?
        /// The CRC-32 of each job's bytes, in the jobs' order; nil for a job whose bytes were not all
        /// read (after a read error, only the jobs done before it).
        var crcs: [UInt32?]
    }

    private let source: any ByteSource
    private let withPrehash: Bool
    private let crcJobs: [Verifier.CRCJob]

    init(source: any ByteSource, prehash: Bool, crcJobs: [Verifier.CRCJob] = []) {
        self.source = source
        self.withPrehash = prehash
        self.crcJobs = crcJobs
    }

    func run() -> Outcome {
        var sha = SHA256()
        var blake: BLAKE2b512? = withPrehash ? BLAKE2b512() : nil
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Verifier.chunkSize, alignment: 64)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        var crc = CRC32()
        var crcs: [UInt32?] = []
        var job = 0
        do throws(ArchiveError) {
            while offset < source.size {
                let n = try source.read(at: offset, into: buffer)
                if n == 0 { break }
                sha.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                blake?.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                // The parts of this chunk that are the data of the jobs' entries (in file order).
                let chunkEnd = offset + Int64(n)
                while job < crcJobs.count, crcJobs[job].start < chunkEnd {
                    let j = crcJobs[job]
                    let from = max(j.start, offset), to = min(j.end, chunkEnd)
                    if from < to {
                        crc.update(UnsafeRawBufferPointer(rebasing: buffer[Int(from - offset)..<Int(to - offset)]))
                    }
                    // The chunks are contiguous from byte 0 and the jobs sorted and apart, so a job
                    // that ends in this chunk was read whole; one the file ended before gets nil below.
                    guard j.end <= chunkEnd else { break }
                    crcs.append(crc.value)
                    crc = CRC32()
                    job += 1
                }
                offset = chunkEnd
            }
            while crcs.count < crcJobs.count { crcs.append(nil) }
            return Outcome(digest: .success(sha.finalize()), blake2b: blake.take()?.finalize(), crcs: crcs)
        } catch {
            return Outcome(digest: .failure(error), blake2b: nil, crcs: crcs)
        }
    }
}

/// An entry's first ``capacity`` bytes, what the content rule reads, held inline: an array each
/// was 48 bytes of heap an entry, 4.8 MB at 100,000.
struct EntryHead: Sendable {
    /// How many bytes are kept.
    static let capacity = MemoryLayout<(UInt64, UInt64)>.size
    private var storage: (UInt64, UInt64) = (0, 0)
    private var count: UInt8 = 0

    /// Keeps the leading bytes of `chunk` that still fit.
    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        let n = min(chunk.count, Self.capacity - Int(count))
        guard n > 0, let from = chunk.baseAddress else { return }
        let at = Int(count)
        withUnsafeMutableBytes(of: &storage) { $0.baseAddress!.advanced(by: at).copyMemory(from: from, byteCount: n) }
        count += UInt8(n)
    }

    /// The bytes kept, in order.
    var bytes: [UInt8] { withUnsafeBytes(of: storage) { Array($0.prefix(Int(count))) } }
}
