import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TrailPackBuilder
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCrypto
import TrailPackServer
import TrailPackTestSupport

@testable import TrailPackPanel

/// Part 2 of the panel on the router: the queue, the review page built from the stored package (its
/// diff against the released version, its media streamed with Range), deny with a reason, approve,
/// release, history; and who may do what.
@Suite("panel: review, decisions, history", .ownThreads)
struct PanelReviewTests {
    static let id = "gov.usda.fs.willamette.santiam-wagon-road"

    /// The sample tour, optionally changed, built as `version` and uploaded by `token`'s publisher.
    static func upload(
        _ client: some TestClientProtocol, token: String, version: String, dir: String,
        change: (String) throws -> Void = { _ in }
    ) async throws -> String {
        let folder = dir + "/tour-\(version)"
        try Support.copyTree(Support.fixture("santiam-wagon-road"), folder)
        var tour = try String(contentsOfFile: folder + "/tour.json", encoding: .utf8)
        tour = tour.replacingOccurrences(of: "\"version\": \"1.0.0\"", with: "\"version\": \"\(version)\"")
        try tour.write(toFile: folder + "/tour.json", atomically: true, encoding: .utf8)
        try change(folder)
        let built = try Support.trailpack(["build", folder, "-o", dir + "/\(version).zip", "--quiet"])
        #expect(built.status == 0, "\(built.stderr)")
        let bytes = try Support.read(dir + "/\(version).zip")
        return try await client.execute(
            uri: "/v1/admin/packages", method: .post, headers: [.authorization: "Bearer \(token)"],
            body: ByteBuffer(bytes: bytes)
        ) {
            #expect($0.status == .created, "\(String(buffer: $0.body))")
            return String(buffer: $0.body)
        }
    }

    /// Who the review tests need (a publisher, a reviewer, the publisher's API token), with the sample
    /// tour's 1.0.0 uploaded and released through the catalog (as the API would).
    struct Cast {
        var ranger: PanelFlow.Visitor, reviewer: PanelFlow.Visitor
        var token: String
        var rangerUser: Catalog.User, rita: Catalog.User
    }

