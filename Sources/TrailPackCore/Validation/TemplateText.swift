/// The text `trailpack init` writes for a ranger to replace, and the check that it was replaced.
///
/// `validate` and `build` warn while any of it is left (`source.placeholder`); `trailpack sign`
/// refuses such a package, and a server should refuse to publish one (`fields(in:)`).
public enum TemplateText {
    /// How the template's package id starts (`org.example.<folder>`).
    public static let idPrefix = "org.example."
    /// The template's tour name.
    public static let tourName = "My Tour"
    /// The template's park.
    public static let park = "Example National Forest"
    /// The template's site id.
    public static let siteID = "example-ranger-district"
    /// The template's site name.
    public static let siteName = "Example Ranger District"
    /// The template's tour description.
    public static let tourDescription = "Describe the tour for visitors: what they will see, how long it takes."
    /// The description of a stop imported without one.
    public static let stopDescription = "Write a sentence about this stop."
    /// The description of the template's example stop.
    public static let exampleStopDescription = "Welcome! Replace this text with what visitors should know at this stop."

    /// Whether a stop's description is the template's.
    public static func isStopDescription(_ text: String) -> Bool {
        text == stopDescription || text == exampleStopDescription
    }

    /// The fields of a manifest that still hold template text (`id`, `name`, …), empty when none do.
    public static func fields(in manifest: Manifest) -> [String] {
        var fields: [String] = []
        if manifest.id.hasPrefix(idPrefix) { fields.append("id") }
        if manifest.name == tourName { fields.append("name") }
        if manifest.park == park { fields.append("park") }
        if manifest.site.id == siteID { fields.append("site.id") }
        if manifest.site.name == siteName { fields.append("site.name") }
        if manifest.description == tourDescription { fields.append("description") }
        for w in manifest.waypoints where isStopDescription(w.description) {
            fields.append("the description of '\(w.name)'")
        }
        return fields
    }
}
