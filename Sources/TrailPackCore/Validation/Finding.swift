/// One problem found in a tour folder, a manifest or a package.
///
/// Findings are data, not errors: validation collects every one it can find and returns
/// them together, so a ranger fixes everything in one round.
public struct Finding: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// How serious a finding is: an error makes the package invalid; `review` leaves it valid (a phone
    /// may install it) but no reviewer may be asked to approve it until it is fixed; a warning asks
    /// only to be looked at. The one rule for "ready": the CLI, the panel's pages and Request review
    /// all read it from here.
    public enum Severity: String, Sendable, Codable, Hashable, CaseIterable {
        case error
        /// Blocks a review request, never a build or an install (`accessibility.missing`).
        case review
        case warning

        /// Whether a finding of this severity stops a review request (errors and `review`).
        public var blocksReview: Bool { self != .warning }
    }

    /// The stable identifier of the rule that was broken.
    public var code: FindingCode
    /// The file the finding is about: a path in the tour folder or an entry in the package.
    public var file: String?
    /// Where in that file: a JSON path, or a place said in words.
    public var location: Location?
    /// What is wrong and how to fix it, in words a ranger understands.
    public var message: String

    /// Where in a file a finding is.
    public enum Location: Sendable, Hashable, CustomStringConvertible {
        /// A place in the file's JSON: `waypoints[3].coordinate.latitude`.
        case json(JSONPath)
        /// A place in a file that is not JSON (`row 2, column D` of a sheet), or one read back as text
        /// from a report.
        case text(String)

        /// The place as findings print it.
        public var description: String {
            switch self {
            case .json(let path): path.description
            case .text(let text): text
            }
        }
    }

    /// The severity, which the code determines.
    public var severity: Severity { code.severity }

    /// Where in the file, as printed: `waypoints[3].coordinate.latitude`, `row 2, column D`.
    public var path: String? { location?.description }

    /// The JSON path in the file, when the finding has one.
    public var jsonPath: JSONPath? {
        if case .json(let path)? = location { return path }
        return nil
    }

    /// A finding with `code`, located at `file` and/or the JSON `path`, and a message for people.
    public init(_ code: FindingCode, file: String? = nil, path: JSONPath? = nil, _ message: String) {
        self.init(code, file: file, location: path.map(Location.json), message)
    }

    /// A finding with `code`, located at `file` and/or `location`, and a message for people.
    public init(_ code: FindingCode, file: String? = nil, location: Location?, _ message: String) {
        self.code = code
        self.file = file
        self.location = location
        self.message = message
    }

    /// The same finding, said of `file` (when it names none yet).
    public func inFile(_ file: String) -> Finding {
        var copy = self
        if copy.file == nil { copy.file = file }
        return copy
    }

    /// `error[coordinate.latitude] tour.json: waypoints[3].coordinate.latitude: ...`, with
    /// control and bidirectional characters escaped (``TerminalText``): safe to print.
    public var description: String {
        var location = ""
        if let file { location += file }
        if let path, !path.isEmpty { location += location.isEmpty ? path : ": \(path)" }
        return TerminalText.escaped(
            "\(severity.rawValue)[\(code.rawValue)] \(location.isEmpty ? "" : location + ": ")\(message)")
    }
}

extension Finding {
    /// The finding as reports (`--json`) and the server's error bodies give it.
    public var jsonValue: JSONValue {
        var members: [JSONMember] = [
            JSONMember("code", .string(code.rawValue)), JSONMember("severity", .string(severity.rawValue)),
        ]
        if let file { members.append(JSONMember("file", .string(file))) }
        if let path { members.append(JSONMember("path", .string(path))) }
        members.append(JSONMember("message", .string(message)))
        return .object(members)
    }
}

extension Array where Element == Finding {
    /// Whether any finding is an error (warnings alone leave the input valid).
    public var hasErrors: Bool { contains { $0.severity == .error } }
    /// The findings that stop a review request (errors and ``Finding/Severity/review``), in order.
    public var blockingReview: [Finding] { filter { $0.severity.blocksReview } }
    /// The findings' codes, sorted, without repeats: handy in tests.
    public var codes: [FindingCode] { Set(self.map { $0.code }).sorted() }
}
