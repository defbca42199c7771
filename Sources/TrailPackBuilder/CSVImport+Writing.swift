import Foundation
import TrailPackCore

#if canImport(Glibc)
import Glibc
#endif

// MARK: - writing the tour

extension CSVImport {
    /// Writes a tour folder from checked stops: `tour.json` without bounds (the builder computes
    /// them), and one folder per stop with its `waypoint.json` and copies of its files.
    ///
    /// Everything is written into a hidden folder beside `folder` and moved into place at the
    /// end: a failure leaves nothing behind. `folder` must not exist, or be an empty folder.
    ///
    /// With `languages` (``SheetReading/languages``: the default first), `tour.json` declares them, and a
    /// stop with a text in another language gets its `name` and `description` as objects by language
    /// (`{"en": …, "es": …}`); a file named in a language's column is listed with its `"language"`.
    public static func writeTour(folder: String, stops: [Stop], languages: [String] = []) throws -> [String] {
        let fm = FileManager.default
        let target = URL(fileURLWithPath: folder)
        let targetInfo = FileSystem.lstatInfo(folder)
        if targetInfo.kind == .directory, !FileSystem.list(folder).isEmpty {
            throw BuildError.usage("'\(folder)' already exists and is not empty; give a new folder name")
        }
        if targetInfo.kind != .directory, targetInfo.kind != .missing {
            throw BuildError.usage("'\(folder)' is a file; give a new folder name")
        }
        let parent = target.deletingLastPathComponent().path
        guard FileSystem.statInfo(parent).kind == .directory else {
            throw BuildError.usage(
                "the folder '\(parent)' does not exist; create it first or give another place for the tour")
        }
        let staging = parent + "/.\(target.lastPathComponent).trailpack-init-\(getpid())"
        var written: [String] = []
        do {
            try fm.createDirectory(atPath: staging + "/waypoints", withIntermediateDirectories: true)
            let slug = Slug.isValid(target.lastPathComponent) ? target.lastPathComponent : "my-tour"
            var tour = TourInit.templateTour(slug: slug, name: nil)
            if !languages.isEmpty, case .object(var members) = tour {
                let at = (members.firstIndex { $0.key == "version" } ?? -1) + 1
                members.insert(JSONMember("languages", .array(languages.map { .string($0) })), at: at)
                tour = .object(members)
            }
            try write(tour, to: staging + "/tour.json")
            written.append("tour.json")
            let width = max(2, String(stops.count).count)
            for (i, stop) in stops.enumerated() {
                let n = stop.order ?? (i + 1)
                let number = String(repeating: "0", count: max(0, width - String(n).count)) + String(n)
                var stopSlug = Slug.make(from: stop.name)
                if stopSlug.isEmpty { stopSlug = "stop" }
                let dir = "waypoints/\(number)-\(stopSlug)"
                try fm.createDirectory(atPath: staging + "/" + dir, withIntermediateDirectories: true)
                for file in stop.media {
                    try copyFile(file.sourcePath, to: staging + "/" + dir + "/" + file.fileName)
                    written.append(dir + "/" + file.fileName)
                }
                let description = stop.description.isEmpty ? TourInit.Placeholder.stopDescription : stop.description
                var members: [JSONMember] = [
                    JSONMember("name", text(stop.name, stop, \.name, languages)),
                    JSONMember("coordinate", stop.coordinate.jsonValue),
                    JSONMember("description", text(description, stop, \.description, languages)),
                    JSONMember("assets", .array(stop.media.map(assetReference))),
                ]
                if !stop.properties.isEmpty { members.append(JSONMember("properties", .object(stop.properties))) }
                try write(.object(members), to: staging + "/" + dir + "/waypoint.json")
                written.append(dir + "/waypoint.json")
                if let names = TourDraft.detailNamesJSON(stop.propertyLabels, properties: stop.properties) {
                    try write(names, to: staging + "/" + dir + "/" + TourDraft.detailNamesFileName)
                    written.append(dir + "/" + TourDraft.detailNamesFileName)
                }
            }
            if targetInfo.kind == .missing {
                try fm.moveItem(atPath: staging, toPath: folder)
            } else {
                for name in ["tour.json", "waypoints"] {
                    try fm.moveItem(atPath: staging + "/" + name, toPath: folder + "/" + name)
                }
                try fm.removeItem(atPath: staging)
            }
        } catch {
            try? fm.removeItem(atPath: staging)
            if let error = error as? BuildError { throw error }
            throw BuildError.io(
                "cannot create the tour in '\(folder)': \(error.localizedDescription); nothing was written")
        }
        return written
    }

    /// A stop's text: one string, or, when the stop has a text in another language, an object by language
    /// (the default first, then each language that gives this text).
    private static func text(
        _ plain: String, _ stop: Stop, _ field: KeyPath<Texts, String?>, _ languages: [String]
    ) -> JSONValue {
        guard let base = languages.first, languages.dropFirst().contains(where: { stop.translations[$0] != nil })
        else { return .string(plain) }
        var members = [JSONMember(base, .string(plain))]
        for tag in languages.dropFirst() {
            if let translated = stop.translations[tag]?[keyPath: field] {
                members.append(JSONMember(tag, .string(translated)))
            }
        }
        return .object(members)
    }

    /// A file in `waypoint.json`'s `assets`: its name, or, for a file in one language, its name and language.
    private static func assetReference(_ file: MediaFile) -> JSONValue {
        guard let language = file.language else { return .string(file.fileName) }
        return .object([JSONMember("file", .string(file.fileName)), JSONMember("language", .string(language))])
    }

    private static func write(_ value: JSONValue, to path: String) throws {
        try Data(JSONWriter.bytes(value)).write(to: URL(fileURLWithPath: path))
    }

    /// Copies the bytes of a file (never a link), in chunks.
    private static func copyFile(_ from: String, to: String) throws {
        guard let input = FileHandle(forReadingAtPath: from) else {
            throw BuildError.io("cannot read '\(from)': \(String(cString: strerror(errno))); nothing was written")
        }
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: to, contents: nil), let output = FileHandle(forWritingAtPath: to)
        else {
            throw BuildError.io("cannot write '\(to)'; nothing was written")
        }
        defer { try? output.close() }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
    }
}
