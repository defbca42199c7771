/// The outcome of reading a manifest (``ManifestReader/read(_:limits:)``).
public struct ManifestReading: Sendable {
    /// The manifest, best-effort; nil when the bytes are not a JSON object of a known format version.
    public var manifest: Manifest?
    /// Every problem found: syntax, duplicate keys, fields and rules.
    public var findings: [Finding]
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
        let document: JSONDocument
        // Each waypoint is decoded as soon as it is parsed and its JSON let go: the tree of a
        // whole manifest of 20,000 assets was about twice the manifest's own size in memory.
        let stops = StreamedWaypoints()
        do {
            document = try JSONParser.parse(bytes, limits: limits, streaming: "waypoints") { i, value in
                if let w = ManifestDecoder.decodeWaypoint(
                    value, at: JSONPath.root.member("waypoints").element(i), reader: &stops.reader)
                {
                    stops.waypoints.append(w)
                }
            }
        } catch {
            return ManifestReading(
                manifest: nil,
                findings: [Finding(error.code.findingCode ?? .jsonSyntax, path: .root, "not valid JSON at \(error)")])
        }
        _ = consume bytes
        var findings = document.duplicateKeys.map(\.finding)
        let decoded = ManifestDecoder.decode(document.value, streamed: stops)
        findings += decoded.findings
        if let manifest = decoded.manifest {
            findings += ManifestValidator.validate(manifest, unreadable: decoded.unreadable)
        }
        return ManifestReading(manifest: decoded.manifest, findings: findings)
    }
}

/// The waypoints decoded while the manifest is parsed, and what was found in them.
final class StreamedWaypoints {
    var waypoints: [Waypoint] = []
    var reader = FieldReader()
}

extension JSONDuplicateKey {
    /// The duplicate as a `json.duplicate-key` finding.
    public var finding: Finding {
        Finding(
            .jsonDuplicateKey, path: path.member(key),
            "the key '\(key)' appears more than once in the same object (line \(line), column \(column)); keep one")
    }
}
