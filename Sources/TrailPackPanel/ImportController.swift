import Foundation
import Hummingbird
import TrailPackBlocking
import TrailPackCatalogModel
import TrailPackServer

/// The room for making a tour from a file: a GPS track (GPX), a spreadsheet (CSV, with its
/// columns chosen when they are not plain), or a zipped tour folder. Its extension is PanelImport.
struct ImportController: PanelDraftRoom {
    let shell: PanelShell
    let drafts: DraftStore
    let pool: BlockingPool
    /// Its temporary folders (an upload's, a sheet kept while its columns are chosen).
    let dataFolder: DataFolder

    func addRoutes(panel: RouterGroup<AppRequestContext>, guarded: RouterGroup<AppRequestContext>) {
        guarded.put("/drafts/import") { request, context in
            await signedIn(request, context, json: true) { try await importFile($0, request: request) }
        }
        guarded.post("/drafts/import") { request, context in
            await signedIn(request, context) { try await importForm($0, request: request) }
        }
        panel.get("/drafts/columns/:sheet") { request, context in
            await signedIn(request, context) { try await columnsPage($0, request: request, context: context) }
        }
        guarded.post("/drafts/columns/:sheet") { request, context in
            await signedIn(request, context) { try await chooseColumns($0, request: request, context: context) }
        }
    }
}
