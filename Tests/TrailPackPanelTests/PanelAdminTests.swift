import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackTestSupport

@testable import TrailPackPanel

/// Administration in the browser: the same catalog calls as `trailpack admin`, audited under the
/// admin's name, behind CSRF, for admins only.
@Suite("panel: administration in the browser", .ownThreads)
struct PanelAdminTests {
    @Test(
        "an admin adds a site and a publisher with a first password and the site, changes roles, sets a password (ending the sessions), issues a token shown once and revokes it, takes a site back, removes a person only when their name is typed; every change audited under the admin's name; others are refused"
    )
    func administration() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let boss = try await PanelFlow.signIn(server, panel, user: "boss", role: .admin, site: nil)
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            #expect(try await PanelFlow.get(client, ranger, "/admin").0 == .forbidden)
            let refused = try await PanelFlow.post(client, ranger, "/admin/sites", [("id", "x-site"), ("name", "X")])
            let madeSite = try await server.catalog.siteExists("x-site")
            #expect(refused.0 == .forbidden && !madeSite)
            var (status, html) = try await PanelFlow.get(client, boss, "/admin")
            #expect(status == .ok && html.contains("People and sites") && html.contains("id=\"person-ranger\""))

            // A site, then a publisher who makes tours for it, with a first password.
            var posted = try await PanelFlow.post(
                client, boss, "/admin/sites", [("id", "mckenzie-river"), ("name", "McKenzie River Ranger District")])
            #expect(posted.0 == .seeOther && posted.1 == "/admin?saved=1", "\(posted.2)")
            posted = try await PanelFlow.post(
                client, boss, "/admin/users",
                [
                    ("name", "jane.doe"), ("role", "publisher"), ("site", "mckenzie-river"),
                    ("password", "a trail of ten"), ("password2", "a trail of ten"), ("publicKey", ""),
                ])
            #expect(posted.0 == .seeOther, "\(posted.2)")
            html = try await PanelFlow.get(client, boss, "/admin?saved=1").1
            #expect(html.contains("Added jane.doe as publisher (makes tours), making tours for mckenzie-river"))
            let record = try #require(try await server.catalog.signInRecord(name: "jane.doe"))
            #expect(PasswordHash.verify("a trail of ten", against: try #require(record.passwordHash)))
            #expect(try await server.catalog.grants().contains { $0 == ("jane.doe", "mckenzie-river") })
            // Mistakes are said in plain words and change nothing.
            for (fields, words) in [
                ([("name", "Jane Doe"), ("role", "publisher")], "letters, digits"),
                (
                    [("name", "sam"), ("role", "publisher"), ("password", "short"), ("password2", "short")],
                    "at least 10"
                ),
                (
                    [
                        ("name", "sam"), ("role", "publisher"), ("password", "ten or more!"),
                        ("password2", "ten or more?"),
                    ], "differ"
                ),
                (
                    [
                        ("name", "sam"), ("role", "reviewer"),
                        ("publicKey", "untrusted comment: minisign secret key\nRWRTY0Iy"),
                    ], "secret key"
                ),
                ([("name", "jane.doe"), ("role", "publisher")], "already someone called jane.doe"),
                // A forged form naming a site that does not exist (#53): 422, and nobody is made.
                ([("name", "sam"), ("role", "publisher"), ("site", "no-such-site")], "There is no site"),
                ([("name", "sam"), ("role", "publisher"), ("site", "../../etc")], "There is no site"),
            ] {
                let answer = try await PanelFlow.post(client, boss, "/admin/users", fields)
                #expect(answer.0.code >= 400 && answer.2.contains(words), "\(fields): \(answer.2)")
            }
            #expect(try await server.catalog.user(name: "sam") == nil)
            let unknownSite = try await PanelFlow.post(
                client, boss, "/admin/users", [("name", "sam"), ("role", "publisher"), ("site", "no-such-site")])
            #expect(unknownSite.0 == .unprocessableContent, "\(unknownSite.0)")

            // A new password ends the person's sessions.
            let janeSession = try await panel.sessions.start(user: "jane.doe")
            posted = try await PanelFlow.post(
                client, boss, "/admin/users/jane.doe/password",
                [("password", "another trail"), ("password2", "another trail")])
            #expect(posted.0 == .seeOther)
            #expect(try await panel.sessions.session(id: janeSession.id) == nil)
            // Roles; an admin does not demote themself.
            posted = try await PanelFlow.post(client, boss, "/admin/users/ranger/role", [("role", "reviewer")])
            let rangerRole = try await server.catalog.user(name: "ranger")?.role
            #expect(posted.0 == .seeOther && rangerRole == .reviewer)
            posted = try await PanelFlow.post(client, boss, "/admin/users/boss/role", [("role", "publisher")])
            #expect(posted.0 == .badRequest && posted.2.contains("yourself"))

