import TrailPackCore

/// What each page's template is given: one type per page (`Resources/templates/NAME.mustache`), and
/// the rows and parts they share. A field's name is the name the template looks up; an optional is
/// missing when nil (the template's section is skipped); the tests draw every page with every field set.

// MARK: parts several pages show

/// A draft as a link back to it.
struct DraftLinkView: Codable, Sendable {
    var name: String
    var path: String
}

/// A frame in degrees, as the page's forms and map read it ("44.123456").
struct FrameView: Codable, Sendable {
    var south: String
    var west: String
    var north: String
    var east: String

    init(south: String, west: String, north: String, east: String) {
        (self.south, self.west, self.north, self.east) = (south, west, north, east)
    }

    init(_ bounds: Bounds) {
        self.init(
            south: PanelController.degrees(bounds.southwest.latitude),
            west: PanelController.degrees(bounds.southwest.longitude),
            north: PanelController.degrees(bounds.northeast.latitude),
            east: PanelController.degrees(bounds.northeast.longitude))
    }
}

/// A finding in the `findings` partial's list.
struct FindingView: Codable, Sendable {
    var severity: String
    var mustFix: Bool
    var label: String
    var message: String
    var link: String
    var code: String
}

/// A finding's message beside the field it is about (`{{#fields.tour_name}}`), or beside a file.
struct FieldNoteView: Codable, Sendable {
    var message: String
    var mustFix: Bool
}

/// How complete a language is (not the default one), for its meter.
struct MeterView: Codable, Sendable {
    var tag: String
    var id: String
    var name: String
    var defaultName: String
    var summary: String
    var percent: Int
    var complete: Bool
    var bytes: String
    var missingCount: Int
    var missing: [String]
}

/// The language a page edits: its tag and name, and the default language's.
struct LanguageTabView: Codable, Sendable {
    var isDefault: Bool
    var tag: String
    var name: String
    /// Only on another language's tab.
    var title: String?
    var defaultName: String
    var defaultTag: String
}

/// The tabs that choose which language's texts a page edits.
struct LanguageTabsView: Codable, Sendable {
    struct Tab: Codable, Sendable {
        var tag: String
        var label: String
        var href: String
        var current: Bool
    }

    var hasTabs: Bool
    var tabs: [Tab]
}

/// An option of a list to choose from (a file's language, a role).
struct ChoiceView: Codable, Sendable {
    var value: String
    var label: String
    var selected: Bool
}

/// A tour's own offline map (or its site's region map), as the page's map draws it.
struct OwnMapView: Codable, Sendable {
    var url: String
    var minZoom: Int
    var maxZoom: Int
    var type: String
    var south: String
    var west: String
    var north: String
    var east: String
    /// The site's region map, not the tour's own.
    var isRegion = false

    var frame: FrameView { FrameView(south: south, west: west, north: north, east: east) }
}

/// Where a tour's newest version is in review (`PanelController.ReviewState`), for the list and the editor.
struct ReviewStateView: Codable, Sendable {
    var version: String
    var words: String
    var link: String
    var denied: Bool
    var reason: String?
    var deniedBy: String?
}

/// The `findings` partial's values: each finding with its link, the counts, the heading.
struct FindingsSection: PanelSection {
    var findings: [FindingView]
    var hasFindings: Bool
    var findingsHeading: String
    var errorCount: Int
    var warningCount: Int

    init(findings: [FindingView], heading: String) {
        self.findings = findings
        hasFindings = !findings.isEmpty
        findingsHeading = heading
        errorCount = findings.filter(\.mustFix).count
        warningCount = findings.count - errorCount
    }
}

/// A tour's route as a page shows it (`PanelController.routeView`): its numbers in words, the
/// elevation profile, the stages, and the line for the map.
struct RouteView: Codable, Sendable {
    struct Stage: Codable, Sendable {
        var name: String
        var from: String
        var to: String
        var length: String
    }

    /// "96.4 km (59.9 mi)".
    var length: String
    /// "1,571 m up and 843 m down (…ft…)"; nil without elevations.
    var climb: String?
    /// How many positions the line has, in words ("1,234").
    var points: String
    /// How many lines (a track recorded in parts, or cut at the antimeridian).
    var parts: Int
    var inParts: Bool
    /// The GPX file the draft's route came from.
    var importedFrom: String?
    var profile: ProfileView?
    var stages: [Stage]
    var hasStages: Bool
    /// `[[[lat, lon], …], …]` for the map's `data-route`.
    var mapLines: String
}

