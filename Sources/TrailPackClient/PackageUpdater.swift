import Foundation
import SystemPackage
import TrailPackArchive
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO
import TrailPackVerifier

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An update by part: the newer version of an installed package put together from the entries
/// the installed file already holds plus the ones that changed, fetched with single-range requests.
///
/// It rests on FORMAT.md §5: an unchanged asset keeps its entry data (compressed bytes, CRC-32,
/// sizes) from version to version. The plan: the new file's end records and central directory
/// (one range from the end), its `manifest.json` (the first entry: one range), then each new entry
/// is matched to an installed one by name, method, sizes, CRC-32 and the manifest's SHA-256; a
/// matched entry's data is copied from the installed file, under a local header rebuilt from the
/// installed one with the new time; every run of changed entries is one range request (never a
/// multi-range request: CDNs and object stores answer those wrongly), each with `If-Range` on the
/// strong ETag. The result must hash to the catalog's SHA-256, or nothing of it is used.
///
/// Anything unexpected — a 200 for a range, a range of the wrong length or from another file, an
/// entry that does not fit where the directory says, a hash that does not come out — is an
/// ``UpdateRefusal``: the caller falls back to the ordinary full download. The installed file is
/// only ever read.
public struct PackageUpdater: Sendable {
    /// The server's catalog API (its session and token are used for the ranges).
    public var client: CatalogClient

    /// An updater that fetches through `client`.
    public init(client: CatalogClient) { self.client = client }

    /// What an update by part cost.
    public struct Report: Sendable, Equatable, Codable {
        /// Bytes fetched from the server, every range included.
        public var fetchedBytes: Int64
        /// Entry data copied from the installed file.
        public var reusedBytes: Int64
        /// Range requests made.
        public var requests: Int
        /// Entries copied from the installed file.
        public var entriesReused: Int
        /// Entries fetched (the manifest always among them).
        public var entriesFetched: Int
    }

    /// Why an update by part was given up (the full download follows).
    public struct UpdateRefusal: Error, Sendable, CustomStringConvertible {
        /// What was unexpected, in words.
        public var reason: String
        /// The reason.
        public var description: String { reason }
    }

    /// The end of the file read first: the end records of a package (which has no comment) and, for
    /// most packages, the whole central directory.
    static let firstTailBytes: Int64 = 16 << 10
    /// The most the end records can take (the longest comment, and ZIP64's records).
    static let tailBytes: Int64 = 22 + 65_535 + 76

    /// Puts `entry`'s package together at `output` from the installed package at `installed`.
    ///
    /// - Returns: what it cost; `output` then holds exactly the catalog's bytes (its SHA-256 checked).
    /// - Throws: ``UpdateRefusal`` when anything is unexpected; `output` is then removed.
    public func rebuild(
        installed: String, entry: CatalogEntry, output: String
    ) async throws(UpdateRefusal) -> Report {
        do {
            return try await attempt(installed: installed, entry: entry, output: output)
        } catch {
            unlink(output)
            throw error
        }
    }

