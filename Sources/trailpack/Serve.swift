import ArgumentParser
import Foundation
import Hummingbird
import Logging
import TrailPackCore
import TrailPackFileIO
import TrailPackPanel
import TrailPackServer
import TrailPackVisitor

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the download server and its API.",
        usage: """
            trailpack serve --data <folder> [--host <address>] [--port <n>] [options]
            """,
        discussion: """
            The data folder holds the catalog (catalog.sqlite) and the packages, stored by SHA-256. \
            Apps list sites and packages, preview manifests, download (resumable: Range, If-Range) and \
            confirm what they received; publishers upload packages, which are verified in a limited child \
            process and scanned before they are kept. Stops cleanly on Ctrl-C or SIGTERM.

            A new or empty data folder is marked as trailpack's; a non-empty folder that is not one is \
            refused, and so is a folder another server holds ("in use by PID n"). Packages are never deleted \
            at start: packages the catalog does not know stop the start (see 'trailpack admin gc'). The malware \
            scanner is checked at start; without signatures it refuses to start, naming the fix.

            Examples:
              trailpack serve --data /srv/trailpack
              trailpack serve --data ./data --port 8080 --admin-token-file ./admin.token
              curl -H "Authorization: Bearer $(cat admin.token)" --data-binary @tour.zip \\
                http://127.0.0.1:8080/v1/admin/packages
              trailpack serve --data ./data --approvals 2 --clamav-db /var/lib/clamav
              trailpack serve --data ./data --approvals 0 --no-malware-scan
              trailpack serve --data /srv/trailpack --host 0.0.0.0 --port 8443 \\
                --tls-certificate fullchain.pem --tls-key privkey.pem

            HTTPS: with --tls-certificate and --tls-key (PEM files: the certificate chain, the server's own \
            certificate first, and its unencrypted private key) the server speaks only HTTPS, HTTP/1.1 or \
            HTTP/2 as the client chooses; downloads are then sent through buffers instead of sendfile. \
            Browsers run the visitor app offline (service worker, storage, location) only from a secure \
            origin: HTTPS, or http://localhost and http://127.0.0.1 for testing. A proxy that ends TLS in \
            front of the server (nginx) serves as well; see docs/OPERATORS.md, "Serving over HTTPS".

            Limits (defaults in brackets): a new connection must send its request head within \
            --header-timeout [30 s]; a kept-alive connection is closed after --keep-alive-timeout [15 s] idle; \
            a request body must bring --min-body-rate [256] bytes per second over each --body-timeout [30 s]; \
            a client that reads nothing for --send-timeout [60 s] is dropped; one address may hold \
            --max-connections-per-address [64] connections; on SIGTERM requests in flight get \
            --shutdown-timeout [30 s]; --scan-concurrency [1] malware scans run at once; confirmations are \
            counted at most --confirmations-per-minute [30] per address and once per download.

            Exit codes: 0 stopped cleanly, 2 usage error (a TLS file holding no usable PEM certificate or key \
            included), 3 the data folder, the port, the scanner or a TLS file cannot be used (read).
            """)

    @Option(
        help: "The data folder (created and marked if missing or empty; a non-empty folder that is not one is refused)."
    )
    var data: String

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed at start).")
    var port = 8080

    @Option(
        name: .customLong("tls-certificate"),
        help:
            "Serve HTTPS (HTTP/1.1 and HTTP/2) with this certificate chain: a PEM file, the server's own certificate first. Needs --tls-key."
    )
    var tlsCertificate: String?

    @Option(
        name: .customLong("tls-key"),
        help: "The private key of --tls-certificate's certificate: a PEM file, unencrypted. Needs --tls-certificate.")
    var tlsKey: String?

    @Option(
        name: .customLong("admin-token-file"),
        help: "A file holding the admin token for uploads (or set TRAILPACK_ADMIN_TOKEN). Without it, uploads are off.")
    var adminTokenFile: String?

    @Option(name: .customLong("max-upload-mb"), help: "The largest upload accepted, in MiB.")
    var maxUploadMB: Int64 = 16 * 1024

    @Option(
        name: .customLong("download-base-url"),
        help: "Answer downloads with a redirect to <url>/<sha256>.zip (a CDN or object store holding the same files).")
    var downloadBaseURL: String?

    @Option(
        help:
            "How many distinct reviewers must approve a version before its publisher may release it (0: uploads are released at once)."
    )
    var approvals = ServerConfiguration.defaultApprovals

    @Option(
        help:
            "Mail the review loop's notices through this SMTP relay, smtp://HOST[:PORT] (a local Postfix or Exim: it does TLS and delivery), to people an admin gave a mail address.",
    )
    var smtp: String?

    @Option(name: .customLong("mail-from"), help: "The sender address of those mails (needed with --smtp).")
    var mailFrom: String?

    @Option(
        name: .customLong("panel-url"),
        help: "The control panel's address as people open it (https://trails.example.org), for links in those mails.")
    var panelURL: String?

    @Option(
        name: .customLong("clamav-db"),
        help: "A folder of ClamAV signature databases for clamscan (default: clamscan's own).")
    var clamavDB: String?

    @Option(
        name: .customLong("clamd-socket"), help: "Scan with clamdscan through this clamd socket instead of clamscan.")
    var clamdSocket: String?

    @Flag(
        name: .customLong("no-malware-scan"),
        help:
            "Do not scan uploads (the operator's choice): versions are releasable, and the audit log says each was not scanned."
    )
    var noMalwareScan = false

    @Option(
        name: .customLong("verify-timeout"),
        help:
            "Seconds an upload's verification (in a child process) may take before it is stopped and the upload refused."
    )
    var verifyTimeout = 900

    @Option(name: .customLong("verify-max-memory-mb"), help: "The verification child's address-space limit, in MiB.")
    var verifyMaxMemoryMB: Int64 = 4096

    @Option(name: .customLong("header-timeout"), help: "Seconds a new connection has to send a complete request head.")
    var headerTimeout = 30

    @Option(name: .customLong("keep-alive-timeout"), help: "Seconds an idle kept-alive connection stays open.")
    var keepAliveTimeout = 15

    @Option(
        name: .customLong("body-timeout"), help: "The window, in seconds, over which a request body's rate is measured."
    )
    var bodyTimeout = 30

    @Option(
        name: .customLong("min-body-rate"),
        help: "The slowest request body accepted, in bytes per second (averaged over --body-timeout).")
    var minBodyRate = 256

    @Option(
        name: .customLong("send-timeout"), help: "Seconds a client may read nothing of a response before it is dropped."
    )
    var sendTimeout = 60

    @Option(name: .customLong("max-connections-per-address"), help: "Connections one client address may hold at once.")
    var maxConnectionsPerAddress = 64

    @Option(
        name: .customLong("shutdown-timeout"),
        help: "Seconds requests in flight get to finish on SIGTERM or Ctrl-C before they are cancelled.")
    var shutdownTimeout = 30

    @Option(name: .customLong("scan-concurrency"), help: "How many malware scans run at once.")
    var scanConcurrency = 1

    @Option(
        name: .customLong("confirmations-per-minute"),
        help: "Download confirmations counted per client address and minute (more are answered, not counted).")
    var confirmationsPerMinute = 30

    @Option(name: .customLong("log-format"), help: "How the log on standard error is written: text, logfmt or json.")
    var logFormat = "text"

    @Option(
        name: .customLong("log-level"),
        help: "The least severe log level written: trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(
        name: .customLong("web-assets"),
        help:
            "The folder of Debian's web libraries the control panel serves (leaflet/, bootstrap5/: packages libjs-leaflet, libjs-bootstrap5)."
    )
    var webAssets = PanelConfiguration.defaultWebAssets

    @Option(
        name: .customLong("tile-url"),
        help:
            "The control panel's base map: a tile URL template with {z}, {x}, {y} (needs --tile-attribution). Without it: the tour's offline map, else a coordinate grid."
    )
    var tileURL: String?

    @Option(
        name: .customLong("tile-attribution"),
        help: "The attribution shown with --tile-url's tiles, such as '© OpenStreetMap contributors'.")
    var tileAttribution: String?

    @Option(
        name: .customLong("max-media-mb"),
        help: "The largest file a ranger may upload to a stop in the control panel, in MiB.")
    var maxMediaMB: Int64 = 2048

    @Option(
        name: .customLong("draft-quota-mb"),
        help:
            "The most the drafts of one site may hold on the server, in MiB (an import is counted by its unpacked size before anything is written)."
    )
    var draftQuotaMB: Int64 = 10240

    @Option(
        help: ArgumentHelp(
            "A folder the control panel keeps drafts in that several servers share (a network file system with locks: NFSv4, CephFS); without it, the data folder.",
            valueName: "dir"))
    var drafts: String?

    @OptionGroup(title: "The phones' budget the control panel warns against") var budget: BudgetOptions
    @OptionGroup(title: "Several servers: a shared catalog and package store") var storeOptions: StoreOptions

    @Option(
        name: .customLong("public-url"),
        help: "The URL the control panel is reached by; https:// makes its session cookie Secure.")
    var publicURL: String?

    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp(
            "A proxy in front of this server (nginx, a load balancer), by the IP address the server sees it at: its X-Forwarded-For names the client, for the sign-in throttle, rate limits and the log. Once per proxy; without it the header is ignored.",
            valueName: "address"))
    var trustedProxies: [String] = []

    @Flag(
        name: .customLong("no-visitor-app"),
        help: "Do not serve the visitor app at /visit/ (the offline web app visitors take tours with).")
    var noVisitorApp = false

    @Option(
        name: .customLong("visitor-trusted-key"),
        parsing: .upToNextOption,
        help:
            "Reviewers' minisign public keys (.pub files, or folders of them) the visitor app checks downloads against; as many must have signed as --approvals says (at least 1). Without: no signature check in the app."
    )
    var visitorTrustedKeys: [String] = []

    @Option(
        name: .customLong("visitor-app-files"),
        help: ArgumentHelp(
            "A folder of the visitor app's files to serve instead of the copy compiled into the program (for working on the app).",
            visibility: .hidden))
    var visitorAppFiles: String?

    func run() async throws {
        var token = ProcessInfo.processInfo.environment["TRAILPACK_ADMIN_TOKEN"]
        if let adminTokenFile {
            guard let text = try? String(contentsOfFile: adminTokenFile, encoding: .utf8) else {
                throw CLIError.io("cannot read '\(adminTokenFile)'")
            }
            token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let t = token, t.count < 16 { throw CLIError.usage("the admin token must be at least 16 characters") }
        guard approvals >= 0 else { throw CLIError.usage("--approvals must be 0 or more") }
        guard (0...65535).contains(port) else {
            throw CLIError.usage("--port must be from 1 to 65535 (or 0 for any free port); it is \(port)")
        }
        guard (1...(Int64.max >> 20)).contains(maxUploadMB) else {
            throw CLIError.usage("--max-upload-mb must be from 1 to \(Int64.max >> 20); it is \(maxUploadMB)")
        }
        if noMalwareScan, clamavDB != nil || clamdSocket != nil {
            throw CLIError.usage(
                "--\(clamdSocket != nil ? "clamd-socket" : "clamav-db") says how uploads are scanned, and --no-malware-scan says they are not: give one or the other"
            )
        }
        if let downloadBaseURL {
            guard let url = URL(string: downloadBaseURL), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty,
                url.query == nil, url.fragment == nil,
                downloadBaseURL.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7f })
            else {
                throw CLIError.usage(
                    "--download-base-url must be an http:// or https:// address with a host and no query, such as https://cdn.example.org/trailpack; it is '\(TerminalText.escaped(downloadBaseURL))'"
                )
            }
        }
        var mail: ReviewMail.Settings?
        if let smtp {
            let relay: (host: String, port: Int)
            do { relay = try SMTPMail.relay(smtp) } catch { throw CLIError.usage("\(error)") }
            guard let mailFrom, SMTPMail.isAddress(mailFrom) else {
                throw CLIError.usage(
                    "--smtp needs --mail-from ADDRESS, a plain address such as trails@example.org, for the mails' sender"
                )
            }
            if let panelURL {
                guard let url = URL(string: panelURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                    url.host?.isEmpty == false, url.query == nil,
                    panelURL.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7f })
                else {
                    throw CLIError.usage(
                        "--panel-url must be an http:// or https:// address with a host, such as https://trails.example.org; it is '\(TerminalText.escaped(panelURL))'"
                    )
                }
            }
            mail = ReviewMail.Settings(
                smtp: SMTPMail(host: relay.host, port: relay.port, from: mailFrom), panelURL: panelURL)
        } else if mailFrom != nil || panelURL != nil {
            throw CLIError.usage("--mail-from and --panel-url are for mail: give --smtp smtp://HOST:PORT too")
        }
        let scanner: MalwareScanner.Engine =
            noMalwareScan ? .off : clamdSocket.map { .clamd(socket: $0) } ?? .clamscan(database: clamavDB)
        var configuration = ServerConfiguration(
            dataDirectory: data, host: host, port: port, adminToken: token,
            maxUploadBytes: maxUploadMB << 20, downloadBaseURL: downloadBaseURL,
            approvals: approvals, scanner: scanner)
        guard (1...86400).contains(verifyTimeout) else {
            throw CLIError.usage("--verify-timeout must be from 1 to 86400 seconds; it is \(verifyTimeout)")
        }
        guard (256...(1 << 30)).contains(verifyMaxMemoryMB) else {
            throw CLIError.usage("--verify-max-memory-mb must be from 256 to \(1 << 30); it is \(verifyMaxMemoryMB)")
        }
        guard let executable = ContainedVerifier.currentExecutable() else {
            throw CLIError.io("cannot find this program's own path (/proc/self/exe) to run the verifier")
        }
        var verifier = ContainedVerifier(executable: executable)
        verifier.timeoutSeconds = Double(verifyTimeout)
        verifier.maxCPUSeconds = verifyTimeout
        verifier.maxMemoryBytes = verifyMaxMemoryMB << 20
        configuration.containedVerifier = verifier
        configuration.mail = mail
        for (name, value, range) in [
            ("--header-timeout", headerTimeout, 1...3600), ("--keep-alive-timeout", keepAliveTimeout, 1...3600),
            ("--body-timeout", bodyTimeout, 1...3600), ("--min-body-rate", minBodyRate, 0...(1 << 30)),
            ("--send-timeout", sendTimeout, 1...3600),
            ("--max-connections-per-address", maxConnectionsPerAddress, 1...100_000),
            ("--shutdown-timeout", shutdownTimeout, 0...86400), ("--scan-concurrency", scanConcurrency, 1...64),
            ("--confirmations-per-minute", confirmationsPerMinute, 0...1_000_000),
        ] where !range.contains(value) {
            throw CLIError.usage("\(name) must be from \(range.lowerBound) to \(range.upperBound); it is \(value)")
        }
        var limits = ServerLimits()
        limits.headerTimeout = .seconds(Int64(headerTimeout))
        limits.keepAliveTimeout = .seconds(Int64(keepAliveTimeout))
        limits.bodyTimeout = .seconds(Int64(bodyTimeout))
        limits.minimumBodyBytesPerSecond = minBodyRate
        limits.sendTimeout = .seconds(Int64(sendTimeout))
        limits.maxConnectionsPerAddress = maxConnectionsPerAddress
        limits.shutdownTimeout = .seconds(shutdownTimeout)
        configuration.limits = limits
        configuration.stores = try storeOptions.locations(warn: false)
        do { configuration.trustedProxies = try TrustedProxies(trustedProxies) } catch {
            throw CLIError.usage(error.description)
        }
        configuration.scanConcurrency = scanConcurrency
        configuration.confirmationsPerMinute = confirmationsPerMinute
        guard let format = LogFormat(rawValue: logFormat) else {
            throw CLIError.usage(
                "--log-format must be one of \(LogFormat.allCases.map(\.rawValue).joined(separator: ", ")); it is '\(logFormat)'"
            )
        }
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw CLIError.usage(
                "--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")); it is '\(logLevel)'"
            )
        }
        // The panel's settings are checked before the data folder is opened.
        var panelConfiguration = PanelConfiguration(
            webAssets: webAssets, tileURL: tileURL, tileAttribution: tileAttribution, publicURL: publicURL,
            maxMediaBytes: (1...(1 << 30)).contains(maxMediaMB) ? maxMediaMB << 20 : 0, budget: budget.budget,
            draftQuotaBytes: (1...(1 << 30)).contains(draftQuotaMB) ? draftQuotaMB << 20 : 0)
        panelConfiguration.draftsFolder = drafts
        let panelProblems = panelConfiguration.problems()
        guard panelProblems.isEmpty else { throw CLIError.usage(panelProblems.joined(separator: "; ")) }
        configuration.tls = try loadTLS()
        // Logs go to standard error; standard output carries only the "listening on" line.
        LoggingSystem.bootstrap { label in
            var handler = LineLogHandler(label: label, format: format)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "trailpack.serve")
        logger.logLevel = level
        // Said in the log's own format (--log-format json stays one object per line).
        for (path, option) in [
            (adminTokenFile, "--admin-token-file"), (tlsKey, "--tls-key"),
            (storeOptions.catalogPasswordFile, "--catalog-password-file"),
            (storeOptions.blobsCredentials, "--blobs-credentials"),
        ] {
            if let path, let why = SecretFile.exposure(path, option: option) { logger.warning("\(why)") }
        }
        let server: TrailPackServer
        do { server = try await TrailPackServer(configuration: configuration, logger: logger) } catch let error
            as ServerError
            where error.code == .dataFolder
        {
            throw CLIError.io(error.message)
        } catch {
            // The error names what failed: the data folder, the PostgreSQL catalog or the bucket.
            throw CLIError.io("cannot start the server with the data folder '\(data)': \(error)")
        }
        let panel: PanelController
        do { panel = try PanelController(configuration: panelConfiguration, server: server) } catch let error
            as PanelError
        { throw CLIError.usage(error.message) }
        var visitor: VisitorController?
        if !noVisitorApp {
            do {
                visitor = try VisitorController(
                    configuration: .init(
                        appFolder: visitorAppFiles, webAssets: webAssets, trustedKeyFiles: visitorTrustedKeys,
                        threshold: approvals, downloadBaseURL: downloadBaseURL))
            } catch { throw CLIError.usage(error.message) }
        } else if !visitorTrustedKeys.isEmpty {
            throw CLIError.usage("--visitor-trusted-key has no use with --no-visitor-app: drop one of them")
        }
        if let problem = MalwareScanner(engine: scanner).checkAtStart(folder: server.folder.root + "/tmp") {
            throw CLIError.io("the malware scanner does not work: \(problem)")
        }
        // The settings in force, in words: who can upload, how many approvals, what scans.
        let uploads = token == nil ? "uploads by publisher tokens" : "uploads by publisher tokens and the admin token"
        let scanning =
            noMalwareScan
            ? "malware scan OFF: uploads are not scanned (operator's choice)"
            : clamdSocket.map { "malware scan by clamd at \($0)" }
                ?? "malware scan by clamscan\(clamavDB.map { " with \($0)" } ?? "")"
        let banner =
            "trailpack serve: listening on \(configuration.tls == nil ? "http" : "https")://\(host):%d (data: \(configuration.dataDirectory); \(uploads); "
            + "\(approvals) approval\(approvals == 1 ? "" : "s") before release; \(scanning), \(scanConcurrency) at a time; uploads up to \(maxUploadMB) MB; "
            + "limits: \(limits.summary); log: \(format.rawValue) at \(level); control panel at /\(publicURL.map { " as \($0)" } ?? "")"
            + (visitor == nil ? "; visitor app off" : "; visitor app at /visit/")
            + (tlsCertificate.map { "; TLS with \($0), HTTP/1.1 and HTTP/2, downloads buffered" } ?? "") + ")\n"
        do {
            // The control panel is one more set of routes on the server's router.
            try await server.run(
                logger: logger,
                addRoutes: {
                    visitor?.addRoutes(to: $0)
                    panel.addRoutes(to: $0)
                }
            ) { port in
                FileHandle.standardOutput.write(Data(banner.replacingOccurrences(of: "%d", with: String(port)).utf8))
            }
        } catch {
            if let words = ServerError.bindFailure(error, host: host, port: port) { throw CLIError.io(words) }
            throw CLIError.io("the server stopped: \(error)")
        }
    }

    /// `--tls-certificate` and `--tls-key`, both or neither, read and checked before anything is started.
    private func loadTLS() throws -> ServerTLS? {
        switch (tlsCertificate, tlsKey) {
        case (nil, nil):
            return nil
        case (_?, nil):
            throw CLIError.usage(
                "--tls-certificate needs --tls-key (the certificate's private key, PEM): give both to serve HTTPS, or neither to serve HTTP"
            )
        case (nil, _?):
            throw CLIError.usage(
                "--tls-key needs --tls-certificate (the certificate chain, PEM): give both to serve HTTPS, or neither to serve HTTP"
            )
        case (let certificate?, let key?):
            do { return try ServerTLS.load(certificateFile: certificate, keyFile: key) } catch {
                switch error.kind {
                case .unreadable: throw CLIError.io(error.message)
                case .invalid: throw CLIError.usage(error.message)
                }
            }
        }
    }
}
