import Foundation
import TrailPackCore
import TrailPackCrypto

/// A tour folder as an editor sees it: the fields of `tour.json` and of each stop's `waypoint.json`,
/// read leniently (a missing or wrong field is left empty for the form, and the builder's findings
/// say what is wrong) and written back in the same layout `trailpack build` reads.
///
/// Members the editor does not know are kept as they were (`extra`), so a folder made with the CLI,
/// or by a newer trailpack, loses nothing when it is edited in the control panel.
public struct TourDraft: Sendable, Equatable {
    public var id = ""
    public var version = ""
    public var name = ""
    public var park = ""
    public var siteID = ""
    public var siteName = ""
    public var mapName = ""
    public var description = ""
    /// The map frame the ranger set; nil: the builder draws it around the stops with a margin.
    public var bounds: Bounds?
    public var extra: [JSONMember] = []
    public var stops: [Stop] = []

    public init() {}

    /// One stop: its folder `waypoints/NN-slug/` holds `waypoint.json` and the stop's files.
    public struct Stop: Sendable, Equatable {
        /// The folder name it is stored under now (`03-house-rock`); nil for a stop not yet written.
        public var folder: String?
        /// The folder name without its number; the stop's folder in the package.
        public var slug: String
        public var name: String
        public var coordinate: Coordinate?
        public var description: String
        public var properties: [JSONMember]
        public var assets: [AssetReference]
        /// Why a required accessibility text (alt text, transcript, captions) is missing, for reviewers.
        public var accessibilityWaiver: String?
        public var extra: [JSONMember]

        public init(
            folder: String? = nil, slug: String, name: String, coordinate: Coordinate?, description: String = "",
            properties: [JSONMember] = [], assets: [AssetReference] = [], accessibilityWaiver: String? = nil,
            extra: [JSONMember] = []
        ) {
            self.folder = folder
            self.slug = slug
            self.name = name
            self.coordinate = coordinate
            self.description = description
            self.properties = properties
            self.assets = assets
            self.accessibilityWaiver = accessibilityWaiver
            self.extra = extra
        }
    }

    /// A file of a stop as `waypoint.json` lists it, with its texts.
    public struct AssetReference: Sendable, Equatable {
        public var file: String
        public var title: String?
        /// Alt text of an image.
        public var alt: String?
        /// The transcript of an audio recording.
        public var transcript: String?
        /// The captions file (`.vtt`, in the same stop folder) of a video.
        public var captions: String?
        public var extra: [JSONMember]

        public init(
            file: String, title: String? = nil, alt: String? = nil, transcript: String? = nil, captions: String? = nil,
            extra: [JSONMember] = []
        ) {
            self.file = file
            self.title = title
            self.alt = alt
            self.transcript = transcript
            self.captions = captions
            self.extra = extra
        }
    }

    // MARK: reading

