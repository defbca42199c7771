// zf-bench build <folder> <out.zip>   — zip a tour folder with ZIPFoundation (media stored, text deflated)
// zf-bench verify <package.zip>       — read every entry with ZIPFoundation, which checks each CRC-32
import Foundation
import ZIPFoundation

let stored: Set<String> = ["mp4", "m4v", "mov", "webm", "mp3", "m4a", "aac", "ogg", "oga", "opus", "flac", "jpg", "jpeg", "png", "webp", "gif", "heic", "avif", "mbtiles", "pmtiles", "pbf", "mvt"]
let args = CommandLine.arguments
guard args.count >= 3 else { print("usage: zf-bench build <folder> <out.zip> | verify <zip>"); exit(2) }
do {
    switch args[1] {
    case "build":
        let root = URL(fileURLWithPath: args[2])
        let archive = try Archive(url: URL(fileURLWithPath: args[3]), accessMode: .create)
        let files = FileManager.default.enumerator(atPath: root.path)!.compactMap { $0 as? String }.sorted()
        for rel in files {
            var isDir: ObjCBool = false
            FileManager.default.fileExists(atPath: root.appendingPathComponent(rel).path, isDirectory: &isDir)
            if isDir.boolValue { continue }
            let ext = (rel as NSString).pathExtension.lowercased()
            try archive.addEntry(with: rel, relativeTo: root, compressionMethod: stored.contains(ext) ? .none : .deflate)
        }
    case "verify":
        let archive = try Archive(url: URL(fileURLWithPath: args[2]), accessMode: .read)
        for entry in archive { _ = try archive.extract(entry, skipCRC32: false) { _ in } }
    default:
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("zf-bench: \(error)\n".utf8))
    exit(1)
}