    static func releasedSample(
        _ server: TrailPackServer, _ panel: PanelController, _ client: some TestClientProtocol, dir: String
    ) async throws -> Cast {
        let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
        let reviewer = try await PanelFlow.signIn(server, panel, user: "rita", role: .reviewer, site: nil)
        let token = try await server.catalog.issueToken(user: "ranger").token
        let rita = try #require(try await server.catalog.user(name: "rita"))
        let rangerUser = try #require(try await server.catalog.user(name: "ranger"))
        _ = try await upload(client, token: token, version: "1.0.0", dir: dir)
        for (transition, user) in [(Catalog.Transition.start, rangerUser), (.approve, rita), (.push, rangerUser)] {
            #expect(
                try await server.catalog.apply(
                    transition, package: id, version: "1.0.0", by: user, required: 1, signature: nil) != .notFound)
        }
        return Cast(ranger: ranger, reviewer: reviewer, token: token, rangerUser: rangerUser, rita: rita)
    }

    /// A folder of the test's own (the caller removes it).
    static func workFolder(_ name: String) throws -> String {
        let dir = NSTemporaryDirectory() + "panel-review-\(name)-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A change to a tour folder's tour.json: `from` replaced by `to`.
    static func edit(_ from: String, _ to: String) -> (String) throws -> Void {
        { folder in
            var tour = try String(contentsOfFile: folder + "/tour.json", encoding: .utf8)
            tour = tour.replacingOccurrences(of: from, with: to)
            try tour.write(toFile: folder + "/tour.json", atomically: true, encoding: .utf8)
        }
    }

    @Test(
        "a version sent back is built again under its own number: the panel proposes that number, the new bytes take its place (the old manifest kept, audited), the reviewer sees what changed since the last build; the API and a version under review still refuse other bytes"
    )
    func rebuiltUnderItsNumber() async throws {
        try await PanelDraftTests.withPanel(approvals: 1) { server, panel, client in
            let dir = try Self.workFolder("rebuild")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let cast = try await Self.releasedSample(server, panel, client, dir: dir)
            let edit = Self.edit
            _ = try await Self.upload(
                client, token: cast.token, version: "1.1.0", dir: dir, change: edit("Sweet Home", "Sweet Hime"))
            let first = try #require(try await server.catalog.record(package: Self.id, version: "1.1.0")).summary
            _ = try await server.catalog.apply(
                .start, package: Self.id, version: "1.1.0", by: cast.rangerUser, required: 1, signature: nil)
            _ = try await server.catalog.apply(
                .deny, package: Self.id, version: "1.1.0", by: cast.rita, required: 1, signature: nil,
                reason: "a typo in the description")

            // The ranger's tour page proposes building 1.1.0 again.
            let draft = try await PanelFlow.createDraft(client, cast.ranger, name: "Santiam Wagon Road")
            let editor = try await PanelFlow.get(client, cast.ranger, draft).1
            _ = try await PanelFlow.post(
                client, cast.ranger, draft,
                [
                    ("revision", try PanelFlow.revision(editor)), ("name", "Santiam Wagon Road"), ("id", Self.id),
                    ("followStops", "1"),
                ])
            let tourPage = try await PanelFlow.get(client, cast.ranger, draft).1
            #expect(tourPage.contains("id=\"build-version\" name=\"version\" value=\"1.1.0\""), "\(tourPage)")
            #expect(tourPage.contains("build version 1.1.0 again below"))
            let respelled = try await PanelFlow.post(
                client, cast.ranger, draft + "/build",
                [("revision", try PanelFlow.revision(tourPage)), ("version", "1.1")])
            #expect(respelled.0 == .conflict && respelled.2.contains("write it the same way"), "\(respelled.2)")

            // The API keeps refusing other bytes under a stored number.
            let folder = dir + "/fixed"
            try Support.copyTree(Support.fixture("santiam-wagon-road"), folder)
            try edit("\"version\": \"1.0.0\"", "\"version\": \"1.1.0\"")(folder)
            #expect(try Support.trailpack(["build", folder, "-o", dir + "/fixed.zip", "--quiet"]).status == 0)
            let fixed = try Support.read(dir + "/fixed.zip")
            let api = try await client.execute(
                uri: "/v1/admin/packages", method: .post, headers: [.authorization: "Bearer \(cast.token)"],
                body: ByteBuffer(bytes: fixed)
            ) { $0.status }
            #expect(api == .conflict)

            // The panel's build (the intake, rebuilding) puts the fixed bytes in the sent-back version's place.
            func rebuild(_ zip: String = "fixed.zip") async throws -> PackageIntake.AcceptedPackage {
                let temp = try server.folder.temporaryFolder()
                defer { try? FileManager.default.removeItem(atPath: temp) }
                try FileManager.default.copyItem(atPath: dir + "/" + zip, toPath: temp + "/" + BlobNames.uploadFileName)
                return try await server.intake.ingest(folder: temp, by: cast.rangerUser, rebuilding: true)
            }
            let accepted = try await rebuild()
            #expect(accepted.stored && accepted.message.contains("built again as version 1.1.0"), "\(accepted.message)")
            let now = try #require(try await server.catalog.record(package: Self.id, version: "1.1.0"))
            #expect(now.summary.sha256 == SHA256.hash(fixed).hex && now.summary.status == .draft)
            #expect(now.approvals.isEmpty && now.scanStatus != .held)
            let replaced = try await server.catalog.replacedBytes(package: Self.id, version: "1.1.0")
            #expect(replaced.map(\.sha256) == [first.sha256] && replaced.first?.replacedBy == "ranger")
            #expect(replaced.first?.manifest.contains("Sweet Hime") == true)
            let log = try await server.catalog.auditLog(package: Self.id).filter { $0.version == "1.1.0" }
            #expect(
                log.contains {
                    $0.detail.contains(
                        "built again under the same number, in place of the bytes with SHA-256 \(first.sha256)")
                },
                "\(log)")
            #expect(try await server.catalog.history(package: Self.id).count == 2, "still 1.0.0 and 1.1.0")

            // Sent for review again: the reviewer sees what changed since the last build of 1.1.0.
            _ = try await server.catalog.apply(
                .start, package: Self.id, version: "1.1.0", by: cast.rangerUser, required: 1, signature: nil)
            let review = try await PanelFlow.get(client, cast.reviewer, "/packages/\(Self.id)/versions/1.1.0").1
            #expect(review.contains("What changed since this version was built the last"), "\(review)")
            #expect(review.contains("id=\"since-denied\"") && review.contains("Sweet Hime"))
            // Under review, its bytes stay: building again is refused.
            #expect(try await rebuild().stored == false, "the same bytes again change nothing")
            await #expect(throws: ServerError.self) { _ = try await rebuild("1.1.0.zip") }
            let waiting = try await PanelFlow.post(
                client, cast.ranger, draft + "/build",
                [("revision", try PanelFlow.revision(tourPage)), ("version", "1.1.0")])
            #expect(waiting.0 == .conflict && waiting.2.contains("is waiting for review"), "\(waiting.2)")
            #expect(
                try await server.catalog.record(package: Self.id, version: "1.1.0")?.summary.sha256
                    == now.summary.sha256)
        }
    }

    @Test(
        "else the park: a new tour in a site with nothing yet opens around the released tours of other sites in the same park (the same words, any case), and nowhere in particular for another park"
    )
    func opensOnThePark() async throws {
        try await PanelDraftTests.withPanel(approvals: 1) { server, panel, client in
            let dir = try Self.workFolder("park")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            // The sample tour (Willamette National Forest, 44.3..44.5 N, 122.8..121.6 W) released in
            // willamette-sweet-home; a ranger of another site of the same forest starts a tour.
            _ = try await Self.releasedSample(server, panel, client, dir: dir)
            let other = try await PanelFlow.signIn(server, panel, user: "mo", site: "willamette-mckenzie")
            let (created, location, body) = try await PanelFlow.post(
                client, other, "/drafts",
                [("site", "willamette-mckenzie"), ("name", "Clear Lake"), ("park", " willamette national forest")])
            #expect(created == .seeOther, "\(body)")
            var html = try await PanelFlow.get(client, other, try #require(location)).1
            #expect(
                html.contains("data-view-south=\"44.280000\" data-view-west=\"-122.820000\"")
                    && html.contains("data-view-north=\"44.520000\"")
                    && html.contains("data-view-east=\"-121.580000\""),
                "the map opens around the park's released tour")
            let elsewhere = try await PanelFlow.post(
                client, other, "/drafts",
                [("site", "willamette-mckenzie"), ("name", "Crater Rim"), ("park", "Crater Lake National Park")])
            html = try await PanelFlow.get(client, other, try #require(elsewhere.1)).1
            #expect(!html.contains("data-view-south"), "another park's tours say nothing about where this one is")
        }
    }

    @Test(
        "the reviewer of a fix sees what changed since the version that was sent back, beside what changed since the release"
    )
    func sinceSentBack() async throws {
        try await PanelDraftTests.withPanel(approvals: 1) { server, panel, client in
            let dir = try Self.workFolder("fix")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let cast = try await Self.releasedSample(server, panel, client, dir: dir)
            let edit = Self.edit
            let (ranger, reviewer, token, rangerUser, rita) = (
                cast.ranger, cast.reviewer, cast.token, cast.rangerUser, cast.rita
            )
            _ = try await Self.upload(
                client, token: token, version: "1.1.0", dir: dir, change: edit("Sweet Home", "Sweet Hime"))
            _ = try await server.catalog.apply(
                .start, package: Self.id, version: "1.1.0", by: rangerUser, required: 1, signature: nil)
            _ = try await server.catalog.apply(
                .deny, package: Self.id, version: "1.1.0", by: rita, required: 1, signature: nil,
                reason: "a typo in the description")
            // The publisher's badge and list: the version sent back, with the reviewer's words.
            let home = try await PanelFlow.get(client, ranger, "/").1
            #expect(
                home.contains("What needs you <span class=\"badge text-bg-warning\" aria-label=\"1 waiting\">1</span>"))
            let needs = try await PanelFlow.get(client, ranger, "/notifications").1
            #expect(
                needs.contains("was sent back by rita") && needs.contains("“a typo in the description”"), "\(needs)")
            _ = try await Self.upload(client, token: token, version: "1.1.1", dir: dir)
            let after = try await PanelFlow.get(client, ranger, "/notifications").1
            #expect(after.contains("Nothing needs you now"), "the fix was stored: \(after)")
            _ = try await server.catalog.apply(
                .start, package: Self.id, version: "1.1.1", by: rangerUser, required: 1, signature: nil)
            let html = try await PanelFlow.get(client, reviewer, "/packages/\(Self.id)/versions/1.1.1").1
            #expect(html.contains("What changed since version 1.1.0, which was sent back"), "\(html)")
            #expect(html.contains("id=\"since-denied\"") && html.contains("Sweet Hime"))
            // Once the fix is sent back too, the one before is no longer "the version that was sent back".
            let first = try await PanelFlow.get(client, reviewer, "/packages/\(Self.id)/versions/1.1.0").1
            #expect(!first.contains("id=\"since-denied\""))
        }
    }

    @Test(
        "a reviewer sees the waiting version with a badge, the changes since the release (a moved stop in metres, a description word by word), plays its media from the package with Range; a denial needs a reason the publisher then reads; approve, release; the history lists both versions and the reason; others are kept out"
    )
    func reviewFlow() async throws {
        try await PanelDraftTests.withPanel(approvals: 1) { server, panel, client in
            let dir = NSTemporaryDirectory() + "panel-review-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            // 1.0.0, released through the catalog (as the API would).
            let cast = try await Self.releasedSample(server, panel, client, dir: dir)
            let (ranger, reviewer, rangerToken, rangerUser, rita) = (
                cast.ranger, cast.reviewer, cast.token, cast.rangerUser, cast.rita
            )
            let outsider = try await PanelFlow.signIn(server, panel, user: "otto", site: "colorado-peak-checklists")
            // 1.1.0: stop 2 moved about 1 km north, its description changed by two words.
            _ = try await Self.upload(client, token: rangerToken, version: "1.1.0", dir: dir) { folder in
                let path = try #require(
                    try FileManager.default.contentsOfDirectory(atPath: folder + "/waypoints").sorted().dropFirst()
                        .first)
                var text = try String(contentsOfFile: folder + "/waypoints/" + path + "/waypoint.json", encoding: .utf8)
                text = text.replacingOccurrences(of: "44.3979", with: "44.4069").replacingOccurrences(
                    of: "shady river bottom", with: "sunny river bottom")
                try text.write(
                    toFile: folder + "/waypoints/" + path + "/waypoint.json", atomically: true, encoding: .utf8)
            }
            var (status, _, body) = try await PanelFlow.post(
                client, ranger, "/packages/\(Self.id)/versions/1.1.0/request", [])
            #expect(status == .seeOther, "\(body)")

            // The queue and the badge.
            var html = try await PanelFlow.get(client, reviewer, "/reviews").1
            #expect(html.contains("/packages/\(Self.id)/versions/1.1.0") && html.contains("0 of 1"))
            #expect(html.contains("aria-label=\"1 waiting\""), "the badge counts what waits for this reviewer")
            // The review page: built from the package, with the changes.
            let page = "/packages/\(Self.id)/versions/1.1.0"
            (status, html) = try await PanelFlow.get(client, reviewer, page)
            #expect(status == .ok)
            #expect(
                html.contains("Since version 1.0.0") && html.contains("Changed: stop 2, Cascadia")
                    && (html.contains("moved 1.00 km") || html.contains("moved 1001 m")
                        || html.contains("moved 1000 m")),
                "\(html)")
            #expect(html.contains("<del>shady</del>") && html.contains("<ins>sunny</ins>"))
            #expect(
                html.contains("the package verifies") && html.contains("oldLat"),
                "the map shows where the moved stop was")
            #expect(
                html.contains("<audio controls") && html.contains("Transcript:")
                    && html.contains("alt=\"A simple drawing of the view at Cascadia"))
            #expect(html.contains("trailpack sign \(Self.id)-1.1.0.zip"))
            // Media straight out of the package, with Range.
            let assetURL =
                page + "/asset?path=" + "waypoints/cascadia/view.png".addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics)!
            let original = try Support.read(Support.fixture("santiam-wagon-road") + "/waypoints/02-cascadia/view.png")
            try await client.execute(uri: assetURL, method: .get, headers: reviewer.headers) { response in
                #expect(
                    response.status == .ok && Array(buffer: response.body) == original
                        && response.headers[.contentType] == "image/png")
                #expect(response.headers[.contentSecurityPolicy] == "default-src 'none'; sandbox")
                #expect(response.headers[.contentDisposition] == nil, "a PNG is shown inline")
            }
            try await client.execute(
                uri: assetURL, method: .get, headers: [.cookie: reviewer.cookie, .range: "bytes=10-19"]
            ) { response in
                #expect(response.status == .partialContent && Array(buffer: response.body) == Array(original[10...19]))
                #expect(response.headers[.contentRange] == "bytes 10-19/\(original.count)")
            }
            try await client.execute(
                uri: assetURL, method: .get, headers: [.cookie: reviewer.cookie, .range: "bytes=\(original.count)-"]
            ) { response in
                #expect(response.status == .rangeNotSatisfiable)
            }
            try await client.execute(uri: page + "/asset?path=manifest.json", method: .get, headers: reviewer.headers) {
                #expect($0.status == .notFound)
            }
            // The tour's own offline map: drawn under the stops, its coverage of the frame listed zoom by zoom.
            #expect(
                html.contains("data-own-tiles=\"\(page)/tiles/{z}/{x}/{y}\"") && html.contains("png tiles, zoom 8–13"),
                "the review page draws the package's map")
            #expect(html.contains("<td>13</td>") && html.contains("100.0 %"), "coverage per zoom")
            try await client.execute(uri: page + "/tiles/10/164/370", method: .get, headers: reviewer.headers) {
                response in
                #expect(
                    response.status == .ok && response.headers[.contentType] == "image/png"
                        && Array(Array(buffer: response.body).prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
                #expect(response.headers[.contentSecurityPolicy] == "default-src 'none'; sandbox")
            }
            try await client.execute(uri: page + "/tiles/3/0/0", method: .get, headers: reviewer.headers) {
                #expect($0.status == .noContent, "a tile the map does not hold")
            }
            try await client.execute(uri: page + "/tiles/99/0/0", method: .get, headers: reviewer.headers) {
                #expect($0.status == .notFound)
            }
            #expect(try await PanelFlow.get(client, outsider, page + "/tiles/10/164/370").0 == .notFound)
            // The package itself, to sign offline: the same bytes as uploaded.
            let uploaded = try Support.read(dir + "/1.1.0.zip")
            try await client.execute(uri: page + "/package.zip", method: .get, headers: reviewer.headers) { response in
                #expect(response.status == .ok && Array(buffer: response.body) == uploaded)
            }
            #expect(try await PanelFlow.get(client, outsider, page + "/package.zip").0 == .notFound)
            // Kept out: another site's publisher, and a signed-out visitor.
            #expect(try await PanelFlow.get(client, outsider, page).0 == .notFound)
            #expect(try await PanelFlow.get(client, outsider, assetURL).0 == .notFound)
            try await client.execute(uri: page, method: .get) { #expect($0.status == .seeOther) }

            // Deny: a reason is required; the publisher reads it.
            (status, _, body) = try await PanelFlow.post(client, reviewer, page + "/deny", [("reason", "  ")])
            #expect(status == .badRequest && body.contains("say why"), "\(status) \(body)")
            (status, _, _) = try await PanelFlow.post(
                client, reviewer, page + "/deny",
                [("reason", "The <b>Cascadia</b> stop moved into the river; check the coordinate.")])
            #expect(status == .seeOther)
            html = try await PanelFlow.get(client, ranger, page).1
            #expect(
                html.contains("Sent back by rita")
                    && html.contains("&lt;b&gt;Cascadia&lt;/b&gt; stop moved into the river"))
            #expect(!html.contains("approvals cleared") && !html.contains("pending →"), "plain words only")
            #expect(html.contains("id=\"request-button\""), "the publisher may ask again")
            // Where the ranger works: the tours list and the tour's page say it was sent back, and why;
            // the next version is the sent-back one's own, and a released number is refused before a build.
            let draft = try await PanelFlow.createDraft(client, ranger, name: "Santiam Wagon Road")
            let editor = try await PanelFlow.get(client, ranger, draft).1
            let saved = try await PanelFlow.post(
                client, ranger, draft,
                [
                    ("revision", try PanelFlow.revision(editor)), ("name", "Santiam Wagon Road"), ("id", Self.id),
                    ("followStops", "1"),
                ])
            #expect(saved.0 == .seeOther, "\(saved.2)")
            let list = try await PanelFlow.get(client, ranger, "/").1
            #expect(list.contains("Version 1.1.0 was sent back by rita"), "\(list)")
            #expect(list.contains("&lt;b&gt;Cascadia&lt;/b&gt; stop moved into the river"))
            let tourPage = try await PanelFlow.get(client, ranger, draft).1
            #expect(tourPage.contains("id=\"review-state\"") && tourPage.contains("was sent back by rita"))
            #expect(tourPage.contains("id=\"build-version\" name=\"version\" value=\"1.1.0\""), "\(tourPage)")
            let again = try await PanelFlow.post(
                client, ranger, draft + "/build",
                [("revision", try PanelFlow.revision(tourPage)), ("version", "1.0")])
            #expect(again.0 == .conflict, "\(again.2)")
            #expect(
                again.2.contains("Version 1.0.0 of this tour is released")
                    && again.2.contains("Build it as version 1.1.0"),
                "\(again.2)")
            // Ask again; a forged signature is refused; approve; only the uploader releases.
            (status, _, _) = try await PanelFlow.post(client, ranger, page + "/request", [])
            #expect(status == .seeOther)
            (status, _, body) = try await PanelFlow.post(
                client, reviewer, page + "/approve", [("signature", "untrusted comment: x\nRWQ")])
            #expect(status == .unprocessableContent && body.contains("signature was not accepted"), "\(body)")
            (status, _, _) = try await PanelFlow.post(client, ranger, page + "/approve", [])
            #expect(status == .forbidden, "a publisher cannot approve their own version")
            // A second reviewer approves with a signature made offline with the page's command.
            #expect(
                try Support.trailpack(["keygen", "-s", dir + "/sam.key", "-p", dir + "/sam.pub", "--unencrypted"])
                    .status == 0)
            try await server.catalog.addUser(
                name: "sam", role: .reviewer, publicKey: try String(contentsOfFile: dir + "/sam.pub", encoding: .utf8))
            let samSession = try await panel.sessions.start(user: "sam")
            let sam = PanelFlow.Visitor(cookie: "trailpack_session=\(samSession.id)", csrf: samSession.csrfToken)
            let signed = try Support.trailpack([
                "sign", dir + "/1.1.0.zip", "-s", dir + "/sam.key", "-o", dir + "/1.1.0.zip.minisig",
            ])
            #expect(signed.status == 0, "\(signed.stderr)")
            // Chosen as a file (multipart, the form's token in its address), whose trusted comment lost
            // its tabs to spaces on the way: put back as minisign wrote it, it verifies and is taken.
            let minisig = try String(contentsOfFile: dir + "/1.1.0.zip.minisig", encoding: .utf8)
            #expect(minisig.contains("\t"))
            let damaged = minisig.replacingOccurrences(of: "\t", with: "  ")
            #expect(ReviewController.tabsRestored(damaged) == minisig, "the line as minisign wrote it")
            #expect(ReviewController.tabsRestored(minisig) == nil, "a signature with its tabs needs nothing")
            let boundary = "----trailpack-test-boundary"
            let multipart =
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"signature\"\r\n\r\n\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"signatureFile\"; filename=\"1.1.0.zip.minisig\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n\(damaged)\r\n--\(boundary)--\r\n"
            (status, body) = try await client.execute(
                uri: page + "/approve?_csrf=\(sam.csrf)", method: .post,
                headers: [.cookie: sam.cookie, .contentType: "multipart/form-data; boundary=\(boundary)"],
                body: ByteBuffer(string: multipart)
            ) { ($0.status, String(buffer: $0.body)) }
            #expect(status == .seeOther, "\(body)")
            html = try await PanelFlow.get(client, sam, page + "?saved=1").1
            #expect(
                html.contains("Approved with your signature (1 of 1)") && html.contains("ready")
                    && html.contains("sam (") && html.contains(", signed)"))
            (status, _, _) = try await PanelFlow.post(client, reviewer, page + "/release", [])
            #expect(status == .forbidden)
            // A draft of this tour kept the texts of two removed languages: the release has Spanish (en,
            // es) and not French, so French's are let go (set aside in drafts-removed/, not deleted) and
            // Spanish's stay for when it is added again.
            let draftPath = try await PanelFlow.createDraft(client, ranger, name: "Santiam Wagon Road draft")
            let draftKey = try #require(
                DraftStore.Key(site: "willamette-sweet-home", tour: String(draftPath.split(separator: "/").last ?? "")))
            try await panel.drafts.update(draftKey, revision: nil) { $0.id = Self.id }
            var kept = TourDraft.KeptTexts()
            kept.tour = ["name": "Chemin de Santiam"]
            try panel.drafts.keep(kept, tag: "fr", key: draftKey)
            kept.tour = ["name": "Camino de carretas"]
            try panel.drafts.keep(kept, tag: "es", key: draftKey)
            #expect(Set(panel.drafts.keptTexts(draftKey).keys) == ["es", "fr"])
            (status, _, _) = try await PanelFlow.post(client, ranger, page + "/release", [])
            #expect(status == .seeOther)
            #expect(
                Set(panel.drafts.keptTexts(draftKey).keys) == ["es"], "released without French: its texts are let go")
            let aside = panel.drafts.removedRoot + "/\(draftKey.site)/\(draftKey.tour)"
            #expect(
                (try? FileManager.default.contentsOfDirectory(atPath: aside))?.contains {
                    $0.hasSuffix("kept-texts.json")
                }
                    == true, "set aside, not deleted")
            try await client.execute(uri: "/v1/packages/\(Self.id)", method: .get) { response in
                let versions = (try? JSON.parse(String(buffer: response.body)))?["versions"]?.array ?? []
                #expect(versions.contains { $0["version"] == .string("1.1.0") }, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/v1/packages/\(Self.id)/versions/1.1.0/signatures", method: .get) {
                response in
                let signatures = (try? JSON.parse(String(buffer: response.body)))?["signatures"]?.array ?? []
                #expect(
                    signatures.contains { $0["reviewer"] == .string("sam") },
                    "the signature given in the panel is served to the phones")
            }
            (status, _, _) = try await PanelFlow.post(client, ranger, page + "/nonsense", [])
            #expect(status == .notFound)
            // The history: both versions, who approved, the denial's reason in the timeline.
            html = try await PanelFlow.get(client, ranger, "/packages/\(Self.id)").1
            #expect(
                html.contains(">1.1.0<") && html.contains(">1.0.0<") && html.contains("rita (")
                    && html.contains("sam ("))
            #expect(
                html.contains("“The &lt;b&gt;Cascadia") && html.contains("sent back") && !html.contains("pending →"))
            #expect(try await PanelFlow.get(client, outsider, "/packages/\(Self.id)").0 == .notFound)
            // The API's deny takes the same reason (one implementation).
            let state = try await server.catalog.auditLog(package: Self.id).filter { $0.action.hasPrefix("deny") }
            #expect(state.count == 1 && state[0].detail.contains("reason: The <b>Cascadia</b>"))
        }
    }

    @Test(
        "one rule for ready: a missing alt text is 'Fix' on the tour's page and the built page, Request review is disabled with the reason, the panel's and the API's review requests refuse it; build and review answer with redirects"
    )
    func oneRuleForReady() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            let draft = try await PanelFlow.draftWithStop(client, ranger, name: "Fish Lake", stop: "Shore")
            let key = try #require(DraftStore.Key(site: "willamette-sweet-home", tour: "fish-lake"))
            try await panel.drafts.update(key, revision: nil) {
                $0.stops[0].description = "The lake's shore, where the old road met the water."
            }
            let uploaded = try await PanelFlow.upload(
                client, ranger, draft + "/stops/1/files", name: "view.png", bytes: PanelFlow.png)
            #expect(uploaded.0 == .created, "\(uploaded.1)")
            var html = try await PanelFlow.get(client, ranger, draft).1
            #expect(html.contains("text-bg-danger\">Fix</span>") && html.contains("has no alt text"), "\(html)")
            #expect(!html.contains("(\"alt\")") && !html.contains("accessibilityWaiver"), "plain words")

            func build(_ version: String) async throws -> String {
                let page = try await PanelFlow.get(client, ranger, draft).1
                let (status, location, body) = try await PanelFlow.post(
                    client, ranger, draft + "/build",
                    [("revision", try PanelFlow.revision(page)), ("version", version)])
                #expect(status == .seeOther, "\(body)")
                let target = try #require(location)
                #expect(target.hasPrefix(draft + "/built/\(version)?took="), "\(target)")
                return target
            }
            let built = try await build("1.0.0")
            html = try await PanelFlow.get(client, ranger, built).1
            #expect(html.contains("<title>Built version 1.0.0"), "\(html)")
            #expect(html.contains("id=\"request-review\" disabled aria-describedby=\"review-blockers\""), "\(html)")
            #expect(html.contains("has no alt text") && !html.contains("action=\"\(draft)/review\""))
            // Reloading the page a build led to builds nothing again.
            #expect(try await PanelFlow.get(client, ranger, built).0 == .ok)
            let id = try await panel.drafts.load(key).draft.id
            #expect(try await server.catalog.state(package: id, version: "1.0.0")?.status == .draft)

            // The panel's form (sent anyway) and the API refuse it alike.
            let (status, location, _) = try await PanelFlow.post(
                client, ranger, draft + "/review", [("version", "1.0.0")])
            #expect(status == .seeOther && location == draft + "/built/1.0.0?refused=1")
            html = try await PanelFlow.get(client, ranger, try #require(location)).1
            #expect(
                html.contains("id=\"review-problem\"") && html.contains("Review cannot be requested yet"), "\(html)")
            let token = try await server.catalog.issueToken(user: "ranger").token
            let api = try await client.execute(
                uri: "/v1/admin/packages/\(id)/versions/1.0.0/start", method: .post,
                headers: [.authorization: "Bearer \(token)"]
            ) { ($0.status, String(buffer: $0.body)) }
            #expect(api.0 == .unprocessableContent && api.1.contains("not-ready-for-review"), "\(api.1)")
            #expect(api.1.contains("accessibility.missing"))
            #expect(try await server.catalog.state(package: id, version: "1.0.0")?.status == .draft)

            // Given the text, the next build may be sent; the request answers with a redirect to the tour.
            try await panel.drafts.update(key, revision: nil) { $0.stops[0].assets[0].alt = "The lake from the shore" }
            html = try await PanelFlow.get(client, ranger, try await build("1.0.1")).1
            #expect(html.contains("action=\"\(draft)/review\"") && !html.contains("review-blockers"), "\(html)")
            let requested = try await PanelFlow.post(client, ranger, draft + "/review", [("version", "1.0.1")])
            #expect(requested.0 == .seeOther && requested.1 == draft + "?saved=1#review-state", "\(requested.2)")
            html = try await PanelFlow.get(client, ranger, try #require(requested.1)).1
            #expect(html.contains("Review requested for version 1.0.1"), "\(html)")
            #expect(try await server.catalog.state(package: id, version: "1.0.1")?.status == .pending)
            // The package has no map of its own: the reviewer's map is drawn on the site's region map.
            let region = try #require(panel.drafts.siteMapPath("willamette-sweet-home"))
            try FileManager.default.createDirectory(
                atPath: (region as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: Support.fixture("santiam-wagon-road") + "/map/santiam-wagon-road.pmtiles", toPath: region)
            html = try await PanelFlow.get(client, ranger, "/packages/\(id)/versions/1.0.1").1
            #expect(html.contains("data-own-tiles=\"/sites/willamette-sweet-home/tiles/{z}/{x}/{y}\""), "\(html)")
            #expect(html.contains("data-own-label=\"the site's region map\""))
        }
    }

}