    private func attempt(installed: String, entry: CatalogEntry, output: String) async throws(UpdateRefusal) -> Report {
        let size = entry.size
        guard size > 22 else { throw UpdateRefusal(reason: "the package is too small to update by part") }
        let expected: SHA256Digest
        do { expected = try entry.digest() } catch { throw UpdateRefusal(reason: error.message) }
        var report = Report(fetchedBytes: 0, reusedBytes: 0, requests: 0, entriesReused: 0, entriesFetched: 0)
        var etag: String?

        // 1. The end of the new file: end records and (usually all of) the central directory. The end
        // record is searched in what was fetched, the bytes before it read as zeros (no signature); when
        // it is not there (an archive comment), the whole window an end record may take is fetched.
        var tailStart = max(0, size - Self.firstTailBytes)
        var known = RangedSource(size: size)
        known.add(tailStart, try await fetch(entry, tailStart..<size, etag: &etag, report: &report))
        var found = try Self.typed { try ZipDirectory.centralDirectoryRange(known.zeroFilled) }
        if found == nil, tailStart > 0 {
            let wider = max(0, size - Self.tailBytes)
            known.add(wider, try await fetch(entry, wider..<tailStart, etag: &etag, report: &report))
            tailStart = wider
            found = try Self.typed { try ZipDirectory.centralDirectoryRange(known.zeroFilled) }
        }
        guard let directoryRange = found, directoryRange.lowerBound >= 0, directoryRange.upperBound <= size else {
            throw UpdateRefusal(reason: "the new package's end records cannot be read")
        }
        if directoryRange.lowerBound < tailStart {
            let more = directoryRange.lowerBound..<tailStart
            known.add(more.lowerBound, try await fetch(entry, more, etag: &etag, report: &report))
        }
        // (The end records are read again from the window they may take; what of it was not fetched
        // holds no signature: zeros. The directory itself was fetched whole.)
        let directory = try Self.typed { try ZipDirectory.readCentralDirectory(known.zeroFilled) }
        guard directory.isReadable, !directory.entries.isEmpty else {
            throw UpdateRefusal(reason: "the new package's central directory cannot be read")
        }
        let newEntries = directory.entries.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
        let cdOffset = directory.centralDirectoryOffset
        guard newEntries[0].localHeaderOffset == 0, newEntries[0].name == "manifest.json" else {
            throw UpdateRefusal(reason: "the new package does not start with manifest.json")
        }
        func end(_ i: Int) -> Int64 { i + 1 < newEntries.count ? newEntries[i + 1].localHeaderOffset : cdOffset }
        for i in newEntries.indices where newEntries[i].localHeaderOffset >= end(i) {
            throw UpdateRefusal(reason: "the new package's entries overlap")
        }

        // 2. The installed file, read as the phone reads it (its directory and its checked manifest).
        let oldSource: FileSource
        let old: PackageReader
        do {
            oldSource = try FileSource(path: installed)
            old = try PackageReader(source: oldSource)
        } catch { throw UpdateRefusal(reason: "the installed package cannot be read (\(error))") }
        var oldByName: [String: ZipEntry] = [:]
        for e in old.directory.entries where e.dataOffset != nil { oldByName[e.name] = e }
        let oldManifest = old.manifest

        // 3. The new manifest (always changed: it holds the version), for the assets' SHA-256.
        let manifestRange = 0..<end(0)
        if !known.covers(manifestRange) {
            known.add(0, try await fetch(entry, manifestRange, etag: &etag, report: &report))
        }
        var manifestEntry = newEntries[0]
        manifestEntry.dataOffset = try Self.dataOffset(known, manifestEntry)
        let newManifest = try Self.manifest(source: known, entry: manifestEntry)
        let manifestHeader = try Self.bytes(known, 0, Int(manifestEntry.dataOffset!))
        let oldHashes = Dictionary(oldManifest.allAssets.map { ($0.path, $0.sha256) }) { a, _ in a }
        let newHashes = Dictionary(newManifest.allAssets.map { ($0.path, $0.sha256) }) { a, _ in a }

        // 4. The plan: each entry reused or fetched; runs of fetched entries become one range each.
        var reuse: [Int: ZipEntry] = [:]
        for i in newEntries.indices.dropFirst() {
            let e = newEntries[i]
            guard let o = oldByName[e.name], o.method == e.method, o.crc32 == e.crc32,
                o.compressedSize == e.compressedSize, o.uncompressedSize == e.uncompressedSize,
                let hash = newHashes[e.name], oldHashes[e.name] == hash
            else { continue }
            reuse[i] = o
        }
        var runs: [Range<Int64>] = []
        for i in newEntries.indices.dropFirst() where reuse[i] == nil {
            let range = newEntries[i].localHeaderOffset..<end(i)
            if let last = runs.last, last.upperBound == range.lowerBound {
                runs[runs.count - 1] = last.lowerBound..<range.upperBound
            } else {
                runs.append(range)
            }
        }

        // 5. The new file: the manifest's bytes, reused entries, fetched runs, the directory.
        let out: FileDescriptor
        do {
            out = try FileOperations.open(
                output, .readWrite, options: [.create, .truncate, .noFollow],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch { throw UpdateRefusal(reason: "cannot write '\(output)': \(error)") }
        defer { try? out.close() }
        try Self.write(out, known.bytes(in: manifestRange), at: 0, path: output)
        for (i, o) in reuse.sorted(by: { $0.key < $1.key }) {
            let e = newEntries[i]
            let header = try Self.localHeader(reusing: oldSource, o, newTimeFrom: manifestHeader)
            let total = Int64(header.count) + o.compressedSize + o.descriptorLength
            guard total == end(i) - e.localHeaderOffset else {
                throw UpdateRefusal(reason: "'\(e.name)' would not fit where the new directory puts it")
            }
            try Self.write(out, header, at: e.localHeaderOffset, path: output)
            try Self.copy(
                from: oldSource, o.dataOffset!, count: o.compressedSize + o.descriptorLength, to: out,
                at: e.localHeaderOffset + Int64(header.count), path: output)
            report.reusedBytes += o.compressedSize
            report.entriesReused += 1
        }
        for run in runs {
            if known.covers(run) {  // within the end already fetched
                try Self.write(out, known.bytes(in: run), at: run.lowerBound, path: output)
            } else {
                try await fetch(entry, run, etag: &etag, report: &report, into: out, path: output)
            }
        }
        report.entriesFetched = newEntries.count - report.entriesReused
        try Self.write(out, known.bytes(in: cdOffset..<size), at: cdOffset, path: output)
        do { try out.sync(path: output) } catch { throw UpdateRefusal(reason: "\(error)") }

        // 6. Exactly the published bytes, or nothing.
        let digest: FileHashing.FileDigest
        do { digest = try FileHashing.sha256(path: output) } catch { throw UpdateRefusal(reason: "\(error)") }
        guard digest.size == size, digest.digest == expected else {
            throw UpdateRefusal(
                reason: "the package put together by part hashes to \(digest.digest.hex), not the catalog's SHA-256")
        }
        return report
    }

    // MARK: ranges

    /// `range` of the new package, in memory (the end records, the directory, the manifest).
    private func fetch(
        _ entry: CatalogEntry, _ range: Range<Int64>, etag: inout String?, report: inout Report
    ) async throws(UpdateRefusal) -> [UInt8] {
        guard range.count <= 32 << 20 else { throw UpdateRefusal(reason: "a range held in memory would be too large") }
        let sink = RangeSink(range: range, total: entry.size, target: .memory)
        try await run(sink, entry, range, etag: &etag, report: &report)
        return sink.memory
    }

    /// `range` of the new package, streamed into `file` at the same offset.
    private func fetch(
        _ entry: CatalogEntry, _ range: Range<Int64>, etag: inout String?, report: inout Report,
        into file: FileDescriptor, path: String
    ) async throws(UpdateRefusal) {
        let sink = RangeSink(range: range, total: entry.size, target: .file(file, path))
        try await run(sink, entry, range, etag: &etag, report: &report)
    }

    private func run(
        _ sink: RangeSink, _ entry: CatalogEntry, _ range: Range<Int64>, etag: inout String?, report: inout Report
    ) async throws(UpdateRefusal) {
        var request = URLRequest(url: client.url(entry.download))
        request.setValue("bytes=\(range.lowerBound)-\(range.upperBound - 1)", forHTTPHeaderField: "Range")
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-Range") }
        client.authorize(&request)
        let session = URLSession(configuration: client.session.configuration, delegate: sink, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        let failure: String? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in sink.start(task: task, continuation: continuation) }
        } onCancel: {
            task.cancel()
        }
        report.requests += 1
        report.fetchedBytes += sink.received
        if let failure { throw UpdateRefusal(reason: failure) }
        guard let strong = sink.etag, !strong.hasPrefix("W/") else {
            throw UpdateRefusal(reason: "the server gives no strong ETag for the package")
        }
        if let etag, etag != strong { throw UpdateRefusal(reason: "the package changed on the server between ranges") }
        etag = strong
    }

    // MARK: entries

    static func typed<T>(_ body: () throws -> T) throws(UpdateRefusal) -> T {
        do { return try body() } catch { throw UpdateRefusal(reason: "\(error)") }
    }

    static func bytes(_ source: some ByteSource, _ offset: Int64, _ count: Int) throws(UpdateRefusal) -> [UInt8] {
        let out = try typed { try source.bytes(at: offset, count: count) }
        guard out.count == count else { throw UpdateRefusal(reason: "a local header is cut short") }
        return out
    }

    /// Where `entry`'s data starts: after its local header's name and extra field.
    static func dataOffset(_ source: some ByteSource, _ entry: ZipEntry) throws(UpdateRefusal) -> Int64 {
        let header = try bytes(source, entry.localHeaderOffset, 30)
        guard header[0..<4].elementsEqual([0x50, 0x4B, 0x03, 0x04]) else {
            throw UpdateRefusal(reason: "no local header where the directory says '\(entry.name)' starts")
        }
        let nameLength = Int64(header[26]) | Int64(header[27]) << 8
        let extraLength = Int64(header[28]) | Int64(header[29]) << 8
        return entry.localHeaderOffset + 30 + nameLength + extraLength
    }

    /// The manifest of an archive, read through `source` from `entry` with the verifier's checks.
    static func manifest(source: some ByteSource, entry: ZipEntry) throws(UpdateRefusal) -> Manifest {
        let bytes: [UInt8]
        do { bytes = try PackageReader.entryBytes(entry, source: source) } catch {
            throw UpdateRefusal(reason: "manifest.json cannot be read (\(error))")
        }
        guard let manifest = ManifestReader.read(bytes).manifest else {
            throw UpdateRefusal(reason: "manifest.json is not a valid manifest")
        }
        return manifest
    }

    /// The installed entry's local header with the new version's time (and the time in its
    /// extended-timestamp field) taken from the new manifest's header: trailpack stamps every entry
    /// of a package with one time. Everything else of a reused entry's header is unchanged.
    static func localHeader(
        reusing source: FileSource, _ entry: ZipEntry, newTimeFrom manifestHeader: [UInt8]
    ) throws(UpdateRefusal) -> [UInt8] {
        guard let dataOffset = entry.dataOffset else { throw UpdateRefusal(reason: "'\(entry.name)' has no data") }
        var header = try bytes(source, entry.localHeaderOffset, Int(dataOffset - entry.localHeaderOffset))
        header.replaceSubrange(10..<14, with: manifestHeader[10..<14])
        if let newTime = extendedTime(manifestHeader), let at = extendedTimeOffset(header) {
            header.replaceSubrange(at..<at + 4, with: newTime)
        }
        return header
    }

    /// Where the modification time of a local header's extended-timestamp field (0x5455) is.
    static func extendedTimeOffset(_ header: [UInt8]) -> Int? {
        guard header.count >= 30 else { return nil }
        let nameLength = Int(header[26]) | Int(header[27]) << 8
        var at = 30 + nameLength
        while at + 4 <= header.count {
            let id = Int(header[at]) | Int(header[at + 1]) << 8
            let length = Int(header[at + 2]) | Int(header[at + 3]) << 8
            if id == 0x5455, length >= 5, header[at + 4] & 1 != 0, at + 9 <= header.count { return at + 5 }
            at += 4 + length
        }
        return nil
    }

    static func extendedTime(_ header: [UInt8]) -> ArraySlice<UInt8>? {
        extendedTimeOffset(header).map { header[$0..<$0 + 4] }
    }

    static func write(_ file: FileDescriptor, _ bytes: [UInt8], at offset: Int64, path: String) throws(UpdateRefusal) {
        do {
            try FileOperations.typed {
                try bytes.withUnsafeBytes { try file.writeAll(toAbsoluteOffset: offset, $0, path: path) }
            }
        } catch { throw UpdateRefusal(reason: "cannot write '\(path)': \(error)") }
    }

    static func copy(
        from source: FileSource, _ offset: Int64, count: Int64, to file: FileDescriptor, at target: Int64, path: String
    ) throws(UpdateRefusal) {
        var done: Int64 = 0
        while done < count {
            let chunk = try typed { try source.bytes(at: offset + done, count: Int(min(1 << 20, count - done))) }
            guard !chunk.isEmpty else { throw UpdateRefusal(reason: "the installed package is shorter than it says") }
            try write(file, chunk, at: target + done, path: path)
            done += Int64(chunk.count)
        }
    }
}

/// A file known only in parts (the ranges fetched so far); reading outside them is an error.
struct RangedSource: ByteSource {
    let size: Int64
    private var parts: [(start: Int64, bytes: [UInt8])] = []
    /// Reads bytes not fetched as zeros (only for finding the end record, whose signature zeros never hold).
    private var fillWithZeros = false

