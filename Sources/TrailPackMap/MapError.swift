import TrailPackCore

/// Why a map could not be read: a problem in the file (a finding code and a message), or an
/// input/output failure (`code == nil`).
public struct MapError: Error, Sendable, CustomStringConvertible {
    /// The finding code for a problem in the file; nil for an input/output failure.
    public var code: FindingCode?
    public var message: String

    public init(_ code: FindingCode?, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func io(_ message: String) -> MapError { MapError(nil, message) }

    /// The error as a finding about `file` (input/output failures become `map.header`).
    public func finding(file: String?) -> Finding { Finding(code ?? .mapHeader, file: file, message) }

    public var description: String { message }
}

