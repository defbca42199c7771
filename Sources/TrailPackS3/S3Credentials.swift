import TrailPackFileIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An access key id and its secret (and, for temporary credentials, a session token): what signs
/// every request.
///
/// The secret and the token never leave this value except into a signature: its `description`,
/// its `debugDescription` and its mirror (what `print`, `dump` and string interpolation show) name
/// the access key id only, and no error names more.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The access key id (`AKIAIOSFODNN7EXAMPLE`): names the credentials, grants nothing.
    public let accessKeyId: String
    let secretAccessKey: String
    let sessionToken: String?

    /// Whether these are temporary credentials with a session token (sent as `X-Amz-Security-Token`).
    public var hasSessionToken: Bool { sessionToken != nil }

    /// Credentials from their parts. Refused when a part is empty or holds whitespace or a control
    /// character (a value pasted with its line break, say); the error names the part, never its value.
    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) throws(S3Error) {
        try Self.check(accessKeyId, "the access key id")
        try Self.check(secretAccessKey, "the secret access key")
        if let sessionToken { try Self.check(sessionToken, "the session token") }
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// `S3Credentials(accessKeyId: "AKIA…", secret: hidden)`.
    public var description: String {
        "S3Credentials(accessKeyId: \"\(printable(accessKeyId))\", secret: hidden"
            + (sessionToken == nil ? ")" : ", session token: hidden)")
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The access key id only, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(self, children: ["accessKeyId": accessKeyId, "hasSessionToken": hasSessionToken])
    }

    private static func check(_ value: String, _ what: String, context: String = "") throws(S3Error) {
        if value.isEmpty {
            throw S3Error(code: .invalidCredentials, message: "\(context)\(what) is empty")
        }
        if value.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) {
            throw S3Error(
                code: .invalidCredentials,
                message: "\(context)\(what) holds a space, a line break or a control character; "
                    + "copy it again without them")
        }
    }
}

// MARK: - The environment

extension S3Credentials {
    /// Credentials from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and (optional)
    /// `AWS_SESSION_TOKEN` in `variables`, or in the process's environment when `variables` is nil.
    /// An empty variable counts as missing; the error names the variables, never their values.
    public static func environment(_ variables: [String: String]? = nil) throws(S3Error) -> S3Credentials {
        func value(_ name: String) -> String? {
            let found: String?
            if let variables {
                found = variables[name]
            } else {
                found = getenv(name).map { String(cString: $0) }
            }
            return found?.isEmpty == false ? found : nil
        }
        let id = value("AWS_ACCESS_KEY_ID")
        let secret = value("AWS_SECRET_ACCESS_KEY")
        switch (id, secret) {
        case (nil, nil):
            throw S3Error(
                code: .invalidCredentials,
                message: "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set in the environment")
        case (nil, _):
            throw S3Error(
                code: .invalidCredentials,
                message: "AWS_ACCESS_KEY_ID is not set in the environment (AWS_SECRET_ACCESS_KEY is)")
        case (_, nil):
            throw S3Error(
                code: .invalidCredentials,
                message: "AWS_SECRET_ACCESS_KEY is not set in the environment (AWS_ACCESS_KEY_ID is)")
        case (let id?, let secret?):
            let token = value("AWS_SESSION_TOKEN")
            try check(id, "AWS_ACCESS_KEY_ID", context: "in the environment, ")
            try check(secret, "AWS_SECRET_ACCESS_KEY", context: "in the environment, ")
            if let token { try check(token, "AWS_SESSION_TOKEN", context: "in the environment, ") }
            return try S3Credentials(accessKeyId: id, secretAccessKey: secret, sessionToken: token)
        }
    }

    /// Credentials as the AWS tools find them: from the environment when `AWS_ACCESS_KEY_ID` is
    /// set there (and no `profile` is named), else from the shared-credentials file (`AWS_SHARED_CREDENTIALS_FILE`, or
    /// `~/.aws/credentials`) and the profile named by `profile`, by `AWS_PROFILE`, or `default`.
    public static func standard(profile: String? = nil) throws(S3Error) -> S3Credentials {
        func env(_ name: String) -> String? {
            guard let value = getenv(name) else { return nil }
            let text = String(cString: value)
            return text.isEmpty ? nil : text
        }
        if profile == nil, env("AWS_ACCESS_KEY_ID") != nil { return try environment() }
        let path: String
        if let file = env("AWS_SHARED_CREDENTIALS_FILE") {
            path = file
        } else if let home = env("HOME") {
            path = home + "/.aws/credentials"
        } else {
            throw S3Error(
                code: .invalidCredentials,
                message: "no credentials: AWS_ACCESS_KEY_ID is not set, and neither AWS_SHARED_CREDENTIALS_FILE "
                    + "nor HOME says where a shared-credentials file is")
        }
        return try sharedCredentialsFile(path, profile: profile ?? env("AWS_PROFILE") ?? "default")
    }
}

// MARK: - The shared-credentials file