    /// The same bytes, with those not fetched read as zeros.
    var zeroFilled: RangedSource {
        var copy = self
        copy.fillWithZeros = true
        return copy
    }

    init(size: Int64) { self.size = size }

    /// Adds the bytes at `start`; a part that meets another one becomes one with it (a read never
    /// has to cross from one part into the next).
    mutating func add(_ start: Int64, _ bytes: [UInt8]) {
        if let i = parts.firstIndex(where: { $0.start == start + Int64(bytes.count) }) {
            parts[i] = (start, bytes + parts[i].bytes)
        } else if let i = parts.firstIndex(where: { $0.start + Int64($0.bytes.count) == start }) {
            parts[i].bytes += bytes
        } else {
            parts.append((start, bytes))
        }
    }

    /// Fills `buffer` from `offset` across parts (and, with ``zeroFilled``, the gaps between them);
    /// a byte not fetched is otherwise an error.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        guard offset >= 0, offset < size else { return 0 }
        let want = Int(min(Int64(buffer.count), size - offset))
        var done = 0
        while done < want {
            let at = offset + Int64(done)
            if let part = parts.first(where: { at >= $0.start && at < $0.start + Int64($0.bytes.count) }) {
                let from = Int(at - part.start)
                let n = min(want - done, part.bytes.count - from)
                part.bytes.withUnsafeBytes {
                    (buffer.baseAddress! + done).copyMemory(from: $0.baseAddress! + from, byteCount: n)
                }
                done += n
            } else if fillWithZeros {
                let next = parts.map(\.start).filter { $0 > at }.min() ?? size
                let n = Int(min(Int64(want - done), next - at))
                (buffer.baseAddress! + done).initializeMemory(as: UInt8.self, repeating: 0, count: n)
                done += n
            } else {
                throw ArchiveError(code: .io, message: "byte \(at) of the new package was not fetched")
            }
        }
        return done
    }

