import Mustache

/// The panel's pages: swift-mustache templates, `{{ }}` escaped (never `{{{ }}}`: everything shown may be typed by a user).
/// No inline script or event attribute: the Content-Security-Policy forbids them. Forms work without JavaScript;
/// the script adds the map, drag and drop and uploads.
enum PanelPages {
    static let layout = #"""
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
        {{#user}}
        <a class="btn btn-outline-light btn-sm ms-auto me-2" href="/reviews">Reviews{{#reviewCount}} <span class="badge text-bg-warning" aria-label="{{reviewCount}} waiting">{{reviewCount}}</span>{{/reviewCount}}</a>
        {{#isAdmin}}<a class="btn btn-outline-light btn-sm me-2" href="/admin">People and sites</a>{{/isAdmin}}
        <form method="post" action="/logout" class="d-flex align-items-center gap-2 mb-0">
        <span class="text-light small">Signed in as {{name}} ({{role}})</span>
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <button class="btn btn-outline-light btn-sm" type="submit">Sign out</button>
        </form>
        {{/user}}
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
        """#

    static let findings = #"""
        {{#hasFindings}}
        <section class="mb-3" aria-labelledby="findings-heading" id="findings">
        <h2 id="findings-heading" class="h5">{{findingsHeading}} ({{errorCount}} to fix, {{warningCount}} to check)</h2>
        <ul class="list-unstyled">
        {{#findings}}<li class="mb-1"><span class="badge {{#isError}}text-bg-danger{{/isError}}{{^isError}}text-bg-warning{{/isError}}">{{#isError}}Fix{{/isError}}{{^isError}}Check{{/isError}}</span>
        <a href="{{link}}">{{label}}</a>: {{message}}</li>{{/findings}}
        </ul>
        </section>
        {{/hasFindings}}
        """#

    static let login = #"""
        {{<layout}}
        {{$content}}
        <div class="row"><div class="col-md-6">
        {{#error}}<div class="alert alert-danger" role="alert">{{error}}</div>{{/error}}
        {{#resume}}<div class="alert alert-warning" role="alert" id="session-ended">Your session ended (after a while
        without use, or because the server restarted), so what you sent is <strong>not saved yet</strong>. Sign in
        again: the next page lets you save it.</div>{{/resume}}
        <form method="post" action="/login">
        <input type="hidden" name="next" value="{{next}}">
        {{#resume}}<input type="hidden" name="resumeAction" value="{{action}}">
        <input type="hidden" name="resume" value="{{body}}">{{/resume}}
        <div class="mb-3"><label class="form-label" for="name">Name</label>
        <input class="form-control" id="name" name="name" autocomplete="username" required autofocus></div>
        <div class="mb-3"><label class="form-label" for="password">Password</label>
        <input class="form-control" id="password" name="password" type="password" autocomplete="current-password" required></div>
        <button class="btn btn-primary" type="submit">Sign in</button>
        </form>
        <p class="mt-3 small">No password yet, or forgotten it? Ask an administrator of the panel to set one for you.</p>
        </div></div>
        {{/content}}
        {{/layout}}
        """#

    static let home = #"""
        {{<layout}}
        {{$content}}
        {{#canEdit}}
        <section aria-labelledby="drafts-heading" class="mb-4">
        <h2 id="drafts-heading" class="h4">Tours you are editing ({{draftCount}})</h2>
        {{#searchable}}<form method="get" action="/" class="row g-2 mb-2" role="search">
        <div class="col-auto"><input class="form-control" type="search" id="tour-search" name="q" value="{{query}}" aria-label="Find a tour by name"></div>
        <div class="col-auto"><button class="btn btn-outline-secondary" type="submit">Find</button></div>
        {{#searched}}<div class="col-auto align-self-center" role="status">{{matching}} matching '{{query}}' · <a href="/">show all</a></div>{{/searched}}
        </form>{{/searchable}}
        {{#hasDrafts}}
        <table class="table table-sm align-middle">
        <caption class="visually-hidden">Tours being edited</caption>
        <thead><tr><th scope="col">Tour</th><th scope="col">Site</th><th scope="col">Stops</th><th
        scope="col">Review</th><th scope="col">Last saved</th></tr></thead>
        <tbody>
        {{#drafts}}<tr><td><a href="{{link}}">{{name}}</a></td><td>{{site}}</td><td>{{stops}}</td><td>{{#review}}<a
        href="{{link}}">{{words}}</a>{{#denied}}<div class="small tp-note">“{{reason}}”</div>{{/denied}}{{/review}}{{^review}}Not
        built yet{{/review}}</td><td>{{modified}}</td></tr>{{/drafts}}
        </tbody>
        </table>
        {{#pager}}<nav aria-label="Pages of tours"><ul class="pagination">
        {{#previous}}<li class="page-item"><a class="page-link" href="{{previous}}" rel="prev">Newer</a></li>{{/previous}}
        <li class="page-item disabled"><span class="page-link">Page {{number}} of {{count}}</span></li>
        {{#next}}<li class="page-item"><a class="page-link" href="{{next}}" rel="next">Older</a></li>{{/next}}
        </ul></nav>{{/pager}}
        {{/hasDrafts}}
        {{^hasDrafts}}{{#searched}}<p>No tour's name matches '{{query}}'.</p>{{/searched}}{{^searched}}<p>No tours yet: start one below.</p>{{/searched}}{{/hasDrafts}}
        </section>
        <section aria-labelledby="new-heading" class="mb-4">
        <h2 id="new-heading" class="h4">Start a new tour</h2>
        {{#hasSites}}
        <form method="post" action="/drafts" class="row g-3">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <div class="col-md-6"><label class="form-label" for="new-name">Tour name</label>
        <input class="form-control" id="new-name" name="name" required aria-describedby="new-name-help">
        <div class="form-text" id="new-name-help">What visitors see in the app's list, such as "Santiam Wagon Road".</div></div>
        <div class="col-md-6"><label class="form-label" for="new-park">Park or forest</label>
        <input class="form-control" id="new-park" name="park" required></div>
        <div class="col-md-6"><label class="form-label" for="new-site">Site</label>
        {{#isAdmin}}<input class="form-control" id="new-site" name="site" list="site-list" required aria-describedby="new-site-help">
        <datalist id="site-list">{{#sites}}<option value="{{id}}">{{name}}</option>{{/sites}}</datalist>
        <div class="form-text" id="new-site-help">A site id: lowercase letters, digits and hyphens.</div>{{/isAdmin}}
        {{^isAdmin}}<select class="form-select" id="new-site" name="site">{{#sites}}<option value="{{id}}">{{name}} ({{id}})</option>{{/sites}}</select>{{/isAdmin}}
        </div>
        <div class="col-md-6"><label class="form-label" for="new-site-name">Site name (if the site is new)</label>
        <input class="form-control" id="new-site-name" name="siteName"></div>
        <div class="col-12"><label class="form-label" for="new-description">Description</label>
        <textarea class="form-control" id="new-description" name="description" rows="3"></textarea></div>
        <div class="col-12"><button class="btn btn-primary" type="submit">Create the tour</button></div>
        </form>
        {{/hasSites}}
        {{^hasSites}}<p>You do not make tours for any site yet: ask an administrator to give you your site (they do it on
        their People and sites page).</p>{{/hasSites}}
        </section>
        {{#hasSites}}
        <section aria-labelledby="import-heading" class="mb-4">
        <h2 id="import-heading" class="h4">Start from a file</h2>
        <p id="import-help">A GPX file from a GPS unit or a mapping program (its waypoints become the stops), a spreadsheet saved as CSV (columns name, latitude, longitude, description; zip it with the photos and recordings its photo, audio and video columns name, or add them on each stop's page afterwards), or a tour folder zipped (from "Download as a folder", or made for the command line).</p>
        <form id="import-form" method="post" enctype="multipart/form-data" action="/drafts/import?_csrf={{csrf}}" data-import="/drafts/import" data-csrf="{{csrf}}" class="row g-3" aria-describedby="import-help">
        <div class="col-md-4"><label class="form-label" for="import-site">Site</label>
        <select class="form-select" id="import-site" name="site">{{#sites}}<option value="{{id}}">{{name}} ({{id}})</option>{{/sites}}</select></div>
        <div class="col-md-8"><label class="form-label" for="import-file">File (.gpx, .csv or .zip)</label>
        <input class="form-control" type="file" id="import-file" name="file" accept=".gpx,.csv,.tsv,.txt,.zip" required></div>
        <div class="col-12 form-check ms-2"><input class="form-check-input" type="checkbox" id="import-replace" name="replace" value="1">
        <label class="form-check-label" for="import-replace">Replace the draft of the same name (the old one is kept aside on the server)</label></div>
        <div class="col-12"><button class="btn btn-secondary" type="submit">Make the tour from this file</button>
        </div>
        <div class="col-12" id="import-status" role="status" aria-live="polite"></div>
        </form>
        </section>
        {{/hasSites}}
        {{/canEdit}}
        {{^canEdit}}<p>Versions waiting for your review are on the <a href="/reviews">Reviews</a> page.</p>{{/canEdit}}
        {{/content}}
        {{/layout}}
        """#

    static let editor = #"""
        {{<layout}}
        {{$content}}
        <p><a href="/">All tours</a> · <a href="{{draft.path}}/folder.zip">Download as a folder (zip, for the command line)</a></p>
        {{#notice}}<div class="alert alert-success" role="status">{{notice}}</div>{{/notice}}
        {{#review}}<div class="alert {{#denied}}alert-warning{{/denied}}{{^denied}}alert-info{{/denied}}"
        id="review-state"><a class="alert-link" href="{{link}}">{{words}}</a>{{#denied}}: “{{reason}}”. Change what it asks for, then
        build the next version below and send it for review again.{{/denied}}</div>{{/review}}
        {{>findings}}
        <div class="row g-4">
        <div class="col-lg-7">
        <section aria-labelledby="map-heading">
        <h2 id="map-heading" class="h4">Map</h2>
        <noscript><p class="small">The map needs JavaScript, which this browser does not run for the panel: add each
        stop by typing its latitude and longitude under "Add a stop".</p></noscript>
        <p id="map-help" class="small" data-js-only hidden>Click the map to place a new stop (then name it below and
        press Add). Drag a marker to move a stop. With the keyboard: Tab to the map and move it with the arrow keys,
        zoom with + and −; Tab to a stop's marker, move it with the arrow keys (with Shift in small steps), then
        Enter saves the new place and Escape puts it back. The base map: {{#tileURL}}tiles from {{tileAttribution}}{{/tileURL}}{{^tileURL}}{{#ownMap}}the tour's own offline map (zoom {{minZoom}}–{{maxZoom}}){{/ownMap}}{{^ownMap}}a coordinate grid (no tiles are configured, and the tour has no offline raster map){{/ownMap}}{{/tileURL}}.</p>
        <div class="tp-map" id="tour-map" data-tp-map data-editor role="region" aria-label="Map of the tour's stops" aria-describedby="map-help" hidden
             data-tile-url="{{tileURL}}" data-tile-attribution="{{tileAttribution}}" data-stops="{{mapStops}}" data-csrf="{{csrf}}" data-revision="{{revision}}"
             {{#ownMap}}data-own-tiles="{{url}}" data-own-min-zoom="{{minZoom}}" data-own-max-zoom="{{maxZoom}}" data-own-bounds="{{south}},{{west}},{{north}},{{east}}"{{/ownMap}}
             {{#frame}}data-south="{{south}}" data-west="{{west}}" data-north="{{north}}" data-east="{{east}}"{{/frame}}
             {{#view}}data-view-south="{{south}}" data-view-west="{{west}}" data-view-north="{{north}}" data-view-east="{{east}}"{{/view}}></div>
        <p class="mt-2 mb-0"><button type="button" class="btn btn-sm btn-outline-secondary" id="draw-frame" hidden>Draw the map frame</button>
        <span class="small ms-2" id="draw-frame-status" role="status"></span></p>
        <div class="mt-2" id="move-bar" role="status" aria-live="polite"></div>
        </section>
        <section aria-labelledby="add-heading" class="mt-3">
        <h2 id="add-heading" class="h5">Add a stop</h2>
        <form method="post" action="{{draft.path}}/stops" class="row g-2" id="add-stop">
        <input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="revision" value="{{revision}}">
        <div class="col-md-4"><label class="form-label" for="add-name">Name</label><input class="form-control" id="add-name" name="name"></div>
        <div class="col-md-4"><label class="form-label" for="add-latitude">Latitude</label><input class="form-control" id="add-latitude" name="latitude" required aria-describedby="coord-help"></div>
        <div class="col-md-4"><label class="form-label" for="add-longitude">Longitude</label><input class="form-control" id="add-longitude" name="longitude" required aria-describedby="coord-help"></div>
        <div class="col-12 form-text" id="coord-help">Decimal degrees (44.4123, -122.1510) or degrees, minutes and seconds (44°24'44"N, 122°09'04"W), as a GPS or a map site shows them.</div>
        <div class="col-12"><button class="btn btn-primary" type="submit">Add the stop</button> <span class="ms-2 small"
        id="add-status" role="status" aria-live="polite"></span></div>
        </form>
        </section>
        </div>
        <div class="col-lg-5">
        <section aria-labelledby="stops-heading" id="stops-section">
        <h2 id="stops-heading" class="h4">Stops, in order</h2>
        {{#hasStops}}
        <p class="small" id="order-help">Change the order with the Up and Down buttons, or drag a stop in the list.</p>
        <ol class="list-group list-group-numbered" id="stop-list" data-order-action="{{draft.path}}/order" aria-describedby="order-help">
        {{#stops}}
        <li class="list-group-item d-flex justify-content-between align-items-start gap-2" id="stop-{{number}}" data-number="{{number}}" draggable="true">
        <div class="me-auto"><a href="{{link}}">{{name}}</a><div class="small text-body-secondary">{{latitude}},
        {{longitude}} · {{files}} file(s){{#hasFindings}} · <span class="text-danger-emphasis">{{findings}} to
        check</span>{{/hasFindings}}{{#hasUntranslated}} · {{untranslated}} to translate{{/hasUntranslated}}</div></div>
        <form method="post" action="{{action}}/up" class="d-inline">{{#notFirst}}<input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="revision" value="{{revision}}"><button class="btn btn-sm btn-outline-secondary" type="submit" id="up-{{number}}" aria-label="Move {{name}} up">Up</button>{{/notFirst}}</form>
        <form method="post" action="{{action}}/down" class="d-inline">{{#notLast}}<input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="revision" value="{{revision}}"><button class="btn btn-sm btn-outline-secondary" type="submit" id="down-{{number}}" aria-label="Move {{name}} down">Down</button>{{/notLast}}</form>
        </li>
        {{/stops}}
        </ol>
        {{/hasStops}}
        {{^hasStops}}<p>No stops yet: click the map or type a position under "Add a stop".</p>{{/hasStops}}
        </section>
        </div>
        </div>

        <section aria-labelledby="languages-heading" class="mt-4" id="tour-languages">
        <h2 id="languages-heading" class="h4">Languages</h2>
        {{#fields.tour_languages}}<div class="form-text tp-note">{{message}}</div>{{/fields.tour_languages}}
        {{^hasLanguages}}
        <p id="languages-help">The tour is in one language. To offer it in more, first say which language its texts are
        written in now: it becomes the default, the language visitors fall back to where a translation is missing.</p>
        {{/hasLanguages}}
        {{#hasLanguages}}
        <p id="languages-help">The first language is the default: visitors who read another language get its text
        wherever a translation is missing.</p>
        <ol class="list-group list-group-numbered mb-3" id="language-list">
        {{#languageList}}<li class="list-group-item d-flex gap-2 align-items-start" id="language-{{id}}">
        <div class="flex-grow-1"><div class="d-flex flex-wrap gap-2 align-items-center"><span
        class="me-auto"><strong>{{label}}</strong>{{#isDefault}} · the default language{{/isDefault}}</span>
        {{^isDefault}}<a class="btn btn-sm btn-primary" href="{{translate}}" id="translate-{{id}}">Translate into
        {{name}}</a>
        <form method="post" action="{{draft.path}}/languages" class="d-inline"><input type="hidden" name="_csrf"
        value="{{csrf}}"><input type="hidden" name="revision" value="{{revision}}"><input type="hidden" name="action"
        value="default"><input type="hidden" name="tag" value="{{tag}}"><button class="btn btn-sm btn-outline-secondary"
        type="submit">Make {{name}} the default</button></form>{{/isDefault}}
        {{#canRemove}}<form method="post" action="{{draft.path}}/languages" class="d-inline"><input type="hidden"
        name="_csrf" value="{{csrf}}"><input type="hidden" name="revision" value="{{revision}}"><input type="hidden"
        name="action" value="remove"><input type="hidden" name="tag" value="{{tag}}"><button
        class="btn btn-sm btn-outline-danger" type="submit">Remove {{name}}</button></form>{{/canRemove}}
        </div>
        {{#meter}}<div class="mt-2 tp-meter"><label class="form-label small mb-1" for="meter-{{id}}">{{summary}}</label>
        <meter id="meter-{{id}}" class="w-100" min="0" max="100" low="50" high="99" optimum="100"
        value="{{percent}}">{{percent}} %</meter>
        <div class="small text-body-secondary">{{#complete}}Everything is
        translated.{{/complete}}{{^complete}}{{percent}} % translated; {{missingCount}} missing: visitors get the
        {{defaultName}} ones instead.{{/complete}} A phone needs {{bytes}} for {{name}}: the shared files and those in
        {{name}}.</div></div>{{/meter}}
        </div></li>{{/languageList}}
        </ol>
        {{/hasLanguages}}
        {{#languageProblem}}<div class="alert alert-danger" role="alert" id="language-problem">{{.}}</div>
        {{/languageProblem}}
        <form method="post" action="{{draft.path}}/languages" class="row g-2 align-items-end mb-3" id="add-language">
        <input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="revision"
        value="{{revision}}"><input type="hidden" name="action" value="add">
        <div class="col-md-4"><label class="form-label" for="language-tag">{{#hasLanguages}}Add a
        language{{/hasLanguages}}{{^hasLanguages}}Language of the texts now{{/hasLanguages}}</label>
        <input class="form-control" id="language-tag" name="tag" list="language-suggestions" autocomplete="off"
        spellcheck="false"
        aria-describedby="{{#languageProblem}}language-problem {{/languageProblem}}language-tag-help language-tag-name"
        {{#languageProblem}}aria-invalid="true"{{/languageProblem}}></div>
        <div class="col-auto"><button class="btn btn-secondary" type="submit"
        id="add-language-button">{{#hasLanguages}}Add the language{{/hasLanguages}}{{^hasLanguages}}Name the
        language{{/hasLanguages}}</button></div>
        <div class="col-12 form-text" id="language-tag-help">Its short code (a language tag): en for English, es for
        Spanish, fr for French, es-419 for Spanish as spoken in Latin America, zh-Hant for Chinese in traditional
        characters.</div>
        <div class="col-12 small" id="language-tag-name" role="status" aria-live="polite"></div>
        <datalist id="language-suggestions">{{#suggestions}}<option
        value="{{tag}}">{{title}}</option>{{/suggestions}}</datalist>
        </form>
        {{#tabs.hasTabs}}
        <form method="post" action="{{draft.path}}/languages" class="mb-0" id="require-languages">
        <input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="revision"
        value="{{revision}}"><input type="hidden" name="action" value="require">
        <div class="form-check"><input class="form-check-input" type="checkbox" id="require-all" name="requireAll"
        value="1" {{#requireAll}}checked{{/requireAll}} aria-describedby="require-all-help">
        <label class="form-check-label" for="require-all">Every language must be complete before the tour is
        built</label></div>
        <div class="form-text" id="require-all-help">Ticked, a missing translation stops the build. Not ticked, it is
        only a warning and visitors get the default language's text.</div>
        <button class="btn btn-sm btn-outline-secondary mt-1" type="submit">Save this choice</button>
        </form>
        {{/tabs.hasTabs}}
        </section>

        <section aria-labelledby="details-heading" class="mt-4" id="tour-details">
        <h2 id="details-heading" class="h4">Tour details</h2>
        {{#tabs.hasTabs}}<nav aria-label="Language of the texts below" class="mb-3"><ul
        class="nav nav-tabs">{{#tabs.tabs}}<li class="nav-item"><a class="nav-link{{#current}} active{{/current}}"
        href="{{href}}" id="tab-{{tag}}"{{#current}}
        aria-current="page"{{/current}}>{{label}}</a></li>{{/tabs.tabs}}</ul></nav>{{/tabs.hasTabs}}
        <form method="post" action="{{draft.path}}" class="row g-3" id="details-form" data-autosave>
        <input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="revision"
        value="{{revision}}"><input type="hidden" name="language" value="{{tab.tag}}">
        {{#onDefaultTab}}
        {{#was}}<input type="hidden" name="was-{{field}}" value="{{value}}">{{/was}}
        <div class="col-md-6"><label class="form-label" for="tour-name">Tour name</label><input class="form-control" id="tour-name" name="name" value="{{draft.name}}">{{#fields.tour_name}}<div class="form-text tp-note" id="tour-name-note">{{message}}</div>{{/fields.tour_name}}</div>
        <div class="col-md-6"><label class="form-label" for="tour-park">Park or forest</label><input class="form-control" id="tour-park" name="park" value="{{draft.park}}">{{#fields.tour_park}}<div class="form-text tp-note" id="tour-park-note">{{message}}</div>{{/fields.tour_park}}</div>
        <div class="col-md-6"><label class="form-label" for="tour-site-name">Site name (site {{draft.siteID}})</label><input class="form-control" id="tour-site-name" name="siteName" value="{{draft.siteName}}">{{#fields.tour_site_name}}<div class="form-text tp-note" id="tour-site-name-note">{{message}}</div>{{/fields.tour_site_name}}</div>
        <div class="col-md-3"><label class="form-label" for="tour-id">Tour id</label><input class="form-control" id="tour-id" name="id" value="{{draft.id}}" aria-describedby="tour-id-help"><div class="form-text" id="tour-id-help">Never changes between versions.</div>{{#fields.tour_id}}<div class="form-text tp-note" id="tour-id-note">{{message}}</div>{{/fields.tour_id}}</div>
        <div class="col-md-3"><p class="form-label mb-1">Version</p><p class="mb-0" id="tour-version">{{draft.version}}
        <span class="small d-block">Chosen when you build (below).</span></p>{{#fields.tour_version}}<div
        class="form-text tp-note" id="tour-version-note">{{message}}</div>{{/fields.tour_version}}</div>
        <div class="col-12"><label class="form-label" for="tour-description">Description</label><textarea class="form-control" id="tour-description" name="description" rows="4">{{draft.description}}</textarea>{{#fields.tour_description}}<div class="form-text tp-note" id="tour-description-note">{{message}}</div>{{/fields.tour_description}}</div>
        <fieldset class="col-12" id="tour-frame"><legend class="h6">Map frame</legend>
        <div class="form-check"><input class="form-check-input" type="checkbox" id="follow" name="followStops" value="1" {{#followStops}}checked{{/followStops}}>
        <label class="form-check-label" for="follow">Follow the stops (the frame is drawn around every stop, with a margin)</label></div>
        <div class="row g-2 mt-1">
        <div class="col-6 col-md-3"><label class="form-label" for="frame-south">South edge</label><input class="form-control" id="frame-south" name="south" value="{{frame.south}}"></div>
        <div class="col-6 col-md-3"><label class="form-label" for="frame-west">West edge</label><input class="form-control" id="frame-west" name="west" value="{{frame.west}}"></div>
        <div class="col-6 col-md-3"><label class="form-label" for="frame-north">North edge</label><input class="form-control" id="frame-north" name="north" value="{{frame.north}}"></div>
        <div class="col-6 col-md-3"><label class="form-label" for="frame-east">East edge</label><input class="form-control" id="frame-east" name="east" value="{{frame.east}}"></div>
        </div>{{#fields.tour_frame}}<div class="form-text tp-note" id="tour-frame-note">{{message}}</div>{{/fields.tour_frame}}</fieldset>
        <div class="col-12"><button class="btn btn-primary" type="submit" id="save-details">Save the tour details</button>
        <span class="ms-2 small" id="autosave-status" role="status" aria-live="polite"></span></div>
        {{/onDefaultTab}}
        {{^onDefaultTab}}
        <p class="col-12 mb-0" id="tab-help">The tour's texts in {{tab.title}}. Beside each field, the
        {{tab.defaultName}} text it translates. A field left empty is shown to visitors in {{tab.defaultName}}. <a
        href="{{draft.path}}/translate/{{tab.tag}}">Translate the whole tour side by side</a></p>
        <div class="col-md-6"><label class="form-label" for="tour-name">Tour name in {{tab.name}}</label><input
        class="form-control" id="tour-name" name="name" lang="{{tab.tag}}" value="{{texts.name}}"
        aria-describedby="tour-name-source">
        <div class="form-text" id="tour-name-source">In {{tab.defaultName}}: <span
        lang="{{tab.defaultTag}}">{{draft.name}}</span></div></div>
        <div class="col-md-6"><label class="form-label" for="tour-park">Park or forest in {{tab.name}}</label><input
        class="form-control" id="tour-park" name="park" lang="{{tab.tag}}" value="{{texts.park}}"
        aria-describedby="tour-park-source">
        <div class="form-text" id="tour-park-source">In {{tab.defaultName}}: <span
        lang="{{tab.defaultTag}}">{{draft.park}}</span></div></div>
        <div class="col-md-6"><p class="form-label mb-2" id="tour-description-source-label">Description in
        {{tab.defaultName}}</p><div class="tp-source tp-prewrap" id="tour-description-source"
        lang="{{tab.defaultTag}}">{{draft.description}}</div></div>
        <div class="col-md-6"><label class="form-label" for="tour-description">Description in
        {{tab.name}}</label><textarea class="form-control" id="tour-description" name="description" lang="{{tab.tag}}"
        rows="6" aria-describedby="tour-description-source">{{texts.description}}</textarea></div>
        <p class="col-12 small mb-0">The site, tour id, version and map frame are the same in every language: change
        them on the {{tab.defaultName}} tab.</p>
        <div class="col-12"><button class="btn btn-primary" type="submit" id="save-details">Save the {{tab.name}}
        texts</button> <span class="ms-2 small" id="autosave-status" role="status" aria-live="polite"></span></div>
        {{/onDefaultTab}}
        </form>
        </section>

        <section aria-labelledby="build-heading" class="mt-4">
        <h2 id="build-heading" class="h4">Build the package</h2>
        <form method="post" action="{{draft.path}}/build" class="row g-2 align-items-end" id="build-form" data-status="{{draft.path}}/build-status">
        <input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="revision" value="{{revision}}">
        <div class="col-md-3"><label class="form-label" for="build-version">Version to build</label><input class="form-control" id="build-version" name="version" value="{{proposedVersion}}"></div>
        <div class="col-md-9"><button class="btn btn-success" type="submit" id="build-button">Build package</button></div>
        <div class="col-12" id="build-progress-box" hidden><progress id="build-progress" max="100" class="w-100" aria-label="Build progress"></progress>
        <div id="build-status" role="status" aria-live="polite" class="small"></div></div>
        </form>
        </section>
        {{/content}}
        {{/layout}}
        """#

    static let stop = #"""
        {{<layout}}
        {{$content}}
        <p><a href="{{draft.path}}">Back to {{draft.name}}</a></p>
        {{#notice}}<div class="alert alert-success" role="status">{{notice}}</div>{{/notice}}
        {{>findings}}
        {{#tabs.hasTabs}}<nav aria-label="Language of the texts below" class="mb-3" id="stop-languages"><ul
        class="nav nav-tabs">{{#tabs.tabs}}<li class="nav-item"><a class="nav-link{{#current}} active{{/current}}"
        href="{{href}}" id="tab-{{tag}}"{{#current}}
        aria-current="page"{{/current}}>{{label}}</a></li>{{/tabs.tabs}}</ul></nav>{{/tabs.hasTabs}}
        <form method="post" action="{{stop.action}}" class="row g-3" id="stop-form" data-autosave>
        <input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="revision"
        value="{{revision}}"><input type="hidden" name="stopRevision" value="{{stopRevision}}"><input
        type="hidden" name="language" value="{{tab.tag}}">
        {{#onDefaultTab}}
        <div class="col-md-6"><label class="form-label" for="stop-name">Name</label><input class="form-control" id="stop-name" name="name" value="{{stop.name}}">{{#fields.stop_name}}<div class="form-text tp-note" id="stop-name-note">{{message}}</div>{{/fields.stop_name}}</div>
        <div class="col-md-3"><label class="form-label" for="stop-latitude">Latitude</label><input class="form-control" id="stop-latitude" name="latitude" value="{{stop.latitude}}" aria-describedby="stop-coord-help">{{#fields.stop_latitude}}<div class="form-text tp-note" id="stop-latitude-note">{{message}}</div>{{/fields.stop_latitude}}</div>
        <div class="col-md-3"><label class="form-label" for="stop-longitude">Longitude</label><input class="form-control" id="stop-longitude" name="longitude" value="{{stop.longitude}}" aria-describedby="stop-coord-help"></div>
        <div class="col-12 form-text" id="stop-coord-help">Decimal degrees or degrees, minutes and seconds (44°24'44"N).</div>
        <div class="col-12"><label class="form-label" for="stop-description">Description</label><textarea class="form-control" id="stop-description" name="description" rows="5">{{stop.description}}</textarea>{{#fields.stop_description}}<div class="form-text tp-note" id="stop-description-note">{{message}}</div>{{/fields.stop_description}}</div>
        <fieldset class="col-12" id="stop-properties"><legend class="h6">Details (elevation, difficulty, age group…)</legend>
        {{#properties}}<div class="row g-2 mb-1">
        <div class="col-5"><input class="form-control form-control-sm" id="prop-key-{{n}}" name="propertyKey" value="{{key}}" placeholder="name" aria-label="Detail {{n}} name"></div>
        <div class="col-7"><input class="form-control form-control-sm" id="prop-value-{{n}}" name="propertyValue" value="{{value}}" placeholder="value" aria-label="Detail {{n}} value"></div>
        </div>{{/properties}}{{#fields.stop_properties}}<div class="form-text tp-note" id="stop-properties-note">{{message}}</div>{{/fields.stop_properties}}</fieldset>
        {{/onDefaultTab}}
        {{^onDefaultTab}}
        <p class="col-12 mb-0" id="tab-help">The stop's texts in {{tab.title}}. Beside each field, the
        {{tab.defaultName}} text it translates; a field left empty is shown to visitors in {{tab.defaultName}}. <a
        href="{{draft.path}}/translate/{{tab.tag}}">Translate the whole tour side by side</a></p>
        <div class="col-md-6"><label class="form-label" for="stop-name">Name in {{tab.name}}</label><input
        class="form-control" id="stop-name" name="name" lang="{{tab.tag}}" value="{{stop.tabName}}"
        aria-describedby="stop-name-source">
        <div class="form-text" id="stop-name-source">In {{tab.defaultName}}: <span
        lang="{{tab.defaultTag}}">{{stop.name}}</span></div>{{#fields.stop_name}}<div class="form-text tp-note"
        id="stop-name-note">{{message}}</div>{{/fields.stop_name}}</div>
        <div class="col-md-6"></div>
        <div class="col-md-6"><p class="form-label mb-2">Description in {{tab.defaultName}}</p><div
        class="tp-source tp-prewrap" id="stop-description-source"
        lang="{{tab.defaultTag}}">{{stop.description}}</div></div>
        <div class="col-md-6"><label class="form-label" for="stop-description">Description in
        {{tab.name}}</label><textarea class="form-control" id="stop-description" name="description" lang="{{tab.tag}}"
        rows="6"
        aria-describedby="stop-description-source">{{stop.tabDescription}}</textarea>{{#fields.stop_description}}<div
        class="form-text tp-note" id="stop-description-note">{{message}}</div>{{/fields.stop_description}}</div>
        {{/onDefaultTab}}
        <fieldset class="col-12" id="stop-files"><legend><h2 class="h5 mb-0">Files{{^onDefaultTab}} {{tab.name}}
        visitors get{{/onDefaultTab}}</h2></legend>
        {{^hasFiles}}<p>No files yet: add photos, recordings, videos or texts below.</p>{{/hasFiles}}
        {{#files}}<div class="card mb-2" id="file-{{n}}"><div class="card-body">
        <h3 class="h6 card-title">{{file}} <span
        class="small text-body-secondary">({{size}}){{#hasLanguages}} · {{#shared}}all languages{{/shared}}{{^shared}}in
        {{languageName}}{{/shared}}{{/hasLanguages}}</span></h3>
        {{#isImage}}<img src="{{url}}" alt="{{sourceAlt}}" class="tp-preview mb-2">{{/isImage}}
        {{#isAudio}}<audio controls preload="none" src="{{url}}" class="d-block mb-2"></audio>{{/isAudio}}
        {{#isVideo}}<video controls preload="none" src="{{url}}" class="tp-preview d-block mb-2"></video>{{/isVideo}}
        {{#onDefaultTab}}
        <div class="row g-2">
        <div class="col-md-6"><label class="form-label" for="title-{{n}}">Title{{#inOtherLanguage}} (in
        {{languageName}}){{/inOtherLanguage}}</label><input class="form-control form-control-sm" id="title-{{n}}"
        name="title-{{n}}" value="{{title}}"{{#inOtherLanguage}} lang="{{fileLanguage}}"{{/inOtherLanguage}}></div>
        {{#hasLanguages}}<div class="col-md-6">{{#languageFromName}}<p class="form-label mb-1">Language of this
        file</p><p class="small mb-0" id="language-{{n}}">{{languageName}} (its name says so)</p>{{/languageFromName}}
        {{^languageFromName}}<label class="form-label" for="language-{{n}}">Language of this file</label><select
        class="form-select form-select-sm" id="language-{{n}}" name="language-{{n}}">{{#languageChoices}}<option
        value="{{value}}"
        {{#selected}}selected{{/selected}}>{{label}}</option>{{/languageChoices}}</select>{{/languageFromName}}</div>
        {{/hasLanguages}}
        {{#isImage}}<div class="col-12"><label class="form-label" for="alt-{{n}}">Alt text (what the photo shows, for
        visitors who cannot see it){{#inOtherLanguage}}, in {{languageName}}{{/inOtherLanguage}}</label><input
        class="form-control form-control-sm" id="alt-{{n}}" name="alt-{{n}}" value="{{alt}}"{{#inOtherLanguage}}
        lang="{{fileLanguage}}"{{/inOtherLanguage}}></div>{{/isImage}}
        {{#isAudio}}<div class="col-12"><label class="form-label" for="transcript-{{n}}">Transcript (what is said or
        heard){{#inOtherLanguage}}, in {{languageName}}{{/inOtherLanguage}}</label><textarea
        class="form-control form-control-sm" id="transcript-{{n}}" name="transcript-{{n}}" rows="3"{{#inOtherLanguage}}
        lang="{{fileLanguage}}"{{/inOtherLanguage}}>{{transcript}}</textarea></div>{{/isAudio}}
        {{#isVideo}}<div class="col-md-6"><label class="form-label" for="captions-{{n}}">Captions file</label><select class="form-select form-select-sm" id="captions-{{n}}" name="captions-{{n}}"><option value="">(none: upload a .vtt file)</option>{{#captionChoices}}<option value="{{file}}" {{#selected}}selected{{/selected}}>{{file}}</option>{{/captionChoices}}</select></div>{{/isVideo}}
        </div>
        {{/onDefaultTab}}
        {{^onDefaultTab}}
        <div class="row g-2">
        {{#shared}}
        <div class="col-md-6"><label class="form-label" for="title-{{n}}">Title in {{tab.name}}</label><input
        class="form-control form-control-sm" id="title-{{n}}" name="title-{{n}}" lang="{{tab.tag}}" value="{{title}}"
        aria-describedby="title-{{n}}-source"><div class="form-text" id="title-{{n}}-source">In {{tab.defaultName}}:
        <span lang="{{tab.defaultTag}}">{{sourceTitle}}</span></div></div>
        {{#isImage}}<div class="col-12"><label class="form-label" for="alt-{{n}}">Alt text in {{tab.name}}</label><input
        class="form-control form-control-sm" id="alt-{{n}}" name="alt-{{n}}" lang="{{tab.tag}}" value="{{alt}}"
        aria-describedby="alt-{{n}}-source"><div class="form-text" id="alt-{{n}}-source">In {{tab.defaultName}}: <span
        lang="{{tab.defaultTag}}">{{sourceAlt}}</span></div></div>{{/isImage}}
        {{#isAudio}}<div class="col-md-6"><p class="form-label mb-1">Transcript in {{tab.defaultName}}</p><div
        class="tp-source tp-prewrap small" id="transcript-{{n}}-source"
        lang="{{tab.defaultTag}}">{{sourceTranscript}}</div></div>
        <div class="col-md-6"><label class="form-label" for="transcript-{{n}}">Transcript in
        {{tab.name}}</label><textarea class="form-control form-control-sm" id="transcript-{{n}}" name="transcript-{{n}}"
        lang="{{tab.tag}}" rows="3" aria-describedby="transcript-{{n}}-source">{{transcript}}</textarea></div>
        {{/isAudio}}
        {{#isVideo}}<div class="col-md-6"><label class="form-label" for="captions-{{n}}">Captions file in
        {{tab.name}}</label><select class="form-select form-select-sm" id="captions-{{n}}" name="captions-{{n}}"><option
        value="">(none: upload a .vtt file in {{tab.name}})</option>{{#captionChoices}}<option value="{{file}}"
        {{#selected}}selected{{/selected}}>{{file}}</option>{{/captionChoices}}</select></div>{{/isVideo}}
        {{/shared}}
        {{#inTab}}
        <div class="col-md-6"><label class="form-label" for="title-{{n}}">Title (in {{tab.name}})</label><input
        class="form-control form-control-sm" id="title-{{n}}" name="title-{{n}}" lang="{{tab.tag}}"
        value="{{title}}"></div>
        {{#isImage}}<div class="col-12"><label class="form-label" for="alt-{{n}}">Alt text (in
        {{tab.name}})</label><input class="form-control form-control-sm" id="alt-{{n}}" name="alt-{{n}}"
        lang="{{tab.tag}}" value="{{alt}}"></div>{{/isImage}}
        {{#isAudio}}<div class="col-12"><label class="form-label" for="transcript-{{n}}">Transcript (in
        {{tab.name}})</label><textarea class="form-control form-control-sm" id="transcript-{{n}}"
        name="transcript-{{n}}" lang="{{tab.tag}}" rows="3">{{transcript}}</textarea></div>{{/isAudio}}
        {{/inTab}}
        </div>
        {{/onDefaultTab}}
        {{#notes}}<div class="form-text tp-note">{{message}}</div>{{/notes}}
        {{#onDefaultTab}}
        <div class="d-flex flex-wrap gap-2 mt-2 align-items-center">
        <input class="form-control form-control-sm w-auto" form="rename-{{n}}" name="newName" value="{{file}}" aria-label="New name for {{file}}">
        <button class="btn btn-sm btn-outline-secondary" type="submit" form="rename-{{n}}">Rename</button>
        <button class="btn btn-sm btn-outline-danger" type="submit" form="remove-{{n}}">Remove {{file}}</button></div>
        {{/onDefaultTab}}
        </div></div>{{/files}}
        {{#hasFallbackFiles}}<p class="small" id="fallback-language-files">{{tab.name}} visitors get these
        {{tab.defaultName}} files until the stop has a {{tab.name}} one of the same kind: {{fallbackFiles}}.</p>
        {{/hasFallbackFiles}}
        {{#hasOtherFiles}}<p class="small" id="other-language-files">Files in other languages, which {{tab.name}}
        visitors do not get: {{otherFiles}}.</p>{{/hasOtherFiles}}
        {{#fields.stop_files}}<div class="form-text tp-note" id="stop-files-note">{{message}}</div>{{/fields.stop_files}}</fieldset>
        {{#onDefaultTab}}
        <div class="col-12"><label class="form-label" for="stop-waiver">Accessibility waiver (only if a text above truly cannot be given: say why; reviewers see it)</label>
        <textarea class="form-control" id="stop-waiver" name="waiver" rows="2">{{stop.waiver}}</textarea></div>
        <div class="col-12"><button class="btn btn-primary" type="submit" id="save-stop">Save the stop</button> <span
        class="ms-2 small" id="autosave-status" role="status" aria-live="polite"></span></div>
        {{/onDefaultTab}}
        {{^onDefaultTab}}<div class="col-12"><button class="btn btn-primary" type="submit">Save the {{tab.name}}
        texts</button> <span class="ms-2 small" id="autosave-status" role="status"
        aria-live="polite"></span></div>{{/onDefaultTab}}
        </form>
        {{#onDefaultTab}}
        {{#files}}<form method="post" action="{{stop.action}}/rename-file" id="rename-{{n}}"><input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="revision" value="{{revision}}"><input type="hidden" name="stopRevision" value="{{stopRevision}}"><input type="hidden" name="file" value="{{file}}"></form>{{/files}}
        {{#files}}<form method="post" action="{{stop.action}}/remove-file" id="remove-{{n}}" data-confirm="Remove {{file}} from this stop? It is kept aside on the server."><input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="revision" value="{{revision}}"><input type="hidden" name="stopRevision" value="{{stopRevision}}"><input type="hidden" name="file" value="{{file}}"></form>{{/files}}
        {{/onDefaultTab}}

        <section aria-labelledby="upload-heading" class="mt-4">
        <h2 id="upload-heading" class="h5">Add files</h2>
        <form method="post" enctype="multipart/form-data" action="{{stop.action}}/files?_csrf={{csrf}}" id="upload-form">
        <div class="tp-drop p-3 mb-2" id="drop-zone" data-upload="{{stop.action}}/files" data-csrf="{{csrf}}">
        {{#hasLanguages}}<div class="mb-2"><label class="form-label" for="upload-language">Language of this file</label>
        <select class="form-select w-auto" id="upload-language" name="language"
        aria-describedby="upload-language-help">{{#uploadLanguages}}<option value="{{value}}"
        {{#selected}}selected{{/selected}}>{{label}}</option>{{/uploadLanguages}}</select>
        <div class="form-text" id="upload-language-help">Choose it before the files: a narration, captions or a text is
        in one language; a photo or a sound every visitor gets is for all languages.</div></div>{{/hasLanguages}}
        <label class="form-label" for="upload-files">Choose photos, recordings, videos or texts (or drop them here); at most {{maxUpload}} each</label>
        <input class="form-control" type="file" id="upload-files" name="files" multiple>
        <div class="form-check mt-2"><input class="form-check-input" type="checkbox" id="upload-replace" name="replace"
        value="1"><label class="form-check-label" for="upload-replace">Replace a file of the same name (its title, alt
        text and transcript are cleared; the old file is kept aside)</label></div>
        <button class="btn btn-secondary mt-2" type="submit" id="upload-submit">Upload</button>
        <progress id="upload-progress" max="100" value="0" class="w-100 mt-2" hidden aria-label="Upload progress"></progress>
        <div id="upload-status" role="status" aria-live="polite" class="mt-2"></div>
        </div>
        </form>
        </section>

        {{#onDefaultTab}}
        <section aria-labelledby="stop-actions-heading" class="mt-4">
        <h2 id="stop-actions-heading" class="h5">Remove this stop</h2>
        <form method="post" action="{{stop.action}}/remove" data-confirm="Remove stop {{stop.number}}, {{stop.name}}, with its files? Its folder is kept aside on the server."><input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="revision" value="{{revision}}">
        <button class="btn btn-outline-danger" type="submit">Remove stop {{stop.number}}</button> <span class="small">Its folder is kept aside on the server, not deleted.</span></form>
        </section>
        {{/onDefaultTab}}
        {{/content}}
        {{/layout}}
        """#

    /// The side-by-side page: the default language read-only on the left, the other language's fields on the right.
    static let translate = #"""
        {{<layout}}
        {{$content}}
        <p><a href="{{draft.path}}#tour-languages">Back to {{draft.name}}</a>{{#hasOthers}} · Other languages:
        {{#others}}<a href="{{link}}">{{title}}</a> {{/others}}{{/hasOthers}}</p>
        {{#notice}}<div class="alert alert-success" role="status">{{notice}}</div>{{/notice}}
        <p id="translate-help">{{tab.defaultName}}, the default language, is on the left; write the {{tab.name}} on the
        right. A field left empty is shown to {{tab.name}} readers in {{tab.defaultName}}. Recordings and texts in
        {{tab.name}} are files: add them on each stop's page, choosing {{tab.name}} as their language.</p>
        {{#meter}}<div class="mb-3 tp-meter"><label class="form-label small mb-1" for="meter-{{id}}">{{summary}}</label>
        <meter id="meter-{{id}}" class="w-100" min="0" max="100" low="50" high="99" optimum="100"
        value="{{percent}}">{{percent}} %</meter></div>{{/meter}}
        <form method="post" action="{{action}}" id="translate-form" aria-describedby="translate-help">
        <input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="revision" value="{{revision}}">
        <fieldset class="mb-4" id="translate-tour"><legend class="h4">The tour</legend>
        {{#tour}}{{>translateRow}}{{/tour}}
        </fieldset>
        {{#stops}}
        <fieldset class="mb-4" id="translate-stop-{{number}}"><legend class="h4">Stop {{number}}: {{name}}</legend>
        {{#rows}}{{>translateRow}}{{/rows}}
        {{#hasFiles}}<p class="small mb-1">Files in {{tab.name}}: {{files}}.</p>{{/hasFiles}}
        {{#gaps}}<p class="small mb-1 text-warning-emphasis">{{.}} <a href="{{link}}">Open stop
        {{number}}</a></p>{{/gaps}}
        </fieldset>
        {{/stops}}
        <div class="tp-save-bar py-2"><button class="btn btn-primary" type="submit" id="save-translations">Save the
        {{tab.name}} texts</button></div>
        </form>
        {{/content}}
        {{/layout}}
        """#

    /// One row of the side-by-side page.
    static let translateRow = #"""
        <div class="row g-2 mb-2 tp-translate-row">
        <div class="col-md-6"><div class="small text-body-secondary" id="{{id}}-source-label">{{label}} in
        {{tab.defaultName}}</div>
        <div class="tp-source tp-prewrap" id="{{id}}-source"
        lang="{{tab.defaultTag}}">{{#hasSource}}{{source}}{{/hasSource}}{{^hasSource}}(none){{/hasSource}}</div></div>
        <div class="col-md-6"><label class="small form-label mb-0" for="{{id}}">{{label}} in {{tab.name}}{{#missing}}
        <span class="badge text-bg-warning">to translate</span>{{/missing}}</label>
        {{#long}}<textarea class="form-control" id="{{id}}" name="{{id}}" lang="{{tab.tag}}" rows="{{rows}}"
        aria-describedby="{{id}}-source-label {{id}}-source">{{value}}</textarea>{{/long}}
        {{^long}}<input class="form-control" id="{{id}}" name="{{id}}" lang="{{tab.tag}}" value="{{value}}"
        aria-describedby="{{id}}-source-label {{id}}-source">{{/long}}</div>
        </div>
        """#

    static let built = #"""
        {{<layout}}
        {{$content}}
        <p><a href="{{draft.path}}">Back to {{draft.name}}</a></p>
        <div class="alert {{#built}}alert-success{{/built}}{{^built}}alert-danger{{/built}}" role="status">{{message}}</div>
        {{#sha256}}
        <dl class="row">
        <dt class="col-sm-3">Version</dt><dd class="col-sm-9">{{version}}</dd>
        <dt class="col-sm-3">State</dt><dd class="col-sm-9" id="built-status">{{status}}</dd>
        <dt class="col-sm-3">Malware scan</dt><dd class="col-sm-9">{{scan}}</dd>
        <dt class="col-sm-3">Size</dt><dd class="col-sm-9">{{size}}</dd>
        <dt class="col-sm-3">SHA-256</dt><dd class="col-sm-9"><code id="built-sha256">{{sha256}}</code></dd>
        <dt class="col-sm-3">Build time</dt><dd class="col-sm-9">{{seconds}} s</dd>
        </dl>
        {{/sha256}}
        {{#hasGaps}}<div class="alert alert-warning"><p class="mb-1">Review cannot be requested until these are given (or waived on the stop):</p><ul class="mb-0">{{#gaps}}<li><a href="{{link}}">{{message}}</a></li>{{/gaps}}</ul></div>{{/hasGaps}}
        {{#canRequestReview}}
        <form method="post" action="{{draft.path}}/review">
        <input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="version" value="{{version}}">
        <button class="btn btn-primary" type="submit" id="request-review">Request review of version {{version}}</button>
        </form>
        {{/canRequestReview}}
        {{#released}}<p>This server releases without review (approvals: 0): the version is already listed for the phones.</p>{{/released}}
        {{#hasFindings}}
        {{>findings}}
        {{/hasFindings}}
        {{/content}}
        {{/layout}}
        """#

    static let resume = #"""
        {{<layout}}
        {{$content}}
        <div class="alert alert-warning" role="alert">You are signed in again. What you typed is below and
        <strong>not saved yet</strong>: press “Save what you typed” to keep it.</div>
        {{#hasShown}}<dl class="row" id="resume-fields">{{#shown}}<dt class="col-sm-3">{{label}}</dt>
        <dd class="col-sm-9 tp-prewrap">{{value}}</dd>{{/shown}}</dl>{{/hasShown}}
        <form method="post" action="{{action}}" id="resume-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">{{/fields}}
        <button class="btn btn-primary" type="submit" id="resume-save">Save what you typed</button>
        <a class="btn btn-link" href="{{back}}">Leave it and open the page</a>
        </form>
        {{/content}}
        {{/layout}}
        """#

    static let admin = #"""
        {{<layout}}
        {{$content}}
        {{#notice}}<div class="alert alert-success" role="status">{{notice}}</div>{{/notice}}
        {{#issued}}<div class="alert alert-warning" role="status" id="issued-token"><p class="mb-1">A new token for
        {{user}}. Copy it now: it is shown this once and never again (the server keeps only a fingerprint of
        it).</p><p class="mb-0"><code id="token-value">{{token}}</code></p></div>{{/issued}}
        <section aria-labelledby="people-heading" class="mb-4">
        <h2 id="people-heading" class="h4">People</h2>
        <div class="table-responsive"><table class="table table-sm align-top">
        <caption class="visually-hidden">Everyone who can sign in, with their role, sites and tokens</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Makes tours for</th><th
        scope="col">New password</th><th scope="col">Tokens for programs</th><th scope="col">Sign out or
        remove</th></tr></thead>
        <tbody>
        {{#people}}<tr id="person-{{name}}">
        <th scope="row">{{name}}{{#signingKey}}<div class="small fw-normal">signs approvals with a
        key</div>{{/signingKey}}</th>
        <td><form method="post" action="/admin/users/{{slug}}/role" class="d-flex gap-1"><input type="hidden"
        name="_csrf" value="{{csrf}}"><select class="form-select form-select-sm" id="role-{{name}}" name="role" aria-label="Role of {{name}}">{{#roles}}<option
        value="{{value}}" {{#selected}}selected{{/selected}}>{{label}}</option>{{/roles}}</select><button
        class="btn btn-sm btn-outline-secondary" type="submit">Change</button></form></td>
        <td>{{#grants}}<form method="post" action="/admin/grants/remove" class="d-flex gap-1 mb-1"><input
        type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="user" value="{{user}}"><input
        type="hidden" name="site" value="{{site}}"><span>{{site}}</span><button class="btn btn-sm btn-link p-0 ms-1"
        type="submit" aria-label="Stop {{user}} making tours for {{site}}">take back</button></form>{{/grants}}
        {{^hasGrants}}{{#isPublisher}}<span class="small">no site yet</span>{{/isPublisher}}{{/hasGrants}}</td>
        <td><form method="post" action="/admin/users/{{slug}}/password"><input type="hidden" name="_csrf"
        value="{{csrf}}"><input
        class="form-control form-control-sm mb-1" type="password" id="password-{{name}}" name="password" aria-label="New password for {{name}}"
        autocomplete="new-password" minlength="10" placeholder="new password"><input class="form-control form-control-sm mb-1" type="password"
        id="password2-{{name}}" name="password2" aria-label="The new password for {{name}} again" autocomplete="new-password" placeholder="the same again"><button
        class="btn btn-sm btn-outline-secondary" type="submit">Set</button></form></td>
        <td>{{#tokens}}<form method="post" action="/admin/tokens/{{id}}/revoke" class="mb-1"><input type="hidden"
        name="_csrf" value="{{csrf}}"><span class="small">{{id}} ({{created}})</span> <button class="btn btn-sm
        btn-link p-0" type="submit" aria-label="Revoke token {{id}}">revoke</button></form>{{/tokens}}<form
        method="post" action="/admin/tokens"><input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden"
        name="user" value="{{name}}"><button class="btn btn-sm btn-outline-secondary" type="submit"
        aria-label="Issue a token for {{name}}">Issue a token</button></form></td>
        <td><form method="post" action="/admin/users/{{slug}}/sessions" class="mb-1"><input type="hidden"
        name="_csrf" value="{{csrf}}"><button class="btn btn-sm btn-outline-secondary" type="submit"
        aria-label="Sign {{name}} out everywhere">Sign out everywhere</button></form>{{^isSelf}}<form method="post"
        action="/admin/users/{{slug}}/remove" class="d-flex gap-1"><input type="hidden" name="_csrf"
        value="{{csrf}}"><input class="form-control form-control-sm" id="confirm-{{name}}" name="confirm" aria-label="Type {{name}} to remove them"
        placeholder="type {{name}}" autocomplete="off"><button class="btn btn-sm btn-outline-danger"
        type="submit">Remove</button></form>{{/isSelf}}</td>
        </tr>{{/people}}
        </tbody></table></div>
        </section>

        <section aria-labelledby="add-person-heading" class="mb-4">
        <h2 id="add-person-heading" class="h4">Add a person</h2>
        <form method="post" action="/admin/users" class="row g-3" id="add-person">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <div class="col-md-4"><label class="form-label" for="new-user">Name they sign in with</label><input
        class="form-control" id="new-user" name="name" required autocomplete="off" aria-describedby="new-user-help">
        <div class="form-text" id="new-user-help">Letters, digits, dots and hyphens, such as jane.doe.</div></div>
        <div class="col-md-4"><label class="form-label" for="new-role">Role</label><select class="form-select"
        id="new-role" name="role">{{#roles}}<option value="{{value}}">{{label}}</option>{{/roles}}</select></div>
        <div class="col-md-4"><label class="form-label" for="new-user-site">Makes tours for (publishers)</label><select
        class="form-select" id="new-user-site" name="site"><option value="">(choose later)</option>{{#sites}}<option
        value="{{id}}">{{name}} ({{id}})</option>{{/sites}}</select></div>
        <div class="col-md-6"><label class="form-label" for="new-password">First password (at least 10
        characters)</label><input class="form-control" type="password" id="new-password" name="password"
        autocomplete="new-password"></div>
        <div class="col-md-6"><label class="form-label" for="new-password2">The same again</label><input
        class="form-control" type="password" id="new-password2" name="password2" autocomplete="new-password"></div>
        <div class="col-12"><label class="form-label" for="new-key">Signing public key (reviewers who sign
        approvals: paste their .pub file)</label><textarea class="form-control" id="new-key" name="publicKey"
        rows="2"></textarea></div>
        <div class="col-12"><button class="btn btn-primary" type="submit" id="add-person-button">Add the
        person</button></div>
        </form>
        </section>

        <section aria-labelledby="sites-heading" class="mb-4">
        <h2 id="sites-heading" class="h4">Sites</h2>
        {{#hasSites}}<ul class="list-unstyled">{{#sites}}<li class="mb-2" id="site-{{id}}"><form method="post"
        action="/admin/sites/{{id}}/name" class="d-flex flex-wrap gap-2 align-items-center"><input type="hidden"
        name="_csrf" value="{{csrf}}"><span class="fw-semibold">{{id}}</span><span class="small">({{packages}}
        released tours)</span><input
        class="form-control form-control-sm w-auto" id="site-name-{{id}}" name="name" aria-label="Name of {{id}}" value="{{name}}"><button
        class="btn btn-sm btn-outline-secondary" type="submit">Rename</button></form></li>{{/sites}}</ul>{{/hasSites}}
        <form method="post" action="/admin/sites" class="row g-2 align-items-end" id="add-site">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <div class="col-md-4"><label class="form-label" for="new-site-id">Short name</label><input class="form-control"
        id="new-site-id" name="id" required aria-describedby="new-site-id-help"><div class="form-text"
        id="new-site-id-help">Lowercase letters, digits and hyphens: willamette-sweet-home.</div></div>
        <div class="col-md-5"><label class="form-label" for="new-site-name">Name visitors see</label><input
        class="form-control" id="new-site-name" name="name"></div>
        <div class="col-md-3"><button class="btn btn-primary" type="submit" id="add-site-button">Add the
        site</button></div>
        </form>
        {{#hasSites}}<form method="post" action="/admin/grants" class="row g-2 align-items-end mt-3" id="add-grant">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <div class="col-md-4"><label class="form-label" for="grant-user">Publisher</label><select class="form-select"
        id="grant-user" name="user">{{#publishers}}<option value="{{name}}">{{name}}</option>{{/publishers}}</select></div>
        <div class="col-md-5"><label class="form-label" for="grant-site">Makes tours for</label><select
        class="form-select" id="grant-site" name="site">{{#sites}}<option value="{{id}}">{{name}}
        ({{id}})</option>{{/sites}}</select></div>
        <div class="col-md-3"><button class="btn btn-outline-primary" type="submit">Let them make tours
        there</button></div>
        </form>{{/hasSites}}
        </section>
        {{/content}}
        {{/layout}}
        """#

    static let error = #"""
        {{<layout}}
        {{$content}}
        <div class="alert alert-danger" role="alert">{{message}}</div>
        <p>Use your browser's Back button to return to the form (what you typed is still there), or go to <a href="/">all tours</a>.</p>
        {{/content}}
        {{/layout}}
        """#

    /// The templates, parsed once (a template error is the program's own bug, found by the tests).
    static let reviews = #"""
        {{<layout}}
        {{$content}}
        <p><a href="/">All tours</a></p>
        {{#hasRows}}
        <table class="table table-sm align-middle">
        <caption class="visually-hidden">Versions waiting for review</caption>
        <thead><tr><th scope="col">Tour</th><th scope="col">Version</th><th scope="col">Site</th><th scope="col">Publisher</th><th scope="col">Waiting since</th><th scope="col">Approvals</th><th scope="col">Malware scan</th>{{#isPublisher}}<th scope="col">State</th>{{/isPublisher}}</tr></thead>
        <tbody>
        {{#rows}}<tr><td><a href="{{link}}">{{name}}</a></td><td>{{version}}</td><td>{{site}}</td><td>{{publisher}}</td><td>{{since}}</td><td>{{approvals}} of {{required}}{{#mine}} (you approved){{/mine}}</td><td>{{scan}}</td>{{#isPublisher}}<td>{{status}}</td>{{/isPublisher}}</tr>{{/rows}}
        </tbody>
        </table>
        {{/hasRows}}
        {{^hasRows}}<p>Nothing is waiting for review.</p>{{/hasRows}}
        {{/content}}
        {{/layout}}
        """#

    static let review = #"""
        {{<layout}}
        {{$content}}
        <p><a href="/reviews">Waiting for review</a> · <a href="{{history}}">All versions of this tour</a></p>
        {{#notice}}<div class="alert alert-success" role="status">{{notice}}</div>{{/notice}}
        {{#denial}}<div class="alert alert-warning" id="denial"><strong>Sent back by {{by}}</strong> ({{at}}): “{{reason}}”</div>{{/denial}}
        <dl class="row">
        <dt class="col-sm-3">State</dt><dd class="col-sm-9" id="version-status">{{status}}</dd>
        <dt class="col-sm-3">Approvals</dt><dd class="col-sm-9" id="approval-count">{{approvalCount}} of {{required}}{{#approvals}} · {{reviewer}} ({{at}}{{#signed}}, signed{{/signed}}){{/approvals}}</dd>
        <dt class="col-sm-3">Publisher</dt><dd class="col-sm-9">{{publisher}}, uploaded {{uploaded}}</dd>
        <dt class="col-sm-3">Site</dt><dd class="col-sm-9">{{site}}</dd>
        {{#hasLanguages}}<dt class="col-sm-3">Languages</dt><dd class="col-sm-9"
        id="review-language-names">{{languageNames}}{{#requireAll}}; every language must be
        complete{{/requireAll}}</dd>{{/hasLanguages}}
        <dt class="col-sm-3">Malware scan</dt><dd class="col-sm-9">{{scan}}</dd>
        <dt class="col-sm-3">Package</dt><dd class="col-sm-9"><a href="{{action}}/package.zip" id="package-download">{{fileName}}</a>, {{size}}; SHA-256 <code id="review-sha256">{{sha256}}</code></dd>
        <dt class="col-sm-3">Verifier</dt><dd class="col-sm-9">{{#verified}}the package verifies{{/verified}}{{^verified}}<strong>the package does not verify</strong>{{/verified}}</dd>
        </dl>
        <details class="mb-3" id="visitor-preview"><summary>Preview as a visitor: the visitor app over exactly these bytes</summary>
        <p class="small mb-1">What a visitor's phone will show, from this version's package (<a href="{{visitorPreview}}" target="_blank" rel="noopener">open it full size</a>).</p>
        <iframe title="The visitor app showing this version" src="{{visitorPreview}}" loading="lazy" width="390" height="720"></iframe>
        </details>
        {{#hasReport}}<section aria-labelledby="report-heading"><h2 id="report-heading" class="h5">The verifier's report</h2><ul>{{#findings}}<li><span class="badge text-bg-secondary">{{severity}}</span> <code>{{code}}</code> {{file}}: {{message}}</li>{{/findings}}</ul></section>{{/hasReport}}

        <section aria-labelledby="changes-heading" class="mb-4" id="changes">
        <h2 id="changes-heading" class="h4">What changed</h2>
        {{#diff}}
        {{#firstRelease}}<p>This is the tour's first release: there is no earlier version to compare with.</p>{{/firstRelease}}
        {{^firstRelease}}
        {{^hasChanges}}<p>Nothing changed since version {{against}} but the version number.</p>{{/hasChanges}}
        {{#hasChanges}}<p>Since version {{against}} ({{count}} change(s)):</p>
        <ul class="tp-changes">
        {{#tour}}<li>Tour {{field}}: {{#hasWords}}{{#words}}{{#same}}{{text}}{{/same}}{{#removed}}<del>{{text}}</del>{{/removed}}{{#added}}<ins>{{text}}</ins>{{/added}} {{/words}}{{/hasWords}}{{^hasWords}}'{{old}}' → '{{new}}'{{/hasWords}}</li>{{/tour}}
        {{#stops}}<li class="tp-change-{{kind}}"><strong>{{title}}</strong>{{#hasLines}}<ul>{{#lines}}<li>{{.}}</li>{{/lines}}</ul>{{/hasLines}}{{#hasWords}}<p class="mb-1">Description: {{#words}}{{#same}}{{text}}{{/same}}{{#removed}}<del>{{text}}</del>{{/removed}}{{#added}}<ins>{{text}}</ins>{{/added}} {{/words}}</p>{{/hasWords}}</li>{{/stops}}
        {{#other}}<li>{{.}}</li>{{/other}}
        </ul>
        {{#byLanguage}}<section class="mt-3" aria-labelledby="changes-{{id}}" id="translation-changes-{{id}}"><h3
        class="h5" id="changes-{{id}}">In {{title}} ({{count}})</h3>
        <ul class="tp-changes">{{#changes}}<li class="tp-translation">{{place}}: {{#added}}added <span
        lang="{{tag}}">'{{new}}'</span>{{/added}}{{#removed}}removed (was <span
        lang="{{tag}}">'{{old}}'</span>){{/removed}}{{#hasWords}}<span
        lang="{{tag}}">{{#words}}{{#same}}{{text}}{{/same}}{{#removed}}<del>{{text}}</del>{{/removed}}{{#added}}<ins
        >{{text}}</ins>{{/added}} {{/words}}</span>{{/hasWords}}{{#changed}}<span
        lang="{{tag}}">'{{old}}' → '{{new}}'</span
        >{{/changed}}</li>{{/changes}}</ul>
        </section>{{/byLanguage}}
        {{/hasChanges}}
        {{/firstRelease}}
        {{/diff}}
        </section>

        {{#hasLanguages}}
        <section aria-labelledby="review-languages-heading" class="mb-4" id="review-languages">
        <h2 id="review-languages-heading" class="h4">Languages</h2>
        <p>Visitors choose one language; where a text or a recording is not translated they get the {{baseName}} one. A
        phone needs {{baseSize}} for {{baseName}}.</p>
        {{#meters}}<div class="mb-3 tp-meter"><label class="form-label small mb-1"
        for="review-meter-{{id}}">{{summary}}</label>
        <meter id="review-meter-{{id}}" class="w-100" min="0" max="100" low="50" high="99" optimum="100"
        value="{{percent}}">{{percent}} %</meter>
        <div class="small text-body-secondary">{{#complete}}Everything is
        translated.{{/complete}}{{^complete}}{{percent}} % translated.{{/complete}} A phone needs {{bytes}} for {{name}}.</div>
        {{^complete}}<p class="small mb-0">Not translated yet (visitors get the {{defaultName}} ones):</p>
        <ul class="small mb-0">{{#missing}}<li>{{.}}</li>{{/missing}}</ul>{{/complete}}</div>{{/meters}}
        </section>
        {{/hasLanguages}}

        <section aria-labelledby="map-heading" class="mb-4">
        <h2 id="map-heading" class="h4">Map</h2>
        <p class="small" id="review-map-help">Every stop of this version, numbered; a dashed line leads from where a moved stop was to where it is now. The rectangle is the map frame.</p>
        <div class="tp-map" id="review-map" data-tp-map data-review role="region" aria-label="Map of this version's stops" aria-describedby="review-map-help"
             data-tile-url="{{tileURL}}" data-tile-attribution="{{tileAttribution}}" data-stops="{{mapStops}}"
             {{#ownMap}}data-own-tiles="{{url}}" data-own-min-zoom="{{minZoom}}" data-own-max-zoom="{{maxZoom}}" data-own-bounds="{{south}},{{west}},{{north}},{{east}}"{{/ownMap}}
             {{#frame}}data-south="{{south}}" data-west="{{west}}" data-north="{{north}}" data-east="{{east}}"{{/frame}}></div>
        </section>

        <section aria-labelledby="offline-map-heading" class="mb-4" id="offline-map">
        <h2 id="offline-map-heading" class="h4">Offline map</h2>
        {{#hasCoverage}}<p>{{mapPath}}: {{mapType}} tiles, zoom {{mapMinZoom}}–{{mapMaxZoom}}{{^ownMap}} (vector tiles: the phones draw them; this page shows the grid){{/ownMap}}. Coverage of the map frame:</p>
        <table class="table table-sm w-auto"><caption class="visually-hidden">Tiles of the frame present at each zoom</caption>
        <thead><tr><th scope="col">Zoom</th><th scope="col">Tiles in the frame</th><th scope="col">Present</th><th scope="col">Coverage</th><th scope="col">Missing</th></tr></thead>
        <tbody>{{#coverage}}<tr{{^complete}} class="table-warning"{{/complete}}><td>{{zoom}}</td><td>{{tiles}}</td><td>{{present}}</td><td>{{percent}} %</td><td>{{missing}}</td></tr>{{/coverage}}</tbody></table>{{/hasCoverage}}
        {{^hasCoverage}}<p>This version has no offline map: the apps will need a network to show one where visitors go.</p>{{/hasCoverage}}
        </section>

        <section aria-labelledby="stops-heading" class="mb-4">
        <h2 id="stops-heading" class="h4">Stops and their media</h2>
        {{#stops}}
        <article class="card mb-3" id="review-stop-{{number}}" aria-labelledby="review-stop-{{number}}-name">
        <div class="card-body">
        <h3 class="h5" id="review-stop-{{number}}-name">{{number}}. {{name}} {{#added}}<span class="badge text-bg-success">new</span>{{/added}}{{^added}}{{#changed}}<span class="badge text-bg-info">changed</span>{{/changed}}{{/added}}</h3>
        <p class="small text-body-secondary">{{latitude}}, {{longitude}}</p>
        <p class="tp-prewrap">{{description}}</p>
        {{#translated}}<details class="mb-2"><summary>In {{title}}</summary><p class="mb-1 fw-semibold"
        lang="{{tag}}">{{name}}</p><p class="tp-prewrap" lang="{{tag}}">{{description}}</p></details>{{/translated}}
        {{#hasWaiver}}<div class="alert alert-warning"><strong>Accessibility waiver:</strong> {{waiver}}</div>{{/hasWaiver}}
        {{#assets}}
        <figure class="mb-3">
        {{#isImage}}<img src="{{url}}" alt="{{alt}}" class="img-fluid tp-review-image">{{/isImage}}
        {{#isAudio}}<audio controls preload="metadata" src="{{url}}" class="w-100" aria-label="{{path}}"></audio>{{/isAudio}}
        {{#isVideo}}<video controls preload="metadata" src="{{url}}" class="w-100"
        aria-label="{{path}}">{{#captions}}<track kind="captions" src="{{captions}}" srclang="{{srclang}}"
        label="Captions" default>{{/captions}}</video>{{/isVideo}}
        {{#isOther}}<a href="{{url}}">{{path}}</a>{{/isOther}}
        <figcaption class="small">{{path}} ({{size}}{{#language}}, in {{language}}{{/language}}){{#title}} —
        {{title}}{{/title}}
        {{#alt}}<br>Alt text: {{alt}}{{/alt}}{{#transcript}}<br>Transcript:
        {{transcript}}{{/transcript}}{{#missingText}}<br><strong>No alt text, transcript or
        captions</strong>{{/missingText}}
        {{#translatedTexts}}<br>In {{name}}: {{#lines}}<span lang="{{tag}}">{{.}}</span>
        {{/lines}}{{/translatedTexts}}</figcaption>
        </figure>
        {{/assets}}
        </div>
        </article>
        {{/stops}}
        </section>

        <section aria-labelledby="decision-heading" class="mb-4">
        <h2 id="decision-heading" class="h4">Decision</h2>
        {{#canApprove}}
        <form method="post" action="{{action}}/approve" class="mb-3" id="approve-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label class="form-label" for="signature">Your signature (optional): the whole .minisig file, made offline with</label>
        <pre class="small mb-1" id="sign-command">trailpack sign {{fileName}} -s YOUR-KEY.key      # the file whose SHA-256 is {{sha256}}</pre>
        <textarea class="form-control mb-2" id="signature" name="signature" rows="4" aria-describedby="sign-command"></textarea>
        <button class="btn btn-success" type="submit" id="approve-button">Approve version {{version}}</button>
        </form>
        {{/canApprove}}
        {{#canAddSignature}}
        <form method="post" action="{{action}}/approve" class="mb-3">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label class="form-label" for="signature">You approved this version; add your signature (the whole .minisig file):</label>
        <textarea class="form-control mb-2" id="signature" name="signature" rows="4" required></textarea>
        <button class="btn btn-success" type="submit">Add my signature</button>
        </form>
        {{/canAddSignature}}
        {{#canJudge}}
        <form method="post" action="{{action}}/deny" class="mb-3" id="deny-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label class="form-label" for="reason">Deny, with the reason the publisher needs to fix it</label>
        <textarea class="form-control mb-2" id="reason" name="reason" rows="3" required></textarea>
        <button class="btn btn-outline-danger" type="submit" id="deny-button">Deny version {{version}}</button>
        </form>
        {{/canJudge}}
        {{#canRelease}}
        <form method="post" action="{{action}}/release" class="mb-3" data-confirm="Release version {{version}} of {{name}}? Every visitor's phone gets it from now on."><input type="hidden" name="_csrf" value="{{csrf}}">
        <button class="btn btn-primary" type="submit" id="release-button">Release version {{version}} to the phones</button></form>
        {{/canRelease}}
        {{#canRequest}}
        <form method="post" action="{{action}}/request" class="mb-3"><input type="hidden" name="_csrf" value="{{csrf}}">
        <button class="btn btn-primary" type="submit" id="request-button">Request review of version {{version}}</button></form>
        {{/canRequest}}
        {{#canWithdraw}}
        <form method="post" action="{{action}}/withdraw" class="mb-3"><input type="hidden" name="_csrf" value="{{csrf}}">
        <label class="form-label" for="withdraw-reason">Withdraw from the phones' list, because</label>
        <textarea class="form-control mb-2" id="withdraw-reason" name="reason" rows="2" required></textarea>
        <button class="btn btn-outline-danger" type="submit" id="withdraw-button">Withdraw version {{version}}</button></form>
        {{/canWithdraw}}
        {{^canApprove}}{{^canAddSignature}}{{^canJudge}}{{^canRelease}}{{^canRequest}}{{^canWithdraw}}<p>Nothing for you to decide on this version now.</p>{{/canWithdraw}}{{/canRequest}}{{/canRelease}}{{/canJudge}}{{/canAddSignature}}{{/canApprove}}
        </section>
        {{/content}}
        {{/layout}}
        """#

    static let history = #"""
        {{<layout}}
        {{$content}}
        <p><a href="/reviews">Waiting for review</a></p>
        <section aria-labelledby="versions-heading" class="mb-4">
        <h2 id="versions-heading" class="h4">Versions</h2>
        <table class="table table-sm align-middle">
        <caption class="visually-hidden">Versions of {{id}}</caption>
        <thead><tr><th scope="col">Version</th><th scope="col">State</th><th scope="col">Uploaded</th><th scope="col">Approved by</th><th scope="col">Package</th></tr></thead>
        <tbody>
        {{#rows}}<tr><td><a href="{{link}}">{{version}}</a></td><td>{{status}}</td><td>{{uploaded}} by {{publisher}}</td>
        <td>{{#approvals}}{{reviewer}} ({{at}}{{#signed}}, signed{{/signed}}) {{/approvals}}</td>
        <td><code title="SHA-256">{{sha256}}</code> {{size}}{{#released}} · <a href="{{download}}">download</a> · <a href="{{signatures}}">signatures</a>{{/released}}</td></tr>{{/rows}}
        </tbody>
        </table>
        </section>
        <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading" class="h4">What happened, newest first</h2>
        <ol class="list-unstyled" reversed>
        {{#timeline}}<li class="mb-1"><span class="text-body-secondary">{{at}}</span> · <strong>{{actor}}</strong> {{action}}{{#version}} {{version}}{{/version}}{{#detail}}: {{detail}}{{/detail}}</li>{{/timeline}}
        </ol>
        </section>
        {{/content}}
        {{/layout}}
        """#

    static let columns = #"""
        {{<layout}}
        {{$content}}
        <p><a href="/">All tours</a></p>
        <p id="columns-help">The spreadsheet '{{fileName}}' has these columns: {{headers}}. Say which one holds what; the other columns become each stop's details.</p>
        {{#hasProblems}}<div class="alert alert-danger" role="alert"><ul class="mb-0">{{#problems}}<li>{{.}}</li>{{/problems}}</ul></div>{{/hasProblems}}
        <div class="table-responsive"><table class="table table-sm table-bordered small" id="sheet-sample"><caption>The sheet's first rows</caption>
        <thead><tr>{{#sampleHeaders}}<th scope="col">{{.}}</th>{{/sampleHeaders}}</tr></thead>
        <tbody>{{#sample}}<tr>{{#cells}}<td>{{.}}</td>{{/cells}}</tr>{{/sample}}</tbody></table></div>
        <form method="post" action="{{action}}" class="row g-3" aria-describedby="columns-help">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        {{#roles}}<div class="col-md-6"><label class="form-label" for="column-{{role}}">{{label}}</label>
        <select class="form-select" id="column-{{role}}" name="column-{{role}}"><option value="">(none)</option>{{#options}}<option value="{{header}}" {{#selected}}selected{{/selected}}>{{header}}</option>{{/options}}</select></div>{{/roles}}
        <div class="col-12"><button class="btn btn-primary" type="submit" id="columns-submit">Make the tour</button></div>
        </form>
        {{/content}}
        {{/layout}}
        """#

    static func library() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        for (name, text) in [
            ("layout", layout), ("findings", findings), ("login", login), ("home", home), ("editor", editor),
            ("stop", stop), ("built", built), ("error", error), ("resume", resume), ("admin", admin),
            ("translate", translate), ("translateRow", translateRow),
            ("reviews", reviews), ("review", review), ("history", history), ("columns", columns),
        ] {
            try library.register(MustacheTemplate(string: text), named: name)
        }
        return library
    }
}