/// The elevation profile: SVG paths in a 600 × 100 box and its words.
struct ProfileView: Codable, Sendable {
    var line: String
    var area: String
    /// The whole profile in words (its text alternative).
    var words: String
    /// "climbs from 165 m to 1,452 m".
    var summary: String
    var highest: String
    var lowest: String
    /// "km 96.4": the distance at its right end.
    var end: String
}

// MARK: the pages

/// `error`: what went wrong.
struct ErrorPage: PanelView {
    static let template = "error"
    var message: String
    var status: Int
    /// An address that is no page (404): where to go instead, not "Back to the form".
    var lost = false
    var backLink = "/"
    var backLabel = "all tours"
}

/// `login`: the sign-in form, with a form kept through it (`resume`) when a session ended.
struct LoginPage: PanelView {
    static let template = "login"
    struct Resume: Codable, Sendable {
        var action: String
        var body: String
    }

    var next: String
    var error: String?
    var resume: Resume?
}

/// `confirm`: "Remove …?" asked by the server, for a removal sent without the page's script (which
/// asks in a dialog and sends `confirmed=yes`): the same form again, confirmed, or a way back.
struct ConfirmPage: PanelView {
    static let template = "confirm"
    var question: String
    /// What happens to the thing removed, and how to get it back.
    var detail: String
    var action: String
    var fields: [ResumePage.Field]
    var confirmLabel: String
    var back: String
    var backLabel: String
}

/// `resume`: after signing in again, what a kept form held, to save it with the new session.
struct ResumePage: PanelView {
    static let template = "resume"
    struct Field: Codable, Sendable {
        var name: String
        var value: String
    }
    struct Shown: Codable, Sendable {
        var label: String
        var value: String
    }

    var action: String
    var back: String
    var fields: [Field]
    var shown: [Shown]
    var hasShown: Bool
}

/// `home`: the tours being edited (a page of them), the search, and the forms that start a tour.
struct HomePage: PanelView {
    static let template = "home"
    struct Row: Codable, Sendable {
        var name: String
        var site: String
        var link: String
        var stops: Int
        var modified: String
        var review: ReviewStateView?
    }
    struct Site: Codable, Sendable {
        var id: String
        var name: String
    }
    struct Pager: Codable, Sendable {
        var number: Int
        var count: Int
        var previous: String?
        var next: String?
    }
    /// A draft deleted in the last week, with its "Bring back" form.
    struct DeletedRow: Codable, Sendable {
        var name: String
        var site: String
        var action: String
        var aside: String
        var deleted: String
    }

    var drafts: [Row]
    var hasDrafts: Bool
    var sites: [Site]
    var hasSites: Bool
    var canEdit: Bool
    var isAdmin: Bool
    var draftCount: Int
    var query: String
    var matching: Int
    var searched: Bool
    /// Only when there is more than one page.
    var pager: Pager?
    var searchable: Bool
    var deleted: [DeletedRow] = []
    var hasDeleted = false
    var notice: String?
}

/// `editor`: a tour's page (map, stops, languages, details, build).
struct EditorPage: PanelView {
    static let template = "editor"
    struct Draft: Codable, Sendable {
        var name: String
        var park: String
        var siteID: String
        var siteName: String
        var id: String
        var version: String
        var description: String
        var path: String
    }
    struct Stop: Codable, Sendable {
        var number: Int
        var name: String
        var link: String
        var latitude: String
        var longitude: String
        var notFirst: Bool
        var notLast: Bool
        /// The stop's files in words ("1 file").
        var files: String
        /// Its findings that must be fixed before review, and those to check (warnings).
        var toFix: Int
        var hasToFix: Bool
        var toCheck: Int
        var hasToCheck: Bool
        var action: String
        var untranslated: Int
        var hasUntranslated: Bool
        /// "km 14.0 along the route (mile 8.7)", when the tour has a route.
        var along: String? = nil
    }
    /// A field's value as the page showed it (`was-NAME`), to merge a save field by field.
    /// A stop removed earlier, with "Bring back".
    struct RemovedStop: Codable, Sendable {
        var n: Int
        var aside: String
        var name: String
        var number: Int
        var ago: String
    }
    struct Was: Codable, Sendable {
        var field: String
        var value: String
    }
    struct Language: Codable, Sendable {
        var tag: String
        var id: String
        var label: String
        var name: String
        var isDefault: Bool
        var meter: MeterView?
        var translate: String
        var canRemove: Bool
    }
    struct Suggestion: Codable, Sendable {
        var tag: String
        var title: String
    }
    struct Texts: Codable, Sendable {
        var name: String
        var park: String
        var description: String
    }

