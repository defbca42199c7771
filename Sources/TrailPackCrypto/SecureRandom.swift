internal import CLibCrypto

/// Random bytes from OpenSSL's CSPRNG (keys, salts, nonces).
public enum SecureRandom {
    /// `count` random bytes. The corresponding C function is `RAND_bytes`.
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&out, Int32(count)) == 1 else { throw .fromQueue("RAND_bytes") }
        return out
    }
}
