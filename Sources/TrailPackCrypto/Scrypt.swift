internal import CLibCrypto

/// scrypt (RFC 7914), the password hash of minisign's secret keys and of the panel's passwords.
public enum Scrypt {
    /// scrypt as libsodium's `crypto_pwhash_scryptsalsa208sha256` computes it from an ops limit and a
    /// memory limit (minisign stores those two numbers in its secret keys).
    /// The corresponding C function is `EVP_PBE_scrypt`.
    public static func derive(
        password: [UInt8], salt: [UInt8], opsLimit: UInt64, memLimit: UInt64, length: Int
    ) throws(CryptoError) -> [UInt8] {
        let chosen = parameters(opsLimit: opsLimit, memLimit: memLimit)
        let (logN, r, p) = (chosen.logN, chosen.r, chosen.p)
        var out = [UInt8](repeating: 0, count: length)
        let memory = UInt64(128) * UInt64(r) * (UInt64(1) << logN) + UInt64(128) * UInt64(r) * UInt64(p) + (1 << 20)
        let ok = password.withUnsafeBufferPointer { pw in
            pw.withMemoryRebound(to: CChar.self) { pwc in
                EVP_PBE_scrypt(
                    pwc.baseAddress, pw.count, salt, salt.count, UInt64(1) << logN, UInt64(r), UInt64(p), memory, &out,
                    length)
            }
        }
        guard ok == 1 else { throw .fromQueue("EVP_PBE_scrypt") }
        return out
    }

    /// scrypt's cost parameters.
    public struct Parameters: Sendable, Equatable {
        /// log2 of N, the CPU and memory cost.
        public var logN: UInt64
        /// The block size.
        public var r: UInt32
        /// The parallelism.
        public var p: UInt32
    }

    /// libsodium's `pickparams`: log2 N, r and p for an ops and memory limit.
    public static func parameters(opsLimit: UInt64, memLimit: UInt64) -> Parameters {
        let ops = max(opsLimit, 32768)
        let r: UInt64 = 8
        var logN: UInt64 = 1
        if ops < memLimit / 32 {
            let maxN = ops / (r * 4)
            while logN < 63 && (UInt64(1) << logN) <= maxN / 2 { logN += 1 }
            return Parameters(logN: logN, r: UInt32(r), p: 1)
        }
        let maxN = memLimit / (r * 128)
        while logN < 63 && (UInt64(1) << logN) <= maxN / 2 { logN += 1 }
        var maxrp = (ops / 4) / (UInt64(1) << logN)
        if maxrp > 0x3FFF_FFFF { maxrp = 0x3FFF_FFFF }
        return Parameters(logN: logN, r: UInt32(r), p: UInt32(maxrp / r))
    }
}
