import Foundation
import Testing
import TrailPackCrypto
import TrailPackTestSupport

@Suite("SHA-256 by libcrypto's SHA-256 functions", .ownThreads)
struct CryptoTests {
    @Test(
        "known vectors, one-shot",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func knownVectors(input: String, hex: String) {
        #expect(SHA256.hash(Array(input.utf8)).hex == hex)
    }

    @Test("one million 'a', fed in uneven chunks")
    func millionA() {
        var h = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 997)
        var left = 1_000_000
        while left > 0 {
            let n = min(left, chunk.count)
            h.update(Array(chunk.prefix(n)))
            left -= n
        }
        #expect(h.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("incremental equals one-shot at every split of a message")
    func incremental() {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let expected = SHA256.hash(message)
        for split in [0, 1, 55, 56, 63, 64, 65, 128, 299, 300] {
            var h = SHA256()
            h.update(Array(message[..<split]))
            h.update(Array(message[split...]))
            #expect(h.finalize() == expected, "split at \(split)")
        }
    }

    @Test("a large file streamed in chunks matches sha256sum", .needs(.sha256sum))
    func largeStreamed() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/big.bin"
            // 48 MiB of non-repeating bytes, written in blocks.
            FileManager.default.createFile(atPath: path, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            for _ in 0..<48 {
                var block = [UInt8](repeating: 0, count: 1 << 20)
                for i in stride(from: 0, to: block.count, by: 8) {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    withUnsafeBytes(of: state.littleEndian) { for j in 0..<8 { block[i + j] = $0[j] } }
                }
                handle.write(Data(block))
            }
            try handle.close()
            let ours = try FileHashing.sha256(path: path)
            let theirs = try Support.sha256sum(path)
            #expect(ours.digest.hex == theirs)
            #expect(ours.size == 48 << 20)
        }
    }

    @Test("hex parsing accepts either case and rejects anything else")
    func hexParsing() throws {
        let lower = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        let digest = try #require(SHA256Digest(hex: lower.uppercased()))
        #expect(digest == SHA256.hash(Array("abc".utf8)))
        #expect(digest.description == lower)
        #expect(SHA256Digest(hex: String(lower.dropLast())) == nil)
        #expect(SHA256Digest(hex: String(lower.dropLast()) + "g") == nil)
        #expect(SHA256Digest(hex: " " + String(lower.dropLast())) == nil)
    }

    @Test("constant-time comparison compares, including lengths")
    func constantTime() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([], []))
        #expect(SHA256.hash([1]) != SHA256.hash([2]))
    }

    @Test(
        "sha256sum lines: what trailpack writes (escaped for a backslash or a line break in the name) is read back by GNU sha256sum -c and by trailpack; GNU's own lines, binary marks and the BSD tag form are read; malformed lines are not",
        .needs(.sha256sum))
    func sha256sumLines() throws {
        try Support.withTemporaryDirectory { dir in
            let names = ["plain.zip", "back\\slash.zip", "new\nline.zip", "spaces in name.zip"]
            var listing = ""
            for name in names {
                let bytes = Array("contents of \(name)".utf8)
                try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name))
                let line = SHA256.hash(bytes).sha256sumLine(name: name)
                listing += line
                let parsed = try #require(SHA256Digest.parseSHA256SumLine(line.dropLast()), "\(line)")
                #expect(parsed.name == name && parsed.digest == SHA256.hash(bytes))
            }
            try listing.write(toFile: dir + "/SUMS", atomically: true, encoding: .utf8)
            let check = try Support.run("/bin/sh", ["-c", "cd '\(dir)' && sha256sum -c SUMS"])
            #expect(check.status == 0, "GNU sha256sum reads trailpack's lines: \(check.stdout) \(check.stderr)")
            // GNU's own output for the same files (escaped where needed), and its --tag form.
            for flags in ["", "--tag", "-b"] {
                let gnu = try Support.run(
                    "/bin/sh",
                    ["-c", "cd '\(dir)' && sha256sum \(flags) plain.zip 'back\\slash.zip' 'spaces in name.zip'"])
                #expect(gnu.status == 0, "sha256sum \(flags): \(gnu.stderr)")
                let lines = gnu.stdout.split(separator: "\n")
                #expect(lines.count == 3)
                for line in lines {
                    let parsed = try #require(SHA256Digest.parseSHA256SumLine(line), "\(flags): \(line)")
                    let bytes = Array("contents of \(parsed.name)".utf8)
                    #expect(parsed.digest == SHA256.hash(bytes), "\(flags): \(line)")
                }
            }
            let hex = String(repeating: "a", count: 64)
            for bad in [
                "", hex, hex + " x", String(hex.dropLast()) + "  x", "\\" + hex + "  a\\qb",
                "\\" + hex + "  trailing\\", "SHA256 (x) = zz",
            ] {
                #expect(SHA256Digest.parseSHA256SumLine(bad) == nil, "\(bad)")
            }
        }
    }
}
