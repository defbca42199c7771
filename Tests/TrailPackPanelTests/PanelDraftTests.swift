import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TrailPackBuilder
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO
import TrailPackPanel
import TrailPackServer
import TrailPackTestSupport

/// Signing in and driving the panel's forms through the router, as a browser would.
enum PanelFlow {
    struct Visitor: Sendable {
        var cookie: String
        var csrf: String
        var headers: HTTPFields { [.cookie: cookie] }
        var form: HTTPFields { [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"] }
    }

    /// A publisher (granted `site`) with a session, or another role.
    static func signIn(
        _ server: TrailPackServer, _ panel: PanelController, user: String = "ranger", role: Catalog.Role = .publisher,
        site: String?
    ) async throws -> Visitor {
        try await server.catalog.addUser(name: user, role: role)
        if let site {
            if try await !server.catalog.siteExists(site) { try await server.catalog.addSite(id: site, name: nil) }
            try await server.catalog.grant(user: user, site: site)
        }
        let session = try await panel.sessions.start(user: user)
        return Visitor(cookie: "trailpack_session=\(session.id)", csrf: session.csrfToken)
    }

    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { name, value in
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            return
                "\(name.addingPercentEncoding(withAllowedCharacters: allowed)!)=\(value.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
    }

    /// POSTs a form with the visitor's CSRF token; returns the status, the Location and the body.
    @discardableResult
    static func post(
        _ client: some TestClientProtocol, _ visitor: Visitor, _ uri: String, _ fields: [(String, String)]
    ) async throws -> (HTTPResponse.Status, String?, String) {
        try await client.execute(
            uri: uri, method: .post, headers: visitor.form,
            body: ByteBuffer(string: encode([("_csrf", visitor.csrf)] + fields))
        ) {
            ($0.status, $0.headers[.location], String(buffer: $0.body))
        }
    }

    static func get(
        _ client: some TestClientProtocol, _ visitor: Visitor, _ uri: String
    ) async throws -> (HTTPResponse.Status, String) {
        try await client.execute(uri: uri, method: .get, headers: visitor.headers) {
            ($0.status, String(buffer: $0.body))
        }
    }

    /// The draft's path after creating it from the home page's form.
    static func createDraft(
        _ client: some TestClientProtocol, _ visitor: Visitor, name: String, site: String = "willamette-sweet-home"
    ) async throws -> String {
        let (status, location, body) = try await post(
            client, visitor, "/drafts",
            [
                ("site", site), ("name", name), ("park", "Willamette National Forest"),
                ("description", "A tour of the old road."),
            ])
        #expect(status == .seeOther, "\(body)")
        return try #require(location)
    }

    /// The revision hidden in a page's forms.
    /// A new draft with one stop (at 44.4, -122.1); its path.
    static func draftWithStop(
        _ client: some TestClientProtocol, _ visitor: Visitor, name: String, stop: String
    ) async throws -> String {
        let draft = try await createDraft(client, visitor, name: name)
        let html = try await get(client, visitor, draft).1
        let added = try await post(
            client, visitor, draft + "/stops",
            [("revision", try revision(html)), ("name", stop), ("latitude", "44.4"), ("longitude", "-122.1")])
        #expect(added.0 == .seeOther, "\(added.2)")
        return draft
    }

    static func revision(_ html: String) throws -> String {
        let marker = "name=\"revision\" value=\""
        let start = try #require(html.range(of: marker)).upperBound
        return String(html[start...].prefix { $0 != "\"" })
    }

    static func upload(
        _ client: some TestClientProtocol, _ visitor: Visitor, _ uri: String, name: String, bytes: [UInt8],
        csrf: String? = nil
    ) async throws -> (HTTPResponse.Status, String) {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        return try await client.execute(
            uri: uri + "?name=" + name.addingPercentEncoding(withAllowedCharacters: allowed)!, method: .put,
            headers: [
                .cookie: visitor.cookie, HTTPField.Name("X-CSRF-Token")!: csrf ?? visitor.csrf,
                .contentType: "application/octet-stream",
            ],
            body: ByteBuffer(bytes: bytes)
        ) { ($0.status, String(buffer: $0.body)) }
    }

    /// The `message` of a JSON answer (what the page's script shows), "" when there is none.
    static func message(_ body: String) throws -> String { try JSON.parse(body)["message"]?.string ?? "" }

    /// The `location` of a JSON answer (where the page's script goes next).
    static func location(_ body: String) throws -> String? { try JSON.parse(body)["location"]?.string }

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 64)
}

@Suite("panel: sign-in, drafts as tour folders, stops, media, access", .ownThreads)
struct PanelDraftTests {
    static func withPanel(
        approvals: Int = 1, maxMediaBytes: Int64 = 1 << 20,
        _ test: @Sendable (TrailPackServer, PanelController, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await PanelTests.withAssets { root in
            var configuration = PanelConfiguration(webAssets: root)
            configuration.maxMediaBytes = maxMediaBytes
            try await PanelTests.withPanelServer(configuration, approvals: approvals, test)
        }
    }

    @Test(
        "sign-in: a wrong or unset password and an unknown name are refused alike; the right one rotates the session; a cross-site form is refused; the sixth failure waits"
    )
    func signIn() async throws {
        try await Self.withPanel { server, panel, client in
            try await server.catalog.addUser(name: "ranger", role: .publisher)
            try await server.catalog.addUser(name: "nopass", role: .publisher)
            try await server.catalog.setPassword(
                name: "ranger", hash: PasswordHash.make("correct horse battery", cost: .init(logN: 10, r: 8, p: 1)))
            #expect(
                try await server.catalog.signInRecord(name: "ranger")?.passwordHash?.hasPrefix("scrypt$ln=10,r=8,p=1$")
                    == true)
            func login(
                _ name: String, _ password: String, cookie: String? = nil, origin: String? = nil,
                next: String = "/drafts"
            ) async throws -> (HTTPResponse.Status, HTTPFields, String) {
                var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
                if let cookie { headers[.cookie] = cookie }
                if let origin { headers[.origin] = origin }
                return try await client.execute(
                    uri: "/login", method: .post, headers: headers,
                    body: ByteBuffer(
                        string: PanelFlow.encode([("name", name), ("password", password), ("next", next)]))
                ) {
                    ($0.status, $0.headers, String(buffer: $0.body))
                }
            }
            for (name, password) in [
                ("ranger", "wrong"), ("nopass", ""), ("nobody", "correct horse battery"), ("", ""),
            ] {
                let (status, headers, body) = try await login(name, password)
                #expect(
                    status == .ok && headers[.setCookie] == nil && body.contains("The name or the password is wrong"),
                    "\(name)")
            }
            let before = try await panel.sessions.start(user: "ranger")
            let (status, headers, _) = try await login(
                "ranger", "correct horse battery", cookie: "trailpack_session=\(before.id)", next: "//evil.example/x")
            #expect(status == .seeOther)
            #expect(headers[.location] == "/", "a next that leaves the site goes home")
            let cookie = try #require(headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && !cookie.contains(before.id))
            #expect(
                try await panel.sessions.session(id: before.id) == nil,
                "the session sent with the sign-in form is ended (rotation)")
            #expect(try await login("ranger", "correct horse battery", origin: "https://evil.example").0 == .forbidden)
            for _ in 0..<5 { _ = try await login("ranger", "wrong") }
            let (waited, _, body) = try await login("ranger", "correct horse battery")
            #expect(
                waited == .tooManyRequests && body.contains("Too many failed sign-ins"),
                "five failures lock the name, even for the right password")
        }
    }

    @Test(
        "a draft is a tour folder: stops added with typed coordinates (DMS too) become waypoints/NN-slug/waypoint.json; moves rename folders; a stale save is a conflict; a removed stop is kept aside"
    )
    func draftFolder() async throws {
        try await Self.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let draft = try await PanelFlow.createDraft(client, ranger, name: "Santiam Wagon Road")
            #expect(draft == "/drafts/willamette-sweet-home/santiam-wagon-road")
            let folder = server.folder.root + "/drafts/willamette-sweet-home/santiam-wagon-road"
            var (status, html) = try await PanelFlow.get(client, ranger, draft)
            #expect(status == .ok && html.contains("the tour has no stops yet"))
            for (name, lat, lon) in [
                ("Sweet Home", "44.3976", "-122.7262"), ("House Rock", "44°23'31\"N", "122°14'39\"W"),
                ("Fish Lake", "44.4031", "-121.9939"),
            ] {
                let revision = try PanelFlow.revision(html)
                let (added, _, body) = try await PanelFlow.post(
                    client, ranger, draft + "/stops",
                    [("revision", revision), ("name", name), ("latitude", lat), ("longitude", lon)])
                #expect(added == .seeOther, "\(body)")
                html = try await PanelFlow.get(client, ranger, draft).1
            }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder + "/waypoints").sorted() == [
                    "01-sweet-home", "02-house-rock", "03-fish-lake",
                ])
            // No build is running: the status the page polls says so.
            let idle = try await PanelFlow.get(client, ranger, draft + "/build-status")
            #expect(try idle.0 == .ok && JSON.parse(idle.1)["running"] == .bool(false), "\(idle.1)")
            #expect(html.contains("data-status=\"\(draft)/build-status\""))
            // The findings speak of the panel, not of the server's folders: no path, no command to run on it.
            #expect(
                html.contains("no offline map")
                    && (html.contains("the server&#39;s operator") || html.contains("the server's operator")), "\(html)"
            )
            #expect(!html.contains(server.folder.root) && !html.contains("--tour"))
            let second = try TourDraft.read(folder: folder).stops[1]
            #expect(
                abs(second.coordinate!.latitude - 44.391944) < 1e-5
                    && abs(second.coordinate!.longitude + 122.244167) < 1e-5)
            // The CLI reads what the panel wrote.
            let loaded = try TourSource.load(folder), source = loaded.source, findings = loaded.findings
            #expect(source?.waypoints.map(\.name) == ["Sweet Home", "House Rock", "Fish Lake"], "\(findings)")
            // Down: 02 and 03 swap folders.
            let revision = try PanelFlow.revision(html)
            let (moved, location, _) = try await PanelFlow.post(
                client, ranger, draft + "/stops/2/down", [("revision", revision)])
            #expect(moved == .seeOther && location == draft + "?saved=1&focus=down-3")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder + "/waypoints").sorted() == [
                    "01-sweet-home", "02-fish-lake", "03-house-rock",
                ])
            // The page's revision is now old: a save from it changes nothing.
            let stale = try await PanelFlow.post(
                client, ranger, draft, [("revision", revision), ("name", "Lost edit"), ("followStops", "1")])
            #expect(
                stale.0 == .conflict
                    && stale.2.contains("You changed this tour just now in another tab or window of this browser"))
            #expect(try TourDraft.read(folder: folder).name == "Santiam Wagon Road")
            html = try await PanelFlow.get(client, ranger, draft).1
            // Without the page's script, the server asks first; nothing is removed until it is confirmed.
            let asked = try await PanelFlow.post(
                client, ranger, draft + "/stops/2/remove", [("revision", try PanelFlow.revision(html))])
            #expect(asked.0 == .ok && asked.2.contains("id=\"confirm-form\"") && asked.2.contains("Remove stop 2"))
            #expect(asked.2.contains("name=\"confirmed\" value=\"yes\""), "\(asked.2)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/waypoints").count == 3)
            let removed = try await PanelFlow.post(
                client, ranger, draft + "/stops/2/remove",
                [("revision", try PanelFlow.revision(html)), ("confirmed", "yes")])
            #expect(removed.0 == .seeOther)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder + "/waypoints").sorted() == [
                    "01-sweet-home", "02-house-rock",
                ])
            let aside = try FileManager.default.contentsOfDirectory(
                atPath: server.folder.root + "/drafts-removed/willamette-sweet-home/santiam-wagon-road")
            #expect(
                aside.count == 1 && aside[0].hasSuffix("-02-fish-lake"), "the removed stop's folder is kept: \(aside)")
            // The tour's page lists it under "Removed stops"; "Bring back" puts it back as stop 2.
            html = try await PanelFlow.get(client, ranger, draft + "?saved=1").1
            #expect(
                html.contains("It is listed under &quot;Removed stops&quot;")
                    || html.contains("It is listed under \"Removed stops\""), "\(html)")
            #expect(html.contains("id=\"removed-stops\"") && html.contains("Bring back Fish Lake"), "\(html)")
            #expect(html.contains("name=\"aside\" value=\"\(aside[0])\""))
            let hostile = try await PanelFlow.post(client, ranger, draft + "/bring-back-stop", [("aside", "../../etc")])
            #expect(hostile.0 == .notFound, "only a removed stop's own name is taken: \(hostile.2)")
            // A stop whose waypoint.json was broken while aside is not brought in: the draft stays as it was.
            let asidePath =
                server.folder.root + "/drafts-removed/willamette-sweet-home/santiam-wagon-road/" + aside[0]
            let good = try Support.read(asidePath + "/waypoint.json")
            try Support.write(Array("{not json".utf8), to: asidePath + "/waypoint.json")
            let broken = try await PanelFlow.post(client, ranger, draft + "/bring-back-stop", [("aside", aside[0])])
            #expect(broken.0 == .unprocessableContent, "\(broken)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder + "/waypoints").sorted() == [
                    "01-sweet-home", "02-house-rock",
                ])
            #expect(FileManager.default.fileExists(atPath: asidePath + "/waypoint.json"), "put back aside")
            try Support.write(good, to: asidePath + "/waypoint.json")
            let back = try await PanelFlow.post(client, ranger, draft + "/bring-back-stop", [("aside", aside[0])])
            #expect(back.0 == .seeOther && back.1 == draft + "?saved=1#stop-2", "\(back.2)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder + "/waypoints").sorted() == [
                    "01-sweet-home", "02-fish-lake", "03-house-rock",
                ])
            #expect(try TourDraft.read(folder: folder).stops.map(\.name) == ["Sweet Home", "Fish Lake", "House Rock"])
            html = try await PanelFlow.get(client, ranger, draft + "?saved=1").1
            #expect(html.contains("Fish Lake is back, as stop 2.") && !html.contains("id=\"removed-stops\""))
            let again = try await PanelFlow.post(client, ranger, draft + "/bring-back-stop", [("aside", aside[0])])
            #expect(again.0 == .notFound && again.2.contains("no longer among the removed ones"), "\(again.2)")
        }
    }

    @Test(
        "the tours list: the most recently saved first, 50 a page with links, a search by name (any case or accent) with its count"
    )
    func toursList() async throws {
        try await Self.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let site = server.folder.root + "/drafts/willamette-sweet-home"
            for i in 0..<61 {
                var draft = TourDraft()
                draft.name = i == 7 ? "Fish Lake Café" : "Tour \(i)"
                draft.id = "willamette-sweet-home.tour-\(i)"
                let folder = site + String(format: "/tour-%02d", i)
                try FileManager.default.createDirectory(
                    atPath: folder + "/waypoints", withIntermediateDirectories: true)
                try AtomicFile.write(JSONWriter.bytes(draft.tourJSON), to: folder + "/tour.json")
                var times = [
                    timespec(tv_sec: 1_700_000_000 + i * 60, tv_nsec: 0),
                    timespec(tv_sec: 1_700_000_000 + i * 60, tv_nsec: 0),
                ]
                #expect(utimensat(AT_FDCWD, folder + "/tour.json", &times, 0) == 0)
            }
            var (status, html) = try await PanelFlow.get(client, ranger, "/")
            #expect(status == .ok && html.contains("Tours you are editing (61)"))
            #expect(html.components(separatedBy: "<tr><td><a href=").count - 1 == 50)
            let newest = try #require(html.range(of: "Tour 60")), older = try #require(html.range(of: "Tour 59"))
            #expect(newest.lowerBound < older.lowerBound, "the most recently saved comes first")
            #expect(!html.contains(">Tour 10<") && html.contains("Page 1 of 2") && html.contains("href=\"/?page=2\""))
            (status, html) = try await PanelFlow.get(client, ranger, "/?page=2")
            #expect(
                html.components(separatedBy: "<tr><td><a href=").count - 1 == 11 && html.contains(">Tour 0<")
                    && html.contains("href=\"/?page=1\""))
            (status, html) = try await PanelFlow.get(client, ranger, "/?q=fish%20lake%20cafe")
            #expect(html.contains("1 matching") && html.contains("Fish Lake Café") && !html.contains(">Tour 60<"))
            (status, html) = try await PanelFlow.get(client, ranger, "/?q=%3Cscript%3E&page=99")
            #expect(
                status == .ok
                    && (html.contains("No tour&#39;s name matches") || html.contains("No tour's name matches")))
            #expect(!html.contains("<script>"), "the search is shown escaped")
        }
    }

    @Test(
        "a publisher reaches only the drafts of sites granted to them (direct URLs tried); a reviewer edits none; a hostile site or tour in the URL is 404"
    )
    func access() async throws {
        try await Self.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let other = try await PanelFlow.signIn(server, panel, user: "other", site: "mckenzie-river")
            let reviewer = try await PanelFlow.signIn(server, panel, user: "reviewer", role: .reviewer, site: nil)
            let draft = try await PanelFlow.createDraft(client, ranger, name: "Santiam Wagon Road")
            let html = try await PanelFlow.get(client, ranger, draft).1
            let revision = try PanelFlow.revision(html)
            for visitor in [other, reviewer] {
                #expect(try await PanelFlow.get(client, visitor, draft).0 == .forbidden)
                #expect(try await PanelFlow.get(client, visitor, draft + "/stops/1").0 == .forbidden)
                #expect(try await PanelFlow.get(client, visitor, draft + "/folder.zip").0 == .forbidden)
                #expect(
                    try await PanelFlow.post(client, visitor, draft, [("revision", revision), ("name", "Taken over")]).0
                        == .forbidden)
                #expect(
                    try await PanelFlow.post(
                        client, visitor, draft + "/stops",
                        [("revision", revision), ("latitude", "44"), ("longitude", "-122")]
                    ).0 == .forbidden)
                #expect(
                    try await PanelFlow.upload(
                        client, visitor, draft + "/stops/1/files", name: "x.png", bytes: PanelFlow.png
                    ).0 == .forbidden)
                #expect(
                    try await PanelFlow.post(
                        client, visitor, "/drafts", [("site", "willamette-sweet-home"), ("name", "Mine now")]
                    ).0 == .forbidden)
            }
            let home = try await PanelFlow.get(client, other, "/").1
            #expect(!home.contains("/drafts/willamette-sweet-home"), "another site's drafts are not listed")
            #expect(
                try TourDraft.read(folder: server.folder.root + "/drafts/willamette-sweet-home/santiam-wagon-road").name
                    == "Santiam Wagon Road")
            for uri in [
                "/drafts/..%2F..%2Fetc/passwd", "/drafts/Willamette/x", "/drafts/willamette-sweet-home/..",
                "/drafts/a/b%2Fc",
            ] {
                let status = try await PanelFlow.get(client, ranger, uri).0
                #expect(status == .notFound, "\(uri): \(status)")
            }
            // Signed out: sent to sign in, never shown the draft.
            try await client.execute(uri: draft, method: .get) { response in
                #expect(response.status == .seeOther && response.headers[.location]?.hasPrefix("/login?next=") == true)
            }
        }
    }

    @Test("text typed in every field is shown escaped: tour and stop names, descriptions, details, file titles")
    func escaping() async throws {
        try await Self.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let hostile = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>"
            let draft = try await PanelFlow.createDraft(client, ranger, name: "Tour " + hostile)
            var html = try await PanelFlow.get(client, ranger, draft).1
            _ = try await PanelFlow.post(
                client, ranger, draft + "/stops",
                [
                    ("revision", try PanelFlow.revision(html)), ("name", hostile), ("latitude", "44.4"),
                    ("longitude", "-122.1"),
                ])
            #expect(
                try await PanelFlow.upload(
                    client, ranger, draft + "/stops/1/files", name: "view.png", bytes: PanelFlow.png
                ).0 == .created)
            html = try await PanelFlow.get(client, ranger, draft + "/stops/1").1
            let saved = try await PanelFlow.post(
                client, ranger, draft + "/stops/1",
                [
                    ("revision", try PanelFlow.revision(html)), ("name", hostile), ("description", hostile),
                    ("latitude", "44.4"), ("longitude", "-122.1"),
                    ("propertyKey", hostile), ("propertyValue", hostile), ("title-1", hostile), ("alt-1", hostile),
                ])
            #expect(saved.0 == .seeOther, "\(saved.2)")
            for page in [draft, draft + "/stops/1", "/"] {
                html = try await PanelFlow.get(client, ranger, page).1
                #expect(!html.contains("<script>alert"), "\(page)")
                #expect(!html.contains("<img src=x"), "\(page)")
                #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(page)")
            }
        }
    }

    @Test(
        "uploads: streamed to the stop's folder and listed; the type is decided by content (a fake .mp4 is refused); HEIC and WAV get advice; names are made safe; too large and no CSRF token are refused"
    )
    func uploads() async throws {
        try await Self.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let draft = try await PanelFlow.draftWithStop(client, ranger, name: "Media", stop: "Trailhead")
            let files = draft + "/stops/1/files"
            let folder = server.folder.root + "/drafts/willamette-sweet-home/media/waypoints/01-trailhead"
            var (status, body) = try await PanelFlow.upload(
                client, ranger, files, name: "../../Trail View.PNG", bytes: PanelFlow.png)
            #expect(status == .created, "\(body)")
            #expect(FileManager.default.fileExists(atPath: folder + "/Trail-View.png"))
            (status, body) = try await PanelFlow.upload(
                client, ranger, files, name: "talk.mp4", bytes: Array("this is not a video at all".utf8))
            #expect(
                try status == .unprocessableContent && PanelFlow.message(body).contains("talk.mp4")
                    && PanelFlow.message(body).contains("not an MP4"), "\(body)")
            (status, body) = try await PanelFlow.upload(
                client, ranger, files, name: "photo.heic",
                bytes: [0, 0, 0, 24] + Array("ftypheic".utf8) + Array(repeating: 0, count: 16))
            #expect(try status == .created && PanelFlow.message(body).contains("JPEG"), "\(body)")
            (status, body) = try await PanelFlow.upload(client, ranger, files, name: "tour.exe", bytes: [0x4D, 0x5A])
            #expect(
                try status == .unprocessableContent && PanelFlow.message(body).contains("not a type the apps can show"),
                "\(body)")
            (status, _) = try await PanelFlow.upload(
                client, ranger, files, name: "x.png", bytes: PanelFlow.png, csrf: "wrong")
            #expect(status == .forbidden)
            // Over the limit (1 MiB here): refused while it streams, the partial file removed.
            let huge = try await PanelFlow.upload(
                client, ranger, files, name: "big.png", bytes: PanelFlow.png + Array(repeating: 7, count: 1 << 20))
            #expect(
                try huge.0 == .contentTooLarge && PanelFlow.message(huge.1).contains("a file may be at most 1.0 MB"),
                "\(huge.0) \(huge.1)")
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            #expect(
                names == ["Trail-View.png", "photo.heic", "waypoint.json"],
                "refused uploads leave nothing behind: \(names)")
            #expect(
                try TourDraft.read(folder: server.folder.root + "/drafts/willamette-sweet-home/media").stops[0].assets
                    .map(\.file) == ["Trail-View.png", "photo.heic"])
            // The preview serves an image inline with its type.
            try await client.execute(uri: files + "/Trail-View.png", method: .get, headers: ranger.headers) {
                response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/png")
                #expect(Array(buffer: response.body) == PanelFlow.png)
            }
            // Rename: made safe, the type's ending kept, no clash with another file; the listing follows.
            func rename(_ file: String, to newName: String) async throws -> (HTTPResponse.Status, String) {
                let html = try await PanelFlow.get(client, ranger, draft + "/stops/1").1
                let answer = try await PanelFlow.post(
                    client, ranger, draft + "/stops/1/rename-file",
                    [("revision", try PanelFlow.revision(html)), ("file", file), ("newName", newName)])
                return (answer.0, answer.2)
            }
            #expect(try await rename("Trail-View.png", to: "trail.jpg").1.contains("keep the ending .png"))
            #expect(try await rename("Trail-View.png", to: "photo.heic").0 == .badRequest)
            #expect(try await rename("nothing.png", to: "x.png").0 == .notFound)
            #expect(try await rename("Trail-View.png", to: "River view.PNG").0 == .seeOther)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [
                    "River-view.png", "photo.heic", "waypoint.json",
                ])
            #expect(
                try TourDraft.read(folder: server.folder.root + "/drafts/willamette-sweet-home/media").stops[0].assets
                    .map(\.file) == ["River-view.png", "photo.heic"])
        }
    }

    /// A multipart/form-data body as a browser sends the stop page's form: the file input's parts.
    static func multipart(
        boundary: String, files: [(name: String, bytes: [UInt8])], text: [(String, String)] = []
    ) -> [UInt8] {
        var body: [UInt8] = []
        for (name, value) in text {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        for file in files {
            body += Array(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"files\"; filename=\"\(file.name)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                    .utf8)
            body += file.bytes + Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)--\r\n".utf8)
    }

    @Test(
        "uploads without a script: the multipart form streams each file to the stop (a fake .mp4 refused by name, the others kept); no token, no boundary, a cut-off body, an endless part header and too large a file are refused and leave nothing behind"
    )
    func multipartUploads() async throws {
        try await Self.withPanel(maxMediaBytes: 1 << 16) { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let draft = try await PanelFlow.draftWithStop(client, ranger, name: "Fish Lake", stop: "Shore")
            let stopPage = try await PanelFlow.get(client, ranger, draft + "/stops/1").1
            #expect(
                stopPage.contains("enctype=\"multipart/form-data\"")
                    && stopPage.contains("/files?_csrf=\(ranger.csrf)\""),
                "the page's form posts multipart with its token")
            let folder = server.folder.root + "/drafts/willamette-sweet-home/fish-lake/waypoints/01-shore"
            func send(
                _ body: [UInt8], token: String? = nil, contentType: String = "multipart/form-data; boundary=----tp42"
            ) async throws -> (HTTPResponse.Status, String?, String) {
                try await client.execute(
                    uri: draft + "/stops/1/files?_csrf=" + (token ?? ranger.csrf), method: .post,
                    headers: [.cookie: ranger.cookie, .contentType: contentType], body: ByteBuffer(bytes: body)
                ) {
                    ($0.status, $0.headers[.location], String(buffer: $0.body))
                }
            }
            let text = Array("Notes from the shore.\n".utf8)
            let body = Self.multipart(
                boundary: "----tp42",
                files: [("view.png", PanelFlow.png), ("fake.mp4", text), ("Shore notes.txt", text), ("", [])],
                text: [("note", "ignored")])
            let (status, location, _) = try await send(body)
            #expect(
                status == .seeOther && location == draft + "/stops/1?saved=1",
                "the message is kept in the session, not in the URL")
            let notice = try await PanelFlow.get(client, ranger, draft + "/stops/1?saved=1").1
            #expect(
                notice.contains("&#39;view.png&#39; was added") && notice.contains("Not added")
                    && notice.contains("fake.mp4"), "\(notice)")
            let again = try await PanelFlow.get(client, ranger, draft + "/stops/1?saved=1").1
            #expect(!again.contains("Not added") && again.contains("Saved."), "the message is shown once")
            let listed = try TourDraft.read(folder: server.folder.root + "/drafts/willamette-sweet-home/fish-lake")
                .stops[0].assets.map(\.file)
            #expect(listed == ["view.png", "Shore-notes.txt"], "\(listed)")
            #expect(try Support.read(folder + "/view.png") == PanelFlow.png)
            func leftovers() throws -> [String] {
                try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".upload-") }
            }
            #expect(try leftovers().isEmpty)

            let one = Self.multipart(boundary: "----tp42", files: [("other.png", PanelFlow.png)])
            #expect(try await send(one, token: "forged").0 == .forbidden)
            #expect(try await send(one, contentType: "multipart/form-data").0 == .unsupportedMediaType)
            #expect(
                try await send(one, contentType: "multipart/form-data; boundary=" + String(repeating: "x", count: 71)).0
                    == .unsupportedMediaType)
            var (cut, _, message) = try await send(Array(one.prefix(one.count - 30)))
            #expect(cut == .badRequest && message.contains("ended before"), "\(message)")
            let endless =
                Array(
                    "------tp42\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.png\"\r\nX-Long: ".utf8)
                + Array(repeating: UInt8(ascii: "a"), count: 3 << 20)
            (cut, _, message) = try await send(endless)
            #expect(cut == .badRequest && message.contains("part headers"), "\(message)")
            (cut, _, message) = try await send(
                Self.multipart(
                    boundary: "----tp42", files: [("big.png", PanelFlow.png + Array(repeating: 0, count: 1 << 17))]))
            #expect(cut == .contentTooLarge && message.contains("big.png") && message.contains("64.0 KB"), "\(message)")
            #expect(try leftovers().isEmpty, "refused uploads leave no temporary file")
            #expect(
                !FileManager.default.fileExists(atPath: folder + "/other.png")
                    && !FileManager.default.fileExists(atPath: folder + "/big.png"))

            // Without the script the stop's own form sends its files ("Save and upload"): what was
            // typed and not saved is saved with them, detail rows and all, never lost.
            let page = try await PanelFlow.get(client, ranger, draft + "/stops/1").1
            #expect(page.contains("id=\"nojs-upload-submit\"") && page.contains("formenctype=\"multipart/form-data\""))
            let stopRevision = try #require(
                page.range(of: "name=\"stopRevision\" value=\"").map {
                    String(page[$0.upperBound...].prefix { $0 != "\"" })
                })
            // 6.4 KB: more than a field of the file-only form may hold.
            let long = String(repeating: "The shore was the wagons' camp. ", count: 200)
            let together = Self.multipart(
                boundary: "----tp42", files: [("later.png", PanelFlow.png)],
                text: [
                    ("revision", try PanelFlow.revision(page)), ("stopRevision", stopRevision), ("language", ""),
                    ("name", "Shore"), ("latitude", "44.4"), ("longitude", "-122.1"), ("description", long),
                    ("propertyKey", "Elevation (ft)"), ("propertyValue", "3200"), ("propertyKey", "Season"),
                    ("propertyValue", "summer"), ("waiver", ""),
                ])
            let (sent, sentTo, sentBody) = try await send(together)
            #expect(sent == .seeOther && sentTo == draft + "/stops/1?saved=1", "\(sentBody)")
            let saved = try TourDraft.read(folder: server.folder.root + "/drafts/willamette-sweet-home/fish-lake")
                .stops[0]
            #expect(saved.description == long.trimmingCharacters(in: .whitespaces))
            #expect(saved.properties.map(\.key) == ["elevationFt", "Season"], "\(saved.properties)")
            #expect(saved.assets.map(\.file).contains("later.png"))
            let said = try await PanelFlow.get(client, ranger, draft + "/stops/1?saved=1").1
            #expect(said.contains("The stop was saved.") && said.contains("&#39;later.png&#39; was added"), "\(said)")
        }
    }

    @Test(
        "download as folder: a zip of the tour folder that Python's zipfile reads, holding the JSON and the files and nothing hidden",
        .needs(.python3))
    func folderZip() async throws {
        try await Self.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let draft = try await PanelFlow.draftWithStop(client, ranger, name: "Zip Me", stop: "Trailhead")
            _ = try await PanelFlow.upload(
                client, ranger, draft + "/stops/1/files", name: "view.png", bytes: PanelFlow.png)
            let bytes = try await client.execute(uri: draft + "/folder.zip", method: .get, headers: ranger.headers) {
                response in
                #expect(response.status == .ok && response.headers[.contentType] == "application/zip")
                return Array(buffer: response.body)
            }
            try Support.withTemporaryDirectory { dir in
                try Data(bytes).write(to: URL(fileURLWithPath: dir + "/folder.zip"))
                let listed = try Support.run(
                    "python3",
                    [
                        "-c",
                        "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print('\\n'.join(z.namelist()))",
                        dir + "/folder.zip",
                    ])
                #expect(listed.status == 0, "\(listed.stderr)")
                #expect(
                    listed.stdout.split(separator: "\n").sorted() == [
                        "zip-me/tour.json", "zip-me/waypoints/01-trailhead/view.png",
                        "zip-me/waypoints/01-trailhead/waypoint.json",
                    ])
            }
        }
    }

    static func importFile(
        _ client: some TestClientProtocol, _ visitor: PanelFlow.Visitor, name: String, bytes: [UInt8],
        replace: Bool = false, again: Bool = false
    ) async throws -> (HTTPResponse.Status, String) {
        try await client.execute(
            uri: "/drafts/import?site=willamette-sweet-home&name=\(name)\(replace ? "&replace=1" : "")"
                + (again ? "&again=1" : ""), method: .put,
            headers: [.cookie: visitor.cookie, HTTPField.Name("X-CSRF-Token")!: visitor.csrf],
            body: ByteBuffer(bytes: bytes)
        ) {
            ($0.status, String(buffer: $0.body))
        }
    }

    @Test(
        "drafts kept tidy: the same file or the same stops imported again is asked about; a draft renamed (its id kept), duplicated (an id of its own), deleted (asked, kept aside) and brought back"
    )
    func draftLife() async throws {
        try await Self.withPanel(maxMediaBytes: 64 << 20) { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let gpx = try Support.read(Support.root + "/fixtures/gpx/santiam-stops.gpx")
            var (status, body) = try await Self.importFile(client, ranger, name: "santiam-stops.gpx", bytes: gpx)
            #expect(status == .created, "\(body)")
            let draft = try #require(try PanelFlow.location(body)?.split(separator: "?").first.map(String.init))
            (status, body) = try await Self.importFile(client, ranger, name: "santiam-stops.gpx", bytes: gpx)
            #expect(status == .conflict && body.contains("made from a file of this name"), "\(body)")
            #expect(body.contains("Make a second draft") && body.contains(draft), "\(body)")
            (status, body) = try await Self.importFile(client, ranger, name: "renamed.gpx", bytes: gpx)
            #expect(status == .conflict && body.contains("with the same stops"), "\(body)")
            (status, body) = try await Self.importFile(
                client, ranger, name: "santiam-stops.gpx", bytes: gpx, again: true)
            let second = try PanelFlow.location(body) ?? ""
            #expect(status == .created && second.contains("santiam-stops-2"), "\(body)")

            // Renamed: the address follows the name, the id (the package's) stays, the sidecar follows.
            let key = try #require(DraftStore.Key(site: "willamette-sweet-home", tour: "santiam-stops"))
            let id = try await panel.drafts.load(key).draft.id
            var (code, location, page) = try await PanelFlow.post(
                client, ranger, draft + "/rename", [("name", "Old Wagon Road")])
            #expect(code == .seeOther && location == "/drafts/willamette-sweet-home/old-wagon-road?saved=1", "\(page)")
            let renamed = try #require(DraftStore.Key(site: "willamette-sweet-home", tour: "old-wagon-road"))
            #expect(!panel.drafts.exists(key) && panel.drafts.exists(renamed))
            var now = try await panel.drafts.load(renamed).draft
            #expect(now.name == "Old Wagon Road" && now.id == id)
            #expect(
                FileManager.default.fileExists(
                    atPath: panel.drafts.root + "/willamette-sweet-home/.old-wagon-road.saved"))
            (code, _, page) = try await PanelFlow.post(
                client, ranger, renamed.path + "/rename", [("name", "Santiam Stops 2")])
            #expect(code == .conflict || page.contains("already"), "a name another draft has is refused: \(page)")

            // Duplicated: a new tour with an id of its own.
            (code, location, _) = try await PanelFlow.post(client, ranger, renamed.path + "/duplicate", [])
            #expect(code == .seeOther && location == "/drafts/willamette-sweet-home/old-wagon-road-copy?saved=1")
            let copy = try #require(DraftStore.Key(site: "willamette-sweet-home", tour: "old-wagon-road-copy"))
            now = try await panel.drafts.load(copy).draft
            #expect(now.name == "Old Wagon Road (copy)" && now.id == "willamette-sweet-home.old-wagon-road-copy")
            let original = try await panel.drafts.load(renamed).draft
            #expect(now.stops.count == original.stops.count)

            // Deleted: asked first, then kept aside and offered back on the home page.
            (code, _, page) = try await PanelFlow.post(client, ranger, copy.path + "/delete", [])
            #expect(code == .ok && page.contains("id=\"confirm-form\"") && panel.drafts.exists(copy))
            (code, location, _) = try await PanelFlow.post(
                client, ranger, copy.path + "/delete", [("confirmed", "yes")])
            #expect(code == .seeOther && location?.hasPrefix("/?saved=1") == true && !panel.drafts.exists(copy))
            var home = try await PanelFlow.get(client, ranger, try #require(location)).1
            #expect(home.contains("was deleted") && home.contains("id=\"deleted-drafts\""), "\(home)")
            #expect(home.contains("Bring back Old Wagon Road (copy)") && !home.contains(">Old Wagon Road (copy)</a>"))
            let aside = try #require(panel.drafts.deleted(sites: ["willamette-sweet-home"]).first)
            #expect(aside.key == copy && aside.name == "Old Wagon Road (copy)")
            #expect(try await server.catalog.versions(package: now.id).isEmpty, "the catalog is not touched")
            // Brought back; a stranger's aside name is refused.
            (code, _, _) = try await PanelFlow.post(client, ranger, copy.path + "/bring-back", [("aside", "../../x")])
            #expect(code == .notFound)
            (code, location, _) = try await PanelFlow.post(
                client, ranger, copy.path + "/bring-back", [("aside", aside.aside)])
            #expect(code == .seeOther && panel.drafts.exists(copy), "\(String(describing: location))")
            home = try await PanelFlow.get(client, ranger, "/").1
            #expect(!home.contains("id=\"deleted-drafts\"") && home.contains(">Old Wagon Road (copy)</a>"))
        }
    }

    @Test(
        "a sheet whose columns are not recognised: kept, the form lists its own column names, a wrong choice is explained, the right one makes the tour and removes the kept sheet"
    )
    func importColumns() async throws {
        try await Self.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let csv =
                "Stop,Y,X,Notes\nHouse Rock,44.3922,-122.2441,A rock shelter\nFish Lake,44.4031,-121.9939,The lake bed\n"
            let (status, body) = try await Self.importFile(
                client, ranger, name: "field-notes.csv", bytes: Array(csv.utf8))
            #expect(status == .accepted, "\(body)")
            let location = try #require(try PanelFlow.location(body), "\(body)")
            #expect(location.hasPrefix("/drafts/columns/"), "\(location)")
            var (pageStatus, html) = try await PanelFlow.get(client, ranger, location)
            #expect(
                pageStatus == .ok && html.contains("<option value=\"Y\" >Y</option>")
                    && html.contains("Which column is which?"), "\(html)")
            let action = location
            var posted = try await PanelFlow.post(
                client, ranger, action,
                [("column-name", "Stop"), ("column-latitude", "Notes"), ("column-longitude", "X")])
            #expect(posted.0 == .unprocessableContent && posted.2.contains("latitude"), "\(posted.2)")
            posted = try await PanelFlow.post(
                client, ranger, action,
                [
                    ("column-name", "Stop"), ("column-latitude", "Y"), ("column-longitude", "X"),
                    ("column-description", "Notes"),
                ])
            #expect(
                posted.0 == .seeOther && posted.1 == "/drafts/willamette-sweet-home/field-notes?saved=1", "\(posted)")
            let draft = try TourDraft.read(folder: server.folder.root + "/drafts/willamette-sweet-home/field-notes")
            #expect(
                draft.stops.map(\.name) == ["House Rock", "Fish Lake"] && draft.stops[1].description == "The lake bed")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: server.folder.root + "/drafts/.sheets").isEmpty,
                "the used sheet is removed")
            (pageStatus, html) = try await PanelFlow.get(client, ranger, location)
            #expect(pageStatus == .notFound)
            #expect(
                try await PanelFlow.get(client, ranger, "/drafts/columns/not-a-uuid?site=willamette-sweet-home").0
                    == .notFound)
            #expect(!(try await PanelFlow.get(client, ranger, "/").1).contains(".sheets"), "kept sheets are not drafts")
        }
    }

    @Test(
        "start from a file: a GPX file's waypoints and a CSV sheet's rows become stops; a folder zip becomes the same draft again (replacing only when asked, the old one kept aside); hostile zips are refused",
        .needs(.python3))
    func imports() async throws {
        try await Self.withPanel(maxMediaBytes: 64 << 20) { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let drafts = server.folder.root + "/drafts/willamette-sweet-home"
            var (status, body) = try await Self.importFile(
                client, ranger, name: "santiam-stops.gpx",
                bytes: try Support.read(Support.root + "/fixtures/gpx/santiam-stops.gpx"))
            #expect(
                try status == .created
                    && (PanelFlow.location(body) ?? "").contains("/drafts/willamette-sweet-home/santiam-stops"),
                "\(body)")
            let gpx = try TourDraft.read(folder: drafts + "/santiam-stops")
            #expect(gpx.stops.count >= 3 && gpx.stops.allSatisfy { $0.coordinate != nil && !$0.name.isEmpty })
            let csv =
                "name,latitude,longitude,description,photo\nHouse Rock,44.3922,-122.2441,A rock shelter,house.jpg\nFish Lake,44°24'11\"N,121°59'38\"W,The lake bed,\n"
            (status, body) = try await Self.importFile(client, ranger, name: "stops.csv", bytes: Array(csv.utf8))
            #expect(status == .created, "\(body)")
            let sheet = try TourDraft.read(folder: drafts + "/stops")
            #expect(sheet.stops.map(\.name) == ["House Rock", "Fish Lake"])
            #expect(abs(sheet.stops[1].coordinate!.longitude + 121.993889) < 1e-5)
            // A sheet with a Spanish column: the draft has both languages, the texts under each.
            let bilingual =
                "name,latitude,longitude,description,description_es\nHouse Rock,44.3922,-122.2441,A rock shelter,Un refugio de roca\n"
            (status, body) = try await Self.importFile(
                client, ranger, name: "bilingual.csv", bytes: Array(bilingual.utf8))
            #expect(status == .created, "\(body)")
            let spanish = try TourDraft.read(folder: drafts + "/bilingual")
            #expect(spanish.languages == ["en", "es"])
            #expect(spanish.stops.first?.translations["es", .description] == "Un refugio de roca")
            // The same without a script: the home page's form, posted as multipart (site, file); the same
            // stops as santiam-stops.gpx, so only with "Make a second draft" ticked.
            let form = Self.multipart(
                boundary: "xyz",
                files: [("Wagon road.gpx", try Support.read(Support.root + "/fixtures/gpx/santiam-stops.gpx"))],
                text: [("site", "willamette-sweet-home"), ("again", "1")])
            let posted = try await client.execute(
                uri: "/drafts/import?_csrf=" + ranger.csrf, method: .post,
                headers: [.cookie: ranger.cookie, .contentType: "multipart/form-data; boundary=xyz"],
                body: ByteBuffer(bytes: form)
            ) {
                ($0.status, $0.headers[.location] ?? "")
            }
            #expect(
                posted.0 == .seeOther && posted.1 == "/drafts/willamette-sweet-home/wagon-road?saved=1", "\(posted)")
            #expect(try TourDraft.read(folder: drafts + "/wagon-road").stops.count == gpx.stops.count)
            (status, body) = try await Self.importFile(client, ranger, name: "notes.docx", bytes: [1, 2, 3])
            #expect(try status == .unprocessableContent && PanelFlow.message(body).contains("GPX"), "\(body)")

            // The GPX draft as a folder zip, then back: refused while the draft exists, replaced when asked.
            let zip = try await client.execute(
                uri: "/drafts/willamette-sweet-home/santiam-stops/folder.zip", method: .get, headers: ranger.headers
            ) { Array(buffer: $0.body) }
            (status, body) = try await Self.importFile(client, ranger, name: "santiam-stops-folder.zip", bytes: zip)
            #expect(try status == .conflict && PanelFlow.message(body).contains("Replace"), "\(body)")
            try "changed".write(
                toFile: drafts + "/santiam-stops/waypoints/01-" + gpx.stops[0].slug + "/note.txt", atomically: true,
                encoding: .utf8)
            (status, body) = try await Self.importFile(
                client, ranger, name: "santiam-stops-folder.zip", bytes: zip, replace: true)
            #expect(status == .created, "\(body)")
            #expect(try TourDraft.read(folder: drafts + "/santiam-stops") == gpx)
            let aside = try FileManager.default.contentsOfDirectory(
                atPath: server.folder.root + "/drafts-removed/willamette-sweet-home/santiam-stops")
            #expect(aside.count == 1, "the replaced draft is kept aside: \(aside)")
            #expect(
                !(try FileManager.default.contentsOfDirectory(atPath: server.folder.root + "/drafts")).contains {
                    $0.hasPrefix(".import-")
                }, "no staging folder is left")

            // Hostile zips: a path out of the folder, a link, a zip bomb beyond the limit, not a zip at all.
            let dir = NSTemporaryDirectory() + "panel-zips-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            do {
                let script = """
                    import zipfile, sys, stat
                    d = sys.argv[1]
                    with zipfile.ZipFile(d + "/escape.zip", "w") as z:
                        z.writestr("tour/tour.json", "{}")
                        z.writestr("tour/../../evil.txt", "x")
                    with zipfile.ZipFile(d + "/link.zip", "w") as z:
                        z.writestr("tour/tour.json", "{}")
                        info = zipfile.ZipInfo("tour/waypoints/01-a/passwd")
                        info.create_system = 3
                        info.external_attr = (stat.S_IFLNK | 0o777) << 16
                        z.writestr(info, "/etc/passwd")
                    with zipfile.ZipFile(d + "/bomb.zip", "w", zipfile.ZIP_DEFLATED) as z:
                        z.writestr("tour/tour.json", "{}")
                        z.writestr("tour/waypoints/01-a/big.txt", b"0" * (65 << 20))
                    """
                let made = try Support.run("python3", ["-c", script, dir])
                #expect(made.status == 0, "\(made.stderr)")
                for (name, expected, words) in [
                    ("escape.zip", HTTPResponse.Status.unprocessableContent, "unsafe name"),
                    ("link.zip", .unprocessableContent, "link"),
                    ("bomb.zip", .contentTooLarge, "unpacks to more than"),
                ] {
                    let (status, body) = try await Self.importFile(
                        client, ranger, name: name, bytes: try Support.read(dir + "/" + name))
                    #expect(
                        try status == expected && PanelFlow.message(body).contains(words), "\(name): \(status) \(body)")
                }
            }
            // A spreadsheet zipped with the photos its rows name: the photos land in their stops.
            do {
                let script = """
                    import zipfile, sys
                    with zipfile.ZipFile(sys.argv[1] + "/sheet.zip", "w") as z:
                        z.writestr("stops/sheet.csv", "name,latitude,longitude,description,photo\\nHouse Rock,44.3922,-122.2441,A rock shelter,house.png\\nFish Lake,44.4031,-121.9939,The lake bed,\\n")
                        z.writestr("stops/house.png", bytes.fromhex(sys.argv[2]))
                    """
                let made = try Support.run(
                    "python3", ["-c", script, dir, PanelFlow.png.map { String(format: "%02x", $0) }.joined()])
                #expect(made.status == 0, "\(made.stderr)")
                let (status, body) = try await Self.importFile(
                    client, ranger, name: "sheet.zip", bytes: try Support.read(dir + "/sheet.zip"))
                #expect(
                    try status == .created
                        && (PanelFlow.location(body) ?? "").contains("/drafts/willamette-sweet-home/sheet"), "\(body)")
                let made2 = try TourDraft.read(folder: drafts + "/sheet")
                #expect(
                    made2.stops.map(\.name) == ["House Rock", "Fish Lake"]
                        && made2.stops[0].assets.map(\.file) == ["house.png"], "\(made2.stops)")
                #expect(try Support.read(drafts + "/sheet/waypoints/01-house-rock/house.png") == PanelFlow.png)
            }
            (status, body) = try await Self.importFile(
                client, ranger, name: "broken.zip", bytes: Array("PK not really".utf8))
            #expect(
                try status == .unprocessableContent && PanelFlow.message(body).contains("not a readable zip"), "\(body)"
            )
            #expect(!FileManager.default.fileExists(atPath: server.folder.root + "/evil.txt"))
            #expect(
                !(try FileManager.default.contentsOfDirectory(atPath: server.folder.root + "/drafts")).contains {
                    $0.hasPrefix(".import-")
                }, "refused imports leave nothing behind")
        }
    }
}

extension Array where Element == UInt8 {
    /// The readable bytes of a response body.
    init(buffer: ByteBuffer) { self = buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) ?? [] }
}
