import Foundation
import Testing
import TrailPackS3
import TrailPackTestSupport

/// Signature Version 4 against AWS's published examples (S3 API reference, "Signature Calculations
/// for the Authorization Header" and "Authenticating Requests: Using Query Parameters"), checked
/// again with a Python reference (hmac, hashlib), and against botocore's signer on random requests.
@Suite("Signature Version 4", .ownThreads)
struct SignatureV4Tests {
    static let credentials = try! S3Credentials(
        accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let date = AmzDate(basic: "20130524T000000Z")!
    static let signer = SignatureV4(credentials: credentials, region: "us-east-1")
    static let host = "examplebucket.s3.amazonaws.com"

    @Test func getObjectWithARange() {
        let request = SignatureV4.Request(
            method: "GET", host: Self.host, path: "/test.txt", headers: [("Range", "bytes=0-9")])
        let signed = Self.signer.sign(request, date: Self.date)
        #expect(
            signed.canonicalRequest == """
                GET
                /test.txt

                host:examplebucket.s3.amazonaws.com
                range:bytes=0-9
                x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                x-amz-date:20130524T000000Z

                host;range;x-amz-content-sha256;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """)
        #expect(
            signed.stringToSign == """
                AWS4-HMAC-SHA256
                20130524T000000Z
                20130524/us-east-1/s3/aws4_request
                7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
                """)
        #expect(signed.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(
            signed.authorization
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(signed.headers.last?.name == "authorization")
        #expect(signed.headers.contains { $0 == ("x-amz-date", "20130524T000000Z") })
    }

    @Test func putObject() {
        let request = SignatureV4.Request(
            method: "PUT", host: Self.host, path: "/test$file.text",
            headers: [("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY")],
            payloadHash: "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let signed = Self.signer.sign(request, date: Self.date)
        #expect(signed.canonicalRequest.hasPrefix("PUT\n/test%24file.text\n\ndate:Fri, 24 May 2013 00:00:00 GMT\n"))
        #expect(signed.signature == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test func getBucketLifecycleAndListObjects() {
        let lifecycle = SignatureV4.Request(method: "GET", host: Self.host, path: "/", query: [("lifecycle", "")])
        #expect(lifecycle.encodedQuery == "lifecycle=")
        #expect(
            Self.signer.sign(lifecycle, date: Self.date).signature
                == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        // Given out of order: sorted before signing.
        let list = SignatureV4.Request(
            method: "GET", host: Self.host, path: "/", query: [("prefix", "J"), ("max-keys", "2")])
        #expect(list.encodedQuery == "max-keys=2&prefix=J")
        #expect(
            Self.signer.sign(list, date: Self.date).signature
                == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test func presignedURL() throws {
        let request = SignatureV4.Request(method: "GET", host: Self.host, path: "/test.txt")
        let query = try Self.signer.presignedQuery(request, expires: 86_400, date: Self.date)
        #expect(
            query == "X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
        for expires: Int64 in [0, -1, 604_801] {
            #expect(throws: S3Error.self) {
                _ = try Self.signer.presignedQuery(request, expires: expires, date: Self.date)
            }
        }
        #expect(throws: Never.self) { _ = try Self.signer.presignedQuery(request, expires: 604_800, date: Self.date) }
    }

    @Test func signingKeyIsTheHMACChain() {
        // The key AWS's examples derive, written out (Python: hmac.new over "20130524", the region…).
        let key = Self.signer.signingKey(date: Self.date).withUnsafeBytes { Array($0) }
        #expect(
            key.map { String(format: "%02x", $0) }.joined()
                == "dbb893acc010964918f1fd433add87c70e8b0db6be30c1fbeafefa5ec6ba8378")
    }

    @Test func aSessionTokenIsSignedAndSent() throws {
        let credentials = try S3Credentials(
            accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            sessionToken: "token/with+chars=")
        let signer = SignatureV4(credentials: credentials, region: "us-east-1")
        let request = SignatureV4.Request(method: "GET", host: Self.host, path: "/test.txt")
        let signed = signer.sign(request, date: Self.date)
        #expect(signed.headers.contains { $0 == ("x-amz-security-token", "token/with+chars=") })
        #expect(
            signed.authorization.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"))
        let query = try signer.presignedQuery(request, expires: 60, date: Self.date)
        #expect(query.contains("&X-Amz-Security-Token=token%2Fwith%2Bchars%3D&"))
    }

    @Test(arguments: [
        ("a b+c.zip", true, "a%20b%2Bc.zip"),
        ("/bucket/dir/a b.zip", false, "/bucket/dir/a%20b.zip"),
        ("/b/x/y", true, "%2Fb%2Fx%2Fy"),
        ("ünï/日本", false, "%C3%BCn%C3%AF/%E6%97%A5%E6%9C%AC"),
        ("AZaz09-._~", true, "AZaz09-._~"),
        ("!*'();:@&=+$,?#[]%", true, "%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%3F%23%5B%5D%25"),
        ("🥾", true, "%F0%9F%A5%BE"),
    ])
    func uriEncodingFollowsAWSRules(text: String, encodeSlash: Bool, expected: String) {
        #expect(SignatureV4.uriEncode(text, encodeSlash: encodeSlash) == expected)
    }

    @Test func headerValuesAreTrimmedAndRunsOfSpacesMadeOne() {
        let request = SignatureV4.Request(
            method: "GET", host: Self.host, path: "/", headers: [("X-Amz-Meta-Note", "  a   b  c ")])
        #expect(Self.signer.sign(request, date: Self.date).canonicalRequest.contains("\nx-amz-meta-note:a b c\n"))
    }

    @Test func amzDateFormatsAndParses() {
        #expect(AmzDate(secondsSince1970: 0).basic == "19700101T000000Z")
        #expect(AmzDate(secondsSince1970: 1_369_353_600).basic == "20130524T000000Z")
        #expect(AmzDate(secondsSince1970: 951_782_400).basic == "20000229T000000Z")
        #expect(AmzDate(secondsSince1970: 4_102_444_799).basic == "20991231T235959Z")
        #expect(AmzDate(secondsSince1970: -1).basic == "19691231T235959Z")
        #expect(AmzDate(basic: "20130524T000000Z")?.secondsSince1970 == 1_369_353_600)
        #expect(AmzDate(basic: "20000229T120000Z") != nil)
        for bad in [
            "20010229T000000Z", "20130524T240000Z", "2013-05-24T00:00:00Z", "20130524T000000", "20131324T000000Z",
        ] {
            #expect(AmzDate(basic: bad) == nil, "\(bad)")
        }
        for seconds: Int64 in [0, 86_399, 86_400, 1_700_000_000, 2_000_000_000, 253_402_300_799] {
            let date = AmzDate(secondsSince1970: seconds)
            #expect(AmzDate(basic: date.basic) == date)
        }
        #expect(AmzDate.now().basic.hasPrefix("20"))
    }

    // MARK: - botocore

    static let botocore = Self.pythonHasBotocore()

    static func pythonHasBotocore() -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import botocore.auth"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Random requests (methods, awkward keys, queries, headers, session tokens, regions, dates)
    /// signed here and by botocore's `S3SigV4Auth` and `S3SigV4QueryAuth`: the same Authorization
    /// headers and the same presigned URLs.
    @Test(.enabled(if: botocore, "needs python3 with botocore (pip install botocore)"))
    func agreesWithBotocoreOnRandomRequests() throws {
        var generator = SplitMix(seed: 20_130_524)
        let keyParts = ["a", "b c", "ü", "日本", "x+y", "p%q", "t~u", "a&b=c", "q?", "(1)", "🥾", "*", "#", "'", "."]
        var cases: [[String: Any]] = []
        var mine: [(authorization: String, presigned: String)] = []
        for index in 0..<40 {
            let method = ["GET", "PUT", "HEAD", "DELETE", "POST"][Int(generator.next() % 5)]
            let segments = (0..<(1 + Int(generator.next() % 3))).map { _ in
                (0..<(1 + Int(generator.next() % 3))).map { _ in
                    keyParts[Int(generator.next() % UInt64(keyParts.count))]
                }
                .joined()
            }
            let path = "/bucket-\(index)/" + segments.joined(separator: "/")
            var query: [(name: String, value: String)] = []
            if generator.next() % 2 == 0 { query.append(("prefix", keyParts[Int(generator.next() % 15)] + "/x y")) }
            if generator.next() % 2 == 0 { query.append(("max-keys", String(generator.next() % 1000))) }
            if generator.next() % 3 == 0 { query.append(("uploads", "")) }
            if generator.next() % 3 == 0 { query.append(("continuation-token", "tok/en+=\(generator.next() % 99)")) }
            var headers: [(name: String, value: String)] = []
            if generator.next() % 2 == 0 { headers.append(("range", "bytes=0-\(generator.next() % 10_000)")) }
            if generator.next() % 2 == 0 { headers.append(("if-none-match", "*")) }
            if generator.next() % 2 == 0 {
                headers.append(("x-amz-checksum-sha256", "n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg="))
            }
            let payload =
                generator.next() % 4 == 0 ? SignatureV4.unsignedPayload : SignatureV4.hex(bytes: generator.bytes(32))
            let token: String? = generator.next() % 3 == 0 ? "FwoGZXIvYXdzE//token+\(index)=" : nil
            let region = ["us-east-1", "eu-central-1", "garage"][Int(generator.next() % 3)]
            let date = AmzDate(secondsSince1970: 1_300_000_000 + Int64(generator.next() % 400_000_000))
            let expires = 1 + Int64(generator.next() % 604_800)
            let credentials = try S3Credentials(
                accessKeyId: "AKID\(index)EXAMPLE", secretAccessKey: "secret/\(index)+key=", sessionToken: token)
            let signer = SignatureV4(credentials: credentials, region: region)
            let host = index % 2 == 0 ? "127.0.0.1:8333" : "bucket.s3.\(region).amazonaws.com"
            let request = SignatureV4.Request(
                method: method, host: host, path: path, query: query, headers: headers, payloadHash: payload)
            let signed = signer.sign(request, date: date)
            let presigned = try signer.presignedQuery(
                SignatureV4.Request(method: "GET", host: host, path: path, query: query), expires: expires, date: date)
            mine.append((signed.authorization, presigned))
            cases.append([
                "method": method, "host": host, "path": path, "query": query.map { [$0.name, $0.value] },
                "headers": headers.map { [$0.name, $0.value] }, "payload": payload, "token": token as Any,
                "region": region, "date": date.basic, "expires": expires, "key": credentials.accessKeyId,
                "secret": "secret/\(index)+key=",
            ])
        }
        let input = try JSONSerialization.data(withJSONObject: cases)
        let output = try Self.runPython(Self.botocoreScript, input: input)
        let theirs = try #require(try JSONSerialization.jsonObject(with: output) as? [[String]])
        #expect(theirs.count == mine.count)
        for (index, (mine, theirs)) in zip(mine, theirs).enumerated() {
            // botocore writes ", " between the three parts, AWS's examples ",": both are accepted.
            #expect(
                mine.authorization == theirs[0].replacingOccurrences(of: ", ", with: ","),
                "case \(index): \(cases[index])")
            // botocore orders the request's own parameters first; compare as sets of parameters.
            let myParameters = Set(mine.presigned.split(separator: "&"))
            let theirParameters = Set(theirs[1].split(separator: "&"))
            #expect(myParameters == theirParameters, "case \(index): \(cases[index])")
        }
    }

    static let botocoreScript = #"""
        import json, sys, datetime
        from urllib.parse import quote, urlsplit
        import botocore.auth, botocore.awsrequest, botocore.credentials
        out = []
        for case in json.load(sys.stdin):
            when = datetime.datetime.strptime(case["date"], "%Y%m%dT%H%M%SZ")
            botocore.auth.get_current_datetime = lambda *a, **k: when
            credentials = botocore.credentials.Credentials(case["key"], case["secret"], case["token"])
            # botocore's serializer quotes S3 keys with safe='/~'; the query goes in as params.
            url = "http://" + case["host"] + quote(case["path"], safe="/~")
            params = {name: value for name, value in case["query"]}
            headers = {name: value for name, value in case["headers"]}
            headers["X-Amz-Content-SHA256"] = case["payload"]
            request = botocore.awsrequest.AWSRequest(
                method=case["method"], url=url, params=dict(params), headers=headers)
            auth = botocore.auth.S3SigV4Auth(credentials, "s3", case["region"])
            auth.payload = lambda request: case["payload"]
            auth.add_auth(request)
            presign = botocore.awsrequest.AWSRequest(method="GET", url=url, params=dict(params), headers={})
            botocore.auth.S3SigV4QueryAuth(credentials, "s3", case["region"], expires=case["expires"]).add_auth(presign)
            out.append([request.headers["Authorization"], urlsplit(presign.url).query])
        json.dump(out, sys.stdout)
        """#

    static func runPython(_ script: String, input: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: errors, as: UTF8.self))")
        return output
    }
}

extension SignatureV4 {
    static func hex(bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
