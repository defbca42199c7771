import Foundation
import Testing
import TrailPackTestSupport

@testable import TrailPackPanel

/// The front end as files: every template in `Resources/templates` is compiled in and registered,
/// parses, and renders with a sample context; the script and style sheet are the files' bytes.
@Suite("panel: templates and static files")
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

    @Test("every page renders with a sample context: its layout, its title, no unresolved partial")
    func everyPageRenders() throws {
        let library = try PanelPages.library()
        let context: [String: Any] = [
            "title": "Sample", "user": ["name": "ranger", "role": "publisher", "isAdmin": true], "csrf": "token",
            "draft": ["name": "Tour", "path": "/drafts/s/t"], "message": "A message", "notice": "Saved.",
        ]
        for (name, _) in PanelPages.templates where !["layout", "findings", "translateRow", "changes"].contains(name) {
            let html = try #require(library.render(context, withTemplate: name), "\(name) does not render")
            #expect(html.hasPrefix("<!doctype html>") && html.contains("<h1 class=\"h2\">Sample</h1>"), "\(name)")
            #expect(!html.contains("{{") && !html.contains("}}"), "\(name) left a tag unrendered")
        }
        #expect(library.render(context, withTemplate: "no-such-page") == nil)
    }

    @Test("no source line over 120 columns in the Swift that serves the pages and in the script's modules")
    func shortLines() throws {
        let modules = PanelAssets.modules.keys.sorted().map { "Resources/js/" + $0 }
        for file in ["PanelPages.swift", "PanelAssets.swift"] + modules {
            let text = try String(contentsOfFile: Support.root + "/Sources/TrailPackPanel/" + file, encoding: .utf8)
            let long: [String] = text.split(separator: "\n").map(String.init).filter { $0.count > 120 }
            #expect(long.isEmpty, "\(file): \(long)")
        }
    }
}
