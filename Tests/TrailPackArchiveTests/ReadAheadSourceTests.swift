import SystemPackage
import Testing
import TrailPackArchive
import TrailPackFileIO
import TrailPackTestSupport

/// The verifier reads an archive's small records through `ReadAheadSource`: whatever it serves
/// must be exactly the underlying bytes, for any offset and length, hits, misses and reads that
/// bypass the block alike.
@Suite("read-ahead source", .ownThreads)
struct ReadAheadSourceTests {
    @Test(
        "every read returns what the source itself returns: in the block, across its edge, past the end, larger than it"
    )
    func sameBytes() throws {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<50_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let plain = MemorySource(bytes)
        let ahead = ReadAheadSource(plain, blockSize: 4096)
        #expect(ahead.size == plain.size)
        var reads = [
            (Int64(0), 30), (Int64(4090), 20), (Int64(49_990), 100), (Int64(50_000), 10), (Int64(60_000), 5),
            (Int64(100), 5000), (Int64(0), 0),
        ]
        for _ in 0..<3000 {
            reads.append((Int64.random(in: 0...51_000, using: &rng), Int.random(in: 1...3000, using: &rng)))
        }
        // Forward walks of small records, as the verifier makes them.
        var offset: Int64 = 0
        while offset < 50_000 { reads.append((offset, 30)); offset += Int64.random(in: 30...900, using: &rng) }
        for (offset, count) in reads {
            #expect(
                try ahead.bytes(at: offset, count: count) == plain.bytes(at: offset, count: count),
                "read \(count) at \(offset)")
        }
    }

    @Test("a failing source fails the read, and the next read tries again")
    func failures() throws {
        struct Flaky: ByteSource {
            let size: Int64 = 10_000
            func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
                if offset >= 5_000 {
                    throw ArchiveError(
                        code: .io, message: "cannot read: device gone", systemCall: SystemCall("pread", .ioError))
                }
                let n = min(buffer.count, Int(size - offset))
                for i in 0..<n { buffer[i] = UInt8(truncatingIfNeeded: Int(offset) + i) }
                return n
            }
        }
        let ahead = ReadAheadSource(Flaky(), blockSize: 4096)
        #expect(try ahead.bytes(at: 10, count: 4) == [10, 11, 12, 13])
        #expect(throws: ArchiveError.self) { try ahead.bytes(at: 6_000, count: 4) }
        #expect(try ahead.bytes(at: 20, count: 2) == [20, 21])
    }
}
