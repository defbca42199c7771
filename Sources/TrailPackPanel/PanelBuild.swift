import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import TrailPackBuilder
import TrailPackCatalogModel
import TrailPackCore
import TrailPackServer
import TrailPackVerifier

/// "Build package" and "Request review": the same builder as `trailpack build`, the same intake as an
/// upload (verify in a contained child, scan, store, register), the same catalog transition as the API.
extension DraftsController {
    func build(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> Response {
        let form = try await PanelForm.read(request)
        let version = form.text("version")
        guard PackageVersion(version) != nil else {
            throw PanelError(
                message: "the version '\(version)' is not a version number; write numbers with dots, such as 1.0.1")
        }
        // A number the catalog holds already is refused at once, not after the build.
        try await refuseStoredVersion(try await drafts.load(key).draft, version: version)
        let draft = try await drafts.update(key, revision: form.text("revision"), by: visitor.saver) {
            draft throws(PanelError) in
            draft.version = version
        }.draft
        let folder = drafts.folder(key)
        let started = Date()
        // The page that sent the form polls `…/build-status` meanwhile and draws this progress.
        let progress = BuildProgress(fileDescriptor: -1)
        guard builds.begin(key.path, progress) else {
            throw PanelError(
                status: .conflict,
                message:
                    "this tour is being built already (someone pressed Build package): wait for that build, then reload the tour"
            )
        }
        defer { builds.end(key.path) }
        let outcome = try await blocking { try TourBuilder.plan(folder, progress: progress) }
        let placed = PanelFinding.place(outcome.findings, draft: draft)
        guard let plan = outcome.plan else {
            let body = BuiltPage(
                draft: DraftLinkView(name: draft.name, path: key.path), built: false,
                message: "The package was not built: fix the problems below, then build again.",
                findings: Self.findingsSection(placed, path: key.path, heading: "Findings"))
            var response = try page(body, title: "Not built", visitor: visitor)
            response.status = .unprocessableContent
            return response
        }
        let temp = try dataFolder.temporaryFolder()
        let output = temp + "/" + BlobNames.uploadFileName
        defer {
            // Ours: the package (moved into the store when accepted), its checksum file, the folder.
            unlink(output)
            unlink(output + ".sha256")
            rmdir(temp)
        }
        let timestamp = try TourBuilder.timestamp()
        _ = try await blocking {
            try TourBuilder.write(plan, to: output, timestamp: timestamp, progress: progress)
        }
        builds.stage(key.path, "checking the package and scanning it for malware, as every upload is")
        let result: PackageIntake.AcceptedPackage
        do {
            result = try await intake.ingest(folder: temp, by: visitor.user, rebuilding: true)
        } catch let error as ServerError {
            let more = PanelFinding.place(error.findings, draft: draft)
            let body = BuiltPage(
                draft: DraftLinkView(name: draft.name, path: key.path), built: false, message: error.message,
                findings: Self.findingsSection(more, path: key.path, heading: "Findings"))
            var response = try page(body, title: "Not stored", visitor: visitor)
            response.status = error.status
            return response
        }
        logger.info(
            "panel: package built",
            metadata: [
                "by": "\(visitor.user.name)", "draft": "\(key.path)", "version": "\(version)",
                "sha256": "\(result.summary.sha256)",
            ])
        // After success, a redirect (303): Back or reload shows the result again and never builds twice.
        let took = String(format: "%.1f", Date().timeIntervalSince(started))
        return await redirect(
            visitor, to: "\(key.path)/built/\(PanelController.pathSegment(result.summary.version))?took=\(took)",
            saying: result.message)
    }

    /// The page a build leads to (`GET …/built/VERSION`): the stored version, its findings on the stored
    /// bytes (what reviewers will see), and Request review — disabled, with the reason, while any
    /// finding blocks a review (the validator's severity decides, as the API's review request does).
    func builtPage(
        _ visitor: Visitor, _ key: DraftStore.Key, version: String, request: Request
    ) async throws
        -> Response
    {
        let draft = try await drafts.load(key).draft
        guard let record = try await catalog.version(package: draft.id, version: version, releasedOnly: false),
            let state = try await catalog.state(package: draft.id, version: version)
        else {
            throw PanelError(
                status: .notFound,
                message:
                    "version \(version) of \(draft.name) is not stored (it was not built, or it was removed): build it on the tour's page"
            )
        }
        let summary = record.summary
        let path = try await blobs.localFile(for: BlobNames.digest(summary.sha256))
        let sha = summary.sha256, reports = self.reports
        let report = try await blocking { reports.report(sha256: sha) { try? Verifier.verify(path: path) } }
        let placed = PanelFinding.place(report?.findings ?? [], draft: draft)
        let blockers = placed.filter(\.mustFix)
        // The build's own words once (the redirect's); a reload says what the version is now.
        let said =
            request.uri.queryParameters.get("saved") == nil
            ? nil : try? await sessions.takeFlash(id: visitor.session.id)
        let message = said ?? "Version \(summary.version) is stored: it is \(Self.statusWords(state.status))."
        var body = BuiltPage(
            draft: DraftLinkView(name: draft.name, path: key.path), built: true, message: message,
            findings: Self.findingsSection(placed, path: key.path, heading: "Findings on the package"))
        body.version = summary.version
        body.sha256 = summary.sha256
        body.size = Self.size(summary.size)
        body.status = Self.statusWords(state.status)
        let detail = state.scanDetail
        body.scan = Self.scanWords(state.scanStatus, detail)
        if let took = request.uri.queryParameters.get("took"), Double(took) != nil { body.seconds = String(took) }
        if request.uri.queryParameters.get("refused") != nil {
            body.problem = try? await sessions.takeProblem(id: visitor.session.id)
        }
        let reviewable = state.status == .draft && approvals > 0
        body.canRequestReview = reviewable && blockers.isEmpty
        body.reviewBlocked = reviewable && !blockers.isEmpty
        body.released = state.status == .released
        body.gaps = blockers.map {
            BuiltPage.Gap(message: "\($0.label): \($0.message)", link: $0.link(draftPath: key.path))
        }
        body.hasGaps = !blockers.isEmpty
        return try page(body, title: "Built version \(summary.version)", visitor: visitor)
    }

    func requestReview(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> Response {
        let form = try await PanelForm.read(request)
        let version = form.text("version")
        let draft = try await drafts.load(key).draft
        let built = "\(key.path)/built/\(PanelController.pathSegment(version))"
        // Judged on the stored package (what reviewers approve), not on the draft, which may have changed since.
        guard
            let manifestText = try await catalog.version(
                package: draft.id, version: version, releasedOnly: false)?.manifest,
            let manifest = ManifestReader.read(Array(manifestText.utf8)).manifest
        else {
            throw PanelError(
                status: .notFound, message: "version \(version) of this tour was not built yet: build it first")
        }
        // The one rule for "ready": the validator's severity (the API's review request asks the same).
        let blockers = PanelFinding.place(ManifestValidator.validate(manifest).blockingReview, draft: draft)
        if !blockers.isEmpty {
            try? await sessions.flashProblem(
                id: visitor.session.id,
                "Review cannot be requested yet: "
                    + blockers.map { "\($0.label): \($0.message)" }.joined(separator: "; ")
                    + ". Fix them, build again and request review.")
            return Self.redirect(built + "?refused=1")
        }
        let outcome = try await catalog.apply(
            .start, package: draft.id, version: version, by: visitor.user, required: approvals,
            signature: nil)
        let message: String
        switch outcome {
        case .moved(_, let to, _):
            mail?.after(
                .start, outcome: outcome, package: draft.id, version: version, by: visitor.user, reason: nil)
            message =
                "Review requested for version \(version): it is now \(Self.statusWords(to)). The reviewers (\(approvals) must approve) see it in their queue."
            logger.info(
                "panel: review requested",
                metadata: ["by": "\(visitor.user.name)", "package": "\(draft.id)", "version": "\(version)"])
        case .illegal(let current, let reason):
            throw PanelError(status: .conflict, message: "version \(version) is \(current.rawValue): \(reason)")
        case .forbidden(let reason): throw PanelError(status: .forbidden, message: reason)
        case .notFound:
            throw PanelError(
                status: .notFound, message: "version \(version) of this tour was not built yet: build it first")
        }
        return await redirect(visitor, to: key.path, saying: message, fragment: "#review-state")
    }
}

/// The builds running now, by draft, for the page's progress bar (`GET …/build-status`).
final class PanelBuilds: Sendable {
    private let running = Mutex<[String: (progress: BuildProgress, stage: String?)]>([:])

    /// Registers a build; false when this draft is being built already (one build per draft at a time).
    func begin(_ draft: String, _ progress: BuildProgress) -> Bool {
        running.withLock { running in
            guard running[draft] == nil else { return false }
            running[draft] = (progress, nil)
            return true
        }
    }
    func stage(_ draft: String, _ text: String) { running.withLock { $0[draft]?.stage = text } }
    func end(_ draft: String) { _ = running.withLock { $0.removeValue(forKey: draft) } }

    /// What the page shows: a line of words and, while bytes are counted, a percentage.
    func status(_ draft: String) -> (text: String, percent: Int?)? {
        guard let (progress, stage) = running.withLock({ $0[draft] }) else { return nil }
        if let stage { return (stage, nil) }
        let now = progress.snapshot
        guard !now.phase.isEmpty else { return ("reading the tour folder", nil) }
        let percent = now.bytes.total > 0 ? Int(100 * now.bytes.done / now.bytes.total) : nil
        return (now.line, percent)
    }
}

extension DraftsController {
    func buildStatus(_ key: DraftStore.Key) -> Response {
        guard let (text, percent) = builds.status(key.path) else {
            return Self.jsonMessage(.ok, "", extra: [JSONMember("running", .bool(false))])
        }
        var extra = [JSONMember("running", .bool(true))]
        if let percent { extra.append(JSONMember("percent", .number(JSONNumber(Int64(percent))))) }
        return Self.jsonMessage(.ok, text, extra: extra)
    }
}