    /// Reads the tour folder at `root`. Only `tour.json` and each `waypoints/*/waypoint.json` are read;
    /// a file that is not JSON at all is an error naming it (the panel cannot show a form for it).
    public static func read(folder root: String) throws(BuildError) -> TourDraft {
        var draft = TourDraft()
        let tour = try object(root, TourSource.tourFileName)
        for member in tour {
            switch (member.key, member.value) {
            case ("id", .string(let s)): draft.id = s
            case ("version", .string(let s)): draft.version = s
            case ("name", .string(let s)): draft.name = s
            case ("park", .string(let s)): draft.park = s
            case ("mapName", .string(let s)): draft.mapName = s
            case ("description", .string(let s)): draft.description = s
            case ("site", .object):
                if case .string(let s)? = member.value["id"] { draft.siteID = s }
                if case .string(let s)? = member.value["name"] { draft.siteName = s }
            case ("bounds", .object):
                if let sw = coordinate(member.value["southwest"]), let ne = coordinate(member.value["northeast"]) {
                    draft.bounds = Bounds(southwest: sw, northeast: ne)
                } else {
                    draft.extra.append(member)
                }
            default: draft.extra.append(member)
            }
        }
        let folders = FileSystem.list(root + "/waypoints").filter {
            !FileSystem.isIgnored($0) && FileSystem.lstatInfo(root + "/waypoints/" + $0).kind == .directory
        }
        var numbered: [(order: Int, folder: String, stop: Stop)] = []
        for folder in folders {
            let (order, slug) = Loader.parseFolderName(folder)
            var stop = Stop(folder: folder, slug: slug.isEmpty ? "stop" : slug, name: "", coordinate: nil)
            let file = "waypoints/\(folder)/\(TourSource.waypointFileName)"
            // lstat: a waypoint.json that is a link is not read (a draft never leads outside itself).
            let members = FileSystem.lstatInfo(root + "/" + file).kind == .file ? try object(root, file) : []
            for member in members {
                switch (member.key, member.value) {
                case ("name", .string(let s)): stop.name = s
                case ("description", .string(let s)): stop.description = s
                case ("coordinate", let value) where coordinate(value) != nil: stop.coordinate = coordinate(value)
                case ("properties", .object(let p)): stop.properties = p
                case ("accessibilityWaiver", .string(let s)): stop.accessibilityWaiver = s
                case ("assets", .array(let items)) where items.allSatisfy(Self.isAssetItem):
                    stop.assets = items.compactMap(Self.assetReference)
                default: stop.extra.append(member)
                }
            }
            numbered.append((order ?? Int.max, folder, stop))
        }
        numbered.sort {
            $0.order != $1.order
                ? $0.order < $1.order : Array($0.folder.utf8).lexicographicallyPrecedes(Array($1.folder.utf8))
        }
        draft.stops = numbered.map(\.stop)
        return draft
    }

