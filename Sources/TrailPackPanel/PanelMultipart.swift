import Foundation
import MultipartKit
import NIOCore
import TrailPackBlocking
import TrailPackCore
import TrailPackServer

/// What the stop page's no-script upload form sends, received part by part from multipart-kit's
/// `MultipartParser`: each file part's bytes go to a temporary file in the stop's folder as they
/// arrive; text parts (small) are kept by their field name. The parser's callbacks cannot throw, so the first
/// failure is kept and the caller stops feeding.
///
/// The parser, and so every write and fsync of a file part, runs on the blocking pool
/// (``PanelRoom/receive(_:boundary:into:)`` hands it the body in batches), never on the cooperative
/// threads.
///
/// Bounds (every number comes from the client): at most `maxParts` parts and `maxFiles` files, each
/// file at most `limit` bytes, a text part at most `maxTextBytes`, and at most `maxSilentBytes` fed
/// without the parser reporting anything (a part header that never ends is refused, not buffered).
final class MultipartFiles: @unchecked Sendable {
    // @unchecked: one upload feeds it, one batch at a time, each awaited before the next.
    struct Received {
        var temp: String
        var name: StopFileName
    }

    static let maxFiles = 20
    static let maxSilentBytes = 1 << 20
    /// At most this many parts (files and text fields).
    let maxParts: Int
    /// A text field at most this long, and all of them together at most `maxTextTotal` bytes.
    let maxTextBytes: Int
    let maxTextTotal: Int

    let folder: String
    let limit: Int64
    /// Where the parser runs, and with it every write and fsync of the files.
    let pool: BlockingPool
    private(set) var files: [Received] = []
    /// The text fields, by name (the first of each name).
    private(set) var texts: [String: String] = [:]
    /// Every text field in order (a name may repeat, as a stop's detail rows do).
    private(set) var fields: [(name: String, value: String)] = []
    private var textTotal = 0
    private var text: [UInt8] = []
    private(set) var failure: (any Error)?
    /// The name the browser gave the file being received, for messages.
    private(set) var currentName: String?

    private var headers: [(String, String)] = []
    private var sink: UploadSink?
    private var sinkPath: String?
    private var textBytes = 0
    private var parts = 0
    private var inPart = false
    private var silent = 0
    private var temporaries: [String] = []
    /// What the files of this form may still take together (the site's room under its quota).
    private var room: Int64
    private var partBytes: Int64 = 0

    /// With the defaults, a form of files and a few small fields; the stop page's form without
    /// JavaScript (its texts and its files in one) is given more.
    init(
        folder: String, limit: Int64, pool: BlockingPool, room: Int64 = .max, maxParts: Int = 64,
        maxTextBytes: Int = 4096,
        maxTextTotal: Int = 64 << 10
    ) {
        self.folder = folder
        self.limit = limit
        self.pool = pool
        self.room = room
        self.maxParts = maxParts
        self.maxTextBytes = maxTextBytes
        self.maxTextTotal = maxTextTotal
    }

    /// Whether no part was left open when the body ended.
    var ended: Bool { !inPart && failure == nil }

    func header(_ name: String, _ value: String) {
        silent = 0
        if !inPart {
            inPart = true
            parts += 1
            if parts > maxParts {
                fail(
                    PanelError(
                        status: .contentTooLarge,
                        message:
                            "the form holds more than \(maxParts) parts; upload at most \(Self.maxFiles) files at a time"
                    ))
            }
        }
        headers.append((name.lowercased(), value))
    }

    func body(_ buffer: inout ByteBuffer) {
        silent = 0
        guard failure == nil else { return }
        if !inPart { inPart = true; parts += 1 }
        guard let fileName = Self.fileName(headers) else {
            textBytes += buffer.readableBytes
            textTotal += buffer.readableBytes
            if textBytes > maxTextBytes || textTotal > maxTextTotal {
                fail(
                    PanelError(
                        status: .contentTooLarge,
                        message: textBytes > maxTextBytes
                            ? "a text field of the form is longer than \(maxTextBytes) bytes"
                            : "the form's texts are longer than \(maxTextTotal) bytes together"))
            }
            text += buffer.readableBytesView
            return
        }
        do {
            if sink == nil {
                guard files.count < Self.maxFiles else {
                    throw PanelError(
                        status: .contentTooLarge, message: "upload at most \(Self.maxFiles) files at a time")
                }
                currentName = fileName
                let path = folder + "/" + DraftStore.uploadPrefix + UUID().uuidString
                // Each file is held to the size limit and to what the files before it left of the room.
                sink = try UploadSink(path: path, limit: min(limit, room), pool: pool)
                partBytes = 0
                sinkPath = path
                temporaries.append(path)
            }
            try buffer.withUnsafeReadableBytes { try sink!.writeHere($0) }
            partBytes += Int64(buffer.readableBytes)
        } catch {
            fail(error)
        }
    }

