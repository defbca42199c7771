import Foundation
import Testing
import TrailPackCore
import TrailPackTestSupport

/// `trailpack serve` behind Debian's nginx, as the operators' guide sets it up: the sign-in
/// throttle counts the client nginx forwarded for (`--trusted-proxy`), never nginx itself, and a
/// proxy that drops the port from `Host` gets a refusal that says what to set. Clients are told
/// apart by their loopback source address (curl `--interface 127.0.0.N`).
@Suite("server: behind nginx (trusted proxy, forwarded client, Host)", .ownThreads, .serialized)
struct ProxyTests {
    static let password = "correct horse battery staple"

    /// nginx with two servers in front of `upstream`: `forwarding` as the guide says
    /// (`Host $http_host`, `X-Forwarded-For $proxy_add_x_forwarded_for`), `hostOnly` with
    /// `Host $host` (which drops the port).
    static func startNginx(_ dir: String, upstream: Int, forwarding: Int, hostOnly: Int) throws -> Process {
        let conf = dir + "/nginx"
        try FileManager.default.createDirectory(atPath: conf + "/temp", withIntermediateDirectories: true)
        func server(_ port: Int, host: String) -> String {
            """
              server {
                listen 127.0.0.1:\(port);
                location / {
                  proxy_pass http://127.0.0.1:\(upstream);
                  proxy_http_version 1.1;
                  proxy_set_header Connection "";
                  proxy_set_header Host \(host);
                  proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                  proxy_set_header X-Forwarded-Proto $scheme;
                }
              }
            """
        }
        let text = """
            daemon off;
            worker_processes 1;
            pid \(conf)/nginx.pid;
            error_log \(conf)/error.log warn;
            events { worker_connections 64; }
            http {
              access_log off;
              client_body_temp_path \(conf)/temp/body;
              proxy_temp_path \(conf)/temp/proxy;
              fastcgi_temp_path \(conf)/temp/fastcgi;
              uwsgi_temp_path \(conf)/temp/uwsgi;
              scgi_temp_path \(conf)/temp/scgi;
            \(server(forwarding, host: "$http_host"))
            \(server(hostOnly, host: "$host"))
            }
            """
        try text.write(toFile: conf + "/nginx.conf", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-c", conf + "/nginx.conf", "-p", conf]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for port in [forwarding, hostOnly] {
            // Waits for nginx to answer (curl's own retries on a refused connection).
            let up = try Support.run(
                "curl",
                [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "--retry", "60", "--retry-connrefused",
                    "--retry-delay", "1", "http://127.0.0.1:\(port)/healthz",
                ])
            #expect(up.stdout == "200", "nginx on \(port): \(up.stdout) \(up.stderr)")
        }
        return process
    }

    /// A sign-in from the loopback address `from`: the HTTP status and the body.
    static func signIn(
        _ base: String, from: String, password: String, headers: [String] = []
    ) throws -> (status: String, body: String) {
        let out = try ServeProcess.curl(
            ["--interface", from, "-o", "-", "-w", "\n%{http_code}"] + headers.flatMap { ["-H", $0] } + [
                "--data-urlencode", "name=ranger", "--data-urlencode", "password=\(password)", base + "/login",
            ])
        return ServeProcess.statusAndBody(out)
    }

    @Test(
        "through nginx with --trusted-proxy: one client's wrong passwords lock that client only; a forged X-Forwarded-For changes nothing; the header from a peer not trusted is ignored; nginx's Host $host on another port is refused with the fix, $http_host signs in",
        .needs(.curl, .nginx))
    func throttleCountsTheClient() throws {
        try Support.withTemporaryDirectory { dir in
            try EdgeTrustTests.addRanger(dir, password: Self.password)
            let server = try EdgeTrustTests.launch(dir, ["--trusted-proxy", "127.0.0.1"])
            defer { server.stop() }
            // Two ports of their own (a port just closed may be handed out twice).
            let forwarding = try PostgresServer.freePort()
            var hostOnly = try PostgresServer.freePort()
            while hostOnly == forwarding || hostOnly == server.port { hostOnly = try PostgresServer.freePort() }
            let nginx = try Self.startNginx(dir, upstream: server.port, forwarding: forwarding, hostOnly: hostOnly)
            defer {
                nginx.terminate()
                nginx.waitUntilExit()
            }
            let proxied = "http://127.0.0.1:\(forwarding)"
            // 127.0.0.5 guesses until it is stopped (20 wrong sign-ins from one address).
            var locked = false
            for _ in 0..<25 where !locked {
                locked = try Self.signIn(proxied, from: "127.0.0.5", password: "wrong").status == "429"
            }
            #expect(locked, "the guessing client was never stopped")
            // Another client through the same nginx signs in: the proxy's address was not counted.
            let other = try Self.signIn(proxied, from: "127.0.0.6", password: Self.password)
            #expect(other.status == "303", "another client was locked out too: \(other.status) \(other.body)")
            // The guesser cannot pass for someone else: nginx appends the address it saw.
            let forged = try Self.signIn(
                proxied, from: "127.0.0.5", password: Self.password, headers: ["X-Forwarded-For: 127.0.0.9"])
            #expect(forged.status == "429", "a forged X-Forwarded-For was believed: \(forged.status)")
            // Straight to the server, from a peer that is not a trusted proxy: its header is ignored.
            let direct = try Self.signIn(
                server.base, from: "127.0.0.7", password: Self.password, headers: ["X-Forwarded-For: 127.0.0.5"])
            #expect(direct.status == "303", "an untrusted peer's X-Forwarded-For was believed: \(direct.status)")

            // Host $host drops the port: the browser's Origin names a port the server was not asked for.
            let dropped = try Self.signIn(
                "http://127.0.0.1:\(hostOnly)", from: "127.0.0.8", password: Self.password,
                headers: ["Origin: http://127.0.0.1:\(hostOnly)"])
            #expect(dropped.status == "403")
            #expect(
                dropped.body.contains("--public-url http://127.0.0.1:\(hostOnly)")
                    && dropped.body.contains("$http_host"), "\(dropped.body)")
            let kept = try Self.signIn(
                proxied, from: "127.0.0.8", password: Self.password, headers: ["Origin: \(proxied)"])
            #expect(kept.status == "303", "\(kept.status) \(kept.body)")

            server.stop()
            // The access log names the clients, never nginx.
            let clients = Set(
                try EdgeTrustTests.log(dir).filter { $0["msg"]?.string == "request" && $0["path"]?.string == "/login" }
                    .compactMap { $0["client"]?.string })
            #expect(clients.isSuperset(of: ["127.0.0.5", "127.0.0.6", "127.0.0.7", "127.0.0.8"]), "\(clients)")
            #expect(!clients.contains("127.0.0.1"), "\(clients)")
        }
    }

    @Test("--trusted-proxy takes IP addresses only: a name or a range is a usage error naming it", .needs(.timeout))
    func trustedProxyValues() throws {
        try Support.withTemporaryDirectory { dir in
            for bad in ["nginx.local", "10.0.0.0/8", "127.0.0.1:80"] {
                let out = try Support.run(
                    "timeout",
                    ["20", Support.binary, "serve", "--data", dir + "/data", "--port", "0", "--trusted-proxy", bad])
                #expect(
                    out.status == 2 && out.stderr.contains("'\(bad)' is not an IP address"), "\(bad): \(out.stderr)")
            }
        }
    }
}
