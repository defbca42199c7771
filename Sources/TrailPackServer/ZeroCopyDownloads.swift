import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Zero-copy downloads: the blob's bytes go from the page cache to the socket by `sendfile(2)`,
/// as nginx sends them, instead of through buffers in this process.
///
/// Hummingbird's responses carry `ByteBuffer`s only, so the download handler answers with the head
/// (status, length, ETag, range) and an empty body, plus one private header naming the blob and
/// the byte range. `SendfileHandler`, which sits below Hummingbird's HTTP-types codec where the
/// HTTP/1 encoder still takes `FileRegion`s, removes that header and writes the range as file
/// regions before the response's end. The header's name holds a random part chosen at start:
/// nothing outside this process can produce it, and it never reaches the client.
enum ZeroCopy {
    /// `x-trailpack-sendfile-<random>`: "<offset> <length> <path>".
    static let headerName = "x-trailpack-sendfile-\(UInt64.random(in: 0...UInt64.max))"
    static let field = HTTPField.Name(headerName)!

    /// Each region is 1 MiB: a region done is progress for the send timeout (a client must take
    /// 1 MiB per `sendTimeout`), and the kernel never holds the event loop for long.
    static let regionBytes = 1 << 20

    static func headerValue(path: String, offset: Int64, length: Int64) -> String { "\(offset) \(length) \(path)" }
}

/// Sent up the pipeline each time a file region has gone out: the connection guard's send timeout
/// counts it as progress (the channel stays unwritable while a large file is queued).
struct SendProgressEvent: Sendable {}

final class SendfileHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var pending: (path: String, offset: Int, length: Int)?
    /// Called (on the event loop) when a blob being sent turns out shorter than the response says:
    /// the file changed under the server, which is the server's fault, never the client's.
    private let onShortFile: @Sendable (_ path: String, _ reason: String) -> Void
    /// While a range is being sent, the file is checked every `checkInterval`: a file that shrank
    /// makes `sendfile` send nothing, which would otherwise look like a client that stopped reading.
    private var watch: Scheduled<Void>?
    static let checkInterval: TimeAmount = .milliseconds(500)

    init(onShortFile: @escaping @Sendable (_ path: String, _ reason: String) -> Void = { _, _ in }) {
        self.onShortFile = onShortFile
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        watch?.cancel()
        watch = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            if let value = head.headers.first(name: ZeroCopy.headerName) {
                head.headers.remove(name: ZeroCopy.headerName)
                let parts = value.split(separator: " ", maxSplits: 2)
                if parts.count == 3, let offset = Int(parts[0]), let length = Int(parts[1]) {
                    pending = (String(parts[2]), offset, length)
                }
                context.write(wrapOutboundOut(.head(head)), promise: promise)
            } else {
                context.write(data, promise: promise)
            }
        case .end where pending != nil:
            let (path, offset, length) = pending!
            pending = nil
            sendFile(context: context, path: path, offset: offset, length: length)
            context.write(data, promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }

    /// Queues the range as regions, in order, before the response's end. The file is opened here
    /// (a local open is quick) and closed when the last region is done or the connection fails.
    private func sendFile(context: ChannelHandlerContext, path: String, offset: Int, length: Int) {
        let handle: NIOFileHandle
        do { handle = try NIOFileHandle(_deprecatedPath: path) } catch {
            // The handler checked the file a moment ago; if it vanished, the client must not get a
            // short body that looks complete.
            context.close(promise: nil)
            return
        }
        guard length > 0 else {
            try? handle.close()
            return
        }
        let count = (length + ZeroCopy.regionBytes - 1) / ZeroCopy.regionBytes
        var remaining = count
        var start = offset
        var reported = false
        let needed = offset + length
        // The file must hold the whole range for as long as it is being sent.
        let check = { [onShortFile] () -> Bool in
            guard !reported, remaining > 0 else { return true }
            let size = try? handle.withUnsafeFileDescriptor { fd -> Int in
                var info = stat()
                return fstat(fd, &info) == 0 ? Int(info.st_size) : -1
            }
            guard let size, size >= 0, size < needed else { return true }
            reported = true
            onShortFile(path, "the stored file shrank to \(size) bytes while \(needed) were being sent")
            context.close(promise: nil)
            return false
        }
        let loop = context.eventLoop.assumeIsolated()
        func watchAgain() {
            watch = loop.scheduleTask(in: Self.checkInterval) {
                if check() && remaining > 0 { watchAgain() }
            }
        }
        watch?.cancel()
        watchAgain()
        for _ in 0..<count {
            let end = min(start + ZeroCopy.regionBytes, offset + length)
            let region = FileRegion(fileHandle: handle, readerIndex: start, endIndex: end)
            let done = context.eventLoop.makePromise(of: Void.self)
            done.futureResult.assumeIsolated().whenComplete { result in
                remaining -= 1
                if case .success = result {
                    context.fireUserInboundEventTriggered(SendProgressEvent())
                    _ = check()
                }
                if remaining == 0 { try? handle.close() }
            }
            context.write(wrapOutboundOut(.body(.fileRegion(region))), promise: done)
            start = end
        }
    }
}
