import TrailPackCore
import TrailPackCrypto

/// Everything `Verifier` found out about a package.
public struct VerificationReport: Sendable {
    /// The package's size in bytes.
    public var size: Int64
    /// The SHA-256 of the whole file, always computed.
    public var sha256: SHA256Digest
    /// The SHA-256 the caller expected, if any.
    public var expectedSHA256: SHA256Digest?
    /// The manifest, when one could be read (it may still have findings).
    public var manifest: Manifest?
    /// The number of entries in the central directory.
    public var entryCount: Int
    /// Every finding, in the order checked: structure, data, manifest, contents, whole file.
    public var findings: [Finding]
    /// The file's BLAKE2b-512, when `Verifier.Options.prehash` asked for it.
    public var blake2b512: [UInt8]?
    /// Every PMTiles map the package holds, checked in place (structure, frame, coverage).
    public var maps: [PackageMaps.Checked] = []
    /// How many assets the manifest lists (its stops' and its maps'), also when the manifest's
    /// stops do not hold them all (``Verifier/Options/keepsAssets``); 0 without a manifest.
    public var assetCount = 0

    /// Whether the package may be used: no finding is an error.
    public var isValid: Bool { !findings.hasErrors }
    /// Whether the whole-file hash matched the expected one (nil when none was given).
    public var sha256Matches: Bool? { expectedSHA256.map { $0 == sha256 } }
}
