import Foundation
import TrailPackCore

/// One plain-text mail handed to an SMTP server (RFC 5321) — a relay on the server's own machine or
/// network, such as the local Postfix or Exim, which does TLS and delivery. The dialogue is the
/// smallest one every server takes: EHLO, MAIL FROM, RCPT TO for each recipient, DATA (lines that
/// begin with "." doubled), QUIT. Blocking: call it off the event loop.
///
/// Nothing from a user reaches a header unchecked: addresses were checked when they were set
/// (``isAddress(_:)``), and the subject's control characters become spaces, so no text can add a
/// header or a recipient. A non-ASCII subject is RFC 2047 encoded; a non-ASCII body goes as base64.
public struct SMTPMail: Sendable {
    /// Where the relay listens.
    public var host: String
    public var port: Int
    /// The sender's address (`--mail-from`).
    public var from: String
    /// How long one read or write may wait.
    public var timeout: Duration = .seconds(20)

    /// A relay at `host:port`, sending as `from`.
    public init(host: String, port: Int, from: String) {
        self.host = host
        self.port = port
        self.from = from
    }

    /// Why a mail was not handed over, with the relay's own reply when it gave one.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// `smtp://HOST[:PORT]` (port 25 when left out), or a refusal naming the rule.
    public static func relay(_ text: String) throws -> (host: String, port: Int) {
        guard let url = URLComponents(string: text), url.scheme?.lowercased() == "smtp", let host = url.host,
            !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil, url.user == nil
        else {
            throw Failure(
                description:
                    "--smtp '\(text)' must be smtp://HOST or smtp://HOST:PORT (a relay such as smtp://127.0.0.1:25)")
        }
        return (host, url.port ?? 25)
    }

    /// Whether `text` is a plain mail address: `local@domain`, printable ASCII, no spaces, angle
    /// brackets, quotes or commas (nothing that could start another header or recipient).
    public static func isAddress(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (3...254).contains(bytes.count), bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        guard !bytes.contains(where: { "<>\"(),;:[]\\".utf8.contains($0) }) else { return false }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix(".")
        else { return false }
        return true
    }

    /// Sends `body` to `recipients` (each already checked with ``isAddress(_:)``).
    public func send(to recipients: [String], subject: String, body: String) throws {
        guard !recipients.isEmpty else { return }
        guard Self.isAddress(from), recipients.allSatisfy(Self.isAddress) else {
            throw Failure(description: "a mail address is not a plain address; nothing was sent")
        }
        let connection = try Connection(host: host, port: port, timeout: timeout)
        defer { connection.close() }
        try connection.expect(220, "the greeting")
        try connection.send("EHLO \(Self.hostName())")
        let features = try connection.expect(250, "EHLO")
        try connection.send("MAIL FROM:<\(from)>")
        try connection.expect(250, "MAIL FROM")
        for recipient in recipients {
            try connection.send("RCPT TO:<\(recipient)>")
            try connection.expect(250, "RCPT TO <\(recipient)>", also: 251)
        }
        try connection.send("DATA")
        try connection.expect(354, "DATA")
        let eightBit = features.contains { $0.uppercased().hasPrefix("8BITMIME") }
        for line in Self.message(
            from: from, to: recipients, subject: subject, body: body, date: Date(), eightBit: eightBit)
        {
            try connection.send(line.hasPrefix(".") ? "." + line : line)
        }
        try connection.send(".")
        try connection.expect(250, "the message")
        try? connection.send("QUIT")
    }

    /// The message's lines (headers, a blank line, the body), without the final ".".
    static func message(
        from: String, to: [String], subject: String, body: String, date: Date, eightBit: Bool
    ) -> [String] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
        let plain = body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let ascii = plain.utf8.allSatisfy { $0 < 0x80 }
        let subjectWords = encodedHeader(subject)
        var lines = ["From: \(from)", "To: \(to.joined(separator: ", "))", "Subject: \(subjectWords[0])"]
        lines += subjectWords.dropFirst().map { " " + $0 }
        lines += [
            "Date: \(formatter.string(from: date))", "Message-ID: <\(UUID().uuidString.lowercased())@\(domain)>",
            "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
        ]
        if ascii || eightBit {
            lines.append("Content-Transfer-Encoding: \(ascii ? "7bit" : "8bit")")
            lines.append("")
            lines += plain.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        } else {
            lines.append("Content-Transfer-Encoding: base64")
            lines.append("")
            let encoded = Data(plain.utf8).base64EncodedString()
            var start = encoded.startIndex
            while start < encoded.endIndex {
                let end = encoded.index(start, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
                lines.append(String(encoded[start..<end]))
                start = end
            }
        }
        return lines
    }

