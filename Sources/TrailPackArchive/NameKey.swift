/// An entry name's exact bytes as a dictionary key, hashed in one pass over the bytes.
///
/// `[UInt8]` is `Hashable`, but it feeds the hasher one byte at a time: keying 20,000 names by
/// their arrays was a tenth of verifying 20,000 small entries. Equal only when the bytes are
/// equal (no Unicode equivalence, unlike `String`'s `==`).
package struct NameKey: Hashable, Sendable {
    /// The name's bytes.
    package let bytes: [UInt8]

    package init(_ bytes: [UInt8]) { self.bytes = bytes }
    package init(_ text: String) { self.bytes = Array(text.utf8) }

    package func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    package static func == (a: NameKey, b: NameKey) -> Bool { a.bytes == b.bytes }
}
