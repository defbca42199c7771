internal import CLibCrypto
import Foundation

/// BLAKE2b (RFC 7693).
///
/// Streaming BLAKE2b-512 runs on OpenSSL (`BLAKE2B-512`). OpenSSL 3.0 cannot produce other
/// lengths, and minisign's secret-key checksum is BLAKE2b-256 — a different function, not a
/// truncation — so `digest(_:length:)` computes any length here, for short inputs.
public struct BLAKE2b512: ~Copyable {
    private let context: OpaquePointer

    public init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        guard EVP_DigestInit_ex2(context, FetchedDigest.blake2b512.md, nil) == 1 else {
            fatalError("\(CryptoError.fromQueue("EVP_DigestInit_ex2(BLAKE2B-512)"))")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// The corresponding C function is `EVP_DigestUpdate`.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        _ = EVP_DigestUpdate(context, base, buffer.count)
    }

    public mutating func update<Bytes: ContiguousBytes>(_ bytes: Bytes) { bytes.withUnsafeBytes { update($0) } }

    /// The 64-byte digest. The corresponding C function is `EVP_DigestFinal_ex`.
    public consuming func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &out, &length)
        return out
    }
}

public enum BLAKE2b {
    private static let iv: [UInt64] = [
        0x6A09_E667_F3BC_C908, 0xBB67_AE85_84CA_A73B, 0x3C6E_F372_FE94_F82B, 0xA54F_F53A_5F1D_36F1,
        0x510E_527F_ADE6_82D1, 0x9B05_688C_2B3E_6C1F, 0x1F83_D9AB_FB41_BD6B, 0x5BE0_CD19_137E_2179,
    ]
    private static let sigma: [[Int]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
        [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4], [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
        [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13], [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
        [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11], [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
        [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5], [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
    ]

    /// The unkeyed BLAKE2b digest of `message`, `length` bytes long (1…64).
    public static func digest(_ message: [UInt8], length: Int) -> [UInt8] {
        precondition((1...64).contains(length))
        var h = iv
        h[0] ^= 0x0101_0000 ^ UInt64(length)
        var counter: UInt64 = 0
        var offset = 0
        repeat {
            let remaining = message.count - offset
            let last = remaining <= 128
            let take = min(128, remaining)
            var block = [UInt8](repeating: 0, count: 128)
            if take > 0 { block.replaceSubrange(0..<take, with: message[offset..<offset + take]) }
            counter += UInt64(take)
            compress(&h, block, counter, last)
            offset += take
        } while offset < message.count
        var out: [UInt8] = []
        for word in h { for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(i)))) } }
        return Array(out.prefix(length))
    }

    private static func compress(_ h: inout [UInt64], _ block: [UInt8], _ t: UInt64, _ last: Bool) {
        var m = [UInt64](repeating: 0, count: 16)
        for i in 0..<16 { for j in 0..<8 { m[i] |= UInt64(block[i * 8 + j]) << (8 * UInt64(j)) } }
        var v = h + iv
        v[12] ^= t
        if last { v[14] = ~v[14] }
        func g(_ a: Int, _ b: Int, _ c: Int, _ d: Int, _ x: UInt64, _ y: UInt64) {
            v[a] = v[a] &+ v[b] &+ x; v[d] = (v[d] ^ v[a]).rotateRight(32)
            v[c] = v[c] &+ v[d]; v[b] = (v[b] ^ v[c]).rotateRight(24)
            v[a] = v[a] &+ v[b] &+ y; v[d] = (v[d] ^ v[a]).rotateRight(16)
            v[c] = v[c] &+ v[d]; v[b] = (v[b] ^ v[c]).rotateRight(63)
        }
        for round in 0..<12 {
            let s = sigma[round % 10]
            g(0, 4, 8, 12, m[s[0]], m[s[1]]); g(1, 5, 9, 13, m[s[2]], m[s[3]])
            g(2, 6, 10, 14, m[s[4]], m[s[5]]); g(3, 7, 11, 15, m[s[6]], m[s[7]])
            g(0, 5, 10, 15, m[s[8]], m[s[9]]); g(1, 6, 11, 12, m[s[10]], m[s[11]])
            g(2, 7, 8, 13, m[s[12]], m[s[13]]); g(3, 4, 9, 14, m[s[14]], m[s[15]])
        }
        for i in 0..<8 { h[i] ^= v[i] ^ v[i + 8] }
    }
}

extension UInt64 {
    fileprivate func rotateRight(_ n: UInt64) -> UInt64 { (self >> n) | (self << (64 - n)) }
}
