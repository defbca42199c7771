import TrailPackCore

/// The text `trailpack init` writes for the ranger to replace, and the check that it was replaced.
extension TourInit {
    /// Template text (kept in TrailPackCore's `TemplateText`, where a server can check a manifest).
    public typealias Placeholder = TemplateText

    /// `tour.json` as `init` writes it. No `bounds`: the builder encloses the waypoints with a
    /// margin, so moving a stop never puts it outside a frame the ranger did not draw.
    public static func templateTour(slug: String, name: String?) -> JSONValue {
        .object([
            "id": .string(Placeholder.idPrefix + slug),
            "version": .string("1"),
            "name": .string(name ?? Placeholder.tourName),
            "park": .string(Placeholder.park),
            "site": .object(["id": .string(Placeholder.siteID), "name": .string(Placeholder.siteName)]),
            "mapName": .string(slug),
            "description": .string(Placeholder.tourDescription),
        ])
    }

    /// Template text still in a tour: one warning per field, naming the file and what to write.
    public static func placeholderFindings(_ source: TourSource) -> [Finding] {
        var findings: [Finding] = []
        let tour = source.tour
        func note(_ file: String, _ path: JSONPath, _ what: String, _ fix: String) {
            findings.append(
                Finding(
                    .sourcePlaceholder, file: file, path: path,
                    "\(what) is still the template's text; \(fix) (trailpack sign refuses a package with template text)"
                ))
        }
        let tourFile = TourSource.tourFileName, top = JSONPath.root
        if tour.id.hasPrefix(Placeholder.idPrefix) {
            note(
                tourFile, top.member("id"), "the id '\(tour.id)'",
                "write your agency's web domain reversed and the tour, such as gov.usda.fs.willamette.\(tour.id.dropFirst(Placeholder.idPrefix.count))"
            )
        }
        if tour.name == Placeholder.tourName {
            note(
                tourFile, top.member("name"), "the name '\(tour.name)'", "write the tour's name as visitors will see it"
            )
        }
        if tour.park == Placeholder.park {
            note(tourFile, top.member("park"), "the park '\(tour.park)'", "write the park or forest")
        }
        if tour.site.id == Placeholder.siteID {
            note(
                tourFile, top.member("site").member("id"), "the site id '\(tour.site.id)'",
                "write your district's id, such as mckenzie-river-district")
        }
        if tour.site.name == Placeholder.siteName {
            note(
                tourFile, top.member("site").member("name"), "the site name '\(tour.site.name)'",
                "write your district's name")
        }
        if tour.description == Placeholder.tourDescription {
            note(tourFile, top.member("description"), "the tour's description", "describe the tour for visitors")
        }
        for w in source.waypoints where TemplateText.isStopDescription(w.description) {
            note(
                w.folder + "/" + TourSource.waypointFileName, top.member("description"),
                "the description of '\(w.name)'", "write what visitors should know at this stop")
        }
        return findings
    }

    /// The fields of a package's manifest that still hold template text: `trailpack sign` refuses such a package.
    public static func placeholderFields(in manifest: Manifest) -> [String] { TemplateText.fields(in: manifest) }
}
