// Written by scripts/embed_app.py from the files under app/ (make check says when it is out of date).

/// The visitor app's files, compiled into the program (Package.swift embeds each one): the path
/// under `app/` each is served at below `/visit/`, and its bytes.
enum EmbeddedApp {
    static let files: [(path: String, bytes: [UInt8])] = [
        ("app.css", PackageResources.app_css),
        ("icons/icon-192.png", PackageResources.icon_192_png),
        ("icons/icon-512.png", PackageResources.icon_512_png),
        ("icons/icon.svg", PackageResources.icon_svg),
        ("index.html", PackageResources.index_html),
        ("js/app.js", PackageResources.app_js),
        ("js/blake2b.js", PackageResources.blake2b_js),
        ("js/boot.js", PackageResources.boot_js),
        ("js/bytes.js", PackageResources.bytes_js),
        ("js/catalog.js", PackageResources.catalog_js),
        ("js/download-worker.js", PackageResources.download_worker_js),
        ("js/downloader.js", PackageResources.downloader_js),
        ("js/ed25519.js", PackageResources.ed25519_js),
        ("js/fasthash.js", PackageResources.fasthash_js),
        ("js/guide.js", PackageResources.guide_js),
        ("js/hash-worker.js", PackageResources.hash_worker_js),
        ("js/hashes.wasm", PackageResources.hashes_wasm),
        ("js/install.js", PackageResources.install_js),
        ("js/language-view.js", PackageResources.language_view_js),
        ("js/language.js", PackageResources.language_js),
        ("js/minisign.js", PackageResources.minisign_js),
        ("js/narration.js", PackageResources.narration_js),
        ("js/pmtiles.js", PackageResources.pmtiles_js),
        ("js/route.js", PackageResources.route_js),
        ("js/sha256.js", PackageResources.sha256_js),
        ("js/status.js", PackageResources.status_js),
        ("js/storage.js", PackageResources.storage_js),
        ("js/tour.js", PackageResources.tour_js),
        ("js/update-plan.js", PackageResources.update_plan_js),
        ("js/updater.js", PackageResources.updater_js),
        ("js/walk.js", PackageResources.walk_js),
        ("js/zip.js", PackageResources.zip_js),
        ("manifest.webmanifest", PackageResources.manifest_webmanifest),
        ("sw.js", PackageResources.sw_js),
    ]
}
