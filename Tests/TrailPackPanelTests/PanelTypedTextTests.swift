import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TrailPackBuilder
import TrailPackCore
import TrailPackCrypto
import TrailPackTestSupport

@testable import TrailPackPanel

/// Nothing a ranger types is lost: saves are held to the stop (or the tour's field) they change, an
/// autosave answers with the revisions the page needs next, a conflict says who made it, and a
/// form sent after the session ended is kept through signing in again.
@Suite("panel: typed text is never lost", .ownThreads)
struct PanelTypedTextTests {
    static func hidden(_ name: String, in html: String) throws -> String {
        let marker = "name=\"\(name)\" value=\""
        let start = try #require(html.range(of: marker), "no \(name) in the page").upperBound
        return String(html[start...].prefix { $0 != "\"" })
    }

    /// A draft with two stops; the pages of both, as two tabs opened them.
    static func twoStops(
        _ client: some TestClientProtocol, _ ranger: PanelFlow.Visitor
    ) async throws -> (draft: String, first: String, second: String) {
        let draft = try await PanelFlow.draftWithStop(client, ranger, name: "Two Tabs", stop: "Trailhead")
        let html = try await PanelFlow.get(client, ranger, draft).1
        let added = try await PanelFlow.post(
            client, ranger, draft + "/stops",
            [
                ("revision", try PanelFlow.revision(html)), ("name", "Lake"), ("latitude", "44.41"),
                ("longitude", "-122.2"),
            ])
        #expect(added.0 == .seeOther, "\(added.2)")
        return (
            draft, try await PanelFlow.get(client, ranger, draft + "/stops/1").1,
            try await PanelFlow.get(client, ranger, draft + "/stops/2").1
        )
    }

    static func stopFields(_ page: String, name: String, description: String) throws -> [(String, String)] {
        [
            ("revision", try hidden("revision", in: page)), ("stopRevision", try hidden("stopRevision", in: page)),
            ("name", name), ("latitude", "44.4"), ("longitude", "-122.1"), ("description", description),
        ]
    }

