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
        // An access line carries only its own metadata: no merge, no copy of either dictionary.
        let all: Logger.Metadata
        if let explicit, !metadata.isEmpty {
            all = metadata.merging(explicit) { $1 }
        } else {
            all = explicit ?? metadata
        }
        let time = Self.utcTimestamp()
        let keys = all.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let text: String
        switch format {
        case .text:
            let fields = keys.map { "\($0)=\(TerminalText.escaped(Self.text(all[$0]!)))" }.joined(
                separator: " ")
            text =
                "\(time) \(level) \(label): \(TerminalText.escaped(message.description))\(fields.isEmpty ? "" : " " + fields)"
        case .logfmt:
            var parts = [
                "time=\(time)", "level=\(level)", "logger=\(Self.logfmt(label))",
                "msg=\(Self.logfmt(message.description))",
            ]
            parts += keys.map { "\($0)=\(Self.logfmt(Self.text(all[$0]!)))" }
            text = parts.joined(separator: " ")
        case .json:
            var members = [
                JSONMember("time", .string(time)), JSONMember("level", .string("\(level)")),
                JSONMember("logger", .string(label)),
                JSONMember("msg", .string(message.description)),
            ]
            members += keys.map { JSONMember($0, .string(Self.text(all[$0]!))) }
            text = JSONWriter.string(.object(members), pretty: false)
        }
        var line = text
        line.append("\n")
        // One write(2) per line under a lock: lines from several threads never interleave.
        Self.lock.withLock {
            line.withUTF8 { utf8 in
                let buffer = UnsafeRawBufferPointer(utf8)
                var offset = 0
                while offset < buffer.count {
                    let n = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break }
                }
            }
        }
    }

    /// A metadata value as text: a string as it is (without `String(describing:)`'s detour).
    static func text(_ value: Logger.MetadataValue) -> String {
        if case .string(let string) = value { return string }
        return String(describing: value)
    }

    /// Now, in UTC, as ISO 8601 with milliseconds: `2026-11-26T11:31:28.853Z` (what Foundation's
    /// ISO 8601 style gives, at a tenth of its cost: this runs for every request).
    package static func utcTimestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var fields = tm()
        gmtime_r(&seconds, &fields)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return digits.utf8.count >= width
                ? digits : String(repeating: "0", count: width - digits.utf8.count) + digits
        }
        return pad(fields.tm_year + 1900, 4) + "-" + pad(fields.tm_mon + 1, 2) + "-" + pad(fields.tm_mday, 2) + "T"
            + pad(fields.tm_hour, 2) + ":" + pad(fields.tm_min, 2) + ":" + pad(fields.tm_sec, 2) + "."
            + pad(Int32(now.tv_nsec / 1_000_000), 3) + "Z"
    }

    /// A logfmt value: bare when it is simple, else quoted with `"` and `\` escaped and control characters as `\n`, `\u{…}`.
    static func logfmt(_ value: String) -> String {
        let simple =
            !value.isEmpty
            && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x3D && $0 != 0x5C }
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
