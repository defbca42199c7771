import Foundation
import SystemPackage
import TrailPackFileIO

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How far a download has come.
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes of the package on disk so far (including what an earlier attempt left).
    public var received: Int64
    /// The package's length.
    public var total: Int64
}

/// Downloads one package into a partial file, resuming what an earlier attempt (or an earlier
/// run of the program) left there — with `Range` and `If-Range` on the server's strong ETag, so
/// a file that changed on the server restarts cleanly from the beginning instead of being
/// spliced. Network failures are retried with exponential backoff.
struct ResumableDownload: Sendable {
    let client: CatalogClient
    let entry: CatalogEntry
    /// Where the bytes go; `<partial>.state` remembers which file they belong to.
    let partial: String
    let retries: Int
    let progress: @Sendable (DownloadProgress) -> Void

    var statePath: String { partial + ".state" }

    /// What the server said of the file, kept beside the partial file between runs.
    struct State: Codable, Equatable {
        var sha256: String
        var etag: String?
        var reprDigest: String?
    }

    /// Runs until the partial file holds `entry.size` bytes; returns the server's `Repr-Digest`.
    func run() async throws(ClientError) -> String? {
        var attempt = 0
        while true {
            do {
                return try await attemptOnce()
            } catch let error where error.code == .network && attempt < retries {
                attempt += 1
                let delay = min(4.0, 0.25 * Double(1 << min(attempt, 5)))
                do { try await Task.sleep(nanoseconds: UInt64(delay * 1e9)) } catch {
                    throw ClientError(.cancelled, "the download of \(entry.id) \(entry.version) was cancelled")
                }
            }
        }
    }

    private func attemptOnce() async throws(ClientError) -> String? {
        var state = loadState()
        var offset = Self.fileSize(partial) ?? 0
        if state?.sha256 != entry.sha256 || state?.etag == nil || offset > entry.size {
            // Bytes of another file (or of unknown origin): start again.
            offset = 0
            state = State(sha256: entry.sha256, etag: nil, reprDigest: nil)
        }
        if offset == entry.size, entry.size > 0 { return state?.reprDigest }
        var request = URLRequest(url: client.url(entry.download))
        if offset > 0, let etag = state?.etag {
            request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
            request.setValue(etag, forHTTPHeaderField: "If-Range")
        }
        client.authorize(&request)
        // What the server says of the file is saved as soon as its headers arrive, so that a
        // process killed mid-download can resume in its next run.
        let known = state
        let sink = try DownloadSink(path: partial, offset: offset, entry: entry, progress: progress) { etag, digest in
            if let etag {
                self.saveState(State(sha256: entry.sha256, etag: etag, reprDigest: digest ?? known?.reprDigest))
            }
        }
        // A session of its own per attempt: the sink is its delegate, and it is invalidated after.
        let session = URLSession(configuration: client.session.configuration, delegate: sink, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        let result: DownloadSink.Outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                sink.start(task: task, server: client.server, continuation: continuation)
            }
        } onCancel: {
            task.cancel()
        }
        // Remember what the server said, even when the attempt broke off, for the next attempt.
        if let etag = result.etag {
            saveState(State(sha256: entry.sha256, etag: etag, reprDigest: result.reprDigest ?? state?.reprDigest))
        }
        if let error = result.error {
            if Task.isCancelled {
                throw ClientError(.cancelled, "the download of \(entry.id) \(entry.version) was cancelled")
            }
            throw error
        }
        guard let size = Self.fileSize(partial), size == entry.size else {
            throw ClientError(
                .network,
                "the download of \(entry.id) \(entry.version) ended at \(Self.fileSize(partial) ?? 0) of \(entry.size) bytes"
            )
        }
        return result.reprDigest ?? state?.reprDigest
    }

    private func loadState() -> State? {
        guard let data = FileManager.default.contents(atPath: statePath), data.count < 4096 else { return nil }
        return try? JSONDecoder().decode(State.self, from: data)
    }

    private func saveState(_ state: State) {
        guard let data = try? JSONEncoder().encode(state) else { return }
        try? data.write(to: URL(fileURLWithPath: statePath), options: .atomic)
    }

    static func fileSize(_ path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int64(st.st_size)
    }
}

