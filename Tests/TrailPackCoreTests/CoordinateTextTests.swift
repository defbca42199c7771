import Foundation
import Testing
import TrailPackCore
import TrailPackTestSupport

@Suite("coordinates typed by people", .ownThreads)
struct CoordinateTextTests {
    struct Good: Sendable, CustomTestStringConvertible {
        var text: String
        var axis: CoordinateText.Axis
        var degrees: Double
        var testDescription: String { text }
    }

    static let good: [Good] = [
        Good(text: "44.4200", axis: .latitude, degrees: 44.42),
        Good(text: " -122.15 ", axis: .longitude, degrees: -122.15),
        Good(text: "44,4057", axis: .latitude, degrees: 44.4057),
        Good(text: "+12.5", axis: .longitude, degrees: 12.5),
        Good(text: "44°25'12\"N", axis: .latitude, degrees: 44.42),
        Good(text: "44° 25′ 12″ N", axis: .latitude, degrees: 44.42),
        Good(text: "N 44 25 12", axis: .latitude, degrees: 44.42),
        Good(text: "122°09'00\"W", axis: .longitude, degrees: -122.15),
        Good(text: "122° 9.5' W", axis: .longitude, degrees: -122.1583333),
        Good(text: "33°51’54,5”S", axis: .latitude, degrees: -33.8651389),
        Good(text: "-33:51:54.5", axis: .latitude, degrees: -33.8651389),
        Good(text: "179.9E", axis: .longitude, degrees: 179.9),
    ]

    @Test("decimal degrees, decimal commas and degrees-minutes-seconds are read", arguments: good)
    func reads(_ c: Good) throws {
        let value = try CoordinateText.parse(c.text, axis: c.axis).get()
        #expect(abs(value - c.degrees) < 1e-7, "\(c.text) -> \(value)")
    }

    @Test(
        "bad coordinates are refused with the reason and the fix",
        arguments: [
            ("", CoordinateText.Axis.latitude, "is empty"),
            ("95.2", .latitude, "between -90 and 90"),
            ("121.99", .latitude, "swapped"),
            ("122°09'00\"W", .latitude, "swapped"),
            ("44°25'N", .longitude, "swapped"),
            ("44°75'N", .latitude, "minutes go from 0 to 59"),
            ("44°25'61\"N", .latitude, "seconds go from 0 to 59"),
            ("-44 S", .latitude, "both a minus sign and a direction"),
            ("forty-four", .latitude, "not part of a coordinate"),
            ("44.1.2", .latitude, "is not a number"),
            ("44.5°25'", .latitude, "only the last number"),
            ("1 2 3 4", .longitude, "cannot read"),
        ])
    func refuses(text: String, axis: CoordinateText.Axis, words: String) {
        guard case .failure(let e) = CoordinateText.parse(text, axis: axis) else {
            Issue.record("'\(text)' was accepted")
            return
        }
        #expect(e.message.contains(words), "\(text): \(e.message)")
    }
}
