import Foundation
import TrailPackFileIO

/// minisign's key and signature formats (https://jedisct1.github.io/minisign/), byte for byte:
/// what `minisign -G` writes, `trailpack keygen` writes; what `trailpack sign` writes,
/// `minisign -V` accepts, and the other way round.
public enum Minisign {
    /// The largest key or signature file read (they are a few hundred bytes).
    public static let maxFileBytes = 64 << 10

    static let untrustedPrefix = "untrusted comment: "
    static let trustedPrefix = "trusted comment: "

    /// A public key: `Ed` ‖ key id (8) ‖ Ed25519 public key (32).
    public struct PublicKey: Sendable, Hashable {
        public let keyID: [UInt8]
        public let key: [UInt8]

        public init(keyID: [UInt8], key: [UInt8]) {
            self.keyID = keyID
            self.key = key
        }

        /// Reads a `.pub` file's text (an untrusted comment line, then the base64 key), or a bare base64 key.
        public init(fileText: String) throws(CryptoError) {
            let lines = fileText.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let b64 = lines.first(where: { !$0.hasPrefix(Minisign.untrustedPrefix) && !$0.isEmpty }) else {
                throw CryptoError.malformedKey("no public key found (expected a minisign public key file)")
            }
            guard let raw = Data(base64Encoded: b64).map(Array.init), raw.count == 42 else {
                throw CryptoError.malformedKey("the public key is not 42 bytes of base64")
            }
            guard raw[0] == 0x45, raw[1] == 0x64 else {
                throw CryptoError.malformedKey("the public key is not an Ed25519 ('Ed') key")
            }
            keyID = Array(raw[2..<10])
            key = Array(raw[10..<42])
        }

        /// The key id as minisign prints it: the little-endian 64-bit number in 16 uppercase hex digits.
        public var keyIDHex: String { Minisign.keyIDHex(keyID) }

        public var base64: String { Data([0x45, 0x64] + keyID + key).base64EncodedString() }

        public var fileText: String { "\(Minisign.untrustedPrefix)minisign public key \(keyIDHex)\n\(base64)\n" }
    }

    /// Whether `text` looks like a secret key file (its comment says so, or a line starts as a secret
    /// key's does, encrypted or not): what was given where a public key belongs, to be refused in those
    /// words, never stored.
    public static func looksLikeSecretKey(_ text: String) -> Bool {
        text.contains("secret key")
            || text.split(whereSeparator: \.isNewline).contains { $0.hasPrefix("RWRTY") || $0.hasPrefix("RWQAAEIy") }
    }

    static func keyIDHex(_ id: [UInt8]) -> String {
        id.reversed().map { b in
            let s = String(b, radix: 16, uppercase: true); return s.count == 1 ? "0" + s : s
        }.joined()
    }

    /// A secret key, decrypted: the Ed25519 seed and the public key.
    public struct SecretKey: Sendable {
        public let keyID: [UInt8]
        public let seed: [UInt8]
        public let publicKey: [UInt8]

        /// The ops and memory limits minisign writes for scrypt (libsodium's "sensitive" level: 1 GiB).
        public static let opsLimit: UInt64 = 33_554_432
        public static let memLimit: UInt64 = 1_073_741_824

        public static func generate() throws(CryptoError) -> SecretKey {
            let pair = try Ed25519.generate()
            let (seed, pub) = (pair.seed, pair.publicKey)
            return SecretKey(keyID: try SecureRandom.bytes(8), seed: seed, publicKey: pub)
        }

        public var publicKeyValue: PublicKey { PublicKey(keyID: keyID, key: publicKey) }

