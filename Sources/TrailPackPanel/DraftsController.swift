import Foundation
import Hummingbird
import TrailPackBlocking
import TrailPackCatalogModel
import TrailPackServer

/// The room for the tours being edited: the tours page, a draft's page and its stops, files,
/// languages and route, a draft's life (rename, duplicate, delete, bring back), building a version
/// and asking for its review. Its extensions are PanelDrafts, PanelStops, PanelLanguages,
/// PanelRoute, PanelDraftLife and PanelBuild.
struct DraftsController: PanelDraftRoom, PanelVersionRoom {
    let shell: PanelShell
    let drafts: DraftStore
    /// The sites, grants and versions a draft is checked against, and where a build is recorded.
    let catalog: any CatalogStore
    let pool: BlockingPool
    /// Read for a built version's own report (the stored package).
    let blobs: any BlobStore
    /// Every build is stored through the same intake as an upload to the API.
    let intake: PackageIntake
    /// Its temporary folders (a build's, an upload's).
    let dataFolder: DataFolder
    /// Builds in progress, for the progress bar.
    let builds = PanelBuilds()
    /// The findings and route the pages show, kept until the draft's folder changes.
    let plans = PanelPlans()
    let reports: PanelReports
    /// The reviewers' mail, sent when review is requested, and how many approvals a release needs.
    let mail: ReviewMail?
    let approvals: Int

    func addRoutes(panel: RouterGroup<AppRequestContext>, guarded: RouterGroup<AppRequestContext>) {
        panel.get("/") { request, context in await signedIn(request, context) { try await home($0, request: request) } }
        panel.get("/drafts/:site/:tour") { request, context in
            await draftRoute(request, context) { try await editor($0, $1, request: request) }
        }
        panel.get("/drafts/:site/:tour/stops/:stop") { request, context in
            await draftRoute(request, context) {
                try await stopPage($0, $1, index: try stopIndex(context), request: request)
            }
        }
        panel.get("/drafts/:site/:tour/stops/:stop/files/:file") { request, context in
            await draftRoute(request, context) {
                try await stopFile(
                    $0, $1, index: try stopIndex(context), name: try context.parameters.require("file"),
                    context: context)
            }
        }
        panel.get("/drafts/:site/:tour/build-status") { request, context in
            await draftRoute(request, context, json: true) { _, key in buildStatus(key) }
        }
        panel.get("/drafts/:site/:tour/folder.zip") { request, context in
            await draftRoute(request, context) { try await folderZip($0, $1) }
        }
        guarded.post("/drafts") { request, context in
            await signedIn(request, context) { try await createDraft($0, request: request) }
        }
        // Saves answer with JSON when the page's script asks (an autosave), else with a page.
        guarded.post("/drafts/:site/:tour") { request, context in
            await draftRoute(request, context, json: Self.wantsJSON(request)) {
                try await saveTour($0, $1, request: request)
            }
        }
        guarded.post("/drafts/:site/:tour/stops") { request, context in
            await draftRoute(request, context, json: Self.wantsJSON(request)) {
                try await addStop($0, $1, request: request)
            }
        }
        guarded.post("/drafts/:site/:tour/bring-back-stop") { request, context in
            await draftRoute(request, context) { try await bringBackStop($0, $1, request: request) }
        }
        guarded.post("/drafts/:site/:tour/order") { request, context in
            await draftRoute(request, context) { try await reorder($0, $1, request: request) }
        }
        guarded.post("/drafts/:site/:tour/stops/:stop") { request, context in
            await draftRoute(request, context, json: Self.wantsJSON(request)) {
                try await saveStop($0, $1, index: try stopIndex(context), request: request)
            }
        }
        guarded.post("/drafts/:site/:tour/stops/:stop/:action") { request, context in
            await draftRoute(request, context) {
                try await stopAction(
                    $0, $1, index: try stopIndex(context), action: try context.parameters.require("action"),
                    request: request)
            }
        }
        guarded.put("/drafts/:site/:tour/stops/:stop/files") { request, context in
            await draftRoute(request, context, json: true) {
                try await upload($0, $1, index: try stopIndex(context), request: request)
            }
        }
        guarded.post("/drafts/:site/:tour/stops/:stop/files") { request, context in
            await draftRoute(request, context) {
                try await uploadForm($0, $1, index: try stopIndex(context), request: request)
            }
        }
        panel.get("/drafts/:site/:tour/built/:version") { request, context in
            await draftRoute(request, context) {
                try await builtPage($0, $1, version: try context.parameters.require("version"), request: request)
            }
        }
        guarded.post("/drafts/:site/:tour/build") { request, context in
            await draftRoute(request, context) { try await build($0, $1, request: request) }
        }
        guarded.post("/drafts/:site/:tour/review") { request, context in
            await draftRoute(request, context) { try await requestReview($0, $1, request: request) }
        }
        addDraftLifeRoutes(guarded: guarded)
        addRouteRoutes(guarded: guarded)
        addLanguageRoutes(guarded: guarded, panel: panel)
    }
}
