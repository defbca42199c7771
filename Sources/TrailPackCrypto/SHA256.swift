internal import CLibCrypto
import Foundation
import TrailPackCore

/// A message-digest algorithm fetched once from OpenSSL's default provider.
struct FetchedDigest: @unchecked Sendable {
    // EVP_MD objects are immutable and reference-counted by OpenSSL; sharing them is thread-safe.
    let md: OpaquePointer

    static let blake2b512: FetchedDigest = FetchedDigest(name: "BLAKE2B-512")

    private init(name: String) {
        guard let md = EVP_MD_fetch(nil, name, nil) else {
            // libcrypto without the digest is not a libcrypto: nothing can work, so say so and stop.
            fatalError("OpenSSL has no \(name) digest: \(CryptoError.fromQueue("EVP_MD_fetch"))")
        }
        self.md = md
    }
}

/// A streaming SHA-256 by libcrypto's SHA-256 functions, shaped like swift-crypto's `SHA256`.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(chunk)        // as many times as needed
/// let digest = hasher.finalize()
/// print(digest)               // 64 lowercase hex digits
/// ```
///
/// Not through EVP: fetching the digest from OpenSSL's provider touched 2 MB of libcrypto in every
/// process, and a context was allocated per hash (see `CLibCrypto/shim.h`). The state is held here.
public struct SHA256: ~Copyable {
    private var state = trailpack_sha256()

    /// Starts a new hash. The corresponding C function is `SHA256_Init`.
    public init() { trailpack_sha256_init(&state) }

    /// A hash dropped unfinished: nothing to free, unless the shim was built over EVP.
    deinit {
        var state = state
        trailpack_sha256_release(&state)
    }

    /// Adds `buffer` to the hash. The corresponding C function is `SHA256_Update`.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        trailpack_sha256_update(&state, base, buffer.count)
    }

    public mutating func update<Bytes: ContiguousBytes>(_ bytes: Bytes) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Ends the hash. The corresponding C function is `SHA256_Final`.
    public consuming func finalize() -> SHA256Digest {
        var value = Bytes32()
        value.withUnsafeMutableBytes {
            trailpack_sha256_final(&state, $0.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        discard self  // final released what there was
        return SHA256Digest(value)
    }

    /// The digest of `bytes` in one call.
    public static func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> SHA256Digest {
        var h = SHA256()
        h.update(bytes)
        return h.finalize()
    }
}

/// A SHA-256 value. Prints as 64 lowercase hex digits; compares in constant time.
///
/// The 32 bytes are held inline, not in an array: a verify keeps one per entry (100,000 of them
/// were 100,000 heap arrays, 8 MB).
public struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
    /// The digest's 32 bytes.
    public var value: Bytes32

    /// The digest `value`.
    public init(_ value: Bytes32) { self.value = value }

    /// The 32 bytes of the digest.
    public var bytes: [UInt8] { value.withUnsafeBytes { Array($0) } }

    /// Parses 64 hex digits, in either case; nil for anything else.
    public init?(hex: String) {
        guard let value = Bytes32(hex: hex, uppercase: true) else { return nil }
        self.value = value
    }

    /// The SHA-256 the manifest gives for `asset`; nil when it is not 64 hex digits. The bytes the
    /// asset holds are taken as they are, not written out as text and read back.
    public init?(of asset: Asset) {
        guard let value = asset.sha256Bytes ?? Bytes32(hex: asset.sha256, uppercase: true) else { return nil }
        self.value = value
    }

    /// 64 lowercase hex digits.
    public var hex: String { value.hex }

    public var description: String { hex }

    /// One line in `sha256sum`'s format, which `sha256sum -c` reads back: a name holding a backslash
    /// or a line break is escaped and the line starts with a backslash, as GNU coreutils does.
    public func sha256sumLine(name: String) -> String {
        if name.contains("\\") || name.contains("\n") || name.contains("\r") {
            let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
                .replacingOccurrences(of: "\r", with: "\\r")
            return "\\\(hex)  \(escaped)\n"
        }
        return "\(hex)  \(name)\n"
    }

    /// Reads one line of `sha256sum`'s output back: `<hex>  <name>` (`*` marks binary mode), the
    /// escaped form `\<hex>  <name with \\, \n, \r>` that ``sha256sumLine(name:)`` and GNU coreutils
    /// write for awkward names, and the BSD tag form `SHA256 (<name>) = <hex>`. Nil for anything else.
    public static func parseSHA256SumLine<S: StringProtocol>(_ line: S) -> SHA256SumLine? {
        var text = Substring(line)
        if text.hasSuffix("\r") { text = text.dropLast() }
        // A leading backslash: the name is escaped (either form).
        let escaped = text.hasPrefix("\\")
        if escaped { text = text.dropFirst() }
        let digest: SHA256Digest
        var name: String
        if text.hasPrefix("SHA256 ("), let close = text.range(of: ") = ", options: .backwards) {
            guard let d = SHA256Digest(hex: String(text[close.upperBound...])) else { return nil }
            digest = d
            name = String(text[text.index(text.startIndex, offsetBy: 8)..<close.lowerBound])
        } else {
            guard text.count > 66, let d = SHA256Digest(hex: String(text.prefix(64))) else { return nil }
            let separator = text.dropFirst(64).prefix(2)
            guard separator == "  " || separator == " *" else { return nil }
            digest = d
            name = String(text.dropFirst(66))
        }
        guard escaped else { return SHA256SumLine(digest: digest, name: name) }
        var out = "", pending = false
        for ch in name {
            if pending {
                switch ch {
                case "n": out.append("\n")
                case "r": out.append("\r")
                case "\\": out.append("\\")
                default: return nil
                }
                pending = false
            } else if ch == "\\" {
                pending = true
            } else {
                out.append(ch)
            }
        }
        guard !pending else { return nil }
        return SHA256SumLine(digest: digest, name: out)
    }
}

/// One line of a `sha256sum` file, read back: the digest and the file's name.
public struct SHA256SumLine: Sendable, Equatable {
    /// The SHA-256 the line gives.
    public var digest: SHA256Digest
    /// The file's name, unescaped.
    public var name: String
}
