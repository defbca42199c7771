import Foundation
import TrailPackBuilder
import TrailPackCore
import TrailPackFileIO

/// A draft's route (`docs/FORMAT.md` §3.3): the file beside `tour.json` that the builder makes into
/// the package's `map/route.geojson`. The panel writes `route.geojson` only; a `route.gpx` that came
/// with an imported folder is kept until a route replaces it or is removed. A route replaced or removed
/// is moved aside to `drafts-removed/<site>/<tour>/`, never deleted.
extension DraftStore {
    /// The tour folder's route files, in the order the builder looks for them.
    static let routeFileNames = [TourRoute.gpxName, TourRoute.geoJSONName]

    /// Puts `bytes` in place as the draft's `route.geojson`, atomically (written, flushed, renamed), the
    /// route it had moved aside first; returns the names the old files have in `drafts-removed/`.
    @discardableResult
    public func setRoute(_ key: Key, bytes: [UInt8], by saver: Saver? = nil) async throws(PanelError) -> [String] {
        try await locked(key) { () throws(PanelError) in
            guard self.exists(key) else { throw .notFound }
            let tour = try self.openTourFolder(key)
            var aside: [(name: String, aside: String)] = []
            for name in Self.routeFileNames {
                guard try Self.present(name, in: tour) else { continue }
                aside.append((name, try self.moveAside(key, from: tour, name: Self.routeName(name))))
            }
            do throws(FileIOError) {
                try AtomicFile.write(bytes, to: self.folder(key) + "/" + TourRoute.geoJSONName)
            } catch {
                // The old route back in its place: a failed replacement changes nothing.
                let removed = try? FolderHandle.open(self.removedRoot, beneath: [key.site, key.tour])
                for file in aside { try? removed?.move(file.aside, to: tour, as: file.name, replacing: false) }
                throw PanelError(error, "the route could not be saved (\(error.message)); nothing was changed")
            }
            self.recordSave(key, by: saver)
            return aside.map(\.aside)
        }
    }

    /// Moves the draft's route files aside; returns their names in `drafts-removed/` (none: it had no route).
    @discardableResult
    public func removeRoute(_ key: Key, by saver: Saver? = nil) async throws(PanelError) -> [String] {
        try await locked(key) { () throws(PanelError) in
            guard self.exists(key) else { throw .notFound }
            let tour = try self.openTourFolder(key)
            var aside: [String] = []
            for name in Self.routeFileNames {
                guard try Self.present(name, in: tour) else { continue }
                aside.append(try self.moveAside(key, from: tour, name: Self.routeName(name)))
            }
            if !aside.isEmpty { self.recordSave(key, by: saver) }
            return aside
        }
    }

    /// The draft's folder, opened from the drafts root without following links.
    func openTourFolder(_ key: Key) throws(PanelError) -> FolderHandle {
        do { return try FolderHandle.open(root, beneath: [key.site, key.tour]) } catch {
            throw PanelError(error, "cannot open the draft's folder: \(error.message)")
        }
    }

    private static func present(_ name: String, in folder: FolderHandle) throws(PanelError) -> Bool {
        do { return try folder.kind(name) != nil } catch {
            throw PanelError(error, "cannot look at the draft's \(name): \(error.message)")
        }
    }

    private static func routeName(_ name: String) throws(PanelError) -> StopFileName {
        guard let checked = StopFileName.checked(name) else {
            throw PanelError(code: .internal, message: "'\(name)' is not a file name")
        }
        return checked
    }
}