            // A token: the form is answered with a redirect (a reload issues nothing), the page it leads
            // to shows the token once; the catalog's note of it is sealed with the session's id.
            let (tokenStatus, tokenLocation, _) = try await PanelFlow.post(
                client, boss, "/admin/tokens", [("user", "jane.doe")])
            #expect(tokenStatus == .seeOther && tokenLocation == "/admin?issued=1#issued-token")
            let tokenPage = try await PanelFlow.get(client, boss, "/admin?issued=1").1
            #expect(tokenPage.contains("shown this once"))
            let token = try #require(tokenPage.firstMatch(of: /tp_[A-Za-z0-9_]+/).map { String($0.0) })
            #expect(try await server.catalog.authenticate(token: token)?.name == "jane.doe")
            #expect(try await server.catalog.tokens().filter { $0.user == "jane.doe" }.count == 1)
            for again in ["/admin?issued=1", "/admin"] {
                html = try await PanelFlow.get(client, boss, again).1
                #expect(!html.contains(token), "a token is never shown again (\(again))")
            }
            let id = try #require(try await server.catalog.tokens().first { $0.user == "jane.doe" }?.id)
            posted = try await PanelFlow.post(client, boss, "/admin/tokens/\(id)/revoke", [])
            let revoked = try await server.catalog.authenticate(token: token)
            #expect(posted.0 == .seeOther && revoked == nil)

            // Grants back; removal needs the name typed.
            posted = try await PanelFlow.post(
                client, boss, "/admin/grants/remove", [("user", "jane.doe"), ("site", "mckenzie-river")])
            let stillGranted = try await server.catalog.grants().contains { $0.user == "jane.doe" }
            #expect(posted.0 == .seeOther && !stillGranted)
            posted = try await PanelFlow.post(client, boss, "/admin/users/jane.doe/remove", [("confirm", "")])
            let kept = try await server.catalog.user(name: "jane.doe")
            #expect(posted.0 == .badRequest && kept != nil)
            posted = try await PanelFlow.post(client, boss, "/admin/users/jane.doe/remove", [("confirm", "jane.doe")])
            let gone = try await server.catalog.user(name: "jane.doe")
            #expect(posted.0 == .seeOther && gone == nil)

