/// The outcome of reading a manifest (``ManifestReader/read(_:limits:)``).
public struct ManifestReading: Sendable {
    /// The manifest, best-effort; nil when the bytes are not a JSON object of a known format version.
    public var manifest: Manifest?
    /// Every problem found: syntax, duplicate keys, fields and rules.
    public var findings: [Finding]
    /// How many assets the manifest lists (its stops' and its maps'), also when its stops no longer
    /// hold them all (``ManifestAssetSink/keepsAssets``); 0 without a manifest.
    public var assetCount = 0
    /// Whether the stops' assets went to the sink given to ``ManifestReader/read(chunks:limits:assets:)``
    /// (they do unless the waypoints are not a list that could be read one by one).
    public var assetsTaken = false
    /// Whether there is a manifest and no finding is an error.
    public var isValid: Bool { manifest != nil && !findings.hasErrors }
}

/// Reads `manifest.json` bytes: parse strictly, decode, validate, all findings together.
public enum ManifestReader {
    /// Reads `manifest.json` bytes within `limits`: parses strictly, decodes and validates,
    /// returning every finding together.
    ///
    /// The bytes are let go once parsed: a caller that hands them over (and keeps no copy) does
    /// not hold them while the manifest is decoded and validated.
    public static func read(_ bytes: consuming [UInt8], limits: JSONLimits = .manifest) -> ManifestReading {
        let stops = StreamedWaypoints()
        let document: JSONDocument
        do {
            document = try JSONParser.parse(bytes, limits: limits, streaming: "waypoints", element: stops.decode)
        } catch {
            return refused(error)
        }
        _ = consume bytes
        return read(document, stops)
    }

    /// Reads a manifest that `next` gives in chunks (nil at the end), as ``read(_:limits:)``
    /// reads its bytes, with the same findings: for a manifest being inflated, of which only
    /// about 64 KiB are held at a time (a manifest of 100,000 assets is 25 MB). A chunk's bytes
    /// are copied before `next` is called again.
    ///
    /// With `assets`, each stop's assets go to it as the stop is read, checked by the rules on
    /// assets then (the findings are the same, in the same order), and are let go unless it keeps them.
    public static func read(
        chunks next: @escaping () -> UnsafeRawBufferPointer?, limits: JSONLimits = .manifest,
        assets: (any ManifestAssetSink)? = nil
    ) -> ManifestReading {
        let stops = StreamedWaypoints(precheck: assets.map(AssetPrecheck.init(sink:)))
        let document: JSONDocument
        do {
            document = try JSONParser.parse(chunks: next, limits: limits, streaming: "waypoints", element: stops.decode)
        } catch {
            return refused(error)
        }
        return read(document, stops)
    }

    /// The manifest's `id` and `version` alone, from a manifest that `next` gives in chunks: the
    /// waypoints (nearly all of a manifest) are parsed and let go one by one, never decoded; the
    /// rest is parsed as it is (the map assets, a few). Nil when the bytes are not a JSON object
    /// whose `id` and `version` are strings (duplicate keys included: which one counts is not for
    /// this to say).
    public static func identity(
        chunks next: @escaping () -> UnsafeRawBufferPointer?, limits: JSONLimits = .manifest
    ) -> (id: String, version: String)? {
        guard
            let document = try? JSONParser.parse(
                chunks: next, limits: limits, streaming: "waypoints", element: { _, _ in }),
            document.duplicateKeys.isEmpty,
            case .string(let id)? = document.value["id"], case .string(let version)? = document.value["version"]
        else { return nil }
        return (id, version)
    }

    private static func refused(_ error: CoreError) -> ManifestReading {
        ManifestReading(
            manifest: nil,
            findings: [Finding(error.code.findingCode ?? .jsonSyntax, path: .root, "not valid JSON at \(error)")])
    }

    private static func read(_ document: JSONDocument, _ stops: StreamedWaypoints) -> ManifestReading {
        var findings = document.duplicateKeys.map(\.finding)
        let decoded = ManifestDecoder.decode(document.value, streamed: stops)
        findings += decoded.findings
        // The prechecked stops are the manifest's only when its waypoints were read one by one.
        let precheck = decoded.usedStreamed ? stops.precheck : nil
        var reading = ManifestReading(manifest: decoded.manifest, findings: findings)
        if let manifest = decoded.manifest {
            reading.findings += ManifestValidator.validate(
                manifest, unreadable: decoded.unreadable, precheck: precheck)
            reading.assetCount = precheck.map { $0.assetCount + manifest.mapAssets.count } ?? manifest.assetCount
            reading.assetsTaken = precheck != nil
        }
        return reading
    }
}

/// The waypoints decoded while the manifest is parsed, and what was found in them.
///
/// Each waypoint is decoded as soon as it is parsed and its JSON let go: the tree of a whole
/// manifest of 20,000 assets was about twice the manifest's own size in memory.
final class StreamedWaypoints {
    var waypoints: [Waypoint] = []
    var reader = FieldReader()
    /// The rules on each stop's assets, run as it is read, when a sink takes them.
    let precheck: AssetPrecheck?

    init(precheck: AssetPrecheck? = nil) { self.precheck = precheck }

    /// Decodes the `i`th element of `waypoints`, as the parser hands it over.
    func decode(_ i: Int, _ value: JSONValue) {
        if var w = ManifestDecoder.decodeWaypoint(
            value, at: JSONPath.root.member("waypoints").element(i), reader: &reader)
        {
            // At its place among the stops decoded (an element that is not a stop is none), the
            // place the validator's paths and findings name it by.
            precheck?.take(&w, at: waypoints.count)
            waypoints.append(w)
        }
    }
}

extension JSONDuplicateKey {
    /// The duplicate as a `json.duplicate-key` finding.
    public var finding: Finding {
        Finding(
            .jsonDuplicateKey, path: path.member(key),
            "the key '\(key)' appears more than once in the same object (line \(line), column \(column)); keep one")
    }
}