        /// The secret key file's text; with a password, encrypted with scrypt as minisign does.
        public func fileText(
            password: [UInt8]?, opsLimit: UInt64 = SecretKey.opsLimit, memLimit: UInt64 = SecretKey.memLimit
        ) throws -> String {
            let sk = seed + publicKey
            let checksum = BLAKE2b.digest([0x45, 0x64] + keyID + sk, length: 32)
            var keynumSK = keyID + sk + checksum
            var header: [UInt8] = [0x45, 0x64]
            if let password {
                let salt = try SecureRandom.bytes(32)
                let stream = try Scrypt.derive(
                    password: password, salt: salt, opsLimit: opsLimit, memLimit: memLimit, length: keynumSK.count)
                for i in keynumSK.indices { keynumSK[i] ^= stream[i] }
                header += [0x53, 0x63, 0x42, 0x32] + salt + le64(opsLimit) + le64(memLimit)
            } else {
                header += [0x00, 0x00, 0x42, 0x32] + [UInt8](repeating: 0, count: 32 + 16)
            }
            let comment = password == nil ? "minisign secret key (unencrypted)" : "minisign encrypted secret key"
            return "\(Minisign.untrustedPrefix)\(comment)\n\(Data(header + keynumSK).base64EncodedString())\n"
        }

        /// Reads a secret key file; `password` is asked for only when the key is encrypted.
        public static func parse(fileText: String, password: () throws -> [UInt8]) throws -> SecretKey {
            let lines = fileText.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            guard lines.count >= 2, let raw = Data(base64Encoded: lines[1]).map(Array.init), raw.count == 158 else {
                throw CryptoError.malformedKey("not a minisign secret key file")
            }
            guard raw[0] == 0x45, raw[1] == 0x64 else {
                throw CryptoError.malformedKey("the secret key is not an Ed25519 key")
            }
            guard raw[4] == 0x42, raw[5] == 0x32 else {
                throw CryptoError.malformedKey("the secret key uses an unknown checksum")
            }
            var keynumSK = Array(raw[54..<158])
            let encrypted: Bool
            switch (raw[2], raw[3]) {
            case (0x53, 0x63): encrypted = true
            case (0, 0): encrypted = false
            default: throw CryptoError.malformedKey("the secret key uses an unknown key derivation")
            }
            if encrypted {
                let salt = Array(raw[6..<38])
                let ops = readLE64(raw, 38), mem = readLE64(raw, 46)
                guard mem <= 4 << 30 else {
                    throw CryptoError.malformedKey("the secret key asks for more than 4 GiB of memory to decrypt")
                }
                let stream = try Scrypt.derive(
                    password: try password(), salt: salt, opsLimit: ops, memLimit: mem, length: keynumSK.count)
                for i in keynumSK.indices { keynumSK[i] ^= stream[i] }
                let checksum = BLAKE2b.digest([0x45, 0x64] + Array(keynumSK[0..<72]), length: 32)
                guard ConstantTime.equals(checksum, Array(keynumSK[72..<104])) else {
                    throw CryptoError(code: .wrongPassword, message: "wrong password for this secret key")
                }
            }
            let keyID = Array(keynumSK[0..<8]), seed = Array(keynumSK[8..<40]), pub = Array(keynumSK[40..<72])
            guard (try? Ed25519.publicKey(seed: seed)) == pub else {
                throw CryptoError.malformedKey("the secret key is damaged (its halves do not match)")
            }
            return SecretKey(keyID: keyID, seed: seed, publicKey: pub)
        }
    }

    /// A detached signature (`.minisig`).
    public struct Signature: Sendable, Equatable {
        /// `ED` (prehashed with BLAKE2b-512) or `Ed` (legacy, over the whole message).
        public let algorithm: [UInt8]
        public let keyID: [UInt8]
        public let signature: [UInt8]
        public let untrustedComment: String
        public let trustedComment: String
        public let globalSignature: [UInt8]

        public var isPrehashed: Bool { algorithm == [0x45, 0x44] }
        public var keyIDHex: String { Minisign.keyIDHex(keyID) }

        /// Signs a BLAKE2b-512 prehash of the file with `key`.
        public static func sign(
            prehash: [UInt8], key: SecretKey, trustedComment: String,
            untrustedComment: String = "signature from trailpack secret key"
        ) throws -> Signature {
            guard !trustedComment.contains("\n"), !trustedComment.contains("\r") else {
                throw CryptoError.malformedSignature("a trusted comment must be one line")
            }
            let sig = try Ed25519.sign(prehash, seed: key.seed)
            let global = try Ed25519.sign(sig + Array(trustedComment.utf8), seed: key.seed)
            return Signature(
                algorithm: [0x45, 0x44], keyID: key.keyID, signature: sig, untrustedComment: untrustedComment,
                trustedComment: trustedComment, globalSignature: global)
        }

