import Foundation
import NIOCore
import Testing
import TrailPackS3
import TrailPackTestSupport

/// Every call of the client against a real SeaweedFS S3 gateway that checks signatures. Each test
/// has its own bucket, so that they can run side by side.
@Suite(
    "S3 client against SeaweedFS", .ownThreads, .seaweedFS,
    .enabled(if: !SeaweedFS.skipped, "TRAILPACK_SKIP_S3=1 skips the tests that need SeaweedFS"))
struct S3ClientTests {
    typealias T = S3TestSupport

    @Test func createsTheBucketOnceAndFindsItTheSecondTime() async throws {
        try await T.withClient(bucket: "t-bucket", createBucket: false) { client in
            #expect(try await client.createBucketIfMissing() == .created)
            #expect(try await client.createBucketIfMissing() == .existed)
            let page = try await client.list()
            #expect(page.objects.isEmpty)
            #expect(page.nextContinuationToken == nil)
        }
    }

    @Test func putsAFileAndGetsItBackByteForByte() async throws {
        try await T.withTemporaryFolder { folder in
            let bytes = T.bytes(700_001, seed: 1)
            let sha = try T.write(bytes, to: "\(folder)/blob.zip")
            try await T.withClient(bucket: "t-put-get") { client in
                let key = "blobs/\(sha.prefix(2))/\(sha).zip"
                let result = try await client.put(
                    key: key, file: "\(folder)/blob.zip", sha256: sha, size: Int64(bytes.count),
                    contentType: "application/zip")
                #expect(result == .stored)
                let info = try #require(try await client.head(key: key))
                #expect(info.size == Int64(bytes.count))
                #expect(info.eTag?.isEmpty == false)

                let response = try await client.get(key: key)
                #expect(response.status == 200)
                #expect(response.contentLength == Int64(bytes.count))
                #expect(response.contentRange == nil)
                #expect(try await T.collect(response.body) == bytes)

                let count = try await client.download(key: key, to: "\(folder)/back.zip")
                #expect(count == Int64(bytes.count))
                #expect(try T.read("\(folder)/back.zip") == bytes)
            }
        }
    }