    /// A header's text (control characters as spaces, at most 200 characters): as it is when ASCII,
    /// else as RFC 2047 encoded words of 39 bytes (64 characters), one per folded line: every line
    /// stays under 78 characters, so no relay folds it again.
    static func encodedHeader(_ text: String) -> [String] {
        let flat = String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
        let clipped = String(flat.prefix(200))
        guard !clipped.utf8.allSatisfy({ $0 < 0x80 }) else { return [clipped] }
        var words: [String] = []
        var piece: [UInt8] = []
        for character in clipped {
            let bytes = Array(String(character).utf8)
            if piece.count + bytes.count > 39 {
                words.append("=?utf-8?b?\(Data(piece).base64EncodedString())?=")
                piece = []
            }
            piece += bytes
        }
        if !piece.isEmpty { words.append("=?utf-8?b?\(Data(piece).base64EncodedString())?=") }
        return words
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty || !name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) ? "localhost" : name
    }

    /// One TCP connection with line-based reads, every wait bounded by the timeout.
    final class Connection {
        let descriptor: Int32
        var buffered: [UInt8] = []
        let place: String

        init(host: String, port: Int, timeout: Duration) throws {
            place = "\(host):\(port)"
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            hints.ai_family = AF_UNSPEC
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
                throw Failure(description: "the mail relay \(place) cannot be found")
            }
            defer { freeaddrinfo(list) }
            var seconds = timeval(
                tv_sec: Int(timeout.components.seconds),
                tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
            var candidate: UnsafeMutablePointer<addrinfo>? = first
            var lastError: Int32 = 0
            while let address = candidate {
                let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
                if fd >= 0 {
                    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
                    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
                    if connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                        descriptor = fd
                        return
                    }
                    lastError = errno
                    Foundation.close(fd)
                }
                candidate = address.pointee.ai_next
            }
            throw Failure(
                description: "cannot reach the mail relay \(place): \(String(cString: strerror(lastError)))")
        }

        func close() { Foundation.close(descriptor) }

        func send(_ line: String) throws {
            let bytes = Array((line + "\r\n").utf8)
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
                guard n > 0 else {
                    throw Failure(description: "the mail relay \(place) stopped taking data")
                }
                sent += n
            }
        }

        /// Reads one reply (its lines, code stripped) and checks its code.
        @discardableResult
        func expect(_ code: Int, _ step: String, also other: Int? = nil) throws -> [String] {
            var lines: [String] = []
            while true {
                let line = try readLine()
                guard line.count >= 3, let got = Int(line.prefix(3)) else {
                    throw Failure(description: "the mail relay \(place) answered \(step) with '\(line.prefix(80))'")
                }
                lines.append(String(line.dropFirst(4)))
                if line.count > 3 && line[line.index(line.startIndex, offsetBy: 3)] == "-" { continue }
                guard got == code || got == other else {
                    throw Failure(description: "the mail relay \(place) refused \(step): \(line.prefix(200))")
                }
                return lines
            }
        }

        func readLine() throws -> String {
            while true {
                if let end = buffered.firstIndex(of: 0x0A) {
                    var line = Array(buffered[..<end])
                    buffered.removeFirst(end + 1)
                    if line.last == 0x0D { line.removeLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                guard buffered.count < 4096 else {
                    throw Failure(description: "the mail relay \(place) sent a reply line over 4 KB")
                }
                var chunk = [UInt8](repeating: 0, count: 1024)
                let n = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
                guard n > 0 else {
                    throw Failure(
                        description: "the mail relay \(place) closed the connection or did not answer in time")
                }
                buffered += chunk[..<n]
            }
        }
    }
}