    var draft: Draft
    var revision: String
    var stops: [Stop]
    var hasStops: Bool
    var removedStops: [RemovedStop] = []
    var hasRemovedStops = false
    var mapStops: String
    var was: [Was]
    var fields: [String: [FieldNoteView]]
    var followStops: Bool
    var proposedVersion: String
    var review: ReviewStateView?
    var languageSection: DraftsController.LanguageValues
    var findingsSection: FindingsSection
    var frame: FrameView?
    /// Where the map opens when the tour has no frame: around the site's other tours, or its region map.
    var view: FrameView?
    var notice: String?
    var languageProblem: String?
    var ownMap: OwnMapView?
    var route: RouteView?
    /// Why the last track was not added (said beside the form).
    var routeProblem: String?
    /// The largest track file, in words ("64.0 MB"), and in bytes for the page's script.
    var maxTrack = ""
    var maxTrackBytes: Int64 = 0
}

/// `stop`: one stop's page (texts, details, files, uploads).
struct StopPage: PanelView {
    static let template = "stop"
    struct Stop: Codable, Sendable {
        var number: Int
        var name: String
        var description: String
        var waiver: String
        /// The note for rangers only (never packaged).
        var rangerNote = ""
        var latitude: String
        var longitude: String
        var action: String
        var tabName: String
        var tabDescription: String
    }
    /// A detail: the ranger's name for it, its value, and the key the apps read when that differs.
    struct Property: Codable, Sendable {
        var key: String
        var value: String
        var derived: String?
        var n: Int
    }
    struct Caption: Codable, Sendable {
        var file: String
        var selected: Bool
    }
    struct File: Codable, Sendable {
        var n: Int
        var file: String
        var url: String
        var isImage: Bool
        var isAudio: Bool
        var isVideo: Bool
        var title: String
        var alt: String
        var transcript: String
        var sourceTitle: String
        var sourceAlt: String
        var sourceTranscript: String
        var size: String
        var captionChoices: [Caption]
        var hasCaptionChoices: Bool
        var notes: [FieldNoteView]
        var shared: Bool
        var inTab: Bool
        var elsewhere: Bool
        var fileLanguage: String
        var languageName: String
        var inOtherLanguage: Bool
        var languageFromName: Bool
        var languageChoices: [ChoiceView]
    }

    var draft: DraftLinkView
    var revision: String
    var stopRevision: String
    var stop: Stop
    var properties: [Property]
    var files: [File]
    var hasFiles: Bool
    var otherFiles: String
    var hasOtherFiles: Bool
    var fallbackFiles: String
    var hasFallbackFiles: Bool
    var fields: [String: [FieldNoteView]]
    var maxUpload: String
    var notice: String?
    var onDefaultTab: Bool
    var tab: LanguageTabView
    var hasLanguages: Bool
    var uploadLanguages: [ChoiceView]
    var tabs: LanguageTabsView
    var findingsSection: FindingsSection
    /// Files removed from this stop, with "Bring back".
    struct RemovedFile: Codable, Sendable {
        var n: Int
        var removed: String
        var file: String
        var ago: String
    }
    var removedFiles: [RemovedFile] = []
    var hasRemovedFiles = false
}

/// `translate`: the default language on the left, another on the right, for the tour and each stop.
struct TranslatePage: PanelView {
    static let template = "translate"
    /// One text (the `translateRow` partial).
    struct Row: Codable, Sendable {
        var id: String
        var label: String
        var source: String
        var hasSource: Bool
        var value: String
        var long: Bool
        var rows: Int
        var missing: Bool
    }
    struct Stop: Codable, Sendable {
        var number: Int
        var name: String
        var rows: [Row]
        var files: String
        var hasFiles: Bool
        var gaps: [String]
        var link: String
    }
    struct Other: Codable, Sendable {
        var title: String
        var link: String
    }

    var draft: DraftLinkView
    var revision: String
    var tab: LanguageTabView
    var tour: [Row]
    var stops: [Stop]
    var action: String
    var others: [Other]
    var hasOthers: Bool
    var meter: MeterView?
    var notice: String?
}

