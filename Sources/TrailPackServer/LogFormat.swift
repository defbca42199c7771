import Foundation
import Logging
import NIOConcurrencyHelpers
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
        var all = metadata
        if let explicit { all.merge(explicit) { $1 } }
        let time = Date().formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        let keys = all.keys.sorted()
        let text: String
        switch format {
        case .text:
            let fields = keys.map { "\($0)=\(TerminalText.escaped(String(describing: all[$0]!)))" }.joined(
                separator: " ")
            text =
                "\(time) \(level) \(label): \(TerminalText.escaped(message.description))\(fields.isEmpty ? "" : " " + fields)"
        case .logfmt:
            var parts = [
                "time=\(time)", "level=\(level)", "logger=\(Self.logfmt(label))",
                "msg=\(Self.logfmt(message.description))",
            ]
            parts += keys.map { "\($0)=\(Self.logfmt(String(describing: all[$0]!)))" }
            text = parts.joined(separator: " ")
        case .json:
            var members = [
                JSONMember("time", .string(time)), JSONMember("level", .string("\(level)")),
                JSONMember("logger", .string(label)),
                JSONMember("msg", .string(message.description)),
            ]
            members += keys.map { JSONMember($0, .string(String(describing: all[$0]!))) }
            text = JSONWriter.string(.object(members), pretty: false)
        }
        let bytes = Array((text + "\n").utf8)
        // One write(2) per line under a lock: lines from several threads never interleave.
        Self.lock.withLock {
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let n = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break }
                }
            }
        }
    }

    /// A logfmt value: bare when it is simple, else quoted with `"` and `\` escaped and control characters as `\n`, `\u{…}`.
    static func logfmt(_ value: String) -> String {
        let simple =
            !value.isEmpty
            && value.unicodeScalars.allSatisfy {
                $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "=" && $0 != "\\"
            }
        if simple { return value }
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