extension S3Credentials {
    /// The largest shared-credentials file read (a larger one is not a credentials file).
    static let maximumFileSize = 1 << 20

    /// Credentials from the `[profile]` section of an AWS shared-credentials file (`~/.aws/credentials`):
    /// `aws_access_key_id`, `aws_secret_access_key` and, optional, `aws_session_token`.
    ///
    /// The file is read as the AWS tools read it: `[name]` section headers, `name = value` lines
    /// (names in any case), whole-line comments starting with `#` or `;`, blank lines, whitespace
    /// around names and values. A value runs to the end of its line (there are no inline comments);
    /// an indented line continues the setting above it, which for the three settings read here is
    /// refused. Errors name the file, the line and what is missing or wrong, never a value.
    public static func sharedCredentialsFile(
        _ path: String, profile: String = "default"
    ) throws(S3Error)
        -> S3Credentials
    {
        let bytes: [UInt8]
        do {
            bytes = try FileOperations.readAll(path, limit: maximumFileSize)
        } catch {
            throw S3Error(
                code: .invalidCredentials, message: "cannot read the shared-credentials file: \(error)", cause: error)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw S3Error(code: .invalidCredentials, message: "\(path): the shared-credentials file is not UTF-8 text")
        }
        return try sharedCredentials(parsing: text, file: path, profile: profile)
    }

    /// Credentials from the `[profile]` section of `text`, a shared-credentials file's content;
    /// `file` names it in errors. See ``sharedCredentialsFile(_:profile:)`` for the rules.
    public static func sharedCredentials(
        parsing text: String, file: String, profile: String = "default"
    )
        throws(S3Error) -> S3Credentials
    {
        let wanted = ["aws_access_key_id", "aws_secret_access_key", "aws_session_token"]
        var sections: [String] = []
        var current: String?
        var profileLine: Int?
        var values: [String: (value: String, line: Int)] = [:]
        var lastName: String?
        func fail(_ line: Int, _ what: String) -> S3Error {
            S3Error(code: .invalidCredentials, message: "\(file) line \(line): \(what)")
        }
        // A line is a line whatever ends it (\n, \r\n or a lone \r).
        let lines = text.split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if raw.first == " " || raw.first == "\t", lastName != nil {
                // A continuation of the setting above (a nested setting in the AWS tools' files).
                if current == profile, let lastName, wanted.contains(lastName) {
                    throw fail(number, "\(lastName) continues on an indented line; write it on one line")
                }
                continue
            }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw fail(number, "a section header is '[name]' with the name between the brackets")
                }
                let name = String(line.dropFirst().dropLast()).trimmingWhitespace()
                if name == profile, profileLine != nil {
                    throw fail(number, "the profile [\(printable(name))] appears twice (first on line \(profileLine!))")
                }
                if name == profile { profileLine = number }
                sections.append(name)
                current = name
                lastName = nil
                continue
            }
            guard let equals = line.firstIndex(where: { $0 == "=" || $0 == ":" }) else {
                throw fail(number, "expected a '[profile]' header or a 'name = value' setting")
            }
            let name = String(line[..<equals]).trimmingWhitespace().lowercased()
            guard !name.isEmpty else { throw fail(number, "a setting has no name before its '='") }
            guard let section = current else {
                throw fail(number, "the setting '\(printable(name))' comes before any [profile] section")
            }
            lastName = name
            guard section == profile, wanted.contains(name) else { continue }
            if let earlier = values[name] {
                throw fail(number, "\(name) is set twice in [\(printable(profile))] (first on line \(earlier.line))")
            }
            let value = String(line[line.index(after: equals)...]).trimmingWhitespace()
            guard !value.isEmpty else { throw fail(number, "\(name) in [\(printable(profile))] is empty") }
            values[name] = (value, number)
        }
        guard let profileLine else {
            let found =
                sections.isEmpty
                ? "it has no profile" : "it has " + sections.map { "[\(printable($0))]" }.joined(separator: ", ")
            throw S3Error(
                code: .invalidCredentials, message: "\(file) has no [\(printable(profile))] profile; \(found)")
        }
        let missing = wanted.prefix(2).filter { values[$0] == nil }
        if !missing.isEmpty {
            throw S3Error(
                code: .invalidCredentials,
                message: "\(file): the profile [\(printable(profile))] (line \(profileLine)) has no "
                    + missing.joined(separator: " and "))
        }
        let id = values["aws_access_key_id"]!
        let secret = values["aws_secret_access_key"]!
        let token = values["aws_session_token"]
        try check(id.value, "aws_access_key_id", context: "\(file) line \(id.line): ")
        try check(secret.value, "aws_secret_access_key", context: "\(file) line \(secret.line): ")
        if let token { try check(token.value, "aws_session_token", context: "\(file) line \(token.line): ") }
        return try S3Credentials(accessKeyId: id.value, secretAccessKey: secret.value, sessionToken: token?.value)
    }
}

extension StringProtocol {
    /// Without spaces and tabs at either end.
    func trimmingWhitespace() -> String {
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
