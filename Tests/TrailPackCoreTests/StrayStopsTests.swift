import Foundation
import Testing
import TrailPackTestSupport

@testable import TrailPackCore

/// A stop far from all the others is a typo until shown otherwise (found trying the CSV import as
/// a ranger: 54.4057 for 44.4057 built silently, the frame stretched over 1,100 km).
@Suite("stray stops", .ownThreads)
struct StrayStopsTests {
    static let santiam = [
        (44.3976, -122.7226), (44.4019, -122.4521), (44.4011, -122.2466), (44.4007, -122.1495),
        (44.3956, -122.0443), (44.4058, -121.9827), (44.4192, -121.8666), (44.4056, -121.7050),
    ].map { Coordinate(latitude: $0.0, longitude: $0.1) }

    @Test("a byway's stops spread alike are not strays; a digit off, a lost minus sign or swapped axes are")
    func rules() {
        #expect(StrayStops.find(Self.santiam).isEmpty)
        #expect(StrayStops.find(Array(Self.santiam.prefix(2))).isEmpty, "two stops: nothing to compare with")
        for (typo, what) in [
            ((54.4056, -121.7050), "a digit off"), ((44.4056, 121.7050), "a lost minus sign"),
            ((-121.7050, 44.4056), "swapped"),
        ] {
            var stops = Self.santiam
            stops[7] = Coordinate(latitude: typo.0, longitude: typo.1)
            let strays = StrayStops.find(stops)
            #expect(strays.map(\.index) == [7], "\(what): \(strays)")
        }
        // A state-wide checklist (peaks hundreds of km apart) is not flagged.
        let colorado = [
            (40.25, -105.61), (39.12, -106.45), (37.58, -105.49), (38.92, -106.32), (39.63, -105.82), (37.97, -107.59),
        ]
        .map { Coordinate(latitude: $0.0, longitude: $0.1) }
        #expect(StrayStops.find(colorado).isEmpty)
    }
}
