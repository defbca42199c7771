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
            "assetVersion": PanelAssets.version,
        ]
        for (name, _) in PanelPages.templates where !["layout", "findings", "translateRow", "changes"].contains(name) {
            let html = try #require(library.render(context, withTemplate: name), "\(name) does not render")
            #expect(html.hasPrefix("<!doctype html>") && html.contains("<h1 class=\"h2\">Sample</h1>"), "\(name)")
            #expect(!html.contains("{{") && !html.contains("}}"), "\(name) left a tag unrendered")
            #expect(html.contains("/static/v/\(PanelAssets.version)/panel.css"), "\(name) links the versioned style")
        }
        #expect(library.render(context, withTemplate: "no-such-page") == nil)
    }

    /// The names a template's tags look up (`{{a.b}}`, `{{#a}}`, `{{^a}}`, `{{{a}}}`), each part of a
    /// dotted name on its own; partials, parents, blocks, comments and `{{.}}` are not lookups.
    static func lookups(in template: String) -> Set<String> {
        var names: Set<String> = []
        let pattern = #/\{\{\{?\s*([#^/>&<$!]?)\s*([^}]*?)\s*\}?\}\}/#
        for match in template.matches(of: pattern) {
            let sigil = String(match.output.1), name = String(match.output.2)
            guard !["!", ">", "<", "/", "$"].contains(sigil), name != "." else { continue }
            let parts = name.split(separator: ".").map(String.init)
            // `fields.NAME`: one entry per field a finding names, made as the findings come.
            names.formUnion(parts.first == "fields" ? ["fields"] : parts)
        }
        return names
    }

    /// The keys the panel's Swift gives its pages: `"key": value` in a context's literal, `values["key"] =`.
    static func contextKeys() throws -> Set<String> {
        let folder = Support.root + "/Sources/TrailPackPanel"
        var keys: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for match in text.matches(of: #/"([A-Za-z_][A-Za-z0-9_]*)"\s*:/#) { keys.insert(String(match.output.1)) }
            for match in text.matches(of: #/\["([A-Za-z_][A-Za-z0-9_]*)"\]\s*=/#) {
                keys.insert(String(match.output.1))
            }
        }
        return keys
    }

    @Test(
        "every name a template looks up is a key the panel's Swift gives some page: a misspelt name (which Mustache renders as nothing) fails here"
    )
    func noUnknownKeys() throws {
        let keys = try Self.contextKeys()
        #expect(keys.count > 100, "the scan found the contexts' keys")
        for (name, text) in PanelPages.templates {
            let unknown = Self.lookups(in: String(decoding: text, as: UTF8.self)).subtracting(keys)
            #expect(unknown.isEmpty, "\(name).mustache looks up \(unknown.sorted()), which no page gives")
        }
        // The check itself: a misspelt name is caught, tags that are not lookups are not.
        let sample = "{{#stop}}{{stop.lattitude}}{{/stop}}{{>findings}}{{! note }}{{.}}{{fields.stop_name}}"
        #expect(Self.lookups(in: sample) == ["stop", "lattitude", "fields"])
        #expect(Self.lookups(in: sample).subtracting(keys) == ["lattitude"])
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
