internal import CLibCrypto

/// Ed25519 signatures through OpenSSL's EVP interface.
public enum Ed25519 {
    /// A new key pair: the 32-byte seed (the private key) and the 32-byte public key.
    /// The corresponding C functions are `EVP_PKEY_keygen` and `EVP_PKEY_get_raw_*_key`.
    public static func generate() throws(CryptoError) -> (seed: [UInt8], publicKey: [UInt8]) {
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else { throw .fromQueue("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_keygen(ctx, &key) == 1, let key else { throw .fromQueue("EVP_PKEY_keygen") }
        defer { EVP_PKEY_free(key) }
        var seed = [UInt8](repeating: 0, count: 32), pub = [UInt8](repeating: 0, count: 32)
        var n = 32
        guard EVP_PKEY_get_raw_private_key(key, &seed, &n) == 1, n == 32 else { throw .fromQueue("EVP_PKEY_get_raw_private_key") }
        n = 32
        guard EVP_PKEY_get_raw_public_key(key, &pub, &n) == 1, n == 32 else { throw .fromQueue("EVP_PKEY_get_raw_public_key") }
        return (seed, pub)
    }

    /// The public key of a seed.
    public static func publicKey(seed: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, seed.count) else { throw .fromQueue("EVP_PKEY_new_raw_private_key") }
        defer { EVP_PKEY_free(key) }
        var pub = [UInt8](repeating: 0, count: 32)
        var n = 32
        guard EVP_PKEY_get_raw_public_key(key, &pub, &n) == 1 else { throw .fromQueue("EVP_PKEY_get_raw_public_key") }
        return pub
    }

    /// The 64-byte signature of `message`. The corresponding C function is `EVP_DigestSign`.
    public static func sign(_ message: [UInt8], seed: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard seed.count == 32, let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, 32) else { throw .fromQueue("EVP_PKEY_new_raw_private_key") }
        defer { EVP_PKEY_free(key) }
        guard let md = EVP_MD_CTX_new() else { throw .fromQueue("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(md) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        guard EVP_DigestSignInit(md, nil, nil, nil, key) == 1,
              EVP_DigestSign(md, &signature, &length, message, message.count) == 1, length == 64 else { throw .fromQueue("EVP_DigestSign") }
        return signature
    }

    /// Whether `signature` is `publicKey`'s signature of `message`. The corresponding C function is `EVP_DigestVerify`.
    public static func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == 64, publicKey.count == 32,
              let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, publicKey, 32) else { ERR_clear_error(); return false }
        defer { EVP_PKEY_free(key) }
        guard let md = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(md) }
        let ok = EVP_DigestVerifyInit(md, nil, nil, nil, key) == 1 && EVP_DigestVerify(md, signature, 64, message, message.count) == 1
        ERR_clear_error()
        return ok
    }
}

/// Randomness and password hashing.
public enum SecureRandom {
    /// `count` random bytes. The corresponding C function is `RAND_bytes`.
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&out, Int32(count)) == 1 else { throw .fromQueue("RAND_bytes") }
        return out
    }
}

public enum Scrypt {
    /// scrypt as libsodium's `crypto_pwhash_scryptsalsa208sha256` computes it from an ops limit and a
    /// memory limit (minisign stores those two numbers in its secret keys).
    /// The corresponding C function is `EVP_PBE_scrypt`.
    public static func derive(password: [UInt8], salt: [UInt8], opsLimit: UInt64, memLimit: UInt64, length: Int) throws(CryptoError) -> [UInt8] {
        let (logN, r, p) = parameters(opsLimit: opsLimit, memLimit: memLimit)
        var out = [UInt8](repeating: 0, count: length)
        let memory = UInt64(128) * UInt64(r) * (UInt64(1) << logN) + UInt64(128) * UInt64(r) * UInt64(p) + (1 << 20)
        let ok = password.withUnsafeBufferPointer { pw in
            pw.withMemoryRebound(to: CChar.self) { pwc in
                EVP_PBE_scrypt(pwc.baseAddress, pw.count, salt, salt.count, UInt64(1) << logN, UInt64(r), UInt64(p), memory, &out, length)
            }
        }
        guard ok == 1 else { throw .fromQueue("EVP_PBE_scrypt") }
        return out
    }

    /// libsodium's `pickparams`: (log2 N, r, p) for an ops and memory limit.
    public static func parameters(opsLimit: UInt64, memLimit: UInt64) -> (UInt64, UInt32, UInt32) {
        let ops = max(opsLimit, 32768)
        let r: UInt64 = 8
        var logN: UInt64 = 1
        if ops < memLimit / 32 {
            let maxN = ops / (r * 4)
            while logN < 63 && (UInt64(1) << logN) <= maxN / 2 { logN += 1 }
            return (logN, UInt32(r), 1)
        }
        let maxN = memLimit / (r * 128)
        while logN < 63 && (UInt64(1) << logN) <= maxN / 2 { logN += 1 }
        var maxrp = (ops / 4) / (UInt64(1) << logN)
        if maxrp > 0x3FFF_FFFF { maxrp = 0x3FFF_FFFF }
        return (logN, UInt32(r), UInt32(maxrp / r))
    }
}
