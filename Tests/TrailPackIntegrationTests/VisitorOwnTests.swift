import Foundation
import Testing
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// The visitor's own (#51), in headless Chromium: My log, checklists, the map to find a tour,
/// installed and kept, the app's words in Spanish (scripts/visitor-own.py, against `trailpack serve`).
@Suite("visitor app, the visitor's own: the log, checklists, the map, installed, Spanish", .ownThreads, .serialized)
struct VisitorOwnTests {
    static let fourteeners = "org.coloradopeaks.fourteeners"

    /// What visitor-own.py prints last.
    struct OwnSummary: Decodable {
        var persistWarning: String?
        var stop1Times: String?
        var spanishBanner: String?
        var spanishTitle: String?
        var checklist: String?
        var iosHint: String?
        var csvVisits: Int?
        var gpxPoints: Int?
        var badImport: String?
        var views: [String]
        var failures: [String]
    }

    @Test(
        "the fourteeners taken twice and Santiam once in Spanish (390x844): each stop reached is logged with its time, the checklist counts, the log exported as CSV and GPX, deleted, the app's data cleared, the CSV imported: the same log; the persistence warning, the install button, the iOS hint and the Spanish words shown; axe clean at 390 px and at 320 px with text at 200 %",
        .needs(.chromium, .chromedriver, .debianPython3, .selenium, .curl))
    func own() throws {
        try Support.withTemporaryDirectory { dir in
            let santiam = try Support.buildFixture("santiam-wagon-road", into: dir)
            let peaks = try Support.buildFixture("colorado-fourteeners", into: dir)
            let s = try WorkflowTests.setUp(dir, extra: ["--no-malware-scan", "--visitor-trusted-key", dir + "/keys"])
            defer { s.server.stop() }
            try VisitorAppTests.release(s, santiam, id: VisitorAppTests.santiam, version: "1.0.0")
            try VisitorAppTests.release(s, peaks, id: Self.fourteeners, version: "2024.1")
            // The script reads each tour's id, SHA-256 and stops out of its package.
            let config: [String: Any] = [
                "base": s.base, "shots": Support.root + "/out/screenshots/visitor-own",
                "fourteeners": peaks, "santiam": santiam,
            ]
            try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: dir + "/own.json"))
            let result = try Support.run(
                "/usr/bin/python3", [Support.root + "/scripts/visitor-own.py", dir + "/own.json"])
            #expect(result.status == 0, "visitor-own.py: \(result.stderr)\n\(result.stdout)")
            let last = result.stdout.split(separator: "\n").last.map(String.init) ?? "{}"
            let summary = try JSONDecoder().decode(OwnSummary.self, from: Data(last.utf8))
            #expect(summary.failures.isEmpty, "\(summary.failures)")
            #expect(summary.persistWarning?.contains("may remove the tour") == true, "\(last)")
            #expect(summary.stop1Times?.contains("Reached 2 times") == true, "\(last)")
            #expect(summary.spanishBanner?.contains("Ha llegado a la parada 1") == true, "\(last)")
            #expect(summary.spanishTitle?.hasPrefix("Parada 1:") == true, "\(last)")
            #expect(summary.checklist?.contains("Colorado fourteeners: 3 of 36 done") == true, "\(last)")
            #expect(summary.iosHint?.contains("Add to Home Screen") == true, "\(last)")
            #expect(summary.csvVisits == 5 && summary.gpxPoints == 5, "\(last)")
            #expect(summary.badImport?.contains(#"Line 2, field "time""#) == true, "\(last)")
            #expect(summary.views.count >= 14, "\(summary.views)")
            print("visitor own: \(last)")
        }
    }
}
