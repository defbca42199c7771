import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TrailPackBuilder
import TrailPackCore
import TrailPackServer
import TrailPackTestSupport
import TrailPackVerifier

@testable import TrailPackPanel

/// The trail itself in the panel (issue #49): a recorded track imported onto a draft (with and without
/// the page's script), refused in the ranger's words when it is no track, replaced and removed with a
/// copy kept; the tour's page and the review page showing the line, and the built package holding it.
@Suite("panel: the route of a tour", .ownThreads)
struct PanelRouteTests {
    static let site = "willamette-sweet-home"
    static let draft = "/drafts/willamette-sweet-home/santiam-wagon-road"

    /// The sample tour as a draft, without the route it came with (the tests add one).
    static func santiamDraft(_ server: TrailPackServer) throws -> String {
        let folder = try PanelLanguageTests.fixtureDraft(server)
        try FileManager.default.removeItem(atPath: folder + "/route.gpx")
        return folder
    }

    static func track(_ name: String) -> String { Support.fixture("gpx/tracks/" + name) }

    /// The tour page's form, sent as a browser sends it: multipart, the token in the action's query.
    static func sendTrack(
        _ client: some TestClientProtocol, _ visitor: PanelFlow.Visitor, name: String, bytes: [UInt8],
        json: Bool = false, uri: String = draft + "/route"
    ) async throws -> (status: HTTPResponse.Status, location: String?, body: String) {
        var headers: HTTPFields = [
            .cookie: visitor.cookie, .contentType: "multipart/form-data; boundary=----tp49",
        ]
        if json {
            headers[.accept] = "application/json"
            headers[HTTPField.Name("X-CSRF-Token")!] = visitor.csrf
        }
        var body = Array("------tp49\r\nContent-Disposition: form-data; name=\"track\"; filename=\"\(name)\"\r\n".utf8)
        body += Array("Content-Type: application/gpx+xml\r\n\r\n".utf8) + bytes + Array("\r\n------tp49--\r\n".utf8)
        return try await client.execute(
            uri: uri + "?_csrf=" + visitor.csrf, method: .post, headers: headers, body: ByteBuffer(bytes: body)
        ) { ($0.status, $0.headers[.location], String(buffer: $0.body)) }
    }

    /// The tour's page, its white space collapsed.
    static func page(_ client: some TestClientProtocol, _ visitor: PanelFlow.Visitor) async throws -> String {
        try await PanelLanguageTests.get(client, visitor, draft + "?saved=1").1
    }

