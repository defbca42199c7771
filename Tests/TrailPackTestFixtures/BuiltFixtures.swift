import Foundation
import Testing
import TrailPackBuilder
import TrailPackCore
import TrailPackTestSupport

// Fixtures made with the builder library. A target of their own, apart from TrailPackTestSupport,
// so that the verifier's tests can share the helpers without linking the builder.

extension Support {
    /// Builds a fixture with the library into `directory`; returns the package path.
    package static func buildFixture(
        _ name: String, into directory: String, timestamp: Int64 = TourBuilder.defaultTimestamp
    ) throws -> String {
        let planned = try TourBuilder.plan(fixture(name)), plan = planned.plan, findings = planned.findings
        let p = try #require(plan, "fixture \(name) has findings: \(findings)")
        let output = directory + "/" + name + ".zip"
        _ = try TourBuilder.write(p, to: output, timestamp: timestamp)
        return output
    }
}

extension ServerFixtures {
    /// The fixtures built into `dir`, and a second version of santiam (1.1.0, built by the program).
    package static func packages(_ dir: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for name in Support.fixtureNames { out[name] = try Support.buildFixture(name, into: dir) }
        let tour = dir + "/santiam-v2"
        try Support.copyTree(Support.fixture("santiam-wagon-road"), tour)
        let tourJSON = tour + "/tour.json"
        try (try String(contentsOfFile: tourJSON, encoding: .utf8)).replacingOccurrences(
            of: "\"1.0.0\"", with: "\"1.1.0\""
        )
        .write(toFile: tourJSON, atomically: true, encoding: .utf8)
        #expect(try Support.trailpack("build", tour, "-o", dir + "/santiam-v2.zip", "-q").status == 0)
        out["santiam-v2"] = dir + "/santiam-v2.zip"
        return out
    }
}

/// A real `trailpack serve` holding santiam (1.0.0, and 1.1.0 unless told otherwise), released at
/// once: what the client is fetched against (needs curl and clamscan).
package enum ClientServer {
    package static let id = "gov.usda.fs.willamette.santiam-wagon-road"

    package struct Setup {
        package let dir: String
        package let server: ServeProcess.Running
        package let packages: [String: String]
        package var base: String { server.base }
        package var library: String { dir + "/library" }

        /// `trailpack fetch` against this server (or through `base`, a proxy).
        package func fetch(_ arguments: String..., through base: String? = nil) throws -> Support.Output {
            try Support.run(Support.binary, ["fetch", base ?? self.base] + arguments)
        }

        package func json(_ output: Support.Output) throws -> JSONValue {
            try JSONParser.parse(Array(output.stdoutBytes)).value
        }
    }

    package static func setUp(
        _ dir: String, upload names: [String] = ["santiam-wagon-road", "santiam-v2"]
    ) throws -> Setup {
        let packages = try ServerFixtures.packages(dir)
        try ServeProcess.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        let server = try ServeProcess.start(data: dir + "/data", tokenFile: dir + "/token")
        for name in names {
            let up = try ServeProcess.curl([
                "-w", "%{http_code}", "-o", "/dev/null", "-H", "Authorization: Bearer \(ServeProcess.token)",
                "--data-binary", "@" + packages[name]!, server.base + "/v1/admin/packages",
            ])
            #expect(up.status == 0 && up.stdout == "201", "upload \(name): \(up.status) \(up.stdout) \(up.stderr)")
        }
        return Setup(dir: dir, server: server, packages: packages)
    }
}

/// The GPX files of fixtures/gpx.
package enum GPXFixtures {
    package static func path(_ name: String) -> String { Support.fixture("gpx/" + name) }

    /// The files with at least one waypoint, by name.
    package static let withWaypoints: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Support.fixture("gpx"))) ?? []
        return names.filter { $0.hasSuffix(".gpx") }.sorted().filter { name in
            ((try? GPXReader.read(path: path(name)))?.points.count ?? 0) > 0
        }
    }()
}