/// Receives one HTTP answer into the partial file (the URLSession delegate of one attempt).
final class DownloadSink: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: URLSession calls the delegate on its own serial queue; `lock` guards the rest.
    struct Outcome: Sendable {
        var error: ClientError?
        var etag: String?
        var reprDigest: String?
    }

    // NSLock, not Synchronization's Mutex: phones link this module, and Mutex needs iOS 18 (the package supports iOS 16).
    private let lock = NSLock()
    private let file: FileDescriptor
    private let path: String
    private var position: Int64
    private let entry: CatalogEntry
    private let progress: @Sendable (DownloadProgress) -> Void
    private let onHeaders: @Sendable (_ etag: String?, _ reprDigest: String?) -> Void
    private var outcome = Outcome()
    private var continuation: CheckedContinuation<Outcome, Never>?
    private var server: URL?
    private var errorBody = Data()
    private var status = 0

    init(
        path: String, offset: Int64, entry: CatalogEntry, progress: @escaping @Sendable (DownloadProgress) -> Void,
        onHeaders: @escaping @Sendable (_ etag: String?, _ reprDigest: String?) -> Void
    ) throws(ClientError) {
        do {
            file = try FileOperations.open(
                path, .writeOnly, options: [.create, .noFollow],
                permissions: [.ownerReadWrite, .groupRead, .otherRead],
                failure: "cannot write '\(path)'")
        } catch { throw ClientError(error) }
        self.path = path
        self.position = offset
        self.entry = entry
        self.progress = progress
        self.onHeaders = onHeaders
    }

    deinit { try? file.close() }

    func start(task: URLSessionDataTask, server: URL, continuation: CheckedContinuation<Outcome, Never>) {
        lock.withLock {
            self.continuation = continuation
            self.server = server
        }
        task.resume()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            fail(ClientError(.badResponse, "not an HTTP answer"))
            completionHandler(.cancel)
            return
        }
        lock.withLock { status = http.statusCode }
        let etag = http.value(forHTTPHeaderField: "ETag")
        lock.withLock {
            outcome.etag = etag
            outcome.reprDigest = http.value(forHTTPHeaderField: "Repr-Digest")
        }
        switch http.statusCode {
        case 200, 206:
            onHeaders(etag, http.value(forHTTPHeaderField: "Repr-Digest"))
        default: break
        }
        switch http.statusCode {
        case 200:
            // The whole file: what was there before is not part of it.
            lock.withLock { position = 0 }
            do throws(FileIOError) { try file.resize(to: 0, path: path) } catch {
                fail(ClientError(error))
                completionHandler(.cancel)
                return
            }
            completionHandler(.allow)
        case 206:
            let range = http.value(forHTTPHeaderField: "Content-Range") ?? ""
            let start = Int64(range.dropFirst("bytes ".count).prefix { $0 != "-" }) ?? -1
            guard range.hasPrefix("bytes "), start == lock.withLock({ position }) else {
                fail(ClientError(.badResponse, "the server resumed at '\(range)', not where the download stopped"))
                completionHandler(.cancel)
                return
            }
            completionHandler(.allow)
        default:
            completionHandler(.allow)  // read the error body for its message
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (status, at) = lock.withLock { (self.status, position) }
        guard status == 200 || status == 206 else {
            lock.withLock { if errorBody.count < 1 << 16 { errorBody += data.prefix(1 << 16) } }
            return
        }
        guard at + Int64(data.count) <= entry.size else {
            fail(
                ClientError(
                    .damaged,
                    "the server sent more than the \(entry.size) bytes the catalog lists for \(entry.id) \(entry.version)"
                ))
            dataTask.cancel()
            return
        }
        do throws(FileIOError) {
            try FileOperations.typed {
                try data.withUnsafeBytes { try file.writeAll(toAbsoluteOffset: at, $0, path: path) }
            }
        } catch {
            fail(ClientError(error))
            dataTask.cancel()
            return
        }
        let now = lock.withLock { () -> Int64 in
            position += Int64(data.count)
            return position
        }
        progress(DownloadProgress(received: now, total: entry.size))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(CatalogClient.redirected(request, from: lock.withLock { server }))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let (status, body) = lock.withLock { (self.status, errorBody) }
        if let error {
            fail(ClientError(.network, "the connection broke: \(error.localizedDescription)", cause: error))
        } else if status == 416 {
            // The partial file is longer than the server's: start again.
            try? file.resize(to: 0, path: path)
            fail(ClientError(.network, "the server could not resume; starting again"))
        } else if !(200..<300).contains(status) {
            do {
                try CatalogClient.check(
                    status: status, body: body, path: task.originalRequest?.url?.path ?? "",
                    server: server ?? URL(fileURLWithPath: "/"))
            } catch {
                fail(error)
            }
        }
        try? file.sync(path: path)
        let finished = lock.withLock { () -> (CheckedContinuation<Outcome, Never>?, Outcome) in
            defer { continuation = nil }
            return (continuation, outcome)
        }
        finished.0?.resume(returning: finished.1)
    }

    private func fail(_ error: ClientError) {
        lock.withLock { if outcome.error == nil { outcome.error = error } }
    }
}
