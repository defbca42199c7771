import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import TrailPackCore
import TrailPackFileIO

/// An API error: the error type of `TrailPackServer`, in the shape of swift-nio's
/// `FileSystemError` — an HTTP status, a stable ``code`` (the `error.code` of the JSON body), a
/// message for people, for refused packages the findings, and for a failed system call its name
/// and `Errno` (logged, never sent).
public struct ServerError: Error, HTTPResponseError, CustomStringConvertible {
    /// The `error.code` a client branches on. Stable: documented in the API; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case badRequest, badSignature, busy, clientClosed, dataFolder, forbidden, illegalTransition, `internal`,
                invalidPackage,
                malware, mapUnreadable, methodNotAllowed, noPublicKey, notFound, notReadyForReview, rangeNotSatisfiable,
                templateText,
                tooLarge, unauthorized, versionExists
            case http(Int)
        }
        private let wrapped: Wrapped
        private init(wrapped: Wrapped) { self.wrapped = wrapped }

        /// `bad-request`.
        public static let badRequest = Code(wrapped: .badRequest)
        /// `bad-signature`.
        public static let badSignature = Code(wrapped: .badSignature)
        /// `busy`: the catalog could not take the request now (503 with `Retry-After`).
        public static let busy = Code(wrapped: .busy)
        /// `client-closed`: the client's request ended before its body did (an aborted or cut-off upload).
        public static let clientClosed = Code(wrapped: .clientClosed)
        /// `data-folder`.
        public static let dataFolder = Code(wrapped: .dataFolder)
        /// `forbidden`.
        public static let forbidden = Code(wrapped: .forbidden)
        /// `illegal-transition`.
        public static let illegalTransition = Code(wrapped: .illegalTransition)
        /// `internal`.
        public static let `internal` = Code(wrapped: .`internal`)
        /// `invalid-package`.
        public static let invalidPackage = Code(wrapped: .invalidPackage)
        /// `malware`.
        public static let malware = Code(wrapped: .malware)
        /// `map-unreadable`.
        public static let mapUnreadable = Code(wrapped: .mapUnreadable)
        /// `method-not-allowed`.
        public static let methodNotAllowed = Code(wrapped: .methodNotAllowed)
        /// `no-public-key`.
        public static let noPublicKey = Code(wrapped: .noPublicKey)
        /// `not-found`.
        public static let notFound = Code(wrapped: .notFound)
        /// A review was asked for a version whose findings of severity `review` (a missing alt text,
        /// transcript or captions) are not fixed or waived yet (422, the findings listed).
        public static let notReadyForReview = Code(wrapped: .notReadyForReview)
        /// `range-not-satisfiable`.
        public static let rangeNotSatisfiable = Code(wrapped: .rangeNotSatisfiable)
        /// `template-text`.
        public static let templateText = Code(wrapped: .templateText)
        /// `too-large`.
        public static let tooLarge = Code(wrapped: .tooLarge)
        /// `unauthorized`.
        public static let unauthorized = Code(wrapped: .unauthorized)
        /// `version-exists`.
        public static let versionExists = Code(wrapped: .versionExists)
        /// `http-<status>`: an error Hummingbird raised (an unknown route, a malformed request).
        public static func http(_ status: Int) -> Code { Code(wrapped: .http(status)) }

        /// The code as it appears in the JSON body.
        public var description: String {
            switch wrapped {
            case .badRequest: "bad-request"
            case .badSignature: "bad-signature"
            case .busy: "busy"
            case .clientClosed: "client-closed"
            case .dataFolder: "data-folder"
            case .forbidden: "forbidden"
            case .illegalTransition: "illegal-transition"
            case .`internal`: "internal"
            case .invalidPackage: "invalid-package"
            case .malware: "malware"
            case .mapUnreadable: "map-unreadable"
            case .methodNotAllowed: "method-not-allowed"
            case .noPublicKey: "no-public-key"
            case .notFound: "not-found"
            case .notReadyForReview: "not-ready-for-review"
            case .rangeNotSatisfiable: "range-not-satisfiable"
            case .templateText: "template-text"
            case .tooLarge: "too-large"
            case .unauthorized: "unauthorized"
            case .versionExists: "version-exists"
            case .http(let status): "http-\(status)"
            }
        }
    }

    public var status: HTTPResponse.Status
    public var code: Code
    public var message: String
    public var findings: [Finding] = []
    public var headers: HTTPFields = [:]
    /// The system call that failed and its `errno`, for an input/output failure.
    public var systemCall: SystemCall?
    /// The error that led to this one.
    public var cause: (any Error & Sendable)?

    public init(_ status: HTTPResponse.Status, _ code: Code, _ message: String, findings: [Finding] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.findings = findings
    }

    /// A failure of the file layer, as an internal error that keeps its system call.
    init(_ error: FileIOError) {
        self.init(.internalServerError, .internal, error.description)
        systemCall = error.systemCall
        cause = error
    }

    static func notFound(_ what: String) -> ServerError { ServerError(.notFound, .notFound, what) }
    /// Seconds a client is asked to wait when the catalog is busy.
    static let busyRetrySeconds = 5
    /// The catalog could not take the request now: 503 with `Retry-After`; nothing was changed.
    static func busy(_ cause: any Error) -> ServerError {
        var error = ServerError(
            .serviceUnavailable, .busy,
            "the server is busy and could not do this now; nothing was changed: try again in \(busyRetrySeconds) seconds"
        )
        error.headers[.retryAfter] = String(busyRetrySeconds)
        error.cause = cause
        return error
    }
    static func badRequest(_ what: String) -> ServerError { ServerError(.badRequest, .badRequest, what) }
    static func tooLarge(_ limit: Int64) -> ServerError {
        ServerError(.contentTooLarge, .tooLarge, "the upload is larger than the limit of \(limit) bytes")
    }
    static func `internal`(_ what: String) -> ServerError { ServerError(.internalServerError, .`internal`, what) }
    /// The data folder cannot be used as it is (missing, foreign, locked, or catalog and blobs out of step).
    static func dataFolder(_ what: String) -> ServerError { ServerError(.serviceUnavailable, .dataFolder, what) }

    /// The client's fault while its request was being read — an upload aborted or cut short, a body
    /// slower than the limits allow, a malformed chunk — as a 400 or 408 (logged at info, never as
    /// the server's failure); nil for any other error.
    static func clientFault(_ error: any Error) -> ServerError? {
        func closed(_ how: String) -> ServerError {
            var fault = ServerError(
                .badRequest, .clientClosed, "the request ended before its body did (\(how)); send it again")
            fault.cause = error
            return fault
        }
        switch error {
        case let timeout as RequestBodyTimeout:
            var fault = ServerError(.requestTimeout, .clientClosed, "\(timeout); send it again on a faster connection")
            fault.cause = timeout
            return fault
        case let parser as HTTPParserError where parser == .invalidEOFState:
            return closed("the connection closed")
        case let parser as HTTPParserError:
            return ServerError(.badRequest, .badRequest, "the request is not well-formed HTTP/1.1 (\(parser))")
        case let channel as ChannelError:
            switch channel {
            case .eof, .ioOnClosedChannel, .inputClosed, .outputClosed, .alreadyClosed:
                return closed("the connection closed")
            default: return nil
            }
        case let io as IOError where [ECONNRESET, EPIPE, ECONNABORTED].contains(io.errnoCode):
            return closed("the connection was reset")
        default:
            return nil
        }
    }

    /// Reading an upload's body failed with `error`, which is not the server's own (writing the
    /// file throws `ServerError`): the client's request ended early.
    static func clientClosedUpload(_ error: any Error) -> ServerError {
        var fault = ServerError(
            .badRequest, .clientClosed, "the upload ended before its body did (\(error)); send it again")
        fault.cause = error
        return fault
    }

    /// Why the server could not listen, in plain words with the fix, when `error` is a failed
    /// `bind` (the port taken, a privileged port, an address this machine does not have); else nil.
    public static func bindFailure(_ error: any Error, host: String, port: Int) -> String? {
        guard let io = error as? IOError, String(describing: io).contains("bind") else { return nil }
        let place = "\(host) port \(port)"
        switch io.errnoCode {
        case EADDRINUSE:
            return
                "cannot listen on \(place): another program (perhaps another trailpack serve) is using it; stop that program, or choose another --port"
        case EACCES:
            return
                "cannot listen on \(place): ports below 1024 need administrator rights; choose --port 1024 or above (and put nginx or another proxy in front), or run with the needed rights"
        case EADDRNOTAVAIL:
            return
                "cannot listen on \(place): this machine has no such address; use --host 127.0.0.1, 0.0.0.0 or one of its own addresses"
        default:
            return "cannot listen on \(place): \(String(cString: strerror(io.errnoCode)))"
        }
    }

    /// `text` cut to 80 characters for a message or a log line (a 70 KB id is not echoed back).
    static func short(_ text: some StringProtocol) -> String {
        text.count <= 80 ? String(text) : String(text.prefix(77)) + "…"
    }

    public var description: String { code == .dataFolder ? message : "\(status.code) \(code): \(message)" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var error: [JSONMember] = [
            JSONMember("code", .string(code.description)), JSONMember("message", .string(message)),
        ]
        if !findings.isEmpty { error.append(JSONMember("findings", .array(findings.map(\.jsonValue)))) }
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(
            status: status, headers: fields,
            body: .init(byteBuffer: ByteBuffer(bytes: JSONWriter.bytes(.object([JSONMember("error", .object(error))]))))
        )
    }

}
