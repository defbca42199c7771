import Mustache

/// What one page shows, as a type: the template draws it (`{{message}}` is the `message` field,
/// `{{#stops}}` goes through an array, an optional that is nil is missing). Each page's type names
/// its template, so a page cannot be drawn with another page's values.
protocol PanelView: Codable, Sendable {
    /// The template that draws it: `Resources/templates/NAME.mustache`, registered in `PanelPages`.
    static var template: String { get }
}

/// What the layout around every page shows: the title, the signed-in person, the assets' version.
struct PanelLayout: Codable, Sendable {
    /// The signed-in person, in the navigation bar.
    struct User: Codable, Sendable {
        var name: String
        var role: String
        var reviewCount: ShownCount
        var noticeCount: ShownCount
        var isAdmin: Bool
    }

    var title: String
    /// The page draws a map: Leaflet's style sheet and script are linked.
    var map: Bool
    var assetVersion = PanelAssets.version
    var tileURL: String?
    var tileAttribution: String?
    var user: User?
    var csrf: String?
}

/// A part several pages show, built once: its fields are read by the templates as the page's own
/// (`{{findingsHeading}}`, not `{{findingsSection.findingsHeading}}`), so a page holds the part
/// instead of a copy of each of its fields. A page's own field of the same name comes first.
protocol PanelSection: Codable, Sendable {}

/// A number shown only above zero, a badge's: at zero it is `false` to the template, so a section over
/// it is skipped and the name does not fall through to a value of the same name further out (which a
/// nil optional would).
struct ShownCount: MustacheCustomRepresentation, Codable, Sendable {
    var count: Int
    init(_ count: Int) { self.count = count }
    var representation: Any? { count > 0 ? count : false }
}

/// The object a page's template is drawn with: the layout's names (`title`, `user`, `csrf`, …),
/// then the page's own, so templates say `{{message}}`, not `{{body.message}}`. The tests check
/// that no page type has a field of the layout's names.
struct PageContext<Body: PanelView>: MustacheParent, Sendable {
    var layout: PanelLayout
    var body: Body

    func child(named name: String) -> Any? {
        Self.field(name, of: layout) ?? Self.field(name, of: body) ?? Self.sectionField(name, of: body)
    }

    /// A name found in one of the page's sections (`PanelSection`), read as the page's own.
    static func sectionField(_ name: String, of body: Body) -> Any? {
        for child in Mirror(reflecting: body).children {
            guard let section = unwrapped(child.value) as? any PanelSection else { continue }
            if let found = field(name, of: section) { return found }
        }
        return nil
    }

    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional ? mirror.children.first?.value : value
    }

    /// A stored property by name, as swift-mustache reads one (an optional unwrapped; nil: missing).
    static func field(_ name: String, of value: Any) -> Any? {
        guard let found = Mirror(reflecting: value).children.first(where: { $0.label == name })?.value else {
            return nil
        }
        let mirror = Mirror(reflecting: found)
        guard mirror.displayStyle == .optional else { return found }
        return mirror.children.first?.value
    }
}

/// A text that is `false` to the template when there is none (nil or empty): a section over it is
/// skipped, and the name does not fall through to a field of the same name further out, as a nil
/// optional would (an untitled file's `title` would find the page's).
struct TextOrFalse: MustacheCustomRepresentation, Codable, Sendable {
    var text: String?
    init(_ text: String?) { self.text = text?.isEmpty == false ? text : nil }
    var representation: Any? { text ?? false }
}
