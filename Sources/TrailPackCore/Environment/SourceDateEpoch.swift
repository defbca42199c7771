import Foundation

/// `SOURCE_DATE_EPOCH` (reproducible-builds.org): the time a build stamps instead of now, read in one
/// place for the builder's entry times and the signer's timestamp.
public enum SourceDateEpoch {
    /// The value when set (nil when unset or empty). Throws ``CoreError`` with the code
    /// ``CoreError/Code/invalidSourceDateEpoch`` when it is set to anything but a whole,
    /// non-negative number of seconds since 1970.
    public static func value(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CoreError) -> Int64? {
        guard let text = environment["SOURCE_DATE_EPOCH"], !text.isEmpty else { return nil }
        guard text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text) else {
            throw CoreError(
                code: .invalidSourceDateEpoch,
                message: "SOURCE_DATE_EPOCH='\(text)' is not a whole number of seconds since 1970 (such as 1700000000)",
                value: text)
        }
        return value
    }
}
