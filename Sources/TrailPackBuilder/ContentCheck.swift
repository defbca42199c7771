import Foundation
import TrailPackCore
import TrailPackFileIO

#if canImport(Glibc)
import Glibc
#endif

/// Checks that a media file's first bytes fit its extension: a file of random bytes named
/// `.mp4`, or a JPEG renamed `.png`, would otherwise be packaged and fail only on the phone.
enum ContentCheck {
    /// Nil when the content fits the extension (or the extension is not one checked here), else
    /// a sentence saying what the file seems to be and what to do. The formats and their signatures
    /// are `ContentSniff`'s, which the verifier and the servers read too.
    /// Throws when the file cannot be read: that is what is wrong with it then, not its content
    /// (an empty head read as "not a PNG, may be damaged" sent rangers the wrong way).
    ///
    /// `listedIn` names the file that lists it by name (a stop's `waypoint.json`), which a rename
    /// must follow.
    static func mismatch(path: String, fileName: String, listedIn: String? = nil) throws(FileIOError) -> String? {
        let ext = PathText.fileExtension(fileName).lowercased()
        guard let expected = ContentSniff.expectedFormat(forExtension: ext) else { return nil }
        let head = try FileOperations.readPrefix(path, maxBytes: ContentSniff.prefixLength)
        if ContentSniff.matches(expected, head) { return nil }
        if let actual = ContentSniff.signatures.first(where: { ContentSniff.matches($0.format, head) }) {
            let suggested = actual.extensions[0]
            return
                "its name ends in .\(ext) but its content is \(actual.format.name); rename it\(listedIn.map { " (and its name in \($0))" } ?? "") to end in .\(suggested), or export it again as .\(ext)"
        }
        return
            "its name ends in .\(ext) but its content is not \(expected.name) (its first bytes fit no media format trailpack knows); "
            + "the file may be damaged or only partly copied: copy or export it again"
    }

}

/// What an editor says of a file a ranger uploads to a stop, decided from its content (its first
/// bytes) as well as its name: refused, accepted with advice, or accepted.
package enum MediaCheck {
    package enum Verdict: Sendable, Equatable {
        case accepted(MediaTypes.Entry)
        /// Kept, with advice for the phones (HEIC photos, WAV recordings).
        case acceptedWithAdvice(MediaTypes.Entry, String)
        case refused(String)
    }

    /// The verdict on the file at `path`, uploaded as `fileName`.
    package static func verdict(path: String, fileName: String) -> Verdict {
        guard let entry = MediaTypes.lookup(fileName: fileName) else {
            return .refused(
                "'\(fileName)' is not a type the apps can show; use a photo (.jpg, .png, .webp), a recording (.mp3, .m4a), a video (.mp4) or a text (.md, .txt, .vtt captions)"
            )
        }
        if entry.kind == .tiles {
            return .refused(
                "'\(fileName)' is a map file: offline maps belong to the whole tour (its map/ folder), not to a stop")
        }
        do throws(FileIOError) {
            if let problem = try ContentCheck.mismatch(path: path, fileName: fileName) {
                return .refused("'\(fileName)': \(problem)")
            }
        } catch {
            return .refused("'\(fileName)' cannot be read: \(error.message)")
        }
        switch PathText.fileExtension(fileName).lowercased() {
        case "heic":
            return .acceptedWithAdvice(
                entry,
                "'\(fileName)' is a HEIC photo, which Android phones may not show; export it as JPEG (in Photos: File → Export, JPEG) and upload that instead"
            )
        case "wav":
            return .acceptedWithAdvice(
                entry,
                "'\(fileName)' is an uncompressed WAV recording (about ten times the size of the same sound as AAC); convert it to .m4a (AAC) or .mp3 to keep the download small"
            )
        default:
            return .accepted(entry)
        }
    }
}
