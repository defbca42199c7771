import Foundation
import Logging
import NIOConcurrencyHelpers
import Synchronization
import TrailPackCore

/// How the server writes its log to standard error: `text` for a person at a terminal, `logfmt`
/// (key=value, one line per event) or `json` (one object per line) for a log collector.
public enum LogFormat: String, CaseIterable, Sendable {
    case text, logfmt, json
}

/// A swift-log handler writing one line per event in a `LogFormat`, with the time (UTC, ISO 8601),
/// the level, the message and the metadata. Values are escaped: a client's path or a package's
/// id cannot forge a line.
public struct LineLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let format: LogFormat
    let label: String
    private static let lock = NIOLock()

    public init(label: String, format: LogFormat) {
        self.label = label
        self.format = format
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        emit(level: event.level, message: event.message, metadata: event.metadata)
    }

    private func emit(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?) {
        // An access line carries only its own metadata: no merge, no copy of either dictionary.
        let all: Logger.Metadata
        if let explicit, !metadata.isEmpty {
            all = metadata.merging(explicit) { $1 }
        } else {
            all = explicit ?? metadata
        }
        let keys = all.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        // The line is made as bytes in one buffer: this runs for every request (an access line
        // through Strings, joined and interpolated, was a tenth of a cached list's CPU).
        var line: [UInt8] = []
        line.reserveCapacity(256)
        switch format {
        case .text:
            Self.appendTimestamp(to: &line)
            line.append(0x20)
            line += "\(level)".utf8
            line.append(0x20)
            line += label.utf8
            line += ": ".utf8
            Self.appendEscaped(message.description, to: &line)
            Self.appendFields(keys, of: all, to: &line, value: Self.appendEscaped)
        case .logfmt:
            line += "time=".utf8
            Self.appendTimestamp(to: &line)
            line += " level=".utf8
            line += "\(level)".utf8
            line += " logger=".utf8
            Self.appendLogfmt(label, to: &line)
            line += " msg=".utf8
            Self.appendLogfmt(message.description, to: &line)
            Self.appendFields(keys, of: all, to: &line, value: Self.appendLogfmt)
        case .json:
            var members = [
                JSONMember("time", .string(Self.utcTimestamp())), JSONMember("level", .string("\(level)")),
                JSONMember("logger", .string(label)),
                JSONMember("msg", .string(message.description)),
            ]
            members += keys.map { JSONMember($0, .string(Self.text(all[$0]!))) }
            line += JSONWriter.string(.object(members), pretty: false).utf8
        }
        line.append(0x0A)
        // One write(2) per line under a lock: lines from several threads never interleave.
        Self.lock.withLock {
            line.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let n = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break }
                }
            }
        }
    }

    /// ` key=value` for each key, in order, the value written by `value`.
    private static func appendFields(
        _ keys: [String], of all: Logger.Metadata, to line: inout [UInt8],
        value: (String, inout [UInt8]) -> Void
    ) {
        for key in keys {
            line.append(0x20)
            line += key.utf8
            line.append(0x3D)
            value(text(all[key]!), &line)
        }
    }

    /// Printable ASCII goes as it is; anything else through `TerminalText.escaped`.
    private static func appendEscaped(_ text: String, to line: inout [UInt8]) {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            line += text.utf8
        } else {
            line += TerminalText.escaped(text).utf8
        }
    }

    private static func appendLogfmt(_ text: String, to line: inout [UInt8]) {
        if isSimpleLogfmt(text) {
            line += text.utf8
        } else {
            line += logfmt(text).utf8
        }
    }

    /// The date and time to the second (`2026-11-26T11:31:28.`), made once a second.
    private static let secondText = TextOfTheSecond<[UInt8]> { fields in
        var text: [UInt8] = []
        text.reserveCapacity(20)
        func digits(_ value: Int32, _ width: Int) {
            var divisor: Int32 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(truncatingIfNeeded: 0x30 + value / divisor % 10))
                divisor /= 10
            }
        }
        digits(fields.tm_year + 1900, 4)
        text.append(0x2D)
        digits(fields.tm_mon + 1, 2)
        text.append(0x2D)
        digits(fields.tm_mday, 2)
        text.append(0x54)
        digits(fields.tm_hour, 2)
        text.append(0x3A)
        digits(fields.tm_min, 2)
        text.append(0x3A)
        digits(fields.tm_sec, 2)
        text.append(0x2E)
        return text
    }

    /// Now, in UTC, as ISO 8601 with milliseconds (`2026-11-26T11:31:28.853Z`).
    private static func appendTimestamp(to line: inout [UInt8]) {
        let (text, nanoseconds) = secondText.now()
        line += text
        let millisecond = nanoseconds / 1_000_000
        line.append(UInt8(0x30 + millisecond / 100))
        line.append(UInt8(0x30 + millisecond / 10 % 10))
        line.append(UInt8(0x30 + millisecond % 10))
        line.append(0x5A)
    }

    /// A metadata value as text: a string as it is (without `String(describing:)`'s detour).
    static func text(_ value: Logger.MetadataValue) -> String {
        if case .string(let string) = value { return string }
        return String(describing: value)
    }

    /// Now, in UTC, as ISO 8601 with milliseconds: `2026-11-26T11:31:28.853Z` (what Foundation's
    /// ISO 8601 style gives, at a tenth of its cost: this runs for every request).
    package static func utcTimestamp() -> String {
        var text: [UInt8] = []
        appendTimestamp(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `value` goes into logfmt bare: printable ASCII, no quote, `=` or backslash.
    static func isSimpleLogfmt(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x3D && $0 != 0x5C }
    }

    /// A logfmt value: bare when it is simple, else quoted with `"` and `\` escaped and control characters as `\n`, `\u{…}`.
    static func logfmt(_ value: String) -> String {
        if isSimpleLogfmt(value) { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// A text of the time to the second (a log line's, an HTTP `Date`), made from the UTC calendar
/// fields once a second and kept: most requests of a busy server fall in the second before theirs.
final class TextOfTheSecond<Text: Sendable>: Sendable {
    private let make: @Sendable (tm) -> Text
    private let kept = Mutex<(second: Int, text: Text?)>((-1, nil))

    init(_ make: @escaping @Sendable (tm) -> Text) { self.make = make }

    /// The text of the current second, and the nanoseconds past it.
    func now() -> (text: Text, nanoseconds: Int) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = Int(now.tv_sec)
        if let text = kept.withLock({ $0.second == second ? $0.text : nil }) { return (text, Int(now.tv_nsec)) }
        var fields = tm()
        gmtime_r(&now.tv_sec, &fields)
        let text = make(fields)
        kept.withLock { $0 = (second, text) }
        return (text, Int(now.tv_nsec))
    }
}