    @Test func rangedGetsGiveTheFirstMiddleAndLastBytes() async throws {
        try await T.withTemporaryFolder { folder in
            let bytes = T.bytes(300_000, seed: 2)
            let sha = try T.write(bytes, to: "\(folder)/blob")
            try await T.withClient(bucket: "t-range") { client in
                _ = try await client.put(key: "r.bin", file: "\(folder)/blob", sha256: sha, size: 300_000)
                let size = Int64(bytes.count)
                for range: ClosedRange<Int64> in [0...9, 123_456...200_000, (size - 100)...(size - 1), 5...5] {
                    let response = try await client.get(key: "r.bin", range: range)
                    #expect(response.status == 206)
                    #expect(response.contentLength == Int64(range.count))
                    #expect(response.contentRange == "bytes \(range.lowerBound)-\(range.upperBound)/\(size)")
                    let expected = Array(bytes[Int(range.lowerBound)...Int(range.upperBound)])
                    #expect(try await T.collect(response.body) == expected, "range \(range)")
                }
                // A range past the end: refused (416), with S3's code.
                let error = await #expect(throws: S3Error.self) {
                    _ = try await client.get(key: "r.bin", range: (size + 10)...(size + 20))
                }
                #expect(error?.status == 416)
                #expect(error?.code == .rejected)
            }
        }
    }

    @Test func putOfAStoredKeyLeavesTheObjectAsItWas() async throws {
        try await T.withTemporaryFolder { folder in
            let first = T.bytes(50_000, seed: 3)
            // Large enough that the store answers 412 long before it could have read it all.
            let second = T.bytes(4_000_000, seed: 4)
            let firstSHA = try T.write(first, to: "\(folder)/first")
            let secondSHA = try T.write(second, to: "\(folder)/second")
            try await T.withClient(bucket: "t-again") { client async throws in
                #expect(
                    try await client.put(key: "k", file: "\(folder)/first", sha256: firstSHA, size: 50_000) == .stored)
                #expect(
                    try await client.put(key: "k", file: "\(folder)/first", sha256: firstSHA, size: 50_000)
                        == .alreadyStored)
                #expect(
                    try await client.put(key: "k", file: "\(folder)/second", sha256: secondSHA, size: 4_000_000)
                        == .alreadyStored)
                #expect(try await client.head(key: "k")?.size == 50_000)
                #expect(try await T.collect(client.get(key: "k").body) == first)
            }
        }
    }

    @Test(arguments: [false, true])
    func putWithAWrongSHA256IsRefusedAndNothingIsStored(checksLocally: Bool) async throws {
        try await T.withTemporaryFolder { folder in
            let bytes = T.bytes(100_000, seed: 5)
            try T.write(bytes, to: "\(folder)/blob")
            let wrong = T.sha256(Array("other bytes".utf8))
            let configuration = S3Client.Configuration(checksUploadsLocally: checksLocally)
            try await T.withClient(bucket: "t-wrong-sha-\(checksLocally)", configuration: configuration) {
                client async throws in
                let error = await #expect(throws: S3Error.self) {
                    _ = try await client.put(key: "bad", file: "\(folder)/blob", sha256: wrong, size: 100_000)
                }
                #expect(error?.code == .badDigest)
                #expect(error?.operation == "put")
                #expect(error?.key == "bad")
                if checksLocally {
                    // Stopped by the client before the last byte: the store never had it all.
                    #expect(error?.status == nil)
                } else {
                    // Refused by the store itself: SeaweedFS checks x-amz-checksum-sha256.
                    #expect(error?.status == 400)
                    #expect(error?.s3Code == "BadDigest")
                }
                #expect(try await client.head(key: "bad") == nil)
                #expect(try await client.list().objects.isEmpty)
            }
        }
    }

    @Test func deleteThenHeadFindsNothing() async throws {
        try await T.withTemporaryFolder { folder in
            let bytes = T.bytes(1_000, seed: 6)
            let sha = try T.write(bytes, to: "\(folder)/blob")
            try await T.withClient(bucket: "t-delete") { client in
                _ = try await client.put(key: "d/x.zip", file: "\(folder)/blob", sha256: sha, size: 1_000)
                #expect(try await client.head(key: "d/x.zip") != nil)
                try await client.delete(key: "d/x.zip")
                #expect(try await client.head(key: "d/x.zip") == nil)
                // Deleting what is not there is not an error.
                try await client.delete(key: "d/x.zip")
                let error = await #expect(throws: S3Error.self) { _ = try await client.get(key: "d/x.zip") }
                #expect(error?.code == .notFound)
                #expect(error?.status == 404)
                #expect(error?.s3Code == "NoSuchKey")
                #expect(error?.message.contains("get 'd/x.zip'") == true)
            }
        }
    }

    @Test func listsTwentyFiveKeysInThreePagesOfTen() async throws {
        try await T.withTemporaryFolder { folder in
            let sha = try T.write([1, 2, 3], to: "\(folder)/small")
            try await T.withClient(bucket: "t-list") { client in
                let keys = (0..<25).map { "page/\(String(format: "%02d", $0))-\($0 * 7919 % 1000).zip" }
                for key in keys { _ = try await client.put(key: key, file: "\(folder)/small", sha256: sha, size: 3) }
                for key in ["other/a.zip", "pagf.zip"] {
                    _ = try await client.put(key: key, file: "\(folder)/small", sha256: sha, size: 3)
                }
                var pages: [S3ListPage] = []
                var token: String?
                repeat {
                    let page = try await client.list(prefix: "page/", continuationToken: token, maxKeys: 10)
                    pages.append(page)
                    token = page.nextContinuationToken
                } while token != nil && pages.count < 10
                #expect(pages.map(\.objects.count) == [10, 10, 5])
                let listed = pages.flatMap(\.objects)
                #expect(listed.map(\.key) == keys.sorted())
                #expect(listed.allSatisfy { $0.size == 3 })

                var all: [String] = []
                for try await object in client.listAll(prefix: "page/", pageSize: 7) { all.append(object.key) }
                #expect(all == keys.sorted())
                var everything = 0
                for try await _ in client.listAll() { everything += 1 }
                #expect(everything == 27)
            }
        }
    }

    static let awkwardKeys = [
        "with space.zip", "plus+sign.zip", "ünïcødé/日本語 ファイル.zip", "amp&ersand=equals?.zip", "quote'\"<less>.zip",
        "percent%20sign.zip", "tilde~star*paren(s).zip", "hash#comma,semi;colon:.zip", "emoji 🥾/trail.zip",
    ]

    @Test func keysThatNeedEncodingRoundTripThroughPutListAndGet() async throws {
        try await T.withTemporaryFolder { folder in
            try await T.withClient(bucket: "t-encoding") { client in
                var expected: [String: [UInt8]] = [:]
                for (index, key) in Self.awkwardKeys.enumerated() {
                    let bytes = T.bytes(1_000 + index, seed: UInt64(100 + index))
                    let sha = try T.write(bytes, to: "\(folder)/\(index)")
                    #expect(
                        try await client.put(
                            key: key, file: "\(folder)/\(index)", sha256: sha, size: Int64(bytes.count))
                            == .stored, "\(key)")
                    expected[key] = bytes
                }
                let listed = try await client.list()
                #expect(Set(listed.objects.map(\.key)) == Set(Self.awkwardKeys))
                for object in listed.objects { #expect(object.size == Int64(expected[object.key]?.count ?? -1)) }
                for key in Self.awkwardKeys {
                    #expect(try await T.collect(client.get(key: key).body) == expected[key], "\(key)")
                    #expect(try await client.head(key: key)?.size == Int64(expected[key]!.count))
                }
                // A prefix that needs encoding too.
                let unicode = try await client.list(prefix: "ünïcødé/")
                #expect(unicode.objects.map(\.key) == ["ünïcødé/日本語 ファイル.zip"])
            }
        }
    }

    @Test func multipartUploadOfThreePartsIsByteIdentical() async throws {
        try await T.withTemporaryFolder { folder in
            let size = 12 << 20 + 12_345
            let bytes = T.bytes(size, seed: 7)
            let sha = try T.write(bytes, to: "\(folder)/big")
            let configuration = S3Client.Configuration(multipartThreshold: 5 << 20, partSize: 5 << 20)
            try await T.withClient(bucket: "t-multipart", configuration: configuration) { client in
                #expect(
                    try await client.put(key: "big.zip", file: "\(folder)/big", sha256: sha, size: Int64(size))
                        == .stored)
                let info = try #require(try await client.head(key: "big.zip"))
                #expect(info.size == Int64(size))
                // A multipart ETag ends with the number of parts.
                #expect(info.eTag?.hasSuffix("-3") == true, "\(info.eTag ?? "no ETag")")
                try await client.download(key: "big.zip", to: "\(folder)/back")
                #expect(T.sha256(try T.read("\(folder)/back")) == sha)
                // Ranges across part boundaries.
                let response = try await client.get(key: "big.zip", range: Int64(5 << 20 - 10)...Int64(10 << 20 + 10))
                let expected = Array(bytes[(5 << 20 - 10)...(10 << 20 + 10)])
                #expect(try await T.collect(response.body) == expected)
                // Again: the HEAD finds it, nothing is sent.
                #expect(
                    try await client.put(key: "big.zip", file: "\(folder)/big", sha256: sha, size: Int64(size))
                        == .alreadyStored)

                // A wrong SHA-256 for the whole file: aborted before completing, nothing stored.
                let wrong = T.sha256([0])
                let error = await #expect(throws: S3Error.self) {
                    _ = try await client.put(key: "wrong.zip", file: "\(folder)/big", sha256: wrong, size: Int64(size))
                }
                #expect(error?.code == .badDigest)
                #expect(error?.message.contains("aborted") == true)
                #expect(try await client.head(key: "wrong.zip") == nil)
            }
        }
    }

    @Test func presignedGETWorksInCurlUntilItExpiresOrIsTamperedWith() async throws {
        try await T.withTemporaryFolder { folder in
            let bytes = T.bytes(20_000, seed: 8)
            let sha = try T.write(bytes, to: "\(folder)/blob")
            try await T.withClient(bucket: "t-presign") { client in
                let key = "tours/santiam 1.0+ü.zip"
                _ = try await client.put(key: key, file: "\(folder)/blob", sha256: sha, size: 20_000)

                let url = try client.presignedGET(
                    key: key, expires: .seconds(300),
                    responseContentDisposition: "attachment; filename=\"santiam-1.0.0.zip\"")
                let fetched = try T.curl([
                    "--path-as-is", "-g", "-D", "\(folder)/headers", "-o", "\(folder)/fetched", "-w", "%{http_code}",
                    url,
                ])
                #expect(fetched.status == 0)
                #expect(fetched.output == "200", "\(fetched.output)")
                #expect(try T.read("\(folder)/fetched") == bytes)
                let headers = try String(contentsOfFile: "\(folder)/headers", encoding: .utf8).lowercased()
                #expect(
                    headers.contains("content-disposition: attachment; filename=\"santiam-1.0.0.zip\""), "\(headers)")

                // Expired: signed two hours ago for one minute.
                let expired = try client.presignedGET(
                    key: key, expires: .seconds(60), date: AmzDate.now().adding(seconds: -7_200))
                let refused = try T.curl([
                    "--path-as-is", "-g", "-o", "\(folder)/expired", "-w", "%{http_code}", expired,
                ])
                #expect(refused.output == "403")
                #expect(try String(contentsOfFile: "\(folder)/expired", encoding: .utf8).contains("AccessDenied"))

                // Tampered: another key with the same signature, and a changed signature.
                let otherKey = url.replacingOccurrences(of: "santiam%201.0", with: "santiam%201.1")
                #expect(otherKey != url)
                #expect(
                    try T.curl(["--path-as-is", "-g", "-o", "/dev/null", "-w", "%{http_code}", otherKey]).output
                        == "403")
                let lastDigit = url.last == "0" ? "1" : "0"
                let changed = String(url.dropLast()) + lastDigit
                #expect(
                    try T.curl(["--path-as-is", "-g", "-o", "/dev/null", "-w", "%{http_code}", changed]).output == "403"
                )

                // More than 7 days: refused before anything is signed.
                #expect(throws: S3Error.self) { _ = try client.presignedGET(key: key, expires: .seconds(604_801)) }
            }
        }
    }

    @Test func aWrongSecretKeyIsAClearErrorNamingTheKeyIdButNotTheSecret() async throws {
        let wrongSecret = "not/the+right=secret0123456789"
        try await T.withTemporaryFolder { folder in
            // Large enough that the store refuses it before it could have read it all.
            let sha = try T.write(T.bytes(3_000_000, seed: 9), to: "\(folder)/small")
            try await T.withClient(bucket: "t-wrong-secret", secret: wrongSecret, createBucket: false) { client in
                let head = await #expect(throws: S3Error.self) { try await client.createBucketIfMissing() }
                #expect(head?.code == .accessDenied)
                #expect(head?.status == 403)
                let put = await #expect(throws: S3Error.self) {
                    _ = try await client.put(key: "k", file: "\(folder)/small", sha256: sha, size: 3_000_000)
                }
                #expect(put?.code == .accessDenied)
                #expect(put?.s3Code == "SignatureDoesNotMatch")
                for error in [head, put].compactMap({ $0 }) {
                    let text = "\(error) \(String(reflecting: error))"
                    #expect(text.contains(SeaweedFS.accessKey), "\(text)")
                    #expect(!text.contains(wrongSecret))
                    #expect(!text.contains(SeaweedFS.secretKey))
                }
                #expect(put?.message.contains("secret access key") == true)
            }
        }
    }

    @Test func aKeyPrefixInTheLocationIsAddedAndRemoved() async throws {
        let server = try #require(SeaweedFS.current)
        try await T.withTemporaryFolder { folder in
            let sha = try T.write([9, 9], to: "\(folder)/small")
            let credentials = try S3Credentials(accessKeyId: SeaweedFS.accessKey, secretAccessKey: SeaweedFS.secretKey)
            let prefixed = try S3Client(
                location: S3Location(parsing: "s3://t-prefix/site/one?endpoint=\(server.endpoint)"),
                credentials: credentials)
            let plain = try S3Client(
                location: S3Location(parsing: "s3://t-prefix?endpoint=\(server.endpoint)"), credentials: credentials)
            do {
                try await prefixed.createBucketIfMissing()
                _ = try await prefixed.put(key: "blobs/a.zip", file: "\(folder)/small", sha256: sha, size: 2)
                #expect(try await prefixed.list().objects.map(\.key) == ["blobs/a.zip"])
                #expect(try await plain.list().objects.map(\.key) == ["site/one/blobs/a.zip"])
                #expect(try await plain.head(key: "site/one/blobs/a.zip")?.size == 2)
            } catch {
                try? await prefixed.shutdown()
                try? await plain.shutdown()
                throw error
            }
            try await prefixed.shutdown()
            try await plain.shutdown()
        }
    }
}