            // Everything in the audit log under the admin's name.
            let log = try await server.catalog.auditLog(after: 0, limit: 500)
            for action in [
                "site-add", "user-add", "user-password", "grant", "user-role", "token-issue", "token-revoke",
                "grant-revoke", "user-remove",
            ] {
                #expect(log.contains { $0.action == action && $0.actor == "boss (panel)" }, "\(action)")
            }
            // Without the form's token: refused, nothing done.
            let forged = try await client.execute(
                uri: "/admin/sites", method: .post, headers: boss.form,
                body: ByteBuffer(string: "id=forged-site&name=F")
            ) { $0.status }
            let forgedSite = try await server.catalog.siteExists("forged-site")
            #expect(forged == .forbidden && !forgedSite)
        }
    }

    @Test(
        "an admin gives a reviewer a signing key, replaces it and takes it away; a secret key or nothing is refused in words; audited under the admin's name"
    )
    func signingKeys() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let boss = try await PanelFlow.signIn(server, panel, user: "boss", role: .admin, site: nil)
            _ = try await PanelFlow.signIn(server, panel, user: "ken", role: .reviewer, site: nil)
            var html = try await PanelFlow.get(client, boss, "/admin").1
            #expect(html.contains("action=\"/admin/users/ken/key\"") && html.contains("Give a signing key"))

            let first = try Minisign.SecretKey.generate().publicKeyValue.fileText
            var posted = try await PanelFlow.post(client, boss, "/admin/users/ken/key", [("publicKey", first)])
            #expect(posted.0 == .seeOther, "\(posted.2)")
            #expect(try await server.catalog.user(name: "ken")?.publicKey == first)
            html = try await PanelFlow.get(client, boss, "/admin?saved=1").1
            #expect(html.contains("ken signs approvals with the new key from now on"))
            #expect(html.contains("Replace or") && html.contains("Remove the key"))

            // A lost key replaced by a new one.
            let second = try Minisign.SecretKey.generate().publicKeyValue.fileText
            posted = try await PanelFlow.post(client, boss, "/admin/users/ken/key", [("publicKey", second)])
            let replaced = try await server.catalog.user(name: "ken")?.publicKey
            #expect(posted.0 == .seeOther && replaced == second)

            // Mistakes change nothing.
            for (fields, words) in [
                ([("publicKey", "untrusted comment: minisign secret key\nRWRTY0Iy")], "secret key"),
                ([("publicKey", "hello")], "not a signing public key"),
                ([("publicKey", "  ")], "public key (the whole .pub file"),
            ] {
                let answer = try await PanelFlow.post(client, boss, "/admin/users/ken/key", fields)
                #expect(answer.0 == .badRequest && answer.2.contains(words), "\(fields): \(answer.2)")
            }
            #expect(try await server.catalog.user(name: "ken")?.publicKey == second)
            let nobody = try await PanelFlow.post(client, boss, "/admin/users/nobody/key", [("publicKey", second)])
            #expect(nobody.0.code >= 400)

            // Taken away.
            posted = try await PanelFlow.post(client, boss, "/admin/users/ken/key", [("remove", "yes")])
            let removed = try await server.catalog.user(name: "ken")?.publicKey
            #expect(posted.0 == .seeOther && removed == nil)
            html = try await PanelFlow.get(client, boss, "/admin?saved=1").1
            #expect(html.contains("ken no longer has a signing key"))

            let log = try await server.catalog.auditLog(after: 0, limit: 500).filter { $0.action == "user-key" }
            #expect(log.count == 3 && log.allSatisfy { $0.actor == "boss (panel)" })
            #expect(log.last?.detail == "ken no longer has a signing key")
        }
    }

    @Test(
        "a site's home frame and region map set in the browser: a new tour opens there; bad edges, a file that is not a raster PMTiles map and an unknown site are refused in words and change nothing; both audited"
    )
    func siteHomeAndRegionMap() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let boss = try await PanelFlow.signIn(server, panel, user: "boss", role: .admin, site: nil)
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let site = "willamette-sweet-home"
            var html = try await PanelFlow.get(client, boss, "/admin").1
            #expect(html.contains("action=\"/admin/sites/\(site)/frame\"") && html.contains("around its\ntours"))
            #expect(html.contains("action=\"/admin/sites/\(site)/map?_csrf=\(boss.csrf)\""))

            let edges = [("south", "44.35"), ("west", "-122.3"), ("north", "44.45"), ("east", "-122.1")]
            var posted = try await PanelFlow.post(client, boss, "/admin/sites/\(site)/frame", edges)
            #expect(posted.0 == .seeOther, "\(posted.2)")
            let frame = try #require(try await server.catalog.siteFrame(id: site))
            #expect(frame.southwest.latitude == 44.35 && frame.northeast.longitude == -122.1)
            html = try await PanelFlow.get(client, boss, "/admin?saved=1").1
            #expect(html.contains("now opens its map on the home frame") && html.contains("value=\"44.450000\""))
            let draft = try await PanelFlow.createDraft(client, ranger, name: "New Walk")
            html = try await PanelFlow.get(client, ranger, draft).1
            #expect(
                html.contains("data-view-south=\"44.350000\" data-view-west=\"-122.300000\"")
                    && html.contains("data-view-east=\"-122.100000\""), "the new tour opens on the home frame")

            for (fields, words) in [
                (
                    [("south", "44.5"), ("west", "-122.3"), ("north", "44.4"), ("east", "-122.1")],
                    "below the north edge"
                ),
                ([("south", "44.3"), ("west", "-122.3"), ("north", "abc"), ("east", "-122.1")], "north edge"),
                ([("south", "44.3"), ("west", "-122.3"), ("north", "44.4"), ("east", "-122.3")], "same line"),
                ([("south", "95"), ("west", "-122.3"), ("north", "96"), ("east", "-122.1")], "south edge"),
            ] {
                let answer = try await PanelFlow.post(client, boss, "/admin/sites/\(site)/frame", fields)
                #expect(answer.0 == .badRequest && answer.2.contains(words), "\(fields): \(answer.2)")
            }
            #expect(try await server.catalog.siteFrame(id: site) == frame, "a refused form changes nothing")
            #expect(try await PanelFlow.post(client, boss, "/admin/sites/no-such-site/frame", edges).0 == .notFound)
            #expect(try await PanelFlow.post(client, ranger, "/admin/sites/\(site)/frame", edges).0 == .forbidden)

            // Until it has one, the site's entry says what is missing and how to add it.
            html = try await PanelFlow.get(client, boss, "/admin").1
            #expect(html.contains("id=\"site-no-map-\(site)\"") && html.contains("trailpack map extract"), "\(html)")
            #expect(!html.contains("id=\"site-no-frame-\(site)\""), "the frame was set above")
            // The region map, as a browser sends the file form.
            let folder = server.folder.root + "/site-maps"
            func send(_ name: String, _ bytes: [UInt8]) async throws -> (HTTPResponse.Status, String) {
                let body = PanelDraftTests.multipart(boundary: "----tp9", files: [(name, bytes)])
                return try await client.execute(
                    uri: "/admin/sites/\(site)/map?_csrf=\(boss.csrf)", method: .post,
                    headers: [.cookie: boss.cookie, .contentType: "multipart/form-data; boundary=----tp9"],
                    body: ByteBuffer(bytes: body)
                ) { ($0.status, String(buffer: $0.body)) }
            }
            var sent = try await send("notes.pmtiles", Array("not a map".utf8))
            #expect(sent.0 == .badRequest && sent.1.contains("is not a PMTiles map the panel can read"), "\(sent.1)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/\(site).pmtiles"))
            let map = try Support.read(Support.fixture("santiam-wagon-road") + "/map/santiam-wagon-road.pmtiles")
            sent = try await send("santiam region.pmtiles", map)
            #expect(sent.0 == .seeOther, "\(sent.1)")
            #expect(try Support.read(folder + "/\(site).pmtiles") == map)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["\(site).pmtiles"], "no leftovers")
            html = try await PanelFlow.get(client, boss, "/admin?saved=1").1
            #expect(html.contains("has a region map now (zoom 8 to 13)") && html.contains("region map: zoom 8 to 13"))
            #expect(!html.contains("id=\"site-no-map-\(site)\""))
            html = try await PanelFlow.get(client, ranger, draft).1
            #expect(html.contains("data-own-tiles=\"/sites/\(site)/tiles/{z}/{x}/{y}\""), "the editor draws it")

            posted = try await PanelFlow.post(client, boss, "/admin/sites/\(site)/map/remove", [])
            #expect(posted.0 == .seeOther && !FileManager.default.fileExists(atPath: folder + "/\(site).pmtiles"))
            // A link planted where the map goes (to a map outside, and to a text): never followed, never removed.
            let outside = server.folder.root + "/../outside-\(UUID().uuidString).pmtiles"
            try Support.write(map, to: outside)
            defer { unlink(outside) }
            try FileManager.default.createSymbolicLink(
                atPath: folder + "/\(site).pmtiles", withDestinationPath: outside)
            #expect(try await PanelFlow.get(client, ranger, "/sites/\(site)/tiles/10/164/370").0 == .notFound)
            #expect(!(try await PanelFlow.get(client, ranger, draft).1.contains("data-own-tiles=\"/sites/")))
            posted = try await PanelFlow.post(client, boss, "/admin/sites/\(site)/map/remove", [])
            let planted = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/\(site).pmtiles")
            let untouched = try Support.read(outside)
            #expect(posted.0 == .seeOther && planted == outside && untouched == map)
            unlink(folder + "/\(site).pmtiles")
            posted = try await PanelFlow.post(client, boss, "/admin/sites/\(site)/frame", [("remove", "1")])
            #expect(posted.0 == .seeOther)
            #expect(try await server.catalog.siteFrame(id: site) == nil)

            let log = try await server.catalog.auditLog(after: 0, limit: 500).filter {
                $0.action == "site-frame" || $0.action == "site-map"
            }
            #expect(log.map(\.action) == ["site-frame", "site-map", "site-map", "site-frame"], "\(log)")
            #expect(log.allSatisfy { $0.actor == "boss (panel)" })
            #expect(log.first?.detail == "\(site): home frame -122.3,44.35,-122.1,44.45 (W,S,E,N)")
        }
    }

    @Test(
        "an admin sets where a person's review notices are mailed, and takes it away; a text that is not a plain address is refused in words; audited without the address"
    )
    func mailAddresses() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let boss = try await PanelFlow.signIn(server, panel, user: "boss", role: .admin, site: nil)
            _ = try await PanelFlow.signIn(server, panel, user: "ken", role: .reviewer, site: nil)
            var html = try await PanelFlow.get(client, boss, "/admin").1
            #expect(html.contains("action=\"/admin/users/ken/email\"") && html.contains("id=\"email-ken\""))
            var posted = try await PanelFlow.post(
                client, boss, "/admin/users/ken/email", [("email", " ken@example.org ")])
            #expect(posted.0 == .seeOther, "\(posted.2)")
            #expect(try await server.catalog.emailAddresses() == ["ken": "ken@example.org"])
            html = try await PanelFlow.get(client, boss, "/admin?saved=1").1
            #expect(html.contains("value=\"ken@example.org\"") && html.contains("once the server is started with mail"))
            for bad in ["ken", "ken@example.org\r\nBcc: x@example.org", "<ken@example.org>", "a b@example.org"] {
                let answer = try await PanelFlow.post(client, boss, "/admin/users/ken/email", [("email", bad)])
                #expect(answer.0 == .badRequest && answer.2.contains("is not a mail address"), "\(bad): \(answer.2)")
            }
            #expect(try await server.catalog.emailAddresses() == ["ken": "ken@example.org"])
            posted = try await PanelFlow.post(client, boss, "/admin/users/ken/email", [("email", "")])
            #expect(posted.0 == .seeOther)
            #expect(try await server.catalog.emailAddresses().isEmpty)
            let log = try await server.catalog.auditLog(after: 0, limit: 500).filter { $0.action == "user-email" }
            #expect(log.map(\.detail) == ["ken has a new mail address", "ken gets no mail"])
            #expect(log.allSatisfy { $0.actor == "boss (panel)" && !$0.detail.contains("@") })
        }
    }

    @Test("a secret for the next page is sealed with the session's id: the catalog's note does not hold it")
    func sealedNote() async throws {
        try await PanelDraftTests.withPanel { server, panel, _ in
            let session = try await panel.sessions.start(
                user: try await {
                    try await server.catalog.addUser(name: "boss", role: .admin)
                    return "boss"
                }())
            let secret = "boss\n7\ntp_" + String(repeating: "Zq9", count: 20)
            try await panel.sessions.seal(id: session.id, secret)
            let raw = try #require(try await server.catalog.takeSessionNote(id: session.id, kind: .sealed))
            #expect(!raw.contains("tp_") && !raw.contains("Zq9") && !raw.contains("boss"), "\(raw)")
            try await panel.sessions.seal(id: session.id, secret)
            #expect(try await panel.sessions.takeSealed(id: "another session") == nil)
            #expect(try await panel.sessions.takeSealed(id: session.id) == secret)
            #expect(try await panel.sessions.takeSealed(id: session.id) == nil, "once")
            // Two seals of the same secret differ (a fresh nonce each time).
            try await panel.sessions.seal(id: session.id, secret)
            let first = try await server.catalog.takeSessionNote(id: session.id, kind: .sealed)
            try await panel.sessions.seal(id: session.id, secret)
            #expect(try await server.catalog.takeSessionNote(id: session.id, kind: .sealed) != first)
        }
    }

    @Test("an address that is no page: a browser gets the panel's HTML page with a way back; the API keeps JSON")
    func notFoundPages() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let html: HTTPFields = [.cookie: ranger.cookie, .accept: "text/html,application/xhtml+xml"]
            for (path, back) in [
                ("/drafts/willamette-sweet-home/fish-lake/build", "/drafts/willamette-sweet-home/fish-lake"),
                ("/no/such/page", "/"), ("/admin/nothing", "/admin"),
            ] {
                let (status, type, body) = try await client.execute(uri: path, method: .get, headers: html) {
                    ($0.status, $0.headers[.contentType] ?? "", String(buffer: $0.body))
                }
                #expect(status == .notFound && type.hasPrefix("text/html"), "\(path): \(type)")
                #expect(body.contains("<html lang=\"en\">") && body.contains("<title>No such page"), "\(body)")
                #expect(body.contains("id=\"error-back\"") && body.contains("href=\"\(back)\""), "\(path): \(body)")
                #expect(!body.contains("Back button to return to the form"))
            }
            for (path, headers) in [
                ("/v1/nothing", html), ("/drafts/x/y/build", [.cookie: ranger.cookie] as HTTPFields),
            ] {
                let (status, type) = try await client.execute(uri: path, method: .get, headers: headers) {
                    ($0.status, $0.headers[.contentType] ?? "")
                }
                #expect(status == .notFound && type.hasPrefix("application/json"), "\(path): \(type)")
            }
        }
    }

}
