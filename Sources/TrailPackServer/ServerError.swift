import Foundation
import HTTPTypes
import Hummingbird
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
            case badRequest, badSignature, dataFolder, forbidden, illegalTransition, `internal`, invalidPackage,
                malware, mapUnreadable, methodNotAllowed, noPublicKey, notFound, rangeNotSatisfiable, templateText,
                tooLarge, unauthorized, versionExists
            case http(Int)
        }
        private let wrapped: Wrapped
        private init(wrapped: Wrapped) { self.wrapped = wrapped }

        /// `bad-request`.
        public static let badRequest = Code(wrapped: .badRequest)
        /// `bad-signature`.
        public static let badSignature = Code(wrapped: .badSignature)
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
    static func badRequest(_ what: String) -> ServerError { ServerError(.badRequest, .badRequest, what) }
    static func tooLarge(_ limit: Int64) -> ServerError {
        ServerError(.contentTooLarge, .tooLarge, "the upload is larger than the limit of \(limit) bytes")
    }
    static func `internal`(_ what: String) -> ServerError { ServerError(.internalServerError, .`internal`, what) }
    /// The data folder cannot be used as it is (missing, foreign, locked, or catalog and blobs out of step).
    static func dataFolder(_ what: String) -> ServerError { ServerError(.serviceUnavailable, .dataFolder, what) }

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