    @Test(
        "two tabs on different stops both save; the same stop from a stale tab is a conflict that says it was this person's other tab, or another browser"
    )
    func perStop() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let (draft, first, second) = try await Self.twoStops(client, ranger)
            var saved = try await PanelFlow.post(
                client, ranger, draft + "/stops/1", try Self.stopFields(first, name: "Trailhead", description: "One"))
            #expect(saved.0 == .seeOther, "\(saved.2)")
            // The second tab opened before the first saved: a different stop, so no conflict.
            saved = try await PanelFlow.post(
                client, ranger, draft + "/stops/2", try Self.stopFields(second, name: "Lake", description: "Two"))
            #expect(saved.0 == .seeOther, "\(saved.2)")
            let folder = server.folder.root + draft
            #expect(try TourDraft.read(folder: folder).stops.map(\.description) == ["One", "Two"])
            // The first tab's page again, stale: its stop changed since.
            let stale = try await PanelFlow.post(
                client, ranger, draft + "/stops/1", try Self.stopFields(first, name: "Trailhead", description: "Lost"))
            #expect(stale.0 == .conflict)
            #expect(
                stale.2.contains("You changed this stop just now in another tab or window of this browser"),
                "\(stale.2)")
            #expect(!stale.2.contains("someone else"))
            // The same person signed in on another computer, then a stale page here.
            let session = try await panel.sessions.start(user: "ranger")
            let laptop = PanelFlow.Visitor(cookie: "trailpack_session=\(session.id)", csrf: session.csrfToken)
            let fresh = try await PanelFlow.get(client, laptop, draft + "/stops/1").1
            saved = try await PanelFlow.post(
                client, laptop, draft + "/stops/1", try Self.stopFields(fresh, name: "Trailhead", description: "Laptop")
            )
            #expect(saved.0 == .seeOther, "\(saved.2)")
            let other = try await PanelFlow.post(
                client, ranger, draft + "/stops/1", try Self.stopFields(fresh, name: "Trailhead", description: "Phone"))
            #expect(other.0 == .conflict && other.2.contains("from another computer or browser"), "\(other.2)")
            // Someone else: named.
            let rita = try await PanelFlow.signIn(server, panel, user: "rita", site: "willamette-sweet-home")
            let hers = try await PanelFlow.get(client, rita, draft + "/stops/2").1
            saved = try await PanelFlow.post(
                client, rita, draft + "/stops/2", try Self.stopFields(hers, name: "Lake", description: "Rita's"))
            #expect(saved.0 == .seeOther)
            let mine = try await PanelFlow.post(
                client, ranger, draft + "/stops/2", try Self.stopFields(second, name: "Lake", description: "Mine"))
            #expect(mine.0 == .conflict && mine.2.contains("rita changed this stop just now"), "\(mine.2)")
            #expect(try TourDraft.read(folder: folder).stops.map(\.description) == ["Laptop", "Rita's"])
        }
    }

    @Test(
        "an autosave (Accept: application/json) answers 200 with the next revisions, and saves again with them; its conflict is JSON too"
    )
    func autosave() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let (draft, first, _) = try await Self.twoStops(client, ranger)
            func save(_ fields: [(String, String)]) async throws -> (HTTPResponse.Status, String) {
                var headers = ranger.form
                headers[.accept] = "application/json"
                return try await client.execute(
                    uri: draft + "/stops/1", method: .post, headers: headers,
                    body: ByteBuffer(string: PanelFlow.encode(fields + [("_csrf", ranger.csrf)]))
                ) { ($0.status, String(buffer: $0.body)) }
            }
            var fields = try Self.stopFields(first, name: "Trailhead", description: "Typed")
            let (status, body) = try await save(fields)
            #expect(status == .ok, "\(body)")
            let answer = try JSON.parse(body)
            let revision = try #require(answer["revision"]?.string),
                stopRevision = try #require(answer["stopRevision"]?.string)
            #expect(stopRevision != fields[1].1 && answer["message"]?.string == "Saved")
            // The next autosave names the new revisions: accepted.
            fields[0].1 = revision
            fields[1].1 = stopRevision
            fields[5].1 = "Typed more"
            #expect(try await save(fields).0 == .ok)
            #expect(try TourDraft.read(folder: server.folder.root + draft).stops[0].description == "Typed more")
            // One that names the old ones: a JSON conflict the page shows as it is.
            let stale = try await save(try Self.stopFields(first, name: "Trailhead", description: "Old"))
            let staleMessage = try PanelFlow.message(stale.1)
            #expect(stale.0 == .conflict && staleMessage.contains("another tab"), "\(stale.1)")
        }
    }

    @Test(
        "tour details are merged field by field: two tabs changing different fields both keep theirs; the same field changed differently is a conflict naming it"
    )
    func tourFields() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let draft = try await PanelFlow.createDraft(client, ranger, name: "Merge Me")
            let page = try await PanelFlow.get(client, ranger, draft).1
            func fields(name: String, park: String) throws -> [(String, String)] {
                var all: [(String, String)] = [
                    ("revision", try PanelFlow.revision(page)), ("name", name), ("park", park),
                    ("followStops", "1"),
                ]
                for field in ["name", "park", "siteName", "id", "version", "description", "frame"] {
                    all.append(("was-" + field, try Self.hidden("was-" + field, in: page)))
                }
                for field in ["siteName", "id", "version"] {
                    all.append((field, try Self.hidden("was-" + field, in: page)))
                }
                all.append(("description", ""))
                return all
            }
            let oldPark = try Self.hidden("was-park", in: page)
            var saved = try await PanelFlow.post(
                client, ranger, draft, try fields(name: "Santiam Wagon Road", park: oldPark))
            #expect(saved.0 == .seeOther, "\(saved.2)")
            saved = try await PanelFlow.post(client, ranger, draft, try fields(name: "Merge Me", park: "Willamette NF"))
            #expect(saved.0 == .seeOther, "the other tab changed only the park: \(saved.2)")
            let merged = try TourDraft.read(folder: server.folder.root + draft)
            #expect(merged.name == "Santiam Wagon Road" && merged.park == "Willamette NF")
            let clash = try await PanelFlow.post(
                client, ranger, draft, try fields(name: "Fish Lake", park: "Elsewhere"))
            #expect(clash.0 == .conflict, "\(clash.2)")
            #expect(
                clash.2.contains("this tour&#39;s name and park or forest")
                    || clash.2.contains("this tour's name and park or forest"), "\(clash.2)")
            #expect(try TourDraft.read(folder: server.folder.root + draft).name == "Santiam Wagon Road")
        }
    }

    @Test(
        "a form sent after the session ended: the sign-in page keeps it; signing in shows what was typed and a button that saves it; a script's request gets 401 JSON; /session gives a renewed page its token"
    )
    func sessionEnded() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let (draft, first, _) = try await Self.twoStops(client, ranger)
            try await server.catalog.setPassword(
                name: "ranger", hash: PasswordHash.make("correct horse", cost: .init(logN: 10, r: 8, p: 1)))
            let fields = try Self.stopFields(first, name: "Trailhead", description: "Typed for an hour <b>")
            try await panel.sessions.end(id: String(ranger.cookie.dropFirst("trailpack_session=".count)))
            let (status, _, html) = try await PanelFlow.post(client, ranger, draft + "/stops/1", fields)
            #expect(status == .unauthorized, "\(html)")
            #expect(html.contains("not saved yet") && html.contains("name=\"resumeAction\""), "\(html)")
            let resume = try Self.hidden("resume", in: html), action = try Self.hidden("resumeAction", in: html)
            #expect(action == draft + "/stops/1")
            // Signing in (with the page's hidden fields): the next page shows the text and saves it with a new token.
            let signedIn = try await client.execute(
                uri: "/login", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded", .origin: "http://localhost"],
                body: ByteBuffer(
                    string: PanelFlow.encode([
                        ("name", "ranger"), ("password", "correct horse"), ("next", "/"),
                        ("resumeAction", Self.unescaped(action)), ("resume", Self.unescaped(resume)),
                    ]))
            ) { ($0.status, $0.headers[.setCookie] ?? "", String(buffer: $0.body)) }
            #expect(signedIn.0 == .ok, "\(signedIn.2)")
            #expect(signedIn.2.contains("Typed for an hour &lt;b&gt;"), "shown, escaped: \(signedIn.2)")
            let cookie = String(signedIn.1.prefix { $0 != ";" })
            let csrf = try Self.hidden("_csrf", in: signedIn.2)
            #expect(csrf != ranger.csrf)
            let again = PanelFlow.Visitor(cookie: cookie, csrf: csrf)
            var resent: [(String, String)] = []
            for match in signedIn.2.matches(of: /<input type="hidden" name="([^"]+)" value="([^"]*)">/) {
                resent.append((Self.unescaped(String(match.1)), Self.unescaped(String(match.2))))
            }
            #expect(resent.contains { $0.0 == "description" && $0.1 == "Typed for an hour <b>" }, "\(resent)")
            let posted = try await client.execute(
                uri: draft + "/stops/1", method: .post, headers: again.form,
                body: ByteBuffer(string: PanelFlow.encode(resent))
            ) { $0.status }
            #expect(posted == .seeOther)
            #expect(
                try TourDraft.read(folder: server.folder.root + draft).stops[0].description == "Typed for an hour <b>")

            // A script's save with the ended session: 401 JSON that says the text is still on the page.
            let script = try await client.execute(
                uri: draft + "/stops/1", method: .post,
                headers: [
                    .cookie: ranger.cookie, .contentType: "application/x-www-form-urlencoded",
                    .accept: "application/json", HTTPField.Name("X-CSRF-Token")!: ranger.csrf,
                ], body: ByteBuffer(string: PanelFlow.encode(fields))
            ) { ($0.status, String(buffer: $0.body)) }
            let scriptMessage = try PanelFlow.message(script.1)
            #expect(script.0 == .unauthorized && scriptMessage.contains("still on this page"), "\(script.1)")
            // The token of the live session, for a page renewed in another tab; none without one.
            let token = try await PanelFlow.get(client, again, "/session")
            let renewed = try JSON.parse(token.1)["csrf"]?.string
            #expect(token.0 == .ok && renewed == csrf)
            #expect(try await PanelFlow.get(client, ranger, "/session").0 == .unauthorized)
            // A form without our token field is not kept: refused as before.
            let forged = try await client.execute(
                uri: draft + "/stops/1", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "description=x")
            ) { $0.status }
            #expect(forged == .forbidden)
        }
    }

    @Test(
        "the map opens where the site's tours are: a new tour without stops opens around the site's other drafts; a stop added by the page's script answers JSON with its marker"
    )
    func mapStartsAtTheSite() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let lonely = try await PanelFlow.createDraft(client, ranger, name: "Nowhere Yet")
            var html = try await PanelFlow.get(client, ranger, lonely).1
            #expect(!html.contains("data-view-south"), "no tour of the site has a stop yet")
            _ = try await PanelFlow.draftWithStop(client, ranger, name: "Somewhere", stop: "Trailhead")
            html = try await PanelFlow.get(client, ranger, lonely).1
            #expect(html.contains("data-view-south=\"44.380000\"") && html.contains("data-view-east=\"-122.080000\""))
            #expect(html.contains("<noscript>") && html.contains("id=\"tour-map\""))
            // Adding a stop from the page's script: JSON with what the map needs, no page.
            var headers = ranger.form
            headers[.accept] = "application/json"
            let (status, body) = try await client.execute(
                uri: lonely + "/stops", method: .post, headers: headers,
                body: ByteBuffer(
                    string: PanelFlow.encode([
                        ("_csrf", ranger.csrf), ("revision", try PanelFlow.revision(html)), ("name", "Lake"),
                        ("latitude", "44.41"), ("longitude", "-122.2"),
                    ]))
            ) { ($0.status, String(buffer: $0.body)) }
            #expect(status == .created, "\(body)")
            let answer = try JSON.parse(body)
            #expect(answer["stop"]?["n"] == .number(JSONNumber(Int64(1))) && answer["stop"]?["name"]?.string == "Lake")
            #expect(answer["stop"]?["rev"]?.string?.count == 16 && answer["revision"]?.string != nil)
            html = try await PanelFlow.get(client, ranger, lonely).1
            #expect(!html.contains("data-view-south"), "its own stop frames it now")
        }
    }

    @Test(
        "plain words: a detail named as a ranger writes it ('Elevation (ft)') is kept under the key a sheet would give it, and shown as written; removals ask first; the history says what happened without state names"
    )
    func plainWords() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let (draft, first, _) = try await Self.twoStops(client, ranger)
            var fields = try Self.stopFields(first, name: "Trailhead", description: "Start")
            fields += [
                ("propertyKey", "Elevation (ft)"), ("propertyValue", "1,420"), ("propertyKey", "!!"),
                ("propertyValue", "x"),
            ]
            var saved = try await PanelFlow.post(client, ranger, draft + "/stops/1", fields)
            #expect(saved.0 == .badRequest && saved.2.contains("at least one letter or digit"), "\(saved.2)")
            fields.removeLast(2)
            saved = try await PanelFlow.post(client, ranger, draft + "/stops/1", fields)
            #expect(saved.0 == .seeOther, "\(saved.2)")
            let stop = try TourDraft.read(folder: server.folder.root + draft).stops[0]
            #expect(stop.properties.map(\.key) == ["elevationFt"], "\(stop.properties)")
            #expect(stop.propertyLabels == ["elevationFt": "Elevation (ft)"], "the ranger's words are kept")
            var page = try await PanelFlow.get(client, ranger, draft + "/stops/1").1
            #expect(page.contains("name=\"propertyKey\" value=\"Elevation (ft)\""), "shown as written")
            #expect(page.contains("apps read it as elevationFt"))
            // Renamed to a name that is a key already: the label goes, its file with it.
            fields =
                try Self.stopFields(page, name: "Trailhead", description: "Start") + [
                    ("propertyKey", "elevation"), ("propertyValue", "1,420"),
                ]
            saved = try await PanelFlow.post(client, ranger, draft + "/stops/1", fields)
            #expect(saved.0 == .seeOther, "\(saved.2)")
            let renamed = try TourDraft.read(folder: server.folder.root + draft).stops[0]
            #expect(renamed.properties.map(\.key) == ["elevation"] && renamed.propertyLabels.isEmpty)
            let stopFolder = server.folder.root + draft + "/waypoints/" + (renamed.folder ?? "")
            #expect(!FileManager.default.fileExists(atPath: stopFolder + "/" + TourDraft.detailNamesFileName))
            page = try await PanelFlow.get(client, ranger, draft + "/stops/1").1
            #expect(page.contains("data-confirm=\"Remove stop 1, Trailhead, with its files?"))
            #expect(!page.contains("drafts-removed"))
            #expect(
                ReviewController.actionWords("push") == "released"
                    && ReviewController.actionWords("start") == "sent for review")
            #expect(ReviewController.detailWords("start", "draft → pending") == "")
            // A detail's key as the review page shows it (the package keeps keys, not the ranger's labels).
            #expect(ReviewController.detailName("elevationMeters") == "Elevation (m)")
            #expect(ReviewController.detailName("trail_surface") == "Trail surface")
            #expect(ReviewController.detailName("ADA_access") == "ADA access")
            #expect(ReviewController.detailName("distanceFromTrailheadMiles") == "Distance from trailhead (mi)")
            #expect(ReviewController.detailName("Höhe über NN") == "Höhe über NN", "not an identifier: as it is")
            #expect(ReviewController.detailWords("deny", "pending → draft; approvals cleared; blurry") == "“blurry”")
        }
    }

    @Test(
        "a file of the same name is not replaced unasked; asked to, it replaces the old one (kept aside) and clears the texts that described it"
    )
    func sameNameUpload() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let (draft, _, _) = try await Self.twoStops(client, ranger)
            var up = try await PanelFlow.upload(
                client, ranger, draft + "/stops/1/files", name: "view.png", bytes: PanelFlow.png)
            #expect(up.0 == .created, "\(up.1)")
            let page = try await PanelFlow.get(client, ranger, draft + "/stops/1").1
            var fields = try Self.stopFields(page, name: "Trailhead", description: "Start")
            fields.append(("alt-1", "The old view, to the east"))
            #expect(try await PanelFlow.post(client, ranger, draft + "/stops/1", fields).0 == .seeOther)
            let newer = PanelFlow.png + [1, 2, 3]
            up = try await PanelFlow.upload(client, ranger, draft + "/stops/1/files", name: "View.png", bytes: newer)
            let asked = try PanelFlow.message(up.1)
            #expect(up.0 == .conflict && asked.contains("Replace it?"), "\(up.1)")
            let folder = server.folder.root + draft + "/waypoints/01-trailhead"
            #expect(try Support.read(folder + "/view.png") == PanelFlow.png, "nothing replaced unasked")
            up = try await client.execute(
                uri: draft + "/stops/1/files?name=view.png&replace=1", method: .put,
                headers: [
                    .cookie: ranger.cookie, HTTPField.Name("X-CSRF-Token")!: ranger.csrf,
                    .contentType: "application/octet-stream",
                ], body: ByteBuffer(bytes: newer)
            ) { ($0.status, String(buffer: $0.body)) }
            #expect(up.0 == .created, "\(up.1)")
            #expect(try Support.read(folder + "/view.png") == newer)
            let asset = try TourDraft.read(folder: server.folder.root + draft).stops[0].assets.first
            #expect(asset?.file == "view.png" && asset?.alt == nil, "the old alt text described the old photo")
            let aside = try FileManager.default.subpathsOfDirectory(atPath: server.folder.root + "/drafts-removed")
            #expect(aside.contains { $0.hasSuffix("view.png") }, "\(aside)")
        }
    }

    @Test(
        "a site's region map (trailpack admin site map) is the base map of a new tour: the editor draws it and opens on it; its tiles are served to the site's rangers only"
    )
    func regionMap() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let other = try await PanelFlow.signIn(server, panel, user: "otto", site: "colorado-peak-checklists")
            let draft = try await PanelFlow.createDraft(client, ranger, name: "New Walk")
            var html = try await PanelFlow.get(client, ranger, draft).1
            #expect(html.contains("a coordinate grid") && !html.contains("data-own-tiles"))
            let path = try #require(panel.drafts.siteMapPath("willamette-sweet-home"))
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: Support.fixture("santiam-wagon-road") + "/map/santiam-wagon-road.pmtiles", toPath: path)
            html = try await PanelFlow.get(client, ranger, draft).1
            #expect(html.contains("the site's region map (zoom 8–13)"), "\(html)")
            #expect(html.contains("data-own-tiles=\"/sites/willamette-sweet-home/tiles/{z}/{x}/{y}\""))
            #expect(html.contains("data-view-south="), "a tour without stops opens on the region")
            // A tile of the region (zoom 10 at 44.40 N, 122.30 W: Python's pmtiles reads one there), and
            // none for another site's ranger.
            let (x, y) = (164, 370)
            let (status, type) = try await client.execute(
                uri: "/sites/willamette-sweet-home/tiles/10/\(x)/\(y)", method: .get, headers: ranger.headers
            ) { ($0.status, $0.headers[.contentType] ?? "") }
            #expect(status == .ok && type == "image/png", "\(status) \(type)")
            #expect(
                try await PanelFlow.get(client, other, "/sites/willamette-sweet-home/tiles/10/\(x)/\(y)").0 == .notFound
            )
            #expect(try await PanelFlow.get(client, ranger, "/sites/no-such-site/tiles/10/1/1").0 == .notFound)
            // A reviewer sees every site's versions, and so the region map under them.
            let rita = try await PanelFlow.signIn(server, panel, user: "rita", role: .reviewer, site: nil)
            #expect(try await PanelFlow.get(client, rita, "/sites/willamette-sweet-home/tiles/10/\(x)/\(y)").0 == .ok)
            // What the visitor preview asks, to draw it under a version without its own map: its zooms
            // and its tiles' address; the same access as its tiles.
            let covered = try await PanelFlow.get(client, rita, "/sites/willamette-sweet-home/map")
            let answer = try JSON.parse(covered.1)
            #expect(covered.0 == .ok, "\(covered)")
            #expect(answer["tiles"] == .string("/sites/willamette-sweet-home/tiles/{z}/{x}/{y}"), "\(covered.1)")
            #expect(answer["minZoom"]?.int == 8 && answer["maxZoom"]?.int == 13, "\(covered.1)")
            #expect(try await PanelFlow.get(client, other, "/sites/willamette-sweet-home/map").0 == .notFound)
            #expect(try await PanelFlow.get(client, ranger, "/sites/no-such-site/map").0 == .notFound)
        }
    }

    static func unescaped(_ html: String) -> String {
        html.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test("the form a session kept goes back to a draft's page only: a foreign or odd action is not resumed")
    func keptFormStaysHome() {
        #expect(PanelController.pagePath(of: "/drafts/s/t/stops/3/remove-file") == "/drafts/s/t/stops/3")
        #expect(PanelController.pagePath(of: "/drafts/s/t/order") == "/drafts/s/t")
        #expect(PanelController.pagePath(of: "/reviews/x") == "/")
        for action in ["/drafts/../admin/sites", "/drafts/s/./t", "/drafts/%2e%2e/admin", "/admin/sites", "//x"] {
            #expect(PanelController.keptForm(PanelForm("resumeAction=\(action)&resume=a%3D1")) == nil, "\(action)")
        }
        #expect(PanelController.keptForm(PanelForm("resumeAction=/drafts/s/t&resume=a%3D1"))?.action == "/drafts/s/t")
        #expect(
            PanelController.formPairs("a=1&b=x+y%26&=z&c").map { "\($0.name)=\($0.value)" } == ["a=1", "b=x y&", "c="])
        #expect(
            PanelController.formPairs(PanelController.formBody([("d", "é & \"q\"\n")])).first?.value == "é & \"q\"\n")
    }
}
