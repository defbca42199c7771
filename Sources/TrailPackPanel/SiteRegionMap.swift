import Foundation
import TrailPackMap

/// A site's region map put in place: checked as a raster PMTiles map the panel can draw, copied
/// beside the drafts under a temporary name, then renamed over the old one in one step (a server
/// reading the old map never sees half of the new one). `trailpack admin site map` and the admin
/// page's upload both come here, so they take and refuse the same files with the same words.
public enum SiteRegionMap {
    /// Why a file was not taken, in words naming the file as the admin knows it.
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        /// The refusal, a sentence without its final stop.
        public var description: String
    }

    /// Checks `file` (shown as `shownName` in messages), copies it to `target` and returns its
    /// header. `move` renames the file instead of copying it (a temporary file of ours, on the same disk).
    @discardableResult
    public static func install(
        _ file: String, shownName: String, target: String, move: Bool = false
    ) throws
        -> PMTilesHeader
    {
        let header: PMTilesHeader
        do { header = try PMTilesArchive(source: try MapFile(path: file)).header } catch {
            throw Refusal(
                description:
                    "'\(shownName)' is not a PMTiles map the panel can read (\(error)); make one with 'trailpack map extract'"
            )
        }
        guard let type = header.tileType, ["png", "jpeg", "webp"].contains(type.name) else {
            throw Refusal(
                description:
                    "'\(shownName)' holds \(header.tileType?.name ?? "unknown") tiles; the panel's map draws raster tiles (PNG, JPEG or WebP): give a raster map"
            )
        }
        let folder = (target as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw Refusal(description: "cannot make the folder for region maps: \(error.localizedDescription)")
        }
        if move {
            guard rename(file, target) == 0 else {
                throw Refusal(description: "cannot put the map in place: \(String(cString: strerror(errno)))")
            }
            return header
        }
        let temporary = folder + "/." + UUID().uuidString + ".pmtiles"
        do {
            try FileManager.default.copyItem(atPath: file, toPath: temporary)
            guard rename(temporary, target) == 0 else {
                throw Refusal(description: "cannot put the map in place: \(String(cString: strerror(errno)))")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)  // ours: made just above
            throw error as? Refusal
                ?? Refusal(description: "cannot copy '\(shownName)' beside the drafts: \(error.localizedDescription)")
        }
        return header
    }
}
