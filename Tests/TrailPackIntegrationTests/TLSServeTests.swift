import Foundation
import Testing
import TrailPackTestFixtures
import TrailPackTestSupport

/// `trailpack serve --tls-certificate --tls-key`: HTTPS with HTTP/1.1 and HTTP/2 by ALPN, driven
/// with curl against a self-signed certificate made by openssl.
@Suite("serve over HTTPS", .ownThreads, .needs(.curl, .openssl, .sha256sum, .timeout), .serialized)
struct TLSServeTests {
    /// A self-signed P-256 certificate for 127.0.0.1, valid two days: `<name>.crt` and `<name>.key` in `dir`.
    static func certificate(_ dir: String, _ name: String = "server") throws -> (certificate: String, key: String) {
        let certificate = dir + "/\(name).crt", key = dir + "/\(name).key"
        let out = try Support.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
                "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "2", "-keyout", key, "-out",
                certificate,
            ])
        try #require(out.status == 0, "openssl: \(out.stderr)")
        return (certificate, key)
    }

    /// `trailpack serve` that must stop on its own (a refused start), bounded by `timeout`.
    static func serve(_ arguments: [String]) throws -> Support.Output {
        try Support.run("timeout", ["30", Support.binary, "serve", "--port", "0", "--no-malware-scan"] + arguments)
    }

    @Test(
        "HTTPS: /healthz over HTTP/1.1 and HTTP/2, an upload, ranged (206) and full downloads over both, the visitor app, and plain HTTP on the same port refused"
    )
    func servesHTTPS() throws {
        try Support.withTemporaryDirectory { dir in
            let tls = try Self.certificate(dir)
            let package = try Support.buildFixture("santiam-wagon-road", into: dir)
            let sha = try ServerFixtures.sha(package)
            let size = try Support.read(package).count
            try ServeProcess.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let server = try ServeProcess.launch([
                "--data", dir + "/data", "--admin-token-file", dir + "/token", "--max-upload-mb", "64", "--approvals",
                "0", "--no-malware-scan", "--tls-certificate", tls.certificate, "--tls-key", tls.key,
            ])
            defer { server.stop() }
            #expect(server.scheme == "https", "the banner says https://")
            let curl = { (arguments: [String]) throws -> Support.Output in
                try ServeProcess.curl(["--cacert", tls.certificate] + arguments)
            }
            for (flag, version) in [("--http1.1", "1.1"), ("--http2", "2")] {
                let health = ServeProcess.statusAndBody(
                    try curl([flag, "-w", "\n%{http_version}", server.base + "/healthz"]))
                #expect(health.status == version, "\(flag): \(health)")
                #expect(health.body == "ok\n", "\(flag): \(health)")
            }
            // The certificate is the one given: without it as a trusted root, curl refuses the server.
            let untrusted = try Support.run("curl", ["-s", "-S", server.base + "/healthz"])
            #expect(untrusted.status == 60, "curl without --cacert: exit \(untrusted.status), \(untrusted.stderr)")

            // An upload (HTTP/2, as curl chooses by ALPN), then the download both ways.
            let up = try curl([
                "-o", "/dev/null", "-w", "%{http_code} %{http_version}", "-H",
                "Authorization: Bearer \(ServeProcess.token)", "--data-binary", "@" + package,
                server.base + "/v1/admin/packages",
            ])
            #expect(up.stdout == "201 2", "\(up.stdout) \(up.stderr)")
            let url = server.base + "/v1/blobs/\(sha).zip"
            for flag in ["--http1.1", "--http2"] {
                let part = dir + "/part\(flag).zip"
                let ranged = try curl([
                    flag, "-r", "100-20099", "-D", dir + "/headers", "-o", part, "-w", "%{http_code}", url,
                ])
                #expect(ranged.stdout == "206", "\(flag): \(ranged.stdout) \(ranged.stderr)")
                let headers = try String(contentsOfFile: dir + "/headers", encoding: .utf8).lowercased()
                #expect(headers.contains("content-range: bytes 100-20099/\(size)"), "\(flag): \(headers)")
                #expect(
                    try Support.read(part) == Array(Support.read(package)[100..<20100]), "\(flag): the range's bytes")
                let full = dir + "/full\(flag).zip"
                let whole = try curl([flag, "-o", full, "-w", "%{http_code} %{http_version}", url])
                #expect(whole.stdout == "200 \(flag == "--http2" ? "2" : "1.1")", "\(flag): \(whole.stdout)")
                #expect(try ServerFixtures.sha(full) == sha, "\(flag): the downloaded bytes' SHA-256")
            }

            // The visitor app over HTTPS (browsers give it a service worker, storage and the position only
            // on a secure origin): its page, its service worker and its WebAssembly, each with its type.
            for (path, type) in [
                ("/visit/", "text/html"), ("/visit/sw.js", "text/javascript"),
                ("/visit/js/hashes.wasm", "application/wasm"),
                ("/visit/manifest.webmanifest", "application/manifest+json"),
            ] {
                let answer = try curl(["-o", "/dev/null", "-w", "%{http_code} %{content_type}", server.base + path])
                #expect(answer.stdout.hasPrefix("200 \(type)"), "\(path): \(answer.stdout)")
            }

            // Plain HTTP on the TLS port: no answer, and the server goes on serving HTTPS.
            let plain = try Support.run(
                "curl", ["-s", "-S", "--max-time", "20", "http://127.0.0.1:\(server.port)/healthz"])
            #expect(plain.status != 0, "plain HTTP got an answer: \(plain.stdout)")
            #expect(!plain.stdout.contains("ok"), "\(plain.stdout)")
            let again = try curl(["-w", "%{http_code}", "-o", "/dev/null", server.base + "/healthz"])
            #expect(again.stdout == "200")
        }
    }

    /// Connects to `port` and reports, as JSON, how long (ms) the server took to close: a TCP connection
    /// that never starts TLS, and an HTTP/2 connection that opens no stream and answers no PING;
    /// and whether a fourth connection is refused while three are held.
    static let probe = #"""
        import json, socket, ssl, sys, time
        port, cafile = int(sys.argv[1]), sys.argv[2]
        def closed_after(sock):
            start = time.time(); sock.settimeout(30)
            try:
                while sock.recv(65536): pass
            except OSError: pass
            return int((time.time() - start) * 1000)
        def tls(alpn):
            context = ssl.create_default_context(cafile=cafile); context.set_alpn_protocols([alpn])
            return context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="127.0.0.1")
        out = {"no_handshake": closed_after(socket.create_connection(("127.0.0.1", port)))}
        h2 = tls("h2"); out["alpn"] = h2.selected_alpn_protocol()
        h2.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
        out["h2_idle"] = closed_after(h2)
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
        time.sleep(0.5)
        out["fourth"] = closed_after(socket.create_connection(("127.0.0.1", port)))
        print(json.dumps(out))
        """#

    @Test(
        "the limits over TLS: the handshake's time limit, the connection cap, a slow body over HTTP/1.1 and HTTP/2, an idle HTTP/2 connection",
        .needs(.python3))
    func limitsOverTLS() throws {
        try Support.withTemporaryDirectory { dir in
            let tls = try Self.certificate(dir)
            let package = try Support.buildFixture("santiam-wagon-road", into: dir)
            try ServeProcess.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let server = try ServeProcess.launch([
                "--data", dir + "/data", "--admin-token-file", dir + "/token", "--approvals", "0", "--no-malware-scan",
                "--tls-certificate", tls.certificate, "--tls-key", tls.key, "--header-timeout", "2",
                "--keep-alive-timeout", "2", "--body-timeout", "2", "--min-body-rate", "4000",
                "--max-connections-per-address", "3",
            ])
            defer { server.stop() }
            // 1 KB/s against at least 4 KB/s: HTTP/1.1 loses its connection, HTTP/2 its stream (curl: 92).
            for (flag, exits) in [("--http1.1", [52, 56]), ("--http2", [92])] {
                let slow = try Support.run(
                    "curl",
                    [
                        "-s", "-S", "--cacert", tls.certificate, flag, "--limit-rate", "1k", "--max-time", "30", "-H",
                        "Authorization: Bearer \(ServeProcess.token)", "--data-binary", "@" + package,
                        server.base + "/v1/admin/packages",
                    ])
                #expect(exits.contains(Int(slow.status)), "\(flag): exit \(slow.status), \(slow.stderr)")
            }
            let out = try Support.run("python3", ["-c", Self.probe, String(server.port), tls.certificate])
            try #require(out.status == 0, "\(out.stderr)")
            let report = try JSON.parse(out.stdout)
            let noHandshake = try #require(report["no_handshake"]?.int), idle = try #require(report["h2_idle"]?.int)
            let fourth = try #require(report["fourth"]?.int)
            #expect(
                (1500...10000).contains(noHandshake), "a connection without a handshake closed after \(noHandshake) ms")
            #expect(report["alpn"]?.string == "h2")
            // Hummingbird's GOAWAY after 2 s; closed by the TLS guard after 4 s with no stream.
            #expect((3500...12000).contains(idle), "an idle HTTP/2 connection closed after \(idle) ms")
            #expect(fourth < 1000, "a fourth connection from one address was held \(fourth) ms")
        }
    }

    @Test(
        "--tls-certificate and --tls-key: both or neither; a missing, garbage or mismatched file is refused, naming it")
    func refusesBadTLSOptions() throws {
        try Support.withTemporaryDirectory { dir in
            let tls = try Self.certificate(dir)
            let other = try Self.certificate(dir, "other")
            try "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n".write(
                toFile: dir + "/garbage.pem", atomically: true, encoding: .utf8)
            let data = dir + "/data"
            let cases: [(arguments: [String], status: Int32, words: [String])] = [
                (["--tls-certificate", tls.certificate], 2, ["--tls-certificate needs --tls-key"]),
                (["--tls-key", tls.key], 2, ["--tls-key needs --tls-certificate"]),
                (
                    ["--tls-certificate", dir + "/missing.crt", "--tls-key", tls.key], 3,
                    ["--tls-certificate", dir + "/missing.crt", "No such file"]
                ),
                (
                    ["--tls-certificate", tls.certificate, "--tls-key", dir + "/missing.key"], 3,
                    ["--tls-key", dir + "/missing.key"]
                ),
                (
                    ["--tls-certificate", tls.certificate, "--tls-key", other.key], 2,
                    ["--tls-key", other.key, "does not belong", tls.certificate]
                ),
                (
                    ["--tls-certificate", dir + "/garbage.pem", "--tls-key", tls.key], 2,
                    ["--tls-certificate", dir + "/garbage.pem", "no PEM certificate"]
                ),
                (
                    ["--tls-certificate", tls.certificate, "--tls-key", dir + "/garbage.pem"], 2,
                    ["--tls-key", dir + "/garbage.pem", "no PEM private key"]
                ),
                // The files swapped: the key where the certificate goes.
                (
                    ["--tls-certificate", tls.key, "--tls-key", tls.certificate], 2,
                    ["--tls-certificate", tls.key, "no PEM certificate"]
                ),
            ]
            for (arguments, status, words) in cases {
                let out = try Self.serve(["--data", data] + arguments)
                #expect(out.status == status, "\(arguments): exit \(out.status), \(out.stderr)")
                for word in words { #expect(out.stderr.contains(word), "\(arguments): '\(word)' in \(out.stderr)") }
                #expect(!out.stderr.contains("Fatal error"), "\(arguments): \(out.stderr)")
                #expect(out.stdout.isEmpty, "\(arguments): nothing is served: \(out.stdout)")
            }
            // Refused before the data folder was made.
            #expect(!FileManager.default.fileExists(atPath: data))
        }
    }
}