/// `built`: what building a version gave (or why it was not built), and after a review was requested.
struct BuiltPage: PanelView {
    static let template = "built"
    struct Gap: Codable, Sendable {
        var message: String
        var link: String
    }

    var draft: DraftLinkView
    var built: Bool
    var message: String
    var version: String?
    var sha256: String?
    var size: String?
    var status: String?
    var scan: String?
    var seconds: String?
    var canRequestReview = false
    /// Request review is shown disabled, with the findings that block it.
    var reviewBlocked = false
    /// Why Request review was just refused (a redirect back here after the form).
    var problem: String?
    var released = false
    var gaps: [Gap] = []
    var hasGaps = false
    var findingsSection: FindingsSection?

    init(draft: DraftLinkView, built: Bool, message: String, findings: FindingsSection? = nil) {
        (self.draft, self.built, self.message, findingsSection) = (draft, built, message, findings)
    }
}

/// `admin`: people, their roles, sites and tokens; the sites with their frames and region maps.
struct AdminPage: PanelView {
    static let template = "admin"
    struct Person: Codable, Sendable {
        struct Grant: Codable, Sendable {
            var site: String
            var user: String
        }
        struct Token: Codable, Sendable {
            var id: String
            var created: String
        }

        var name: String
        var role: String
        var slug: String
        var isSelf: Bool
        var signingKey: Bool
        var email: String
        var isPublisher: Bool
        var roles: [ChoiceView]
        var grants: [Grant]
        var hasGrants: Bool
        var tokens: [Token]
    }
    struct Site: Codable, Sendable {
        var id: String
        var name: String
        var packages: Int
        var frame: FrameView?
        var regionMap: String?
    }
    struct Publisher: Codable, Sendable {
        var name: String
    }
    struct Role: Codable, Sendable {
        var value: String
        var label: String
    }
    /// A token just issued: shown this once.
    struct Issued: Codable, Sendable {
        var user: String
        var token: String
        var id: String
    }

    var people: [Person]
    var sites: [Site]
    var hasSites: Bool
    var publishers: [Publisher]
    var roles: [Role]
    var issued: Issued?
    var notice: String?
}

/// `reviews`: the versions waiting for review (a publisher's own, in every state before release).
struct ReviewsPage: PanelView {
    static let template = "reviews"
    struct Row: Codable, Sendable {
        var name: String
        var site: String
        var version: String
        var publisher: String
        var since: String
        var approvals: Int
        var required: Int
        var scan: String
        var status: String
        var link: String
        var mine: Bool
    }

    var rows: [Row]
    var hasRows: Bool
    var isPublisher: Bool
}

/// An approval of a version.
struct ApprovalView: Codable, Sendable {
    var reviewer: String
    var at: String
    var signed: Bool
}

/// What changed between two versions, in words (the `changes` partial, inside `{{#diff}}`).
struct DiffView: Codable, Sendable {
    /// A run of words of a changed text.
    struct Words: Codable, Sendable {
        var text: String
        var same: Bool
        var added: Bool
        var removed: Bool
    }
    struct Stop: Codable, Sendable {
        var title: String
        var lines: [String]
        var hasLines: Bool
        var words: [Words]
        var hasWords: Bool
        var kind: String
    }
    struct Tour: Codable, Sendable {
        var field: String
        var old: String
        var new: String
        var words: [Words]
        var hasWords: Bool
    }
    struct Translation: Codable, Sendable {
        var place: String
        var old: String
        var new: String
        var words: [Words]
        var hasWords: Bool
        var added: Bool
        var removed: Bool
        var changed: Bool
    }
    struct Language: Codable, Sendable {
        var tag: String
        var id: String
        var title: String
        var changes: [Translation]
        var count: Int
    }

    var firstRelease: Bool
    var against: String
    var hasChanges: Bool
    var stops: [Stop]
    var tour: [Tour]
    var other: [String]
    var hasOther: Bool
    var byLanguage: [Language]
    var hasByLanguage: Bool
    var count: Int
    /// Compared with the bytes this very version held before it was built again under its number.
    var sameNumber = false
}

