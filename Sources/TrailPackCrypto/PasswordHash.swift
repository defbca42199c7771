internal import CLibCrypto
import Foundation

/// Password hashes for the control panel's sign-in: scrypt (RFC 7914) through OpenSSL, stored as one
/// self-describing text `scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64, 16-byte salt, 32-byte hash), so
/// stronger parameters can be chosen later without breaking stored hashes.
public enum PasswordHash {
    /// The cost parameters: N = 2^logN, block size r, parallelism p. The default needs 32 MiB and about 0.1 s.
    public struct Cost: Sendable, Equatable {
        public var logN: UInt8
        public var r: UInt32
        public var p: UInt32
        public init(logN: UInt8, r: UInt32, p: UInt32) {
            self.logN = logN
            self.r = r
            self.p = p
        }
        public static let standard = Cost(logN: 15, r: 8, p: 1)
        /// The most a stored hash may ask for (a hash text is data: it must not make sign-in take a gigabyte).
        static let ceiling = Cost(logN: 20, r: 16, p: 4)
    }

    /// A new hash of `password` with a fresh random salt.
    public static func make(_ password: String, cost: Cost = .standard) throws(CryptoError) -> String {
        let salt = try SecureRandom.bytes(16)
        let hash = try derive(Array(password.utf8), salt: salt, cost: cost)
        return
            "scrypt$ln=\(cost.logN),r=\(cost.r),p=\(cost.p)$\(Data(salt).base64EncodedString())$\(Data(hash).base64EncodedString())"
    }

    /// Whether `password` matches `stored` (compared in constant time). A malformed or over-costly stored
    /// text never matches.
    public static func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "scrypt", let cost = parseCost(parts[1]),
            let salt = Data(base64Encoded: String(parts[2])), let expected = Data(base64Encoded: String(parts[3])),
            salt.count >= 8, expected.count >= 16, expected.count <= 64,
            let actual = try? derive(Array(password.utf8), salt: Array(salt), cost: cost, length: expected.count)
        else { return false }
        return ConstantTime.equals(actual, Array(expected))
    }

    static func parseCost(_ text: Substring) -> Cost? {
        var values: [String: UInt32] = [:]
        for pair in text.split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, let v = UInt32(kv[1]) else { return nil }
            values[String(kv[0])] = v
        }
        guard let ln = values["ln"], let r = values["r"], let p = values["p"], ln >= 1, ln <= UInt32(Cost.ceiling.logN),
            r >= 1, r <= Cost.ceiling.r, p >= 1, p <= Cost.ceiling.p
        else { return nil }
        return Cost(logN: UInt8(ln), r: r, p: p)
    }

    static func derive(_ password: [UInt8], salt: [UInt8], cost: Cost, length: Int = 32) throws(CryptoError) -> [UInt8]
    {
        var out = [UInt8](repeating: 0, count: length)
        let n = UInt64(1) << UInt64(cost.logN)
        let memory = 128 * UInt64(cost.r) * n + 128 * UInt64(cost.r) * UInt64(cost.p) + (1 << 20)
        let ok = password.withUnsafeBufferPointer { pw in
            pw.withMemoryRebound(to: CChar.self) { pwc in
                EVP_PBE_scrypt(
                    pwc.baseAddress, pw.count, salt, salt.count, n, UInt64(cost.r), UInt64(cost.p), memory, &out, length
                )
            }
        }
        guard ok == 1 else { throw .fromQueue("EVP_PBE_scrypt") }
        return out
    }
}
