import Foundation
import TrailPackCore
import TrailPackCrypto

extension CatalogEntry {
    /// The SHA-256 as a digest. A malformed one is an error, never a check turned off.
    public func digest() throws(ClientError) -> SHA256Digest {
        guard sha256.utf8.count == 64, let digest = SHA256Digest(hex: sha256) else {
            throw ClientError(
                .badResponse, "the server lists \(id) \(version) with a malformed SHA-256 '\(sha256.prefix(80))'")
        }
        return digest
    }
}
