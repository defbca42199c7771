import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TrailPackCatalogModel
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

@testable import TrailPackServer

/// The review loop's mails (`serve --smtp`), handed to a real SMTP server (aiosmtpd, storing each
/// message in a Maildir) and read back with Python's `email` parser, an independent reader.
@Suite("server: review notices by mail", .ownThreads, .needs(.aiosmtpd, .debianPython3))
struct ReviewMailTests {
    /// aiosmtpd on a free loopback port, storing what it receives under `folder` (a Maildir).
    final class MailServer: @unchecked Sendable {
        let process = Process()
        let port: Int
        let folder: String

        init(folder: String) throws {
            self.folder = folder
            port = try PostgresServer.freePort()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [
                "-m", "aiosmtpd", "-n", "-l", "127.0.0.1:\(port)", "-c", "aiosmtpd.handlers.Mailbox", folder,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if (try? SMTPMail.Connection(host: "127.0.0.1", port: port, timeout: .seconds(2))).map({ $0.close() })
                    != nil
                {
                    return
                }
                usleep(100_000)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw SMTPMail.Failure(description: "aiosmtpd did not start on port \(port)")
        }

        deinit {
            // aiosmtpd's loop stops on SIGINT or SIGKILL, not SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// Every message received, parsed by Python's `email` package: subject, from, to, the decoded body.
        func messages(atLeast count: Int, within seconds: Double = 120) throws -> [[String: String]] {
            let deadline = Date().addingTimeInterval(seconds)
            var parsed: [[String: String]] = []
            repeat {
                let script = """
                    import email, email.policy, json, mailbox, sys
                    out = []
                    for key, message in sorted(mailbox.Maildir(sys.argv[1], create=False).items()):
                        m = email.message_from_bytes(message.as_bytes(), policy=email.policy.default)
                        out.append({"subject": str(m["subject"]), "from": str(m["from"]), "to": str(m["to"]),
                                    "body": m.get_content(), "headers": str(len(m.keys()))})
                    print(json.dumps(out))
                    """
                let run = try Support.run("/usr/bin/python3", ["-c", script, folder])
                if run.status == 0, let data = run.stdout.data(using: .utf8),
                    let list = try JSONSerialization.jsonObject(with: data) as? [[String: String]]
                {
                    parsed = list
                }
                if parsed.count >= count { return parsed }
                usleep(300_000)
            } while Date() < deadline
            return parsed
        }
    }

    @Test(
        "one message through a real SMTP server: headers a mail reader parses, a non-ASCII subject and body intact, a subject with a line break cannot add a header, a bad address or an unreachable relay refused in words"
    )
    func oneMessage() throws {
        try Support.withTemporaryDirectory { dir in
            let server = try MailServer(folder: dir + "/mail")
            let mail = SMTPMail(host: "127.0.0.1", port: server.port, from: "trails@example.org")
            try mail.send(
                to: ["ken@example.org", "rita@example.org"],
                subject: "“Santiam Wagon Road” 1.1.0 — à revoir\r\nBcc: evil@example.org",
                body: "Première ligne.\n.a line starting with a dot\nLast line.")
            let got = try server.messages(atLeast: 1)
            #expect(got.count == 1)
            let message = try #require(got.first)
            #expect(message["subject"] == "“Santiam Wagon Road” 1.1.0 — à revoir  Bcc: evil@example.org")
            #expect(message["from"] == "trails@example.org" && message["to"] == "ken@example.org, rita@example.org")
            #expect(message["body"] == "Première ligne.\n.a line starting with a dot\nLast line.\n", "\(message)")
            // Without 8BITMIME the body goes as base64 and reads back the same.
            let lines = SMTPMail.message(
                from: "a@example.org", to: ["b@example.org"], subject: "x", body: "é\nz", date: Date(), eightBit: false)
            #expect(lines.contains("Content-Transfer-Encoding: base64") && lines.last == "w6kKeg==")

            for bad in [
                "ken", "ken@localhost", "a b@example.org", "ken@example.org\r\nBcc: x@example.org", "<k@x.org>",
            ] {
                #expect(!SMTPMail.isAddress(bad), "\(bad)")
            }
            #expect(throws: SMTPMail.Failure.self) {
                try mail.send(to: ["ken@example.org>\r\nRCPT TO:<x@example.org"], subject: "s", body: "b")
            }
            let closed = try PostgresServer.freePort()
            #expect {
                try SMTPMail(host: "127.0.0.1", port: closed, from: "trails@example.org").send(
                    to: ["ken@example.org"], subject: "s", body: "b")
            } throws: { "\($0)".contains("cannot reach the mail relay 127.0.0.1:\(closed)") }
            #expect(throws: SMTPMail.Failure.self) { try SMTPMail.relay("http://mail.example.org") }
            #expect(try SMTPMail.relay("smtp://127.0.0.1") == ("127.0.0.1", 25))
        }
    }

