import Foundation
import HTTPTypes
import Hummingbird
import TrailPackCore

/// An API error: a status, a stable code, a message, and for refused packages the findings.
public struct ServerError: Error, HTTPResponseError, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var findings: [Finding] = []
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, findings: [Finding] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.findings = findings
    }

    static func notFound(_ what: String) -> ServerError { ServerError(.notFound, "not-found", what) }
    static func badRequest(_ what: String) -> ServerError { ServerError(.badRequest, "bad-request", what) }
    static func tooLarge(_ limit: Int64) -> ServerError { ServerError(.contentTooLarge, "too-large", "the upload is larger than the limit of \(limit) bytes") }
    static func `internal`(_ what: String) -> ServerError { ServerError(.internalServerError, "internal", what) }
    /// The data folder cannot be used as it is (missing, foreign, locked, or catalog and blobs out of step).
    static func dataFolder(_ what: String) -> ServerError { ServerError(.serviceUnavailable, "data-folder", what) }

    /// `text` cut to 80 characters for a message or a log line (a 70 KB id is not echoed back).
    static func short(_ text: some StringProtocol) -> String {
        text.count <= 80 ? String(text) : String(text.prefix(77)) + "…"
    }

    public var description: String { code == "data-folder" ? message : "\(status.code) \(code): \(message)" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var error: [JSONMember] = [JSONMember("code", .string(code)), JSONMember("message", .string(message))]
        if !findings.isEmpty { error.append(JSONMember("findings", .array(findings.map(\.jsonValue)))) }
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: JSONWriter.bytes(.object([JSONMember("error", .object(error))])))))
    }

}
