import Foundation
import Testing
import TrailPackCatalogModel
import TrailPackCatalogPostgres
import TrailPackTestSupport

/// The control panel's sessions, the sign-in throttle and the confirmations' admission: the same
/// answers from both stores, and shared between two servers on one PostgreSQL catalog.
@Suite("catalog: sessions, sign-in throttle, confirmation admission", .ownThreads)
struct CatalogSessionTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func session(_ id: String, _ user: String = "maria", at: Date = start) -> Catalog.Session {
        Catalog.Session(id: id, user: user, csrfToken: "csrf-" + id, credential: "cred", created: at, lastSeen: at)
    }

    @Test(
        "sessions: found and touched while live, ended when idle or too old, replaced, ended by user",
        arguments: StoreKind.allCases)
    func sessions(_ kind: StoreKind) async throws {
        try await withStore(kind) { catalog, _ in
            let t = Self.start
            func look(_ id: String, _ after: TimeInterval) async throws -> Catalog.Session? {
                try await catalog.session(
                    id: id, now: t.addingTimeInterval(after), idleTimeout: 600, absoluteTimeout: 3600)
            }
            try await catalog.startSession(Self.session("one"), replacing: nil)
            let found = try #require(try await look("one", 300))
            #expect(found.user == "maria" && found.csrfToken == "csrf-one" && found.credential == "cred")
            #expect(found.created == t && found.lastSeen == t.addingTimeInterval(300))
            // Touched at 300 s: still live at 800 s (500 s idle), not at 1401 s.
            #expect(try await look("one", 800) != nil)
            #expect(try await look("one", 1401) == nil)
            #expect(try await look("one", 1402) == nil, "an expired session is ended, not revived")
            // Too old, however often it was used.
            try await catalog.startSession(Self.session("two"), replacing: nil)
            for after in stride(from: 500.0, through: 3500, by: 500) { #expect(try await look("two", after) != nil) }
            #expect(try await look("two", 3601) == nil)
            // Replacing the id the browser sent; a note goes with its session.
            try await catalog.startSession(Self.session("three"), replacing: nil)
            try await catalog.setSessionNote(id: "three", kind: .flash, text: "saved")
            try await catalog.setSessionNote(id: "three", kind: .flash, text: "saved again")
            try await catalog.setSessionNote(id: "three", kind: .problem, text: String(repeating: "x", count: 3000))
            #expect(try await catalog.takeSessionNote(id: "three", kind: .flash) == "saved again")
            #expect(try await catalog.takeSessionNote(id: "three", kind: .flash) == nil, "a note is taken once")
            #expect(try await catalog.takeSessionNote(id: "three", kind: .problem)?.count == 2000)
            try await catalog.setSessionNote(id: "three", kind: .flash, text: "left")
            try await catalog.startSession(Self.session("four"), replacing: "three")
            #expect(try await look("three", 10) == nil)
            #expect(try await catalog.takeSessionNote(id: "three", kind: .flash) == nil, "its notes went with it")
            // A password changed: every session of the user but the one kept ends.
            try await catalog.startSession(Self.session("five"), replacing: nil)
            try await catalog.startSession(Self.session("six", "ken"), replacing: nil)
            try await catalog.endSessions(user: "maria", keeping: "five")
            #expect(try await look("four", 20) == nil)
            #expect(try await look("five", 20) != nil)
            #expect(try await look("six", 20)?.user == "ken")
            try await catalog.endSession(id: "five")
            #expect(try await look("five", 30) == nil)
            try await catalog.endSessions(user: "ken", keeping: nil)
            #expect(try await look("six", 30) == nil)
        }
    }

    @Test(
        "the sign-in throttle: a key's limit in the window, the wait until its oldest failure leaves, a success taken back",
        arguments: StoreKind.allCases)
    func throttle(_ kind: StoreKind) async throws {
        try await withStore(kind) { catalog, _ in
            let t = Self.start
            let keys = [
                Catalog.ThrottleKey(key: "address:192.0.2.1", limit: 3),
                Catalog.ThrottleKey(key: "pair:192.0.2.1|maria", limit: 2),
            ]
            func begin(_ after: TimeInterval) async throws -> Catalog.ThrottleDecision {
                try await catalog.beginSignIn(keys: keys, window: 60, now: t.addingTimeInterval(after))
            }
            guard case .allowed(let first) = try await begin(0) else {
                Issue.record("the first attempt is allowed"); return
            }
            #expect(first.keys == keys.map(\.key) && first.at == t)
            guard case .allowed = try await begin(10) else { Issue.record("the second attempt is allowed"); return }
            // The pair's limit (2) is reached: wait until its oldest failure (at 0) leaves the window.
            #expect(try await begin(20) == .wait(40))
            #expect(try await begin(59.5) == .wait(1))
            guard case .allowed(let third) = try await begin(60) else {
                Issue.record("allowed once the oldest left"); return
            }
            // The right password: the pair forgotten entirely, the address's failure taken back once.
            try await catalog.signInSucceeded(third, forgetAll: ["pair:192.0.2.1|maria"])
            guard case .allowed = try await begin(61) else { Issue.record("the pair was forgotten"); return }
            guard case .allowed = try await begin(62) else { Issue.record("the pair's second"); return }
            // The address holds 10, 61, 62 (60 was taken back) and the pair 61, 62: both at their
            // limits, the longer wait is said (the pair's oldest leaves at 121, the address's at 70).
            #expect(try await begin(63) == .wait(58))
            try await catalog.signInSucceeded(
                Catalog.SignInAttempt(keys: ["pair:192.0.2.1|maria"], at: t.addingTimeInterval(62)), forgetAll: [])
            #expect(try await begin(64) == .wait(6), "the pair's failure at 62 taken back: the address's wait")
        }
    }

    @Test("confirmations: one a day per download, at most perMinute an address", arguments: StoreKind.allCases)
    func admission(_ kind: StoreKind) async throws {
        try await withStore(kind) { catalog, _ in
            let t = Self.start
            // (download, seconds after the start, address, counted?)
            let steps: [(String, TimeInterval, String, Bool)] = [
                ("d1", 0, "198.51.100.7", true),
                ("d1", 1, "198.51.100.7", false),  // the same download again the same day
                ("d1", 1, "198.51.100.8", true),  // another address's download
                ("d2", 2, "198.51.100.7", true),
                ("d3", 3, "198.51.100.7", false),  // over the address's two a minute
                ("d3", 61, "198.51.100.7", true),
                ("d1", 86_399, "198.51.100.7", false),
                ("d1", 86_400, "198.51.100.7", true),
            ]
            for (download, after, address, counted) in steps {
                let admitted = try await catalog.admitConfirmation(
                    address: address, download: download, perMinute: 2, now: t.addingTimeInterval(after))
                #expect(admitted == counted, "\(download) at \(after) s from \(address)")
            }
        }
    }

    @Test(
        "two servers share sessions, notes, the throttle and the confirmation windows, however their calls race",
        .enabled(if: !PostgresServer.isSkipped, "TRAILPACK_SKIP_POSTGRES=1"))
    func sharedAcrossServers() async throws {
        try await PostgresTesting.withTwoCatalogs { a, b, _ in
            let t = Self.start
            try await a.startSession(Self.session("shared"), replacing: nil)
            let seen = try await b.session(
                id: "shared", now: t.addingTimeInterval(5), idleTimeout: 600, absoluteTimeout: 3600)
            #expect(seen?.user == "maria" && seen?.csrfToken == "csrf-shared")
            try await b.setSessionNote(id: "shared", kind: .flash, text: "from b")
            #expect(try await a.takeSessionNote(id: "shared", kind: .flash) == "from b")
            try await b.endSession(id: "shared")
            #expect(
                try await a.session(id: "shared", now: t.addingTimeInterval(6), idleTimeout: 600, absoluteTimeout: 3600)
                    == nil)
            // Parallel guesses on both servers: the key's limit holds.
            let keys = [Catalog.ThrottleKey(key: "address:203.0.113.9", limit: 3)]
            let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in 0..<16 {
                    let catalog = n.isMultiple(of: 2) ? a : b
                    group.addTask {
                        if case .allowed = try await catalog.beginSignIn(keys: keys, window: 60, now: t) { return true }
                        return false
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(allowed == 3)
            // Parallel confirmations from one address on both servers: at most perMinute counted.
            let admitted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in 0..<16 {
                    let catalog = n.isMultiple(of: 2) ? a : b
                    group.addTask {
                        try await catalog.admitConfirmation(
                            address: "203.0.113.9", download: "d\(n)", perMinute: 5, now: t)
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(admitted == 5)
            // Two pages taking one note at once: it is given once.
            try await a.startSession(Self.session("noted"), replacing: nil)
            for round in 0..<10 {
                try await a.setSessionNote(id: "noted", kind: .problem, text: "note \(round)")
                async let x = a.takeSessionNote(id: "noted", kind: .problem)
                async let y = b.takeSessionNote(id: "noted", kind: .problem)
                let taken = try await [x, y].compactMap { $0 }
                #expect(taken == ["note \(round)"])
            }
        }
    }
}
