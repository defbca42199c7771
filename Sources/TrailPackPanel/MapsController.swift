import Foundation
import Hummingbird
import TrailPackBlocking
import TrailPackCatalogModel
import TrailPackServer

/// The room for map tiles: a draft's region map, a stored version's map and a site's, read with one
/// positioned read per tile. Its extension is PanelMaps.
struct MapsController: PanelDraftRoom, PanelVersionRoom {
    let shell: PanelShell
    let catalog: any CatalogStore
    let blobs: any BlobStore
    let pool: BlockingPool
    let drafts: DraftStore

    func addRoutes(panel: RouterGroup<AppRequestContext>) {
        addMapRoutes(panel: panel)
        addSiteMapRoute(panel: panel)
    }
}
