/// Why a text could not be read as what it should be: the error type of `TrailPackCore`, in the
/// shape of swift-nio's `FileSystemError` — a stable ``code``, a ``message`` for people (with an
/// example of what is expected), and the place (``line`` and ``column``) or the ``value`` refused.
///
/// Core does no input/output. Problems in a manifest are findings; this is thrown by the JSON
/// parser (which stops at the first error), by `SourceDateEpoch` and returned by `CoordinateText`.
public struct CoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of error this is. Stable: programs branch on it; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case syntax, tooLarge, tooDeep, number, encoding, invalidCoordinate, invalidSourceDateEpoch
        }
        private let wrapped: Wrapped
        private init(wrapped: Wrapped) { self.wrapped = wrapped }

        /// JSON: malformed (a missing comma, an unclosed string, text after the document).
        public static let syntax = Code(wrapped: .syntax)
        /// JSON: more bytes, or a longer string, than the limits allow.
        public static let tooLarge = Code(wrapped: .tooLarge)
        /// JSON: objects and arrays nested deeper than the limit.
        public static let tooDeep = Code(wrapped: .tooDeep)
        /// JSON: a number that is malformed, too long or out of range.
        public static let number = Code(wrapped: .number)
        /// JSON: not UTF-8, a byte-order mark, or a lone surrogate.
        public static let encoding = Code(wrapped: .encoding)
        /// A latitude or longitude that is not a coordinate.
        public static let invalidCoordinate = Code(wrapped: .invalidCoordinate)
        /// `SOURCE_DATE_EPOCH` is set but is not a whole, non-negative number of seconds since 1970.
        public static let invalidSourceDateEpoch = Code(wrapped: .invalidSourceDateEpoch)

        /// The finding a JSON error is reported as (`json.syntax`, …); nil for the others.
        public var findingCode: FindingCode? {
            switch wrapped {
            case .syntax: .jsonSyntax
            case .tooLarge: .jsonTooLarge
            case .tooDeep: .jsonTooDeep
            case .number: .jsonNumber
            case .encoding: .jsonEncoding
            case .invalidCoordinate, .invalidSourceDateEpoch: nil
            }
        }

        /// `json.syntax`, …, `invalid-coordinate`, `invalid-source-date-epoch`.
        public var description: String {
            switch wrapped {
            case .invalidCoordinate: "invalid-coordinate"
            case .invalidSourceDateEpoch: "invalid-source-date-epoch"
            default: findingCode?.rawValue ?? "?"
            }
        }
    }

    /// What kind of error this is.
    public var code: Code
    /// What is wrong and how to fix it, for people.
    public var message: String
    /// For JSON: the line of the error, from 1.
    public var line: Int?
    /// For JSON: the column of the error, from 1, in characters.
    public var column: Int?
    /// The text that was refused (the variable's value, the coordinate as written), when there is one.
    public var value: String?

    /// An error with these values.
    public init(code: Code, message: String, line: Int? = nil, column: Int? = nil, value: String? = nil) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.value = value
    }

    /// `line L, column C: message` for a JSON error; else the message.
    public var description: String {
        guard let line, let column else { return message }
        return "line \(line), column \(column): \(message)"
    }
}
