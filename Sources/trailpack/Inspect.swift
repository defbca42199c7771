import ArgumentParser
import Foundation
import TrailPackBuilder
import TrailPackCore
import TrailPackVerifier

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show the tour, waypoints and assets in a package.",
        usage: "trailpack inspect <package> [--language TAG] [--json | --geojson]",
        discussion: """
            The ZIP structure and the manifest are checked first (not every asset's bytes: use \
            'trailpack verify' for that). --geojson writes a FeatureCollection that opens in QGIS or \
            geojson.io: the waypoints as points with their properties, the bounds as a polygon. \
            A tour in several languages lists them with how much of each is translated and what a \
            phone needs for each; --language shows the tour as a visitor reading that language gets it \
            (texts and files, and what falls back to the default language).

            Examples:
              trailpack inspect santiam.zip
              trailpack inspect santiam.zip --geojson > santiam.geojson
              trailpack inspect santiam.zip --language es

            Exit codes: 0 shown, 1 the package is not valid, 2 usage error, 3 the file cannot be read.
            """)

    @Argument(help: "The package (.zip).")
    var package: String

    @Flag(help: "Print the manifest and totals as JSON.")
    var json = false

    @Flag(help: "Print a GeoJSON FeatureCollection.")
    var geojson = false

    @Option(
        help: ArgumentHelp("Show the tour as a visitor reading this language gets it (a BCP 47 tag).", valueName: "tag")
    )
    var language: String?

    func validate() throws {
        if json && geojson { throw ValidationError("give --json or --geojson, not both") }
        if let language, !LanguageTag.isWellFormed(language) {
            let hyphen = language.replacingOccurrences(of: "_", with: "-")
            let hint =
                LanguageTag.isWellFormed(hyphen) ? "; write '\(hyphen)'" : "; write one such as 'en', 'es' or 'es-419'"
            throw ValidationError("--language '\(language)' is not a language tag\(hint)")
        }
        if language != nil && geojson { throw ValidationError("--language shows texts; it does not go with --geojson") }
    }

    func run() throws {
        let reader = try CLI.openPackage(package)
        let m = reader.manifest
        let route: Route?
        do { route = try reader.route() } catch {
            CLI.printFindings(error.findings, to: .standardError)
            throw CLIError(code: .invalid, message: "the package's route is damaged; run 'trailpack verify \(package)'")
        }
        let total = m.assetBytes
        if let language {
            try showLocalized(m, language: language)
            return
        }
        if geojson {
            CLI.printJSON(GeoJSON.featureCollection(m, route: route))
        } else if json {
            Report.print(
                ok: true, findings: [],
                JSONValue.object([
                    "manifest": m.jsonValue,
                    "totals": Self.totalsJSON(m),
                    "languages": .array(Self.languagesJSON(m)),
                    "route": route.map(Self.routeJSON) ?? .null,
                ]).members)
        } else {
            // Every text from the package is escaped: names cannot reach the terminal as control codes.
            let e = TerminalText.escaped
            var out = """
                \(e(m.name))
                  id        \(m.id)
                  version   \(m.version)
                  park      \(e(m.park))
                  site      \(e(m.site.name)) (\(m.site.id))
                \(Self.languageLines(m))  map       \(e(m.mapName)), bounds \(m.bounds.southwest.latitude),\(m.bounds.southwest.longitude) to \(m.bounds.northeast.latitude),\(m.bounds.northeast.longitude)\(m.bounds.crossesAntimeridian ? " (crosses the antimeridian)" : "")

                """
            if let route { out += Self.routeLines(route, manifest: m) }
            let along = Dictionary(
                (route?.summary.stops ?? []).map { ($0.slug, $0.distanceMetres) }, uniquingKeysWith: { a, _ in a })
            for w in m.waypoints.sorted(by: { $0.order < $1.order }) {
                let km = along[w.slug].map { String(format: "  km %.1f", $0 / 1000) } ?? ""
                out += "  \(w.order). \(e(w.name))  (\(w.coordinate.latitude), \(w.coordinate.longitude))\(km)\n"
                for p in w.properties { out += "       \(e(p.key)): \(e(p.value.displayText))\n" }
                for a in w.assets {
                    let tag = a.language.map { "  [\(e($0))]" } ?? ""
                    out += "       \(e(a.path))  \(a.kind.rawValue)  \(Format.bytes(a.size))\(tag)\n"
                }
            }
            for a in m.mapAssets { out += "  map: \(e(a.path))  \(Format.bytes(a.size))\n" }
            out += "  total: \(m.waypoints.count) waypoints, \(m.assetCount) assets, \(Format.bytes(total))\n"
            CLI.out(out)
        }
    }

    /// The route's lines of the report: length, climbs, points, stages.
    static func routeLines(_ route: Route, manifest m: Manifest) -> String {
        let s = route.summary
        var out = "  route     \(Format.kilometres(s.lengthMetres))"
        if let up = s.ascentMetres, let down = s.descentMetres {
            out += ", \(Format.whole(up)) m up, \(Format.whole(down)) m down"
        }
        out += " (\(route.positionCount) points\(route.lines.count > 1 ? " in \(route.lines.count) lines" : ""))\n"
        let names = Dictionary(m.waypoints.map { ($0.slug, $0.name) }, uniquingKeysWith: { a, _ in a })
        for stage in route.stages {
            let e = TerminalText.escaped
            out +=
                "  stage     \(e(stage.name)): \(e(names[stage.from] ?? stage.from)) to \(e(names[stage.to] ?? stage.to)), \(Format.kilometres(stage.lengthMetres))\n"
        }
        return out
    }

    /// The route for `--json`: its numbers and stages (its line is in the package, and in `--geojson`).
    static func routeJSON(_ route: Route) -> JSONValue {
        guard case .object(var members) = RouteFile.properties(route) else { return .null }
        members.insert(JSONMember("path", .string(Route.entryName)), at: 0)
        members.append(JSONMember("points", .number(JSONNumber(Int64(route.positionCount)))))
        members.append(JSONMember("lines", .number(JSONNumber(Int64(route.lines.count)))))
        return .object(members)
    }

    /// The languages line and, per language but the default, its completeness and phone budget; empty
    /// for a tour in one unnamed language.
    ///
    /// `bytes`: what a phone needs for a visitor of a language (`m.bytes(for:)` unless given: a
    /// build's plan counts them from its files, its outline holding only some of its assets).
    static func languageLines(_ m: Manifest, labelWidth: Int = 10, bytes: ((String?) -> Int64)? = nil) -> String {
        guard let base = m.defaultLanguage else { return "" }
        let bytes = bytes ?? m.bytes(for:)
        let e = TerminalText.escaped
        let indent = String(repeating: " ", count: 2 + labelWidth)
        var out = "  " + "languages".padding(toLength: labelWidth, withPad: " ", startingAt: 0)
        out += m.languages.map { e(LanguageTag.describe($0)) }.joined(separator: ", ")
        out += "; the default is \(e(base))\(m.requireAllLanguages ? ", every language required" : "")\n"
        out += indent + "\(e(base)): \(Format.bytes(bytes(base))) on a phone\n"
        for c in m.completeness {
            out += indent + "\(e(c.language)): \(c.percent)% translated (\(c.translatedTexts) of \(c.texts) texts"
            if c.files > 0 { out += ", \(c.translatedFiles) of \(c.files) recordings and documents" }
            out += "), \(Format.bytes(bytes(c.language))) on a phone\n"
        }
        return out
    }

    /// The waypoint and asset counts and the assets' bytes.
    static func totalsJSON(_ m: Manifest) -> JSONValue {
        .object([
            "waypoints": .number(JSONNumber(Int64(m.waypoints.count))),
            "assets": .number(JSONNumber(Int64(m.assetCount))),
            "assetBytes": .number(JSONNumber(m.assetBytes)),
        ])
    }

    /// The languages as JSON: tag, whether default, and for the others the completeness.
    static func languagesJSON(_ m: Manifest, bytes: ((String?) -> Int64)? = nil) -> [JSONValue] {
        let bytes = bytes ?? m.bytes(for:)
        let completeness = Dictionary(m.completeness.map { ($0.language, $0) }, uniquingKeysWith: { a, _ in a })
        return m.languages.map { tag in
            var members: [JSONMember] = [
                JSONMember("tag", .string(tag)),
                JSONMember("name", LanguageTag.englishName(tag).map(JSONValue.string) ?? .null),
                JSONMember("default", .bool(tag == m.defaultLanguage)),
                JSONMember("phoneBytes", .number(JSONNumber(bytes(tag)))),
            ]
            if let c = completeness[tag] {
                members += [
                    JSONMember("texts", .number(JSONNumber(Int64(c.texts)))),
                    JSONMember("translatedTexts", .number(JSONNumber(Int64(c.translatedTexts)))),
                    JSONMember("files", .number(JSONNumber(Int64(c.files)))),
                    JSONMember("translatedFiles", .number(JSONNumber(Int64(c.translatedFiles)))),
                    JSONMember("missing", .array(c.missing.map { .string($0.description) })),
                ]
            }
            return .object(members)
        }
    }

    /// The tour as a visitor reading `language` gets it.
    func showLocalized(_ m: Manifest, language: String) throws {
        let tour = m.localized(for: language)
        if json {
            func asset(_ a: LocalizedAsset) -> JSONValue {
                var members: [JSONMember] = [
                    JSONMember("path", .string(a.asset.path)), JSONMember("kind", .string(a.asset.kind.rawValue)),
                ]
                if let l = a.asset.language { members.append(JSONMember("language", .string(l))) }
                for (key, value) in [
                    ("title", a.title), ("alt", a.alt), ("transcript", a.transcript), ("captions", a.captions),
                ] {
                    if let value { members.append(JSONMember(key, .string(value))) }
                }
                return .object(members)
            }
            let localized = JSONValue.object([
                "asked": .string(language),
                "language": tour.language.map(JSONValue.string) ?? .null,
                "name": .string(tour.name), "park": .string(tour.park), "description": .string(tour.description),
                "stops": .array(
                    tour.stops.map { s in
                        .object([
                            "order": .number(JSONNumber(Int64(s.waypoint.order))),
                            "name": .string(s.name), "description": .string(s.description),
                            "assets": .array(s.assets.map(asset)),
                        ])
                    }),
                "fallbacks": .array(tour.fallbacks.map { .string($0.description) }),
            ])
            Report.print(
                ok: true, findings: [],
                [
                    JSONMember("manifest", m.jsonValue), JSONMember("totals", Self.totalsJSON(m)),
                    JSONMember("languages", .array(Self.languagesJSON(m))), JSONMember("localized", localized),
                ])
            return
        }
        let e = TerminalText.escaped
        var out = ""
        guard let chosen = tour.language else {
            CLI.out("The tour declares no languages: every visitor gets the same texts.\n\n")
            try Inspect.parse([package]).run()
            return
        }
        if chosen.lowercased() != language.lowercased() {
            out +=
                "(The tour has no \(e(LanguageTag.describe(language))); a visitor who reads it gets \(e(LanguageTag.describe(chosen))).)\n"
        }
        out += "\(e(tour.name))  — as a visitor reading \(e(LanguageTag.describe(chosen))) gets it\n"
        out += "  park      \(e(tour.park))\n"
        out +=
            "  phone     \(Format.bytes(m.bytes(for: chosen))) for this language (the package holds every language)\n\n"
        out += "  \(e(tour.description))\n\n"
        for s in tour.stops.sorted(by: { $0.waypoint.order < $1.waypoint.order }) {
            out += "  \(s.waypoint.order). \(e(s.name))\n"
            out += "     \(e(s.description))\n"
            for a in s.assets {
                var line = "       \(e(a.asset.path))  \(a.asset.kind.rawValue)"
                if let l = a.asset.language { line += "  [\(e(l))]" }
                if let t = a.title { line += "  \"\(e(t))\"" }
                out += line + "\n"
                if let alt = a.alt { out += "         alt: \(e(alt))\n" }
                if let transcript = a.transcript { out += "         transcript: \(e(transcript))\n" }
                if let captions = a.captions { out += "         captions: \(e(captions))\n" }
            }
        }
        if tour.fallbacks.isEmpty {
            out += "\nEverything is in \(e(LanguageTag.describe(chosen))).\n"
        } else {
            out += "\nIn \(e(LanguageTag.describe(m.defaultLanguage ?? ""))) instead (no \(e(chosen)) given): "
            out += tour.fallbacks.map { e($0.description) }.joined(separator: "; ") + "\n"
        }
        CLI.out(out)
    }
}