        init(
            algorithm: [UInt8], keyID: [UInt8], signature: [UInt8], untrustedComment: String, trustedComment: String,
            globalSignature: [UInt8]
        ) {
            self.algorithm = algorithm
            self.keyID = keyID
            self.signature = signature
            self.untrustedComment = untrustedComment
            self.trustedComment = trustedComment
            self.globalSignature = globalSignature
        }

        /// Reads a `.minisig` file's text.
        public init(fileText: String) throws(CryptoError) {
            // Split on scalars: "\r\n" is one Character, so a Character split would keep a CRLF file whole.
            let lines = fileText.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map {
                let line = String(String.UnicodeScalarView($0))
                return line.hasSuffix("\r") ? String(line.unicodeScalars.dropLast()) : line
            }
            guard lines.count >= 4, lines[0].hasPrefix(Minisign.untrustedPrefix),
                lines[2].hasPrefix(Minisign.trustedPrefix)
            else {
                throw CryptoError.malformedSignature(
                    "not a minisign signature (expected an untrusted comment, the signature, a trusted comment and the global signature)"
                )
            }
            guard let raw = Data(base64Encoded: lines[1].trimmingCharacters(in: .whitespaces)).map(Array.init),
                raw.count == 74
            else {
                throw CryptoError.malformedSignature("the signature line is not 74 bytes of base64")
            }
            guard let global = Data(base64Encoded: lines[3].trimmingCharacters(in: .whitespaces)).map(Array.init),
                global.count == 64
            else {
                throw CryptoError.malformedSignature("the global signature line is not 64 bytes of base64")
            }
            let alg = Array(raw[0..<2])
            guard alg == [0x45, 0x44] || alg == [0x45, 0x64] else {
                throw CryptoError.malformedSignature("unknown signature algorithm")
            }
            algorithm = alg
            keyID = Array(raw[2..<10])
            signature = Array(raw[10..<74])
            untrustedComment = String(lines[0].dropFirst(Minisign.untrustedPrefix.count))
            trustedComment = String(lines[2].dropFirst(Minisign.trustedPrefix.count))
            globalSignature = global
        }

        public var fileText: String {
            let raw = algorithm + keyID + signature
            return "\(Minisign.untrustedPrefix)\(untrustedComment)\n\(Data(raw).base64EncodedString())\n"
                + "\(Minisign.trustedPrefix)\(trustedComment)\n\(Data(globalSignature).base64EncodedString())\n"
        }

        public enum Verdict: Sendable, Equatable {
            case valid
            /// Made by another key (the key ids differ).
            case otherKey
            /// The file does not match the signature.
            case badSignature
            /// The signature matches, but the trusted comment was altered.
            case badTrustedComment
            /// An `Ed` (not prehashed) signature: trailpack reads files as streams and does not accept them.
            case legacy
        }

        /// Checks the signature and its trusted comment against a file's BLAKE2b-512 prehash.
        public func verify(prehash: [UInt8], publicKey: PublicKey) -> Verdict {
            guard keyID == publicKey.keyID else { return .otherKey }
            guard isPrehashed else { return .legacy }
            guard Ed25519.verify(signature, of: prehash, publicKey: publicKey.key) else { return .badSignature }
            guard Ed25519.verify(globalSignature, of: signature + Array(trustedComment.utf8), publicKey: publicKey.key)
            else { return .badTrustedComment }
            return .valid
        }

        /// The trusted comment's `key:value` fields, tab-separated as minisign writes them.
        public var trustedFields: [String: String] {
            var out: [String: String] = [:]
            for field in trustedComment.split(separator: "\t") {
                guard let colon = field.firstIndex(of: ":") else { continue }
                out[String(field[..<colon])] = String(field[field.index(after: colon)...])
            }
            return out
        }
    }

    /// BLAKE2b-512 of a file, streamed: what prehashed signatures sign.
    public static func prehash(path: String) throws(FileIOError) -> [UInt8] { try FileHashing.blake2b512(path: path) }

    static func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
    static func readLE64(_ b: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) }
    }
}
