import Foundation
import Testing
import TrailPackArchive
import TrailPackTestSupport

/// The CRC-32 every reader and the verifier take (libdeflate's), against its check value and
/// against Python's `zlib.crc32` (zlib's), whole and fed in pieces of any size.
@Suite("CRC-32", .ownThreads)
struct CRC32Tests {
    static func crc(_ bytes: [UInt8], pieces: Int = Int.max) -> UInt32 {
        var crc = CRC32()
        var at = 0
        while at < bytes.count {
            let end = min(bytes.count, at + pieces)
            bytes[at..<end].withUnsafeBytes { crc.update($0) }
            at = end
        }
        return crc.value
    }

    @Test("the check value of '123456789' and of nothing")
    func checkValue() {
        #expect(Self.crc(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Self.crc([]) == 0)
    }

    @Test("the same as zlib's (Python), whole and in pieces", arguments: [1, 7, 64, 4095, 65_536, 1 << 20])
    func sameAsZlib(pieces: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(3 << 20) + 17).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Support.withTemporaryDirectory { folder in
            let file = folder + "/data"
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let out = try Support.run(
                "python3", ["-c", "import sys, zlib; print(zlib.crc32(open(sys.argv[1], 'rb').read()))", file])
            #expect(out.status == 0, "\(out.stderr)")
            let expected = UInt32(out.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(Self.crc(bytes, pieces: pieces) == expected)
        }
    }
}
