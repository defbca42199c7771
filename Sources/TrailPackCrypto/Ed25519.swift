internal import CLibCrypto

/// Ed25519 signatures through OpenSSL's EVP interface.
public enum Ed25519 {
    /// A key pair: the 32-byte seed (the private key) and the 32-byte public key.
    public struct KeyPair: Sendable {
        /// The private key's seed.
        public var seed: [UInt8]
        /// The public key.
        public var publicKey: [UInt8]
    }

    /// A new key pair: the 32-byte seed (the private key) and the 32-byte public key.
    /// The corresponding C functions are `EVP_PKEY_keygen` and `EVP_PKEY_get_raw_*_key`.
    public static func generate() throws(CryptoError) -> KeyPair {
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else { throw .fromQueue("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_keygen(ctx, &key) == 1, let key else {
            throw .fromQueue("EVP_PKEY_keygen")
        }
        defer { EVP_PKEY_free(key) }
        var seed = [UInt8](repeating: 0, count: 32), pub = [UInt8](repeating: 0, count: 32)
        var n = 32
        guard EVP_PKEY_get_raw_private_key(key, &seed, &n) == 1, n == 32 else {
            throw .fromQueue("EVP_PKEY_get_raw_private_key")
        }
        n = 32
        guard EVP_PKEY_get_raw_public_key(key, &pub, &n) == 1, n == 32 else {
            throw .fromQueue("EVP_PKEY_get_raw_public_key")
        }
        return KeyPair(seed: seed, publicKey: pub)
    }

    /// The public key of a seed.
    public static func publicKey(seed: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, seed.count) else {
            throw .fromQueue("EVP_PKEY_new_raw_private_key")
        }
        defer { EVP_PKEY_free(key) }
        var pub = [UInt8](repeating: 0, count: 32)
        var n = 32
        guard EVP_PKEY_get_raw_public_key(key, &pub, &n) == 1 else { throw .fromQueue("EVP_PKEY_get_raw_public_key") }
        return pub
    }

    /// The 64-byte signature of `message`. The corresponding C function is `EVP_DigestSign`.
    public static func sign(_ message: [UInt8], seed: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard seed.count == 32, let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, 32) else {
            throw .fromQueue("EVP_PKEY_new_raw_private_key")
        }
        defer { EVP_PKEY_free(key) }
        guard let md = EVP_MD_CTX_new() else { throw .fromQueue("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(md) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        guard EVP_DigestSignInit(md, nil, nil, nil, key) == 1,
            EVP_DigestSign(md, &signature, &length, message, message.count) == 1, length == 64
        else { throw .fromQueue("EVP_DigestSign") }
        return signature
    }

    /// Whether `signature` is `publicKey`'s signature of `message`. The corresponding C function is `EVP_DigestVerify`.
    public static func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == 64, publicKey.count == 32,
            let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, publicKey, 32)
        else { ERR_clear_error(); return false }
        defer { EVP_PKEY_free(key) }
        guard let md = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(md) }
        let ok =
            EVP_DigestVerifyInit(md, nil, nil, nil, key) == 1
            && EVP_DigestVerify(md, signature, 64, message, message.count) == 1
        ERR_clear_error()
        return ok
    }
}