    @Test(
        "the review loop mails who must act: a request to the reviewers, a denial with its reason and an approval to the publisher; never the person who acted, nobody without an address; links under --panel-url"
    )
    func reviewLoop() async throws {
        try await Support.withTemporaryDirectory { dir in
            let mailServer = try MailServer(folder: dir + "/mail")
            let santiam = try Support.buildFixture("santiam-wagon-road", into: dir)
            var configuration = ServerConfiguration(
                dataDirectory: dir + "/data", adminToken: nil, maxUploadBytes: 64 << 20, approvals: 1, scanner: .off)
            configuration.mail = ReviewMail.Settings(
                smtp: SMTPMail(host: "127.0.0.1", port: mailServer.port, from: "trails@example.org"),
                panelURL: "https://trails.example.org/")
            let server = try await TrailPackServer(configuration: configuration)
            let catalog = server.catalog
            try await catalog.addUser(name: "maria", role: .publisher, publicKey: nil)
            try await catalog.addUser(name: "ken", role: .reviewer, publicKey: nil)
            try await catalog.addUser(name: "rita", role: .reviewer, publicKey: nil)
            try await catalog.addUser(name: "lee", role: .reviewer, publicKey: nil)
            try await catalog.setEmail(name: "maria", email: "maria@example.org")
            try await catalog.setEmail(name: "ken", email: "ken@example.org")
            try await catalog.setEmail(name: "rita", email: "rita@example.org")
            try await catalog.addSite(id: "willamette-sweet-home", name: nil)
            try await catalog.grant(user: "maria", site: "willamette-sweet-home")
            var issued: [String: String] = [:]
            for name in ["maria", "ken", "rita"] { issued[name] = try await catalog.issueToken(user: name).token }
            let tokens = issued
            let id = "gov.usda.fs.willamette.santiam-wagon-road"
            let app = Application(router: server.buildRouter())
            try await app.test(.router) { client in
                func post(_ path: String, _ who: String, _ body: [UInt8] = []) async throws -> HTTPResponse.Status {
                    try await client.execute(
                        uri: "/v1/admin" + path, method: .post, headers: [.authorization: "Bearer \(tokens[who]!)"],
                        body: ByteBuffer(bytes: body)
                    ) { $0.status }
                }
                let upload = try await post("/packages", "maria", try Support.read(santiam))
                #expect(upload == .created)
                let version = "/packages/\(id)/versions/1.0.0"
                #expect(try await post(version + "/start", "maria") == .ok)
                var got = try mailServer.messages(atLeast: 1)
                #expect(got.count == 1)
                #expect(got.first?["to"] == "ken@example.org, rita@example.org", "lee has no address: \(got)")
                #expect(got.first?["subject"] == "“Santiam Wagon Road” version 1.0.0 waits for your review")
                #expect(
                    got.first?["body"]?.contains(
                        "Open it in the control panel: https://trails.example.org/packages/\(id)/versions/1.0.0")
                        == true)

                let reason = Array(#"{"reason": "The Cascadia stop is in the river."}"#.utf8)
                #expect(try await post(version + "/deny", "ken", reason) == .ok)
                got = try mailServer.messages(atLeast: 2)
                let denial = try #require(got.first { $0["subject"]?.contains("sent back") == true }, "\(got)")
                #expect(denial["to"] == "maria@example.org")
                #expect(denial["body"]?.contains("ken sent back") == true)
                #expect(denial["body"]?.contains("The Cascadia stop is in the river.") == true)

                #expect(try await post(version + "/start", "maria") == .ok)
                #expect(try await post(version + "/approve", "rita") == .ok)
                got = try mailServer.messages(atLeast: 4)
                let approved = try #require(got.first { $0["subject"]?.contains("is approved") == true }, "\(got)")
                #expect(approved["to"] == "maria@example.org")
                let second = got.filter { $0["subject"]?.contains("waits for your review") == true }
                #expect(second.count == 2 && second.last?["to"] == "ken@example.org, rita@example.org")
                // Releasing is the publisher's own act: nobody is mailed.
                #expect(try await post(version + "/push", "maria") == .ok)
                try await Task.sleep(for: .seconds(1))
                #expect(try mailServer.messages(atLeast: 5, within: 1).count == 4)
            }
        }
    }
}
