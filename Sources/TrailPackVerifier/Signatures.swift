import Foundation
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO

/// Checks minisign signatures of a package against trusted keys, and thresholds of distinct signers.
///
/// A signature counts when its key id names a trusted key, the Ed25519 signature of the file's
/// BLAKE2b-512 matches, the global signature authenticates the trusted comment, and any `id:`,
/// `version:` and `sha256:` fields of that comment agree with the package. Signers are counted by
/// their public key bytes, so one key listed twice (or under two ids) counts once.
public enum SignatureCheck {
    /// One signature file: where it came from (for messages) and its text.
    public struct Input: Sendable {
        /// Where the signature came from, for messages (a file name or a reviewer's id).
        public var name: String
        /// The signature in minisign's text format.
        public var text: String
        /// A signature named `name` with the text `text`.
        public init(name: String, text: String) {
            self.name = name
            self.text = text
        }
    }

    /// What the check of a package's signatures found.
    public struct SignatureCheck: Sendable {
        /// Problems with the signatures (`signature.*` codes).
        public var findings: [Finding]
        /// The distinct trusted keys whose signatures are valid, by key id.
        public var validSigners: [String]
    }

    /// - Parameters:
    ///   - signatures: the signature files to check.
    ///   - trustedKeys: the keys whose signatures count.
    ///   - prehash: the package's BLAKE2b-512 (`Verifier.Options.prehash` computes it in the same read).
    ///   - threshold: how many distinct trusted keys must have signed (at least 1).
    ///   - manifest: the package's manifest, whose id and version the trusted comments must name.
    ///   - sha256: the package's SHA-256, which a trusted comment's `sha256:` must equal.
    public static func check(
        signatures: [Input], trustedKeys: [Minisign.PublicKey], threshold: Int,
        prehash: [UInt8], manifest: Manifest?, sha256: SHA256Digest
    ) -> SignatureCheck {
        var findings: [Finding] = []
        if signatures.isEmpty {
            findings.append(
                Finding(
                    .signatureMissing,
                    "the package has no signature (.minisig); it cannot be shown to come from a trusted publisher"))
        }
        var signers: [[UInt8]: String] = [:]
        for input in signatures {
            let signature: Minisign.Signature
            do { signature = try Minisign.Signature(fileText: input.text) } catch {
                findings.append(Finding(.signatureMalformed, file: input.name, "\(error)"))
                continue
            }
            let candidates = trustedKeys.filter { $0.keyID == signature.keyID }
            guard !candidates.isEmpty else {
                findings.append(
                    Finding(
                        .signatureUntrustedKey, file: input.name,
                        "signed by key \(signature.keyIDHex), which is not among the trusted keys"))
                continue
            }
            var verdicts: [Minisign.Signature.Verdict] = []
            var valid: Minisign.PublicKey?
            for key in candidates {
                let v = signature.verify(prehash: prehash, publicKey: key)
                verdicts.append(v)
                if v == .valid { valid = key; break }
            }
            guard let key = valid else {
                if verdicts.contains(.legacy) {
                    findings.append(
                        Finding(
                            .signatureMalformed, file: input.name,
                            "a legacy (not prehashed) signature; sign again with a current minisign or trailpack"))
                } else if verdicts.contains(.badTrustedComment) {
                    findings.append(
                        Finding(.signatureInvalid, file: input.name, "the trusted comment was altered after signing"))
                } else {
                    findings.append(
                        Finding(
                            .signatureInvalid, file: input.name,
                            "the signature by key \(signature.keyIDHex) does not match this package: it was altered after signing, or the signature is for another file"
                        ))
                }
                continue
            }
            let fields = signature.trustedFields
            var mismatches: [String] = []
            if let id = fields["id"], let m = manifest, id != m.id {
                mismatches.append("package id '\(id)' (the package is '\(m.id)')")
            }
            if let v = fields["version"], let m = manifest,
                PackageVersion(v) == nil || PackageVersion(v) != PackageVersion(m.version)
            {
                mismatches.append("version '\(v)' (the package is '\(m.version)')")
            }
            if let h = fields["sha256"], SHA256Digest(hex: h) != sha256 { mismatches.append("SHA-256 \(h)") }
            if !mismatches.isEmpty {
                findings.append(
                    Finding(
                        .signatureCommentMismatch, file: input.name,
                        "the signed comment names \(mismatches.joined(separator: ", "))"))
                continue
            }
            signers[key.key] = signers[key.key] ?? key.keyIDHex
        }
        let required = max(1, threshold)
        if signers.count < required && !signatures.isEmpty {
            findings.append(
                Finding(
                    .signatureThreshold,
                    "\(required) valid signature\(required == 1 ? "" : "s") from distinct trusted keys \(required == 1 ? "is" : "are") required; found \(signers.count)"
                ))
        }
        return SignatureCheck(findings: findings, validSigners: signers.values.sorted())
    }

    /// The trusted comment trailpack writes: minisign's fields, then the package's.
    public static func trustedComment(
        manifest: Manifest, sha256: SHA256Digest, fileName: String, timestamp: Int64
    ) -> String {
        "timestamp:\(timestamp)\tfile:\(fileName)\thashed\tid:\(manifest.id)\tversion:\(manifest.version)\tsha256:\(sha256.hex)"
    }

    /// Trusted keys from files and folders (every `*.pub` in a folder; a folder without one is an error).
    public static func loadTrustedKeys(_ paths: [String]) throws -> [Minisign.PublicKey] {
        var keys: [Minisign.PublicKey] = []
        for path in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                throw FileIOError(code: .notFound, message: "trusted key '\(path)' does not exist", path: path)
            }
            let files =
                isDir.boolValue
                ? try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.lowercased().hasSuffix(".pub") }
                    .sorted().map { path + "/" + $0 }
                : [path]
            // A folder of keys that holds none would turn the signature check off without a word
            // (no key: nothing is required): it is a mistake to say so, not an empty trust.
            if isDir.boolValue && files.isEmpty {
                throw FileIOError(
                    code: .notFound,
                    message:
                        "the folder '\(path)' holds no trusted keys (*.pub files): put the reviewers' public keys in it "
                        + "('trailpack keygen' writes a key pair; share the .pub), or name each key file",
                    path: path)
            }
            for file in files {
                let text = String(
                    decoding: try FileOperations.readAll(file, limit: Minisign.maxFileBytes), as: UTF8.self)
                do { keys.append(try Minisign.PublicKey(fileText: text)) } catch {
                    throw CryptoError(code: error.code, message: "'\(file)': \(error.message)")
                }
            }
        }
        return keys
    }

    /// The signature files beside a package: `<package>.minisig` and `<package>.*.minisig` (one per signer).
    public static func findSignatures(besides package: String) -> [String] {
        let url = URL(fileURLWithPath: package)
        let dir = url.deletingLastPathComponent().path
        let base = url.lastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { $0 == base + ".minisig" || ($0.hasPrefix(base + ".") && $0.hasSuffix(".minisig")) }
            .sorted().map { dir + "/" + $0 }
    }
}
