import Foundation
import Mustache
import Testing
import TrailPackTestSupport

@testable import TrailPackPanel

/// The front end as files: every template in `Resources/templates` is compiled in and registered,
/// parses, and renders with a sample context; the script and style sheet are the files' bytes.
@Suite("panel: templates and static files", .ownThreads)
struct PanelTemplateTests {
    static let folder = Support.root + "/Sources/TrailPackPanel/Resources"

    @Test("every .mustache file is registered under its name, and every registered template is a file")
    func everyTemplateRegistered() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder + "/templates")
            .filter { $0.hasSuffix(".mustache") }.map { String($0.dropLast(".mustache".count)) }
        #expect(Set(files) == Set(PanelPages.templates.map(\.name)), "a template missing from PanelPages.templates")
        for (name, text) in PanelPages.templates {
            #expect(text == Array(try Support.read(Self.folder + "/templates/\(name).mustache")), "\(name)")
        }
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.folder + "/js").filter {
            $0.hasSuffix(".js")
        }
        #expect(Set(modules) == Set(PanelAssets.modules.keys), "a module missing from PanelAssets.modules")
        for (name, bytes) in PanelAssets.modules {
            #expect(bytes == (try Support.read(Self.folder + "/js/" + name)), "\(name)")
        }
        #expect(Array(PanelAssets.css.utf8) == (try Support.read(Self.folder + "/panel.css")))
    }

    @Test("every page renders with a sample of its type: its layout, its title, no unresolved partial")
    func everyPageRenders() throws {
        let library = try PanelPages.library()
        for view in PanelPages.views {
            let name = view.template
            let html = try #require(try Self.render(view, library), "\(name) does not render")
            #expect(html.hasPrefix("<!doctype html>") && html.contains("<h1 class=\"h2\">Sample</h1>"), "\(name)")
            #expect(!html.contains("{{") && !html.contains("}}"), "\(name) left a tag unrendered")
            #expect(html.contains("/static/v/\(PanelAssets.version)/panel.css"), "\(name) links the versioned style")
        }
        #expect(library.render(try Self.context(ErrorPage.self), withTemplate: "no-such-page") == nil)
    }

    /// A page's context with every field of its type and of the layout set (`SampleDecoder`), titled "Sample".
    static func context<Body: PanelView>(_ type: Body.Type) throws -> PageContext<Body> {
        var layout = try PanelLayout(from: SampleDecoder())
        layout.title = "Sample"
        layout.assetVersion = PanelAssets.version
        return PageContext(layout: layout, body: try Body(from: SampleDecoder()))
    }

    static func render<Body: PanelView>(_ type: Body.Type, _ library: MustacheLibrary) throws -> String? {
        library.render(try context(type), withTemplate: type.template)
    }

    static func check<Body: PanelView>(_ type: Body.Type, _ checker: inout LookupChecker) throws {
        checker.walk(type.template, stack: [try context(type)])
    }

    @Test(
        "every name a template looks up is a field of its page's type or of an object around it: a misspelt name fails"
    )
    func everyLookupResolves() throws {
        let templates = Dictionary(
            uniqueKeysWithValues: PanelPages.templates.map { ($0.name, String(decoding: $0.text, as: UTF8.self)) })
        var checker = LookupChecker(templates: templates)
        var pages: Set<String> = []
        for view in PanelPages.views {
            #expect(templates[view.template] != nil, "\(view) is drawn by '\(view.template)', which is no template")
            #expect(pages.insert(view.template).inserted, "two page types are drawn by '\(view.template)'")
            try Self.check(view, &checker)
        }
        #expect(checker.problems.isEmpty, "\(checker.problems.joined(separator: "\n"))")
        // A template no page draws and no page includes (as a partial or a layout) has no type.
        let untyped = Set(templates.keys).subtracting(pages).subtracting(checker.reached)
        #expect(untyped.isEmpty, "templates with no page type: \(untyped.sorted())")
        #expect(checker.lookups > 500, "the walk saw the templates' tags")
        // The layout's names are its own: a page's field of the same name would be hidden (or hide it).
        let layout = Set(Mirror(reflecting: try PanelLayout(from: SampleDecoder())).children.compactMap(\.label))
        for view in PanelPages.views {
            let body = try view.init(from: SampleDecoder())
            let clash = layout.intersection(Mirror(reflecting: body).children.compactMap(\.label))
            #expect(clash.isEmpty, "\(view) has fields the layout has: \(clash.sorted())")
        }
        // No page is given an untyped dictionary any more. (PageContext's own table of the names it
        // answers is made from the typed layout and page: `pageNamesFoundOnce` checks it.)
        let folder = Support.root + "/Sources/TrailPackPanel"
        for file in try FileManager.default.contentsOfDirectory(atPath: folder)
        where file.hasSuffix(".swift") && file != "PanelView.swift" {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            #expect(!text.contains("String: Any]"), "\(file) builds an untyped context")
        }
    }

    /// What a page answers for `name`, found as the template asks (the layout, then the page, then its
    /// sections, a nil optional missing), by reflecting each time: what PageContext answered before it
    /// found its names once.
    static func reflected<Body: PanelView>(_ name: String, layout: PanelLayout, body: Body) -> Any? {
        func field(_ value: Any) -> Any? {
            guard let found = Mirror(reflecting: value).children.first(where: { $0.label == name })?.value else {
                return nil
            }
            let mirror = Mirror(reflecting: found)
            return mirror.displayStyle == .optional ? mirror.children.first?.value : found
        }
        if let found = field(layout) ?? field(body) { return found }
        return PageContext<Body>.sections(of: body).lazy.compactMap(field).first
    }

    @Test(
        "a page answers every name as reflecting on it for each lookup did: the layout first, nil optionals missing, sections' fields"
    )
    func pageNamesFoundOnce() throws {
        var asked = 0
        func compare<Body: PanelView>(_ type: Body.Type, layout: PanelLayout) throws {
            let body = try Body(from: SampleDecoder())
            let context = PageContext(layout: layout, body: body)
            var names = Set(Mirror(reflecting: layout).children.compactMap(\.label))
            names.formUnion(Mirror(reflecting: body).children.compactMap(\.label))
            for section in PageContext<Body>.sections(of: body) {
                names.formUnion(Mirror(reflecting: section).children.compactMap(\.label))
            }
            names.formUnion(["noSuchName", ""])
            for name in names {
                let expected = Self.reflected(name, layout: layout, body: body)
                let got = context.child(named: name)
                #expect((got == nil) == (expected == nil), "\(type).\(name): \(String(describing: got))")
                if let got, let expected {
                    #expect(String(reflecting: got) == String(reflecting: expected), "\(type).\(name)")
                }
                asked += 1
            }
        }
        var signedOut = try PanelLayout(from: SampleDecoder())
        signedOut.user = nil
        signedOut.csrf = nil
        signedOut.tileURL = nil
        for view in PanelPages.views {
            try compare(view, layout: try PanelLayout(from: SampleDecoder()))
            try compare(view, layout: signedOut)
        }
        #expect(asked > 200, "the pages' names were asked")
        // A nil optional of the layout is missing, and a page's field of the same name does not stand in.
        #expect(PageContext(layout: signedOut, body: ErrorPage(message: "m", status: 500)).child(named: "user") == nil)
    }

    struct Outer { var note: String; var rows: [Row] }
    struct Row { var note: String? }

    @Test("the lookup check catches a misspelt name, in a page and in a partial, and a nil that would fall through")
    func lookupCheckCatches() throws {
        let templates = [
            "page":
                "{{<frame}}{{$content}}{{#resume}}{{acton}}{{body}}{{/resume}}{{nxt}}{{>part}}{{/content}}{{/frame}}",
            "part": "{{#error}}{{eror}}{{.}}{{/error}}{{! a note }}{{user.nme}}{{#user}}{{csrf}}{{/user}}",
            "frame": "{{title}}{{$content}}{{/content}}{{tittle}}",
        ]
        var checker = LookupChecker(templates: templates)
        checker.walk("page", stack: [try Self.context(LoginPage.self)])
        #expect(checker.reached == ["frame", "part"])
        let missing = checker.problems.map { $0.split(separator: ":").last.map(String.init) ?? $0 }
        #expect(
            missing.map { $0.trimmingCharacters(in: .whitespaces) }.sorted()
                == ["acton", "eror", "nme", "nxt", "tittle"].map { "no \($0)" }, "\(checker.problems)")
        // A row's optional that is nil would find the outer object's field of the same name.
        var fallThrough = LookupChecker(templates: ["rows": "{{#rows}}{{note}}{{/rows}}"])
        fallThrough.walk("rows", stack: [Outer(note: "outer", rows: [Row(note: "row")])])
        #expect(fallThrough.problems.count == 1 && fallThrough.problems[0].contains("falls through"))
        // The stop page's findings by field: any field id after `fields.` is one.
        var fields = LookupChecker(templates: ["t": "{{#fields.stop_name}}{{message}}{{/fields.stop_name}}"])
        fields.walk("t", stack: [try Self.context(StopPage.self)])
        #expect(fields.problems.isEmpty, "\(fields.problems)")
    }

    @Test("no source line over 120 columns in the Swift that serves the pages and in the script's modules")
    func shortLines() throws {
        let modules = PanelAssets.modules.keys.sorted().map { "Resources/js/" + $0 }
        for file in ["PanelPages.swift", "PanelAssets.swift", "PanelView.swift", "PanelPageViews.swift"] + modules {
            let text = try String(contentsOfFile: Support.root + "/Sources/TrailPackPanel/" + file, encoding: .utf8)
            let long: [String] = text.split(separator: "\n").map(String.init).filter { $0.count > 120 }
            #expect(long.isEmpty, "\(file): \(long)")
        }
    }
}
