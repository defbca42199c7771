import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackPanel
import TrailPackServer
import TrailPackTestSupport

@Suite(
    "panel: sign-in throttling, sessions after a password change, where sign-in leads, HEAD, a busy catalog",
    .ownThreads)
struct PanelSignInTests {
    static let cost = PasswordHash.Cost(logN: 10, r: 8, p: 1)

    /// `body`'s value or error, caught (for work that must be followed by a clean-up either way).
    static func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    static func login(
        _ client: some TestClientProtocol, _ name: String, _ password: String, next: String = "/"
    ) async throws -> (HTTPResponse.Status, HTTPFields, String) {
        try await client.execute(
            uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: PanelFlow.encode([("name", name), ("password", password), ("next", next)]))
        ) { ($0.status, $0.headers, String(buffer: $0.body)) }
    }

    @Test("40 wrong passwords at once from one address: exactly 5 are checked, 35 wait; then even the right one waits")
    func burst() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            try await server.catalog.addUser(name: "ranger", role: .publisher)
            try await server.catalog.setPassword(
                name: "ranger", hash: PasswordHash.make("correct horse battery", cost: Self.cost))
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for i in 0..<40 { group.addTask { try await Self.login(client, "ranger", "wrong \(i)").0 } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 5, "checked: \(statuses)")
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 35)
            let (status, headers, body) = try await Self.login(client, "ranger", "correct horse battery")
            #expect(status == .tooManyRequests && body.contains("Too many failed sign-ins"))
            #expect(headers[.retryAfter].flatMap(Int.init).map { $0 > 0 } == true)
        }
    }

    @Test(
        "the lockout is per address and per address and name: another address still signs in; one address trying many names is stopped too"
    )
    func throttleKeys() async throws {
        let (catalog, folder) = try PanelSessionTests.catalog()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let throttle = LoginThrottle(catalog: catalog, limit: 5, addressLimit: 20, window: 900)
        let now = Date()
        for _ in 0..<5 {
            guard case .allowed = try await throttle.begin(address: "198.51.100.7", name: "ranger", now: now) else {
                Issue.record("the first five attempts may try")
                return
            }
        }
        guard case .wait(let seconds) = try await throttle.begin(address: "198.51.100.7", name: "Ranger", now: now)
        else {
            Issue.record("the sixth waits (names compared without case)")
            return
        }
        #expect(seconds == 900)
        guard case .allowed(let attempt) = try await throttle.begin(address: "203.0.113.9", name: "ranger", now: now)
        else {
            Issue.record("a stranger elsewhere cannot lock the ranger out")
            return
        }
        try await throttle.succeeded(attempt)
        // One address trying many names: the address limit stops it.
        var allowed = 0
        for i in 0..<40 {
            if case .allowed = try await throttle.begin(address: "192.0.2.1", name: "user\(i)", now: now) {
                allowed += 1
            }
        }
        #expect(allowed == 20)
        // After the window, the address may try again.
        guard case .allowed = try await throttle.begin(address: "198.51.100.7", name: "ranger", now: now + 901) else {
            Issue.record("failures older than the window are forgotten")
            return
        }
    }

    @Test("a password changed (by an admin, elsewhere) ends the user's sessions; another user's stay")
    func passwordChangeEndsSessions() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            for name in ["ranger", "other"] {
                try await server.catalog.addUser(name: name, role: .publisher)
                try await server.catalog.setPassword(
                    name: name, hash: PasswordHash.make("correct horse battery", cost: Self.cost))
            }
            var cookies: [String: String] = [:]
            for name in ["ranger", "other"] {
                let (status, headers, _) = try await Self.login(client, name, "correct horse battery")
                #expect(status == .seeOther)
                let cookie = try #require(headers[.setCookie]).split(separator: ";").first.map(String.init)
                cookies[name] = try #require(cookie)
            }
            func home(_ name: String) async throws -> HTTPResponse.Status {
                try await client.execute(uri: "/", method: .get, headers: [.cookie: cookies[name]!]) { $0.status }
            }
            #expect(try await home("ranger") == .ok)
            try await server.catalog.setPassword(
                name: "ranger", hash: PasswordHash.make("a new password here", cost: Self.cost))
            #expect(try await home("ranger") == .seeOther, "the old session is signed out")
            #expect(try await home("other") == .ok)
        }
    }

    @Test(
        "sign-in leads only to a plain path on this site",
        arguments: [
            ("/drafts?site=x", "/drafts?site=x"), ("/\t/evil.example", "/"), ("//evil.example", "/"),
            ("/\\evil.example", "/"), ("https://evil.example", "/"), ("/\r\nSet-Cookie: x=1", "/"),
            ("/a b", "/"), ("/\u{202E}x", "/"), ("drafts", "/"), ("/\u{0}", "/"),
        ])
    func next(given: String, expected: String) async throws {
        try await PanelDraftTests.withPanel { server, _, client in
            try await server.catalog.addUser(name: "ranger", role: .publisher)
            try await server.catalog.setPassword(
                name: "ranger", hash: PasswordHash.make("correct horse battery", cost: Self.cost))
            let (status, headers, _) = try await Self.login(client, "ranger", "correct horse battery", next: given)
            #expect(status == .seeOther)
            #expect(headers[.location] == expected)
        }
    }

    @Test("HEAD answers on the panel's GET routes with the GET's status and headers and no body")
    func head() async throws {
        try await PanelDraftTests.withPanel { _, _, client in
            for path in ["/login", "/static/panel.css", "/static/js/panel.js", "/static/vendor/leaflet/leaflet.js"] {
                let (getStatus, getType) = try await client.execute(uri: path, method: .get) {
                    ($0.status, $0.headers[.contentType])
                }
                let (status, type, body) = try await client.execute(uri: path, method: .head) {
                    ($0.status, $0.headers[.contentType], $0.body.readableBytes)
                }
                #expect(getStatus == .ok && status == .ok, "HEAD \(path)")
                #expect(type == getType)
                #expect(body == 0)
            }
            let missing = try await client.execute(uri: "/drafts/x/y/nothing/here", method: .head) { $0.status }
            #expect(missing != .ok)
        }
    }

    @Test("a busy catalog gives a page asking to try again (503, Retry-After), never a 500")
    func busy() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
            // Every catalog thread held, and the queue full.
            let gate = DispatchSemaphore(value: 0)
            let pool = server.pool
            var holders: [Task<Void, any Error>] = []
            // First every thread (a job counts as waiting until its thread has started), then the queue.
            for _ in 0..<pool.threadCount { holders.append(Task { try await pool.run { gate.wait() } }) }
            var polls = 0
            while pool.load.running < pool.threadCount, polls < 1000 {
                try await Task.sleep(for: .milliseconds(10))
                polls += 1
            }
            for _ in 0..<pool.queueLimit { holders.append(Task { try await pool.run { gate.wait() } }) }
            while pool.load.waiting < pool.queueLimit, polls < 2000 {
                try await Task.sleep(for: .milliseconds(10))
                polls += 1
            }
            #expect(pool.load.running == pool.threadCount && pool.load.waiting == pool.queueLimit, "\(pool.load)")
            // The held threads are let go whatever the requests do (a thrown error must not leave them waiting).
            let page = await Self.outcome {
                try await client.execute(uri: "/", method: .get, headers: ranger.headers) {
                    ($0.status, $0.headers[.retryAfter], String(buffer: $0.body))
                }
            }
            let signInPage = await Self.outcome { try await Self.login(client, "ranger", "any password") }
            for _ in holders { gate.signal() }
            for holder in holders { _ = try? await holder.value }
            let (status, retry, body) = try page.get()
            let (signIn, signInHeaders, signInBody) = try signInPage.get()
            #expect(signIn == .serviceUnavailable && signInHeaders[.retryAfter] != nil, "\(signIn)")
            #expect(signInBody.contains("busy") && signInBody.contains("<html"), "\(signInBody.prefix(300))")
            #expect(status == .serviceUnavailable)
            #expect(retry != nil)
            #expect(body.contains("busy") && body.contains("<html"), "\(body.prefix(300))")
            let after = try await client.execute(uri: "/", method: .get, headers: ranger.headers) { $0.status }
            #expect(after == .ok, "once the catalog is free the page answers again")
        }
    }
}
