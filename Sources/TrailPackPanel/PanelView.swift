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
/// then the page's own, then its sections' (`PanelSection`), so templates say `{{message}}`, not
/// `{{body.message}}`. The tests check that no page type has a field of the layout's names.
///
/// The names are found once, when the context is made: a template asks the page for a name every
/// time a lookup inside a row falls through to it, and reflecting on the layout, the page and its
/// sections for each such lookup was most of a page's time (20–30 ms for a tour's editor).
struct PageContext<Body: PanelView>: MustacheParent, @unchecked Sendable {
    /// Every name the page answers, with its value (nil optionals left out, so the name is missing);
    /// the first of the layout, the page and its sections in that order wins. `@unchecked Sendable`:
    /// the values are the fields of the layout and the page, both Sendable, read and never changed.
    private let names: [String: Any]

    init(layout: PanelLayout, body: Body) {
        var names: [String: Any] = [:]
        Self.addFields(of: layout, to: &names)
        Self.addFields(of: body, to: &names)
        for section in Self.sections(of: body) { Self.addFields(of: section, to: &names) }
        self.names = names
    }

    func child(named name: String) -> Any? { names[name] }

    /// Adds `value`'s stored properties that are not nil, as swift-mustache reads one (an optional
    /// unwrapped), under names not already taken.
    private static func addFields(of value: Any, to names: inout [String: Any]) {
        for child in Mirror(reflecting: value).children {
            guard let label = child.label, names[label] == nil, let found = unwrapped(child.value) else { continue }
            names[label] = found
        }
    }

    /// The page's parts several pages show (`PanelSection`), in the order of its fields.
    static func sections(of body: Body) -> [any PanelSection] {
        Mirror(reflecting: body).children.compactMap { unwrapped($0.value) as? any PanelSection }
    }

    /// The value an optional holds (nil when it holds none); any other value as it is.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional ? mirror.children.first?.value : value
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
