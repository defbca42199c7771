import Mustache

/// The panel's pages: swift-mustache templates in `Resources/templates/NAME.mustache`, compiled into
/// the program (SwiftPM's `embedInCode`: no resource bundle to find at run time, so a copied binary
/// serves the same pages). `{{ }}` escapes (never `{{{ }}}`: everything shown may be typed by a user).
/// No inline script or event attribute: the Content-Security-Policy forbids them. Forms work without
/// JavaScript; the modules in `Resources/js/` add the map, autosave, drag and drop and uploads.
enum PanelPages {
    /// Every template, by the name pages and partials use (`{{<layout}}`, `{{>findings}}`).
    static let templates: [(name: String, text: [UInt8])] = [
        ("layout", PackageResources.layout_mustache), ("findings", PackageResources.findings_mustache),
        ("login", PackageResources.login_mustache), ("home", PackageResources.home_mustache),
        ("editor", PackageResources.editor_mustache), ("stop", PackageResources.stop_mustache),
        ("translate", PackageResources.translate_mustache), ("translateRow", PackageResources.translateRow_mustache),
        ("built", PackageResources.built_mustache), ("resume", PackageResources.resume_mustache),
        ("admin", PackageResources.admin_mustache), ("error", PackageResources.error_mustache),
        ("reviews", PackageResources.reviews_mustache), ("review", PackageResources.review_mustache),
        ("history", PackageResources.history_mustache), ("columns", PackageResources.columns_mustache),
        ("changes", PackageResources.changes_mustache), ("routeSummary", PackageResources.routeSummary_mustache),
        ("notifications", PackageResources.notifications_mustache), ("confirm", PackageResources.confirm_mustache),
    ]

    /// The pages' types, one per page template; the other templates are parts of pages (`layout`, `findings`,
    /// `translateRow`, `changes`, `routeSummary`).
    static let views: [any PanelView.Type] = [
        LoginPage.self, ResumePage.self, ErrorPage.self, HomePage.self, EditorPage.self, StopPage.self,
        TranslatePage.self, BuiltPage.self, AdminPage.self, ReviewsPage.self, ReviewPage.self, HistoryPage.self,
        ColumnsPage.self, NotificationsPage.self, ConfirmPage.self,
    ]

    /// The templates, parsed once (a template error is the program's own bug, found by the tests).
    static func library() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        for (name, text) in templates {
            try library.register(MustacheTemplate(string: String(decoding: text, as: UTF8.self)), named: name)
        }
        return library
    }
}