/// What the client says when there is no store to talk to: no SeaweedFS needed.
@Suite("S3 client without a store", .ownThreads)
struct S3ClientOfflineTests {
    @Test func aServerThatIsDownIsAClearErrorNamingTheEndpoint() async throws {
        let port = try SeaweedFS.freePorts(1)[0]
        let location = try S3Location(parsing: "s3://trailpack-blobs?endpoint=http://127.0.0.1:\(port)")
        let client = try S3Client(
            location: location, credentials: S3Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret/key"),
            configuration: .init(connectTimeout: .seconds(2)))
        let error = await #expect(throws: S3Error.self) { _ = try await client.head(key: "blobs/x.zip") }
        try await client.shutdown()
        #expect(error?.code == .unreachable)
        #expect(error?.message.contains("http://127.0.0.1:\(port)") == true, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.message.contains("head 'blobs/x.zip'") == true)
        #expect(error?.message.contains("secret/key") == false)
    }

    @Test func settingsThatCannotWorkAreRefused() throws {
        let location = try S3Location(parsing: "s3://trailpack-blobs?endpoint=http://127.0.0.1:9")
        let credentials = try S3Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret")
        for configuration in [
            S3Client.Configuration(partSize: 1 << 20), S3Client.Configuration(chunkSize: 10),
            S3Client.Configuration(readTimeout: .zero), S3Client.Configuration(multipartThreshold: 0),
        ] {
            #expect(throws: S3Error.self) {
                _ = try S3Client(location: location, credentials: credentials, configuration: configuration)
            }
        }
    }

    @Test func badKeysAreRefusedBeforeAnythingIsSent() async throws {
        let location = try S3Location(parsing: "s3://trailpack-blobs?endpoint=http://127.0.0.1:9")
        let client = try S3Client(
            location: location, credentials: S3Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret"))
        for key in ["", "/abs", "a//b", "a/./b", "../up", "tab\there", String(repeating: "k", count: 1_025)] {
            let error = await #expect(throws: S3Error.self) { _ = try await client.head(key: key) }
            #expect(error?.code == .invalidArgument, "\(key)")
        }
        let sha = await #expect(throws: S3Error.self) {
            _ = try await client.put(key: "k", file: "/dev/null", sha256: "xyz", size: 0)
        }
        #expect(sha?.message.contains("64 hexadecimal digits") == true)
        try await client.shutdown()
    }

    @Test func aMissingOrMisSizedFileIsRefusedNamingIt() async throws {
        let location = try S3Location(parsing: "s3://trailpack-blobs?endpoint=http://127.0.0.1:9")
        let client = try S3Client(
            location: location, credentials: S3Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret"))
        let sha = String(repeating: "0", count: 64)
        let missing = await #expect(throws: S3Error.self) {
            _ = try await client.put(key: "k", file: "/nonexistent/blob.zip", sha256: sha, size: 3)
        }
        #expect(missing?.code == .io)
        #expect(missing?.message.contains("/nonexistent/blob.zip") == true)
        try await S3TestSupport.withTemporaryFolder { folder in
            try S3TestSupport.write([1, 2, 3], to: "\(folder)/three")
            let sized = await #expect(throws: S3Error.self) {
                _ = try await client.put(key: "k", file: "\(folder)/three", sha256: sha, size: 4)
            }
            #expect(sized?.message.contains("has 3 bytes, not the 4 declared") == true)
        }
        try await client.shutdown()
    }
}
