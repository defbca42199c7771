import Foundation
import Hummingbird
import TrailPackCore

/// A submitted urlencoded form: its fields in order (a name may repeat, as property rows do).
struct PanelForm: Sendable {
    var fields: [(name: String, value: String)]

    init(fields: [(name: String, value: String)]) { self.fields = fields }

    init(_ body: String) {
        fields = body.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { return nil }
            return (name, parts.count == 2 ? Self.decode(parts[1]) ?? "" : "")
        }
    }

    /// The body of a form request (read already by the CSRF check, so it is in memory), at most 1 MiB.
    static func read(_ request: Request) async throws -> PanelForm {
        var request = request
        let body = try await request.collectBody(upTo: PanelCSRFMiddleware<BasicRequestContext>.maxFormBytes)
        return PanelForm(String(buffer: body))
    }

    subscript(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// The field, trimmed, with line breaks made `\n`.
    func text(_ name: String) -> String {
        (self[name] ?? "").replacingOccurrences(of: "\r\n", with: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func all(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}

/// A property value typed in a form, as JSON: a number when it is one (`12`, `3.5`), true/false, else text.
enum PropertyValue {
    static func json(_ text: String) -> JSONValue {
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        if let document = try? JSONParser.parse(Array(text.utf8)), case .number = document.value {
            return document.value
        }
        return .string(text)
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): s
        case .number(let n): n.literal
        case .bool(let b): b ? "true" : "false"
        case .null: ""
        default: JSONWriter.string(value, pretty: false)
        }
    }
}
