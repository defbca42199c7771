import Foundation
import Testing
import TrailPackS3
import TrailPackTestSupport

@Suite("S3 credentials", .ownThreads)
struct S3CredentialsTests {
    static let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

    @Test func theDefaultAndANamedProfile() throws {
        let text = """
            # AWS shared credentials
            [default]
            aws_access_key_id = AKIADEFAULT
            aws_secret_access_key=\(Self.secret)

            ; the seaweed gateway
            [seaweed]
            AWS_Access_Key_Id   =   AKIASEAWEED\t
            aws_secret_access_key = seaweed/secret+key=
            aws_session_token = FwoGZXIvYXdzE//token=
            region = us-east-1
            s3 =
              max_concurrent_requests = 10
            """
        let plain = try S3Credentials.sharedCredentials(parsing: text, file: "credentials")
        #expect(plain.accessKeyId == "AKIADEFAULT")
        #expect(!plain.hasSessionToken)
        let named = try S3Credentials.sharedCredentials(parsing: text, file: "credentials", profile: "seaweed")
        #expect(named.accessKeyId == "AKIASEAWEED")
        #expect(named.hasSessionToken)
        #expect(try S3Credentials(accessKeyId: "AKIADEFAULT", secretAccessKey: Self.secret) == plain)
    }

    @Test func windowsLineEndingsAreLineEndings() throws {
        let text = "[default]\r\naws_access_key_id = AKIA1\r\naws_secret_access_key = s3cr3t\r\n"
        #expect(try S3Credentials.sharedCredentials(parsing: text, file: "f").accessKeyId == "AKIA1")
    }

    @Test(arguments: [
        ("[default]\naws_access_key_id = A\n", "f: the profile [default] (line 1) has no aws_secret_access_key"),
        ("[default]\n", "has no aws_access_key_id and aws_secret_access_key"),
        ("[other]\naws_access_key_id = A\n", "f has no [default] profile; it has [other]"),
        ("", "f has no [default] profile; it has no profile"),
        ("aws_access_key_id = A\n", "f line 1: the setting 'aws_access_key_id' comes before any [profile] section"),
        ("[default]\njust words\n", "f line 2: expected a '[profile]' header or a 'name = value' setting"),
        ("[default\n", "f line 1: a section header is '[name]'"),
        ("[default]\naws_access_key_id = A\naws_access_key_id = B\n", "f line 3: aws_access_key_id is set twice"),
        ("[default]\naws_access_key_id =\n", "f line 2: aws_access_key_id in [default] is empty"),
        ("[default]\n= value\n", "f line 2: a setting has no name"),
        ("[default]\naws_access_key_id = A\n[default]\n", "the profile [default] appears twice (first on line 1)"),
        (
            "[default]\naws_access_key_id = A\naws_secret_access_key = abc\n  def\n",
            "f line 4: aws_secret_access_key continues on an indented line"
        ),
        (
            "[default]\naws_access_key_id = A B\naws_secret_access_key = x\n",
            "f line 2: aws_access_key_id holds a space"
        ),
    ])
    func fileErrorsNameTheFileTheLineAndWhatIsMissing(text: String, expected: String) {
        let error = #expect(throws: S3Error.self) { _ = try S3Credentials.sharedCredentials(parsing: text, file: "f") }
        #expect(error?.code == .invalidCredentials)
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
    }

    @Test func aSecretNeverAppearsInAnErrorOrADescription() throws {
        let secret = "Very/Secret+Value=123"
        // A malformed secret: the error names the setting, not its value.
        let text = "[default]\naws_access_key_id = AKIA1\naws_secret_access_key = \(secret) trailing\n"
        let error = #expect(throws: S3Error.self) { _ = try S3Credentials.sharedCredentials(parsing: text, file: "f") }
        #expect(error?.message.contains("aws_secret_access_key") == true)
        #expect(error.map { "\($0)".contains(secret) } == false)

        let credentials = try S3Credentials(accessKeyId: "AKIA1", secretAccessKey: secret, sessionToken: "tok/123")
        for text in [
            "\(credentials)", String(describing: credentials), String(reflecting: credentials), dumped(credentials),
            "\([credentials])",
        ] {
            #expect(text.contains("AKIA1"), "\(text)")
            #expect(!text.contains(secret), "\(text)")
            #expect(!text.contains("tok/123"), "\(text)")
        }
    }

    private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    @Test func fromAFileOnDisk() throws {
        let path = NSTemporaryDirectory() + "trailpack-credentials-\(UUID().uuidString)"
        try "[default]\naws_access_key_id = AKIAFILE\naws_secret_access_key = s\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try S3Credentials.sharedCredentialsFile(path).accessKeyId == "AKIAFILE")
        let missing = #expect(throws: S3Error.self) { _ = try S3Credentials.sharedCredentialsFile(path + ".missing") }
        #expect(missing?.message.contains(path + ".missing") == true)
        let profile = #expect(throws: S3Error.self) { _ = try S3Credentials.sharedCredentialsFile(path, profile: "x") }
        #expect(profile?.message.contains("\(path) has no [x] profile") == true)
    }

    @Test func fromTheEnvironment() throws {
        let full = try S3Credentials.environment([
            "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env/secret", "AWS_SESSION_TOKEN": "tok",
        ])
        #expect(full.accessKeyId == "AKIAENV")
        #expect(full.hasSessionToken)
        let noToken = try S3Credentials.environment([
            "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env/secret", "AWS_SESSION_TOKEN": "",
        ])
        #expect(!noToken.hasSessionToken)
        let cases: [([String: String], String)] = [
            ([:], "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set"),
            (["AWS_ACCESS_KEY_ID": "A"], "AWS_SECRET_ACCESS_KEY is not set in the environment (AWS_ACCESS_KEY_ID is)"),
            (["AWS_SECRET_ACCESS_KEY": "env/secret"], "AWS_ACCESS_KEY_ID is not set in the environment"),
            (["AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": ""], "AWS_SECRET_ACCESS_KEY is not set"),
            (
                ["AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "env/secret\n"],
                "AWS_SECRET_ACCESS_KEY holds a space"
            ),
        ]
        for (variables, expected) in cases {
            let error = #expect(throws: S3Error.self) { _ = try S3Credentials.environment(variables) }
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
            #expect(error.map { "\($0)".contains("env/secret") } == false)
        }
    }
}