    /// Whether every byte of `range` was fetched (in one part).
    func covers(_ range: Range<Int64>) -> Bool {
        parts.contains { $0.start <= range.lowerBound && range.upperBound <= $0.start + Int64($0.bytes.count) }
    }

    func bytes(in range: Range<Int64>) -> [UInt8] { (try? bytes(at: range.lowerBound, count: range.count)) ?? [] }
}

/// Receives one range: refuses anything but a 206 whose Content-Range is exactly the range asked
/// for in a file of the catalog's size, with exactly that many bytes.
final class RangeSink: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: URLSession calls the delegate on its own serial queue; `lock` guards the rest.
    enum Target {
        case memory
        case file(FileDescriptor, String)
    }

    private let lock = NSLock()
    private let range: Range<Int64>
    private let total: Int64
    private let target: Target
    private var continuation: CheckedContinuation<String?, Never>?
    private var failure: String?
    private(set) var memory: [UInt8] = []
    private(set) var received: Int64 = 0
    private(set) var etag: String?

    init(range: Range<Int64>, total: Int64, target: Target) {
        self.range = range
        self.total = total
        self.target = target
    }

    func start(task: URLSessionDataTask, continuation: CheckedContinuation<String?, Never>) {
        lock.withLock { self.continuation = continuation }
        task.resume()
    }

    private func fail(_ why: String) { lock.withLock { if failure == nil { failure = why } } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            fail("not an HTTP answer")
            return completionHandler(.cancel)
        }
        let expected = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(total)"
        guard http.statusCode == 206 else {
            fail("the server answered a range request with \(http.statusCode), not 206")
            return completionHandler(.cancel)
        }
        guard http.value(forHTTPHeaderField: "Content-Range") == expected else {
            fail("the server sent '\(http.value(forHTTPHeaderField: "Content-Range") ?? "")', not '\(expected)'")
            return completionHandler(.cancel)
        }
        lock.withLock { etag = http.value(forHTTPHeaderField: "ETag") }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let at = lock.withLock { received }
        guard at + Int64(data.count) <= Int64(range.count) else {
            fail("the server sent more than the range asked for")
            return dataTask.cancel()
        }
        switch target {
        case .memory: lock.withLock { memory += data }
        case .file(let file, let path):
            do {
                try FileOperations.typed {
                    try data.withUnsafeBytes {
                        try file.writeAll(toAbsoluteOffset: range.lowerBound + at, $0, path: path)
                    }
                }
            } catch {
                fail("cannot write '\(path)': \(error)")
                return dataTask.cancel()
            }
        }
        lock.withLock { received += Int64(data.count) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // A redirect to another host (a CDN, --download-base-url) must not carry the token; the Range
        // and If-Range headers go along.
        var next = CatalogClient.redirected(request, from: task.originalRequest?.url)
        if next.value(forHTTPHeaderField: "Range") == nil {
            next.setValue(task.originalRequest?.value(forHTTPHeaderField: "Range"), forHTTPHeaderField: "Range")
            next.setValue(task.originalRequest?.value(forHTTPHeaderField: "If-Range"), forHTTPHeaderField: "If-Range")
        }
        completionHandler(next)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if let error { fail("the connection broke: \(error.localizedDescription)") }
        let (got, continuation) = lock.withLock { () -> (Int64, CheckedContinuation<String?, Never>?) in
            defer { self.continuation = nil }
            return (received, self.continuation)
        }
        if got != Int64(range.count) { fail("the range ended after \(got) of \(range.count) bytes") }
        continuation?.resume(returning: lock.withLock { failure })
    }
}
