import Crypto
import Foundation
import NIOCore
import Testing
import TrailPackS3

/// Files, hashes and clients for the S3 tests.
enum S3TestSupport {
    /// A new empty folder, removed after `body`.
    static func withTemporaryFolder<R>(_ body: (String) async throws -> R) async throws -> R {
        let folder = NSTemporaryDirectory() + "trailpack-s3-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        do {
            let result = try await body(folder)
            try? FileManager.default.removeItem(atPath: folder)
            return result
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// `count` bytes that depend only on `seed` (SplitMix64).
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            withUnsafeBytes(of: z.littleEndian) { out.append(contentsOf: $0) }
        }
        return Array(out.prefix(count))
    }

    /// Writes `bytes` to `path` and returns its hex SHA-256.
    @discardableResult
    static func write(_ bytes: [UInt8], to path: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return sha256(bytes)
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    static func read(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Every byte of `body`, for small test objects.
    static func collect(_ body: S3ObjectBody) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await buffer in body { bytes.append(contentsOf: buffer.readableBytesView) }
        return bytes
    }

    /// A client of the current SeaweedFS for `bucket` (made if missing), shut down after `body`.
    static func withClient<R>(
        bucket: String, secret: String = SeaweedFS.secretKey, configuration: S3Client.Configuration = .init(),
        createBucket: Bool = true, _ body: (S3Client) async throws -> R
    ) async throws -> R {
        let server = try #require(SeaweedFS.current)
        let location = try S3Location(parsing: server.location(bucket: bucket))
        let credentials = try S3Credentials(accessKeyId: SeaweedFS.accessKey, secretAccessKey: secret)
        let client = try S3Client(location: location, credentials: credentials, configuration: configuration)
        do {
            if createBucket { try await client.createBucketIfMissing() }
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Runs curl (silent, showing errors, 30-second limit) and returns its exit status and output.
    static func curl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-S", "--max-time", "30"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