/// `review`: one stored version, for its reviewers and its publisher: state, changes, map, stops, decisions.
struct ReviewPage: PanelView {
    static let template = "review"
    struct Finding: Codable, Sendable {
        var severity: String
        var code: String
        var message: String
        var file: String?
    }
    struct Denial: Codable, Sendable {
        var by: String
        var at: String
        var reason: String
    }
    struct Translated: Codable, Sendable {
        var tag: String
        var title: String
        var name: String
        var description: String
    }
    struct AssetTexts: Codable, Sendable {
        var tag: String
        var name: String
        var lines: [String]
    }
    struct Asset: Codable, Sendable {
        var language: String?
        var translatedTexts: [AssetTexts]
        var srclang: String
        var path: String
        var url: String
        var title: TextOrFalse
        var size: String
        var isImage: Bool
        var isAudio: Bool
        var isVideo: Bool
        var isOther: Bool
        /// Also the image's `alt` (empty when there is none).
        var alt: String?
        var transcript: String?
        var captions: String?
        var missingText: Bool
    }
    struct Stop: Codable, Sendable {
        var translated: [Translated]
        var hasTranslated: Bool
        var number: Int
        var name: String
        var description: String
        var latitude: String
        var longitude: String
        var waiver: String?
        var hasWaiver: Bool
        var changed: Bool
        var added: Bool
        /// "km 14.0 along the route (mile 8.7)", when the version has a route.
        var along: String? = nil
        var assets: [Asset]
    }
    struct Coverage: Codable, Sendable {
        var zoom: Int
        var tiles: Int
        var present: Int
        var percent: String
        var missing: String
        var complete: Bool
    }

    var id: String
    var version: String
    var name: String
    var site: String
    var status: String
    var statusCode: String
    var publisher: String
    var uploaded: String
    var sha256: String
    var size: String
    var bytes: Int64
    var scan: String
    var scanHeld: Bool
    var approvalCount: Int
    var required: Int
    var approvals: [ApprovalView]
    var action: String
    var history: String
    var visitorPreview: String
    var canJudge: Bool
    var canAddSignature: Bool
    var canApprove: Bool
    var canRelease: Bool
    var canRequest: Bool
    var canWithdraw: Bool
    var fileName: String
    var findings: [Finding]
    var verified: Bool
    var hasReport: Bool
    var denial: Denial?
    var notice: String?
    var diff: DiffView
    /// What changed since the version that was sent back, when one was.
    var sinceDenied: DiffView?
    var hasLanguages = false
    var languageNames = ""
    var requireAll = false
    var baseSize = ""
    var baseName = ""
    var meters: [MeterView] = []
    var stops: [Stop] = []
    var mapStops = ""
    var hasCoverage = false
    var coverage: [Coverage] = []
    var mapPath = ""
    var mapType = ""
    var mapMinZoom = 0
    var mapMaxZoom = 0
    var ownMap: OwnMapView?
    var frame: FrameView
    var route: RouteView?
}

/// `history`: a tour's stored versions and what happened to them.
struct HistoryPage: PanelView {
    static let template = "history"
    struct Row: Codable, Sendable {
        var version: String
        var status: String
        var uploaded: String
        var publisher: String
        var sha256: String
        var size: String
        var link: String
        var approvals: [ApprovalView]
        var released: Bool
        var download: String
        var signatures: String
    }
    /// A line of the audit log.
    struct Event: Codable, Sendable {
        var at: String
        var actor: String
        var action: String
        var version: String?
        var detail: String?
    }

    var id: String
    var rows: [Row]
    var timeline: [Event]
}

/// `columns`: which column of an imported spreadsheet holds what.
struct ColumnsPage: PanelView {
    static let template = "columns"
    struct Option: Codable, Sendable {
        var header: String
        var selected: Bool
    }
    struct Role: Codable, Sendable {
        var role: String
        var label: String
        var options: [Option]
    }
    struct SampleRow: Codable, Sendable {
        var cells: [String]
    }

    var roles: [Role]
    var fileName: String
    var site: String
    var action: String
    var headers: String
    var problems: [String]
    var hasProblems: Bool
    var sampleHeaders: [String]
    var sample: [SampleRow]
}

/// `notifications`: what needs the signed-in person (versions sent back, versions ready to release).
struct NotificationsPage: PanelView {
    static let template = "notifications"
    struct Notice: Codable, Sendable {
        var words: String
        var link: String
        var reason: String?
    }

    var notices: [Notice]
    var hasNotices: Bool
    var reviewCount: Int
    var hasReviews: Bool
}