    /// What `drafts-removed/<site>/<tour>/` holds.
    static func setAside(_ server: TrailPackServer) -> [String] {
        let folder = server.folder.root + "/drafts-removed/\(site)/santiam-wagon-road"
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test(
        "the Santiam recording imported without a script: 303 to the tour's page, which draws the line and says its length, climb, profile in words and each stop's distance along it; route.geojson is the simplified line, the recording not kept"
    )
    func importSantiam() async throws {
        try await PanelDraftTests.withPanel(maxMediaBytes: 64 << 20) { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let folder = try Self.santiamDraft(server)
            var html = try await Self.page(client, ranger)
            #expect(html.contains("id=\"route-none\"") && html.contains("Add the recorded track (GPX)"), "\(html)")
            #expect(html.contains("action=\"\(Self.draft)/route?_csrf=\(ranger.csrf)\""))
            #expect(!html.contains("data-route="))

            let recording = try Support.read(Support.fixture("santiam-wagon-road/route.gpx"))
            let sent = try await Self.sendTrack(client, ranger, name: "Santiam wagon road.gpx", bytes: recording)
            #expect(sent.status == .seeOther && sent.location == Self.draft + "?saved=1#tour-route", "\(sent)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/route.gpx"))
            let stored = try Support.read(folder + "/route.geojson")
            let document = try JSONParser.parse(stored).value
            #expect(document["type"] == .string("Feature"))
            #expect(document["properties"]?["importedFrom"] == .string("Santiam-wagon-road.gpx"))
            // The line the builder will package: what the builder itself makes of the recording.
            let fromGPX = TourRoute.read(file: Support.fixture("santiam-wagon-road/route.gpx"))
            let source = try #require(fromGPX.source)
            let built = try #require(TourRoute.make(source, stops: [], stages: []).route)
            let loaded = try #require(TourRoute.load(folder: folder).source)
            #expect(!loaded.recorded && loaded.lines == built.lines, "the stored line is the builder's own")
            #expect(stored.count < recording.count / 2, "\(stored.count) bytes kept of \(recording.count)")
            #expect(!String(decoding: stored, as: UTF8.self).contains("<time>"))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: server.folder.root + "/tmp").allSatisfy {
                    (try? FileManager.default.contentsOfDirectory(atPath: server.folder.root + "/tmp/" + $0))?.isEmpty
                        ?? true
                }, "no upload left behind")

            html = try await Self.page(client, ranger)
            let km = String(format: "%.1f km", built.summary.lengthMetres / 1000)
            #expect(html.contains("The route from &#39;Santiam-wagon-road.gpx&#39; was added: \(km)"), "\(html)")
            #expect(html.contains("<strong>\(km) ("), "the length, in km and mi")
            #expect(html.contains(" mi)</strong>"))
            #expect(html.contains(" m up and ") && html.contains(" ft up, "), "the climb, in m and ft")
            #expect(html.contains("role=\"img\" aria-label=\"Elevation profile: climbs from "))
            #expect(html.contains("id=\"route-profile-words\">Elevation along the route: it starts at "))
            #expect(html.contains("data-route=\"[[["), "the map is given the line")
            #expect(html.contains("km 0.0 along the route (mile 0.0)"), "the first stop at the start")
            #expect(html.components(separatedBy: " along the route (mile ").count - 1 == 8, "every stop's place")
            #expect(html.contains("Replace the route") && html.contains("Yes, remove the route"))
            // The map's line: lat, lon pairs within the tour's frame.
            let start = try #require(html.range(of: "data-route=\"")).upperBound
            let attribute = String(html[start...].prefix { $0 != "\"" }).replacingOccurrences(of: "&quot;", with: "\"")
            let lines = try JSONParser.parse(Array(attribute.utf8)).value
            guard case .array(let all) = lines, case .array(let first)? = all.first,
                case .array(let position)? = first.first, position.count == 2,
                case .number(let lat) = position[0], case .number(let lon) = position[1]
            else {
                Issue.record("data-route is not lines of positions: \(attribute.prefix(80))")
                return
            }
            #expect((44.3...44.5).contains(lat.double ?? .nan) && (-122.8 ... -121.6).contains(lon.double ?? .nan))
        }
    }

    @Test(
        "every recording of the fixtures becomes a route the builder takes as drawn: tracks from GPS units and apps, a file of routes only, a track with no elevations (no profile), a track across the antimeridian (cut there, in two lines)",
        arguments: [
            "garmin-etrex.gpx", "osmand.gpx", "qgis.gpx", "strava.gpx", "route-only-rte.gpx",
            "waypoints-and-track.gpx", "no-elevation-no-time.gpx", "antimeridian.gpx",
        ])
    func everyFixtureTrack(name: String) async throws {
        try await PanelDraftTests.withPanel(maxMediaBytes: 64 << 20) { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let draft = try await PanelFlow.createDraft(client, ranger, name: "Santiam Wagon Road")
            #expect(draft == Self.draft)
            let folder = server.folder.root + Self.draft
            let sent = try await Self.sendTrack(client, ranger, name: name, bytes: try Support.read(Self.track(name)))
            #expect(sent.status == .seeOther && sent.location == Self.draft + "?saved=1#tour-route", "\(sent)")
            let source = try #require(TourRoute.load(folder: folder).source, "no route.geojson")
            let expected = try #require(TourRoute.read(file: Self.track(name)).source)
            let made = try #require(TourRoute.make(expected, stops: [], stages: []).route)
            #expect(source.lines == made.lines, "the builder's own route of the recording")
            for line in source.lines {
                for (a, b) in zip(line, line.dropFirst()) { #expect(abs(a.longitude - b.longitude) <= 180) }
            }
            if name == "antimeridian.gpx" { #expect(source.lines.count >= 2, "cut at 180 degrees") }
            let html = try await Self.page(client, ranger)
            #expect(html.contains("id=\"route-summary\"") && html.contains("data-route=\"[[["), "\(name)")
            #expect(html.contains("id=\"route-profile\"") == made.hasElevations, "a profile exactly with elevations")
            // The tour's frame follows the stops and the route (it has no stops yet): the route is inside it.
            #expect(!html.contains("Route</a>: the route leaves the map frame"), "\(html)")
        }
    }

    @Test(
        "with the page's script: JSON with the page to open next, which says what was added; a refusal as JSON with its status",
        arguments: [true, false])
    func importWithScript(good: Bool) async throws {
        try await PanelDraftTests.withPanel(maxMediaBytes: 64 << 20) { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            _ = try Self.santiamDraft(server)
            let name = good ? "garmin-etrex.gpx" : "single-point.gpx"
            let sent = try await Self.sendTrack(
                client, ranger, name: name, bytes: try Support.read(Self.track(name)), json: true)
            let answer = try JSONParser.parse(Array(sent.body.utf8)).value
            if good {
                #expect(sent.status == .created, "\(sent.body)")
                #expect(answer["location"] == .string(Self.draft + "?saved=1#tour-route"))
                let html = try await PanelLanguageTests.get(client, ranger, Self.draft + "?saved=1").1
                #expect(html.contains("The route from &#39;garmin-etrex.gpx&#39; was added"), "\(html)")
            } else {
                #expect(sent.status == .unprocessableContent, "\(sent.body)")
                guard case .string(let message)? = answer["message"] else {
                    Issue.record("no message: \(sent.body)")
                    return
                }
                #expect(message.contains("'single-point.gpx' holds a track of a single point"), "\(message)")
            }
        }
    }

    @Test(
        "a file that gives no route is refused in the ranger's words, naming the file and the fix, on the tour's page beside the form (once); nothing is written and no upload is left behind",
        arguments: [
            (
                "single-point.gpx",
                "'single-point.gpx' holds a track of a single point: a route needs a line of at least two points"
            ),
            ("nan.gpx", "'nan.gpx' could not be read as a GPX track"),
            ("out-of-range.gpx", "'out-of-range.gpx' could not be read as a GPX track"),
            (
                "waypoints-only.gpx",
                "'waypoints-only.gpx' holds no recorded track: no <trk> or <rte> with points (it holds 2 waypoints only)"
            ),
            ("view.png", "'view.png' is not a GPX file"),
            ("notes.gpx", "'notes.gpx' could not be read as a GPX track"),
            (
                "big.gpx",
                "'big.gpx' is larger than 64.0 KB, the most the panel reads for a track: export only this tour's track"
            ),
        ])
    func refused(name: String, says: String) async throws {
        try await PanelDraftTests.withPanel(maxMediaBytes: 64 << 10) { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let folder = try Self.santiamDraft(server)
            let bytes: [UInt8]
            switch name {
            case "waypoints-only.gpx":
                bytes = Array(
                    """
                    <?xml version="1.0"?><gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1">
                    <wpt lat="44.4" lon="-122.1"><name>A</name></wpt><wpt lat="44.41" lon="-122.11"><name>B</name></wpt></gpx>
                    """.utf8)
            case "view.png": bytes = PanelFlow.png
            case "notes.gpx": bytes = Array("Met the crew at the trailhead at 9.\n".utf8)
            case "big.gpx": bytes = try Support.read(Support.fixture("santiam-wagon-road/route.gpx"))
            default: bytes = try Support.read(Self.track(name))
            }
            let sent = try await Self.sendTrack(client, ranger, name: name, bytes: bytes)
            #expect(sent.status == .seeOther && sent.location == Self.draft + "?refused=route#tour-route", "\(sent)")
            let html = try await PanelLanguageTests.get(client, ranger, Self.draft + "?refused=route").1
            let shown = says.replacingOccurrences(of: "'", with: "&#39;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
            #expect(html.contains("id=\"route-problem\">" + shown), "\(html)")
            #expect(html.contains("aria-invalid=\"true\""))
            #expect(!html.contains(server.folder.root), "no folder of the server is named")
            #expect(!html.lowercased().contains("error:") && !html.contains("Swift"), "no stack trace or type name")
            let again = try await PanelLanguageTests.get(client, ranger, Self.draft + "?refused=route").1
            #expect(!again.contains("id=\"route-problem\""), "said once")
            #expect(!FileManager.default.fileExists(atPath: folder + "/route.geojson"))
            let temp = server.folder.root + "/tmp"
            for upload in (try? FileManager.default.contentsOfDirectory(atPath: temp)) ?? [] {
                #expect(try FileManager.default.contentsOfDirectory(atPath: temp + "/" + upload).isEmpty)
            }
        }
    }

    @Test("the messages of hostile tracks say where and what, never a path of the server")
    func hostileMessages() throws {
        for (name, expected) in [
            ("nan.gpx", "is not a decimal number of degrees"),
            ("out-of-range.gpx", "is outside -90 to 90 degrees"),
        ] {
            do {
                _ = try DraftsController.readTrack(Self.track(name), given: name)
                Issue.record("\(name) was read")
            } catch {
                #expect(error.message.contains(expected), "\(error.message)")
                #expect(error.message.contains("line "), "the place in the file: \(error.message)")
                #expect(!error.message.contains(Support.root), "\(error.message)")
                #expect(error.message.hasSuffix("then add it again"), "\(error.message)")
            }
        }
    }

    @Test(
        "replace and remove: another track takes the route's place and the old one is kept aside; removing asks first (refused without the confirm button's yes) and keeps a copy"
    )
    func replaceAndRemove() async throws {
        try await PanelDraftTests.withPanel(maxMediaBytes: 64 << 20) { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let folder = try PanelLanguageTests.fixtureDraft(server)
            // The imported folder's own route.gpx is replaced too: one route, kept as route.geojson.
            var html = try await Self.page(client, ranger)
            #expect(html.contains("From the recorded track") == false && html.contains("data-route=\"[[["), "\(html)")
            var sent = try await Self.sendTrack(
                client, ranger, name: "strava.gpx", bytes: try Support.read(Self.track("strava.gpx")))
            #expect(sent.status == .seeOther)
            #expect(!FileManager.default.fileExists(atPath: folder + "/route.gpx"))
            #expect(Self.setAside(server).count == 1 && Self.setAside(server)[0].hasSuffix("-route.gpx"))
            html = try await Self.page(client, ranger)
            #expect(html.contains("The route it replaces is kept aside on the server."), "\(html)")
            #expect(html.contains("From the recorded track strava.gpx."), "\(html)")
            let strava = try Support.read(folder + "/route.geojson")

            sent = try await Self.sendTrack(
                client, ranger, name: "osmand.gpx", bytes: try Support.read(Self.track("osmand.gpx")))
            #expect(sent.status == .seeOther)
            let aside = Self.setAside(server)
            #expect(aside.count == 2, "\(aside)")
            let kept = try #require(aside.first { $0.hasSuffix("-route.geojson") })
            #expect(
                try Support.read(server.folder.root + "/drafts-removed/\(Self.site)/santiam-wagon-road/" + kept)
                    == strava, "the replaced route, byte for byte")
            #expect(try Support.read(folder + "/route.geojson") != strava)

            // Removing asks first: without the confirmation nothing moves.
            var (status, _, body) = try await PanelFlow.post(client, ranger, Self.draft + "/route/remove", [])
            #expect(
                status == .badRequest && body.contains("press &#39;Yes, remove the route&#39; to confirm"), "\(body)")
            #expect(FileManager.default.fileExists(atPath: folder + "/route.geojson"))
            let osmand = try Support.read(folder + "/route.geojson")
            var location: String?
            (status, location, body) = try await PanelFlow.post(
                client, ranger, Self.draft + "/route/remove", [("confirm", "yes")])
            #expect(status == .seeOther && location == Self.draft + "?saved=1#tour-route", "\(body)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/route.geojson"))
            let removed = Self.setAside(server).filter { !aside.contains($0) }
            #expect(removed.count == 1, "\(removed)")
            #expect(
                try Support.read(server.folder.root + "/drafts-removed/\(Self.site)/santiam-wagon-road/" + removed[0])
                    == osmand)
            html = try await Self.page(client, ranger)
            #expect(html.contains("The route was removed from the tour. A copy is kept aside on the server"), "\(html)")
            #expect(html.contains("id=\"route-none\"") && !html.contains("data-route="))
            // Again: nothing to remove, said plainly.
            (status, _, _) = try await PanelFlow.post(
                client, ranger, Self.draft + "/route/remove", [("confirm", "yes")])
            #expect(status == .seeOther)
            #expect(try await Self.page(client, ranger).contains("The tour has no route to remove."))
            // Another site's publisher may do neither.
            let other = try await PanelFlow.signIn(server, panel, user: "sam", site: "deschutes-bend")
            sent = try await Self.sendTrack(
                client, other, name: "strava.gpx", bytes: try Support.read(Self.track("strava.gpx")))
            #expect(sent.status == .forbidden)
            (status, _, _) = try await PanelFlow.post(client, other, Self.draft + "/route/remove", [("confirm", "yes")])
            #expect(status == .forbidden)
            #expect(!FileManager.default.fileExists(atPath: folder + "/route.geojson"))
        }
    }

    @Test(
        "the route's warnings are among the page's findings, beside the route, in the ranger's words: a stop far from the route and a stop out of order"
    )
    func findings() async throws {
        try await PanelDraftTests.withPanel(maxMediaBytes: 64 << 20) { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let folder = try Self.santiamDraft(server)
            let recording = try Support.read(Support.fixture("santiam-wagon-road/route.gpx"))
            _ = try await Self.sendTrack(client, ranger, name: "santiam.gpx", bytes: recording)
            var html = try await Self.page(client, ranger)
            #expect(
                !html.contains("href=\"\(Self.draft)#tour-route\">Route</a>"), "the sample's stops are on the route")
            // Stops 3 and 4 swapped: stop 4 now comes before stop 3 on the trail.
            let editor = try await PanelFlow.get(client, ranger, Self.draft).1
            let (status, _, body) = try await PanelFlow.post(
                client, ranger, Self.draft + "/order",
                [("revision", try PanelFlow.revision(editor)), ("order", "1,2,4,3,5,6,7,8")])
            #expect(status == .seeOther, "\(body)")
            html = try await Self.page(client, ranger)
            #expect(html.contains("href=\"\(Self.draft)#tour-route\">Route</a>: stop 4 ("), "\(html)")
            #expect(html.contains(") comes before stop 3 ("))
            #expect(html.contains("put the stops in walking order (the Up and Down buttons"))
            #expect(!html.contains("tour.json") && !html.contains("renumber"))
            // A stop moved 2 km off the trail.
            let stop = folder + "/waypoints/02-cascadia/waypoint.json"
            var text = try String(contentsOfFile: stop, encoding: .utf8)
            text = text.replacingOccurrences(of: "\"latitude\": 44.3979", with: "\"latitude\": 44.4179")
            try text.write(toFile: stop, atomically: true, encoding: .utf8)
            html = try await Self.page(client, ranger)
            #expect(
                html.contains(" m from the route (more than 200 m); check its position, or the track misses it"),
                "\(html)")
            #expect(html.contains(" from it</span>"), "the stop list says how far off it is")
        }
    }

    @Test(
        "the built package holds map/route.geojson made from the imported line, the review page shows its length and profile and draws it, with each stop's distance"
    )
    func builtAndReviewed() async throws {
        try await PanelDraftTests.withPanel(maxMediaBytes: 64 << 20) { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let folder = try Self.santiamDraft(server)
            let recording = try Support.read(Support.fixture("santiam-wagon-road/route.gpx"))
            _ = try await Self.sendTrack(client, ranger, name: "santiam.gpx", bytes: recording)
            let editor = try await PanelFlow.get(client, ranger, Self.draft).1
            let (status, location, answer) = try await PanelFlow.post(
                client, ranger, Self.draft + "/build",
                [("revision", try PanelFlow.revision(editor)), ("version", "1.0.0")])
            #expect(status == .seeOther, "\(answer)")
            let built = try await PanelFlow.get(client, ranger, try #require(location)).1
            let marker = "id=\"built-sha256\">"
            let sha = String(try #require(built.range(of: marker).map { built[$0.upperBound...] }).prefix(64))
            let blob = server.folder.root + "/blobs/\(sha.prefix(2))/\(sha).zip"
            let reader = try PackageReader(path: blob)
            #expect(reader.manifest.mapAssets.contains { $0.path == Route.entryName })
            let route = try #require(try reader.route())
            let source = try #require(TourRoute.load(folder: folder).source)
            #expect(route.lines == source.lines)
            #expect(route.summary.stops.count == 8 && route.hasElevations)
            let verified = try Verifier.verify(path: blob)
            #expect(!verified.findings.hasErrors, "\(verified.findings)")

            let review = try await PanelLanguageTests.get(
                client, ranger, "/packages/\(PanelReviewTests.id)/versions/1.0.0"
            ).1
            #expect(review.contains("id=\"review-route-heading\">Route</h3>"), "\(review)")
            #expect(review.contains("<strong>\(String(format: "%.1f km", route.summary.lengthMetres / 1000)) ("))
            #expect(review.contains("aria-label=\"Elevation profile: climbs from "))
            #expect(review.contains("data-route=\"[[["))
            #expect(review.contains("km 0.0 along the route (mile 0.0)"))
        }
    }

    @Test(
        "lengths, climbs and distances in words; the profile's box, its lowest and highest points kept, and its words")
    func words() throws {
        #expect(DraftsController.lengthWords(96_412.3) == "96.4 km (59.9 mi)")
        #expect(
            DraftsController.climbWords(up: 1571.2, down: 842.6)
                == "1,571 m up and 843 m down (5,155 ft up, 2,764 ft down)")
        #expect(DraftsController.grouped(1_234_567) == "1,234,567" && DraftsController.grouped(-1452) == "-1,452")
        #expect(DraftsController.grouped(999) == "999")
        #expect(
            DraftsController.alongWords(RouteStop(slug: "a", distanceMetres: 14_030, offsetMetres: 3))
                == "km 14.0 along the route (mile 8.7)")
        #expect(
            DraftsController.alongWords(RouteStop(slug: "a", distanceMetres: 0, offsetMetres: 1_240))
                == "km 0.0 along the route (mile 0.0), 1.2 km from it")
        #expect(
            DraftsController.alongWords(RouteStop(slug: "a", distanceMetres: 0, offsetMetres: 350))?.hasSuffix(
                ", 350 m from it") == true)
        // 3,000 positions up a hill and down: one spike at the middle survives the columns.
        var line: [RoutePosition] = []
        for i in 0..<3000 {
            let e = i == 1500 ? 1452.0 : 165 + Double(min(i, 3000 - i)) * 0.2
            line.append(RoutePosition(longitude: -122 + Double(i) * 0.0001, latitude: 44.4, elevation: e))
        }
        let summary = RouteSummary(lengthMetres: RouteMath.length([line]), stops: [])
        let profile = try #require(DraftsController.profile(Route(lines: [line], summary: summary)))
        let numbers = profile.line.split(whereSeparator: { "ML ".contains($0) }).compactMap { Double($0) }
        let xs = stride(from: 0, to: numbers.count, by: 2).map { numbers[$0] }
        let ys = stride(from: 1, to: numbers.count, by: 2).map { numbers[$0] }
        #expect(xs.count <= 1_200, "at most two points a column: \(xs.count)")
        #expect(xs.first == 0 && xs.last == 600 && xs == xs.sorted())
        #expect(ys.min() == 6 && ys.max() == 94, "the highest point at the top, the lowest at the bottom")
        #expect(profile.summary == "climbs from 165 m to 1,452 m")
        #expect(profile.words.hasPrefix("Elevation along the route: it starts at 165 m, climbs to 1,452 m at km "))
        #expect(
            profile.words.hasSuffix("and ends at 165 m, km \(String(format: "%.1f", summary.lengthMetres / 1000))."))
        // Without elevations: no profile.
        let flat = line.map { RoutePosition(longitude: $0.longitude, latitude: $0.latitude) }
        #expect(DraftsController.profile(Route(lines: [flat], summary: summary)) == nil)
        // A long route is given to the map simplified, within the bound.
        let long = (0..<20_000).map {
            RoutePosition(longitude: -122 + Double($0) * 0.00005, latitude: 44.4 + sin(Double($0) / 50) * 0.001)
        }
        let text = DraftsController.mapLines(Route(lines: [long], summary: summary))
        #expect(text.components(separatedBy: "],[").count <= DraftsController.maxMapPositions)
        #expect(text.hasPrefix("[[[44.400000,-122.000000],"))
    }
}
