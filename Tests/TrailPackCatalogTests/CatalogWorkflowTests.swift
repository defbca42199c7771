import Testing
import TrailPackCatalogModel
import TrailPackTestSupport

/// The publish workflow's rules on their own (`Catalog.Workflow`, which both stores carry out):
/// who may do what from which status, and what the approval table makes of an approval.
@Suite("catalog: the workflow's rules", .ownThreads)
struct CatalogWorkflowTests {
    typealias Plan = Catalog.Workflow.Plan

    static let maria = Catalog.User(name: "maria", role: .publisher, publicKey: nil)
    static let ken = Catalog.User(name: "ken", role: .reviewer, publicKey: nil)
    static let ada = Catalog.User(name: "ada", role: .admin, publicKey: nil)

    static func plan(
        _ transition: Catalog.Transition, _ status: Catalog.PublishStatus, by user: Catalog.User, required: Int = 2,
        scan: Catalog.ScanStatus = .clean, signature: String? = nil, reason: String? = nil,
        approvals: Catalog.Workflow.Approvals = .none
    ) -> Plan {
        Catalog.Workflow.plan(
            transition,
            version: .init(status: status, uploadedBy: "maria", scanStatus: scan, scanDetail: "timed out"),
            user: user, required: required, signature: signature, reason: reason, approvals: approvals)
    }

    @Test("each transition's rule, refusal text and move")
    func rules() {
        let cases: [(Plan, Plan)] = [
            (
                Self.plan(.start, .draft, by: Self.maria),
                .move(to: .pending, approvals: 0, detail: "", approvalChange: .none)
            ),
            (
                Self.plan(.start, .draft, by: Self.maria, required: 0),
                .move(to: .ready, approvals: 0, detail: "", approvalChange: .none)
            ),
            (
                Self.plan(.start, .draft, by: Self.ada),
                .move(to: .pending, approvals: 0, detail: "", approvalChange: .none)
            ),
            (
                Self.plan(.start, .draft, by: Self.ken),
                .forbidden("only the publisher who uploaded it (maria) can open its publish request")
            ),
            (
                Self.plan(.start, .pending, by: Self.maria),
                .refuse("a publish request can be opened on a draft; this version is pending")
            ),
            (Self.plan(.approve, .pending, by: Self.maria), .forbidden("approving needs the reviewer or admin role")),
            (
                Self.plan(.approve, .pending, by: Catalog.User(name: "maria", role: .admin, publicKey: nil)),
                .forbidden("a publisher cannot approve their own request")
            ),
            (
                Self.plan(.approve, .draft, by: Self.ken),
                .refuse("only a pending request can be approved; this version is draft")
            ),
            (
                Self.plan(.approve, .pending, by: Self.ken, approvals: .init(count: 0, own: nil)),
                .move(to: .pending, approvals: 1, detail: "1 of 2 approvals", approvalChange: .add(signature: nil))
            ),
            (
                Self.plan(.approve, .pending, by: Self.ken, signature: "s", approvals: .init(count: 1, own: nil)),
                .move(
                    to: .ready, approvals: 2, detail: "2 of 2 approvals, signed", approvalChange: .add(signature: "s"))
            ),
            (
                Self.plan(.approve, .ready, by: Self.ken, signature: "s", approvals: .init(count: 2, own: .unsigned)),
                .move(to: .ready, approvals: 2, detail: "signature added to ken's approval", approvalChange: .sign("s"))
            ),
            (
                Self.plan(.approve, .pending, by: Self.ken, approvals: .init(count: 1, own: .unsigned)),
                .refuse("ken already approved this version; approve again only to add a signature")
            ),
            (
                Self.plan(.approve, .pending, by: Self.ken, signature: "s", approvals: .init(count: 1, own: .signed)),
                .refuse("ken already approved and signed this version")
            ),
            (Self.plan(.deny, .pending, by: Self.maria), .forbidden("denying needs the reviewer or admin role")),
            (
                Self.plan(.deny, .ready, by: Self.ken, reason: "  blurry photos \n"),
                .move(
                    to: .draft, approvals: 0, detail: "approvals cleared; reason: blurry photos", approvalChange: .clear
                )
            ),
            (
                Self.plan(.deny, .released, by: Self.ken),
                .refuse("only a pending or ready request can be denied; this version is released")
            ),
            (
                Self.plan(.push, .ready, by: Self.ada),
                .forbidden("only the publisher who uploaded it (maria) can release it")
            ),
            (
                Self.plan(.push, .pending, by: Self.maria),
                .refuse("only a ready version can be released; this version is pending")
            ),
            (
                Self.plan(.push, .ready, by: Self.maria, scan: .held),
                .refuse("the version is held by the malware scan: timed out")
            ),
            (
                Self.plan(.push, .ready, by: Self.maria, scan: .notScanned),
                .move(to: .released, approvals: 0, detail: Catalog.notScannedDetail, approvalChange: .none)
            ),
            (Self.plan(.withdraw, .released, by: Self.ken), .forbidden("withdrawing needs the admin role")),
            (
                Self.plan(.withdraw, .ready, by: Self.ada),
                .refuse("only a released version can be withdrawn; this version is ready")
            ),
            (
                Self.plan(.withdraw, .released, by: Self.ada, reason: "   "),
                .move(to: .withdrawn, approvals: 0, detail: "", approvalChange: .none)
            ),
        ]
        for (planned, expected) in cases { #expect(planned == expected) }
        #expect(
            Catalog.Workflow.auditDetail(from: .pending, to: .ready, detail: "2 of 2 approvals")
                == "pending → ready; 2 of 2 approvals")
        #expect(Catalog.Workflow.auditDetail(from: .ready, to: .released, detail: "") == "ready → released")
    }

    @Test("who may upload where: a package stays on its site; a publisher needs a grant, an admin none")
    func uploads() {
        func refusal(_ user: Catalog.User, owner: String?, granted: Bool) -> String? {
            Catalog.Workflow.uploadRefusal(user: user, package: "p.tour", site: "here", owner: owner, granted: granted)
        }
        #expect(refusal(Self.maria, owner: nil, granted: true) == nil)
        #expect(refusal(Self.ada, owner: nil, granted: false) == nil)
        #expect(
            refusal(Self.maria, owner: nil, granted: false)
                == "'maria' may not publish to site 'here'; an admin grants it with 'trailpack admin grant maria here'")
        #expect(
            refusal(Self.ada, owner: "there", granted: true)
                == "package id 'p.tour' belongs to site 'there'; a package cannot move to site 'here': use a new package id"
        )
    }

    @Test("the confirmation windows are swept for one key in 64")
    func sweeps() {
        let keys = (0..<4096).map { Catalog.sessionKey("download \($0)") }
        let swept = keys.filter(Catalog.sweepsConfirmationWindows).count
        #expect((32...96).contains(swept), "\(swept) of 4096")
    }
}
