import Foundation
import Testing
import TrailPackServer
import TrailPackTestSupport

/// The log line's own time stamp, written without Foundation's formatter: the same text it gave.
@Suite("log lines", .ownThreads)
struct LogLineTests {
    @Test("the time is UTC ISO 8601 with milliseconds, as Foundation writes it, and now")
    func timestamp() throws {
        let before = Date()
        let stamp = LineLogHandler.utcTimestamp()
        let after = Date()
        #expect(stamp.utf8.count == 24)
        #expect(stamp.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(stamp)")
        let parsed = try #require(
            try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(stamp), "\(stamp)")
        #expect(parsed >= before.addingTimeInterval(-0.001) && parsed <= after, "\(stamp)")
        // Foundation's text for the same millisecond is the same text (a fraction of a millisecond is
        // added: the parsed time is the nearest double, which may fall just below it, and both truncate).
        let millisecond = Date(timeIntervalSince1970: (parsed.timeIntervalSince1970 * 1000).rounded() / 1000 + 0.0004)
        #expect(
            millisecond.formatted(
                .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
                == stamp)
    }
}
