import Mustache

/// The panel's pages: swift-mustache templates, `{{ }}` escaped (never `{{{ }}}` for anything a user typed).
/// No inline script or event attribute: the Content-Security-Policy forbids them.
enum PanelPages {
    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="icon" href="data:,">
        <title>{{title}} · TrailPack control panel</title>
        <link rel="stylesheet" href="/static/vendor/bootstrap5/css/bootstrap.min.css">
        {{#map}}<link rel="stylesheet" href="/static/vendor/leaflet/leaflet.css">{{/map}}
        <link rel="stylesheet" href="/static/panel.css">
        </head>
        <body>
        <a class="skip-link" href="#main">Skip to the content</a>
        <header class="navbar navbar-dark bg-dark mb-3">
        <nav class="container" aria-label="Panel">
        <a class="navbar-brand" href="/">TrailPack control panel</a>
        </nav>
        </header>
        <main id="main" class="container">
        <h1 class="h2">{{title}}</h1>
        {{$content}}{{/content}}
        </main>
        <footer class="container mt-4 mb-3 small text-body-secondary"><p>TrailPack: offline trail tours</p></footer>
        {{#map}}<script src="/static/vendor/leaflet/leaflet.js"></script>{{/map}}
        <script src="/static/panel.js"></script>
        </body>
        </html>
        """

    static let home = """
        {{<layout}}
        {{$content}}
        <p>Rangers make tours here: a map to place the stops, forms for their texts, media and findings, then a package to build.</p>
        <section aria-labelledby="map-heading">
        <h2 id="map-heading" class="h4">Map</h2>
        <p id="map-help">The base map: {{#tileURL}}tiles from {{tileAttribution}}{{/tileURL}}{{^tileURL}}a coordinate grid (no tiles are configured){{/tileURL}}.</p>
        <div class="tp-map" data-tp-map role="region" aria-label="Map" aria-describedby="map-help"
             data-tile-url="{{tileURL}}" data-tile-attribution="{{tileAttribution}}"
             data-south="44.30" data-west="-122.20" data-north="44.45" data-east="-121.95"></div>
        </section>
        {{/content}}
        {{/layout}}
        """

    /// The templates, parsed once (a template error is the program's own bug, found by the tests).
    static func library() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        try library.register(MustacheTemplate(string: layout), named: "layout")
        try library.register(MustacheTemplate(string: home), named: "home")
        return library
    }
}