    private static func object(_ root: String, _ file: String) throws(BuildError) -> [JSONMember] {
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(root + "/" + file, limit: TourSource.maxJSONBytes) } catch {
            throw .malformed(file, "cannot be read (\(error))")
        }
        let document: JSONDocument
        do { document = try JSONParser.parse(bytes) } catch {
            throw .malformed(file, "is not valid JSON (\(error)); fix it in a text editor or upload the folder again")
        }
        guard case .object(let members) = document.value else {
            throw .malformed(file, "holds \(document.value.typeDescription), not an object")
        }
        return members
    }

    private static func coordinate(_ value: JSONValue?) -> Coordinate? {
        guard case .number(let lat)? = value?["latitude"], case .number(let lon)? = value?["longitude"],
            let latitude = Double(lat.literal), let longitude = Double(lon.literal)
        else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    private static func isAssetItem(_ value: JSONValue) -> Bool {
        if case .string = value { return true }
        if case .string? = value["file"] { return true }
        return false
    }

    private static func assetReference(_ value: JSONValue) -> AssetReference? {
        if case .string(let file) = value { return AssetReference(file: file) }
        guard case .object(let members) = value else { return nil }
        var ref = AssetReference(file: "")
        for member in members {
            switch (member.key, member.value) {
            case ("file", .string(let s)): ref.file = s
            case ("title", .string(let s)): ref.title = s
            case ("alt", .string(let s)): ref.alt = s
            case ("transcript", .string(let s)): ref.transcript = s
            case ("captions", .string(let s)): ref.captions = s
            default: ref.extra.append(member)
            }
        }
        return ref
    }

    /// A name a stop's `waypoint.json` gives for one of its files (an asset or its captions) that is
    /// not a ``StopFileName``.
    public struct BadFileName: Sendable, Equatable {
        /// The stop's number (from 1).
        public var stop: Int
        /// Where it is written: `stop 2 (waypoints/02-house-rock/waypoint.json)`.
        public var place: String
        public var name: String
        public var problem: StopFileName.Problem
    }

    /// Every file name the stops list that is not one safe path component, in stop order: a draft
    /// with any is refused by the panel's import and never opened by its pages.
    public var badFileNames: [BadFileName] {
        var out: [BadFileName] = []
        for (index, stop) in stops.enumerated() {
            let place =
                "stop \(index + 1) (waypoints/\(stop.folder ?? folderName(at: index))/\(TourSource.waypointFileName))"
            for asset in stop.assets {
                for name in [asset.file] + (asset.captions.map { [$0] } ?? []) {
                    do throws(StopFileName.Problem) { _ = try StopFileName(name) } catch {
                        out.append(BadFileName(stop: index + 1, place: place, name: name, problem: error))
                    }
                }
            }
        }
        return out
    }

    // MARK: writing

    /// `tour.json`'s content.
    public var tourJSON: JSONValue {
        var members = [
            JSONMember("id", .string(id)), JSONMember("version", .string(version)), JSONMember("name", .string(name)),
            JSONMember("park", .string(park)),
            JSONMember("site", .object([JSONMember("id", .string(siteID)), JSONMember("name", .string(siteName))])),
            JSONMember("mapName", .string(mapName)),
        ]
        if let bounds {
            members.append(
                JSONMember(
                    "bounds",
                    .object([
                        JSONMember("southwest", bounds.southwest.jsonValue),
                        JSONMember("northeast", bounds.northeast.jsonValue),
                    ])))
        }
        members.append(JSONMember("description", .string(description)))
        return .object(members + extra.filter { m in !members.contains { $0.key == m.key } })
    }

    /// A stop's `waypoint.json` content.
    public static func waypointJSON(_ stop: Stop) -> JSONValue {
        var members = [JSONMember("name", .string(stop.name))]
        if let c = stop.coordinate { members.append(JSONMember("coordinate", c.jsonValue)) }
        members.append(JSONMember("description", .string(stop.description)))
        members.append(JSONMember("assets", .array(stop.assets.map(assetJSON))))
        if !stop.properties.isEmpty { members.append(JSONMember("properties", .object(stop.properties))) }
        if let waiver = stop.accessibilityWaiver, !waiver.isEmpty {
            members.append(JSONMember("accessibilityWaiver", .string(waiver)))
        }
        return .object(members + stop.extra.filter { m in !members.contains { $0.key == m.key } })
    }

    static func assetJSON(_ ref: AssetReference) -> JSONValue {
        let texts = [
            ("title", ref.title), ("alt", ref.alt), ("transcript", ref.transcript), ("captions", ref.captions),
        ]
        .compactMap { key, value in value.flatMap { $0.isEmpty ? nil : JSONMember(key, .string($0)) } }
        if texts.isEmpty && ref.extra.isEmpty { return .string(ref.file) }
        return .object([JSONMember("file", .string(ref.file))] + texts + ref.extra)
    }

    /// The folder name stop `index` is stored under: its number (zero-padded to the count's width, at
    /// least two digits) and its slug.
    public func folderName(at index: Int) -> String {
        let width = max(2, String(stops.count).count)
        let number = String(index + 1)
        return String(repeating: "0", count: width - number.count) + number + "-" + stops[index].slug
    }

    /// A slug for a new stop named `name`, unique among this draft's stops (letters of every script in Latin).
    public func newStopSlug(for name: String) -> String {
        Slug.unique(for: name, number: stops.count + 1, taken: Set(stops.map(\.slug)))
    }

    /// A slug from any text (a tour name): lowercase ASCII letters, digits and hyphens, or "" when none are left.
    public static func slug(_ text: String) -> String {
        let slug = Slug.unique(for: text, number: 0, taken: [])
        return slug == "stop-0" ? "" : slug
    }

    /// The revision of a draft folder: a digest of its JSON files and of every file's name, size and
    /// modification time. Any save, by the panel or anyone else, changes it.
    public static func revision(folder root: String) -> String {
        var listing: [String] = []
        func add(_ rel: String) {
            var info = stat()
            guard lstat(root + "/" + rel, &info) == 0 else { return }
            listing.append("\(rel)\t\(info.st_size)\t\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)")
        }
        add(TourSource.tourFileName)
        for folder in FileSystem.list(root + "/waypoints").sorted() where !FileSystem.isIgnored(folder) {
            for name in FileSystem.list(root + "/waypoints/" + folder).sorted() where !FileSystem.isIgnored(name) {
                add("waypoints/\(folder)/\(name)")
            }
        }
        for name in FileSystem.list(root + "/map").sorted() where !FileSystem.isIgnored(name) { add("map/" + name) }
        return String(SHA256.hash(Array(listing.joined(separator: "\n").utf8)).hex.prefix(16))
    }
}
