import Foundation
import Hummingbird
import TrailPackBlocking
import TrailPackCatalogModel
import TrailPackServer

/// The room for review: the versions waiting for a reviewer, a version's page (the stored package
/// itself, what changed since the last release), approving (optionally signed) or denying, releasing
/// and withdrawing, a tour's history and what needs a publisher. Its extensions are PanelReview and
/// PanelVersions.
struct ReviewController: PanelVersionRoom, PanelFileRoom {
    let shell: PanelShell
    let catalog: any CatalogStore
    /// The stored packages, read for the review page and a version's files.
    let blobs: any BlobStore
    let pool: BlockingPool
    /// Where each site's region map is kept (the base of the review page's map).
    let drafts: DraftStore
    let dataFolder: DataFolder
    let reports: PanelReports
    let signatures: ApprovalSignatures
    let mail: ReviewMail?
    let approvals: Int
    let fileIO = FileIO()

    func addRoutes(panel: RouterGroup<AppRequestContext>, guarded: RouterGroup<AppRequestContext>) {
        panel.get("/notifications") { request, context in
            await signedIn(request, context) { try await notificationsPage($0, request: request) }
        }
        addReviewRoutes(panel: panel, guarded: guarded)
    }
}
