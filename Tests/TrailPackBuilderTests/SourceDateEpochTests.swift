import Testing
import TrailPackBuilder
import TrailPackCore
import TrailPackTestSupport

/// The build time a package is stamped with (the builder's command-line behaviour with
/// SOURCE_DATE_EPOCH is tested in TrailPackIntegrationTests' BuilderTests).
@Suite("builder: SOURCE_DATE_EPOCH", .ownThreads)
struct SourceDateEpochTests {
    @Test("SOURCE_DATE_EPOCH is read, clamped to the DOS range, and refused when it is not a number")
    func sourceDateEpoch() throws {
        #expect(try TourBuilder.timestamp(environment: [:]) == TourBuilder.defaultTimestamp)
        #expect(try TourBuilder.timestamp(environment: ["SOURCE_DATE_EPOCH": "1700000000"]) == 1_700_000_000)
        #expect(try TourBuilder.timestamp(environment: ["SOURCE_DATE_EPOCH": "5"]) == TourBuilder.defaultTimestamp)
        #expect(
            try TourBuilder.timestamp(environment: ["SOURCE_DATE_EPOCH": "99999999999"]) == TourBuilder.latestTimestamp)
        #expect(throws: BuildError.self) { try TourBuilder.timestamp(environment: ["SOURCE_DATE_EPOCH": "yesterday"]) }
        for bad in ["-5", "+5", "1.5", " 7"] {
            #expect(throws: CoreError.self) { try SourceDateEpoch.value(environment: ["SOURCE_DATE_EPOCH": bad]) }
        }
        #expect(
            try SourceDateEpoch.value(environment: [:]) == nil
                && SourceDateEpoch.value(environment: ["SOURCE_DATE_EPOCH": ""]) == nil)
    }
}