    func partComplete() {
        silent = 0
        defer {
            headers = []
            textBytes = 0
            text = []
            sink = nil
            sinkPath = nil
            inPart = false
            currentName = nil
        }
        guard failure == nil else { return }
        guard let given = Self.fileName(headers) else {
            if let field = Self.parameter("name", in: headers) {
                let value = String(decoding: text, as: UTF8.self)
                if texts[field] == nil { texts[field] = value }
                fields.append((field, value))
            }
            return
        }
        do {
            // A file input left empty sends a part with an empty file name and no bytes: nothing chosen.
            guard let sink, let sinkPath else {
                if !given.isEmpty {
                    files.append(Received(temp: try emptyFile(), name: try PanelController.safeFileName(given)))
                }
                return
            }
            try sink.finishHere()
            room -= partBytes
            files.append(Received(temp: sinkPath, name: try PanelController.safeFileName(given)))
        } catch {
            fail(error)
        }
    }

    /// Counts bytes fed to the parser; too many without any callback is a header that never ends.
    func fed(_ count: Int) {
        silent += count
        if silent > Self.maxSilentBytes, failure == nil {
            fail(
                PanelError(
                    status: .badRequest,
                    message:
                        "the upload form's part headers are longer than \(Self.maxSilentBytes >> 10) KiB; send it from the panel's page"
                ))
        }
    }

    /// Removes the temporary files this upload made that were not moved into place.
    func removeLeftovers() {
        sink = nil
        for path in temporaries { unlink(path) }
    }

    private func emptyFile() throws -> String {
        let path = folder + "/" + DraftStore.uploadPrefix + UUID().uuidString
        let made = try UploadSink(path: path, limit: 0, pool: pool)
        temporaries.append(path)
        try made.finishHere()
        return path
    }

    private func fail(_ error: any Error) {
        if failure == nil { failure = error }
    }

    /// The `filename` of a part's Content-Disposition (nil: not a file part; "" : a file input left empty).
    static func fileName(_ headers: [(String, String)]) -> String? { parameter("filename", in: headers) }

    /// A parameter of the part's Content-Disposition (`name`, `filename`), unquoted.
    static func parameter(_ wanted: String, in headers: [(String, String)]) -> String? {
        guard let disposition = headers.first(where: { $0.0 == "content-disposition" })?.1 else { return nil }
        for parameter in disposition.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == wanted else { continue }
            var value = pair[1]
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            // Browsers send the name as UTF-8 bytes; NIO gave them as a String already.
            return value
        }
        return nil
    }
}

/// multipart-kit's parser fed with `MultipartFiles` as its receiver, run on the receiver's pool: each
/// batch of the body is parsed there, so the parts' writes and fsyncs never block a cooperative thread.
final class MultipartParsing: @unchecked Sendable {
    // @unchecked: the parser is used by one upload, one batch at a time, each awaited before the next.
    private let parser: MultipartParser
    private let receiver: MultipartFiles

    init(receiver: MultipartFiles, boundary: String) {
        self.receiver = receiver
        parser = MultipartParser(boundary: boundary)
        parser.onHeader = { receiver.header($0, $1) }
        parser.onBody = { receiver.body(&$0) }
        parser.onPartComplete = { receiver.partComplete() }
    }

    /// Parses `buffers` in order on the pool; throws the receiver's first failure.
    func execute(_ buffers: [ByteBuffer]) async throws {
        guard !buffers.isEmpty else { return }
        try await receiver.pool.run { [self] in
            for buffer in buffers {
                try parser.execute(buffer)
                receiver.fed(buffer.readableBytes)
                if let failure = receiver.failure { throw failure }
            }
        }
    }
}
