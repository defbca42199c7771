import Foundation
import TrailPackCore
import TrailPackFileIO

#if canImport(Glibc)
import Glibc
#endif

/// Checks that a media file's first bytes fit its extension: a file of random bytes named
/// `.mp4`, or a JPEG renamed `.png`, would otherwise be packaged and fail only on the phone.
enum ContentCheck {
    /// The formats trailpack can recognize by their first bytes, with a name for messages.
    private static let signatures: [(name: String, extensions: [String], matches: @Sendable ([UInt8]) -> Bool)] = [
        ("a JPEG image", ["jpg", "jpeg"], { $0.starts(with: [0xFF, 0xD8, 0xFF]) }),
        ("a PNG image", ["png"], { $0.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) }),
        ("a GIF image", ["gif"], { $0.starts(with: Array("GIF8".utf8)) }),
        (
            "a WebP image", ["webp"],
            { $0.starts(with: Array("RIFF".utf8)) && $0.count >= 12 && Array($0[8..<12]) == Array("WEBP".utf8) }
        ),
        (
            "a WAV recording", ["wav"],
            { $0.starts(with: Array("RIFF".utf8)) && $0.count >= 12 && Array($0[8..<12]) == Array("WAVE".utf8) }
        ),
        ("an Ogg file", ["ogg", "oga", "opus"], { $0.starts(with: Array("OggS".utf8)) }),
        ("a FLAC recording", ["flac"], { $0.starts(with: Array("fLaC".utf8)) }),
        (
            "an MP3 recording", ["mp3"],
            { $0.starts(with: Array("ID3".utf8)) || ($0.count >= 2 && $0[0] == 0xFF && $0[1] & 0xE0 == 0xE0) }
        ),
        (
            "an AAC recording", ["aac"],
            { $0.starts(with: Array("ADIF".utf8)) || ($0.count >= 2 && $0[0] == 0xFF && $0[1] & 0xF6 == 0xF0) }
        ),
        ("a WebM video", ["webm"], { $0.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) }),
        // MP4, QuickTime, M4A, HEIC and AVIF are ISO media files: a box, usually "ftyp", at byte 4.
        (
            "an MP4/QuickTime (ISO media) file", ["mp4", "m4v", "mov", "m4a", "heic", "avif"],
            { bytes in
                bytes.count >= 8
                    && ["ftyp", "moov", "mdat", "free", "wide", "skip", "pnot"].contains(
                        String(decoding: bytes[4..<8], as: UTF8.self))
            }
        ),
    ]

    /// Nil when the content fits the extension (or the extension is not one checked here), else
    /// a sentence saying what the file seems to be and what to do.
    static func mismatch(path: String, fileName: String) -> String? {
        let ext = (fileName as NSString).pathExtension.lowercased()
        guard let expected = signatures.first(where: { $0.extensions.contains(ext) }) else { return nil }
        // None when it cannot be read: the builder reports an unreadable file where it reads it whole.
        let head = (try? FileIO.readPrefix(path, maxBytes: 16)) ?? []
        if expected.matches(head) { return nil }
        if let actual = signatures.first(where: { $0.matches(head) }) {
            let suggested = actual.extensions[0]
            return
                "its name ends in .\(ext) but its content is \(actual.name); rename it to end in .\(suggested), or export it again as .\(ext)"
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
        if let problem = ContentCheck.mismatch(path: path, fileName: fileName) {
            return .refused("'\(fileName)': \(problem)")
        }
        switch (fileName as NSString).pathExtension.lowercased() {
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
