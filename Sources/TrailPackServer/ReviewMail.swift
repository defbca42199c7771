import Foundation
import Logging
import TrailPackBlocking
import TrailPackCatalogModel
import TrailPackCore

/// The review loop's notices by mail (`serve --smtp`), beside the panel's own list: a version sent
/// for review goes to every reviewer; a version sent back, approved, or withdrawn goes to the
/// publisher who uploaded it. Only people with a mail address (set by an admin) get mail, never the
/// person who acted. Mail is sent after the change is made, on a thread of the blocking pool, and a
/// relay that fails is logged, never the change's failure.
public struct ReviewMail: Sendable {
    /// Where and how mail is sent.
    public struct Settings: Sendable {
        /// The relay.
        public var smtp: SMTPMail
        /// The control panel's address as people open it (`--panel-url`), for links; nil: no links.
        public var panelURL: String?

        /// Mail through `smtp`, with links under `panelURL` when given.
        public init(smtp: SMTPMail, panelURL: String?) {
            self.smtp = smtp
            self.panelURL = panelURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        }
    }

    let settings: Settings
    let catalog: any CatalogStore
    let pool: BlockingPool
    let logger: Logger

    /// One mail to write: who gets it, its subject and text.
    struct Notice: Equatable {
        var recipients: [String]
        var subject: String
        var body: String
    }

    /// Sends the notice of a transition that was made (`outcome` is `.moved`), in the background.
    public func after(
        _ transition: Catalog.Transition, outcome: Catalog.TransitionOutcome, package id: String,
        version: String, by user: Catalog.User, reason: String?
    ) {
        guard case .moved(_, let to, _) = outcome else { return }
        let work = self
        Task {
            do {
                guard
                    let notice = try await work.notice(
                        transition, to: to, package: id, version: version, by: user, reason: reason)
                else { return }
                try await work.pool.run {
                    try work.settings.smtp.send(
                        to: notice.recipients, subject: notice.subject, body: notice.body)
                }
                work.logger.info(
                    "review mail sent",
                    metadata: [
                        "package": "\(id)", "version": "\(version)", "transition": "\(transition)",
                        "recipients": "\(notice.recipients.count)",
                    ])
            } catch {
                work.logger.warning(
                    "review mail not sent",
                    metadata: ["package": "\(id)", "version": "\(version)", "error": "\(error)"])
            }
        }
    }

    /// A reason as the mail quotes it (indented after a colon), or "." when none was given.
    static func quoted(_ reason: String?) -> String {
        let why = reason.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        return why.isEmpty ? "." : ":\n\n    \(why)"
    }

    /// The mail a transition calls for, or nil (no one to tell, or no one with an address).
    func notice(
        _ transition: Catalog.Transition, to status: Catalog.PublishStatus, package id: String, version: String,
        by user: Catalog.User, reason: String?
    ) async throws -> Notice? {
        guard let record = try await catalog.record(package: id, version: version) else { return nil }
        let addresses = try await catalog.emailAddresses()
        let tour = "“\(record.summary.name)” version \(version)"
        let link = settings.panelURL.map {
            "\n\nOpen it in the control panel: \($0)/packages/\(id)/versions/\(version)"
        }
        let publisher = [record.uploadedBy].filter { $0 != user.name }.compactMap { addresses[$0] }
        var recipients: [String]
        let subject: String, text: String
        switch (transition, status) {
        case (.start, .pending):
            let reviewers = try await catalog.users().filter { $0.role == .reviewer && $0.name != user.name }
            recipients = reviewers.compactMap { addresses[$0.name] }
            subject = "\(tour) waits for your review"
            text = "\(user.name) asked for a review of \(tour) (\(record.summary.park))."
        case (.deny, _):
            recipients = publisher
            subject = "\(tour) was sent back"
            text =
                "\(user.name) sent back \(tour)\(Self.quoted(reason))\n\nChange what it asks for, build the version again and send it for review again."
        case (.approve, .ready):
            recipients = publisher
            subject = "\(tour) is approved"
            text = "\(tour) has every approval it needs. Release it from its page when you are ready."
        case (.withdraw, _):
            recipients = publisher
            subject = "\(tour) was withdrawn"
            text = "\(user.name), an administrator, withdrew \(tour)\(Self.quoted(reason))"
        default:
            return nil
        }
        recipients = Array(Set(recipients)).sorted()
        guard !recipients.isEmpty else { return nil }
        return Notice(
            recipients: recipients, subject: subject,
            body: text + (link ?? "") + "\n\n-- \nSent by trailpack: an administrator sets who gets these mails.\n")
    }
}
