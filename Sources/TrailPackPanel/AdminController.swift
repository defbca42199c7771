import Foundation
import Hummingbird
import TrailPackBlocking
import TrailPackCatalogModel
import TrailPackServer

/// The room for administration: people (roles, passwords, public keys, e-mail, sessions), sites
/// (names, home frames, region maps), grants and API tokens. Its extension is PanelAdmin.
struct AdminController: PanelFileRoom {
    let shell: PanelShell
    let catalog: any CatalogStore
    let pool: BlockingPool
    /// Where each site's region map is kept.
    let drafts: DraftStore
    /// Whether review mail is sent (a user's e-mail is then asked for).
    let mailConfigured: Bool

    func addRoutes(panel: RouterGroup<AppRequestContext>, guarded: RouterGroup<AppRequestContext>) {
        addAdminRoutes(panel: panel, guarded: guarded)
    }
}
