import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import TrailPackBuilder
import TrailPackCatalogModel
import TrailPackCore
import TrailPackServer

/// "Build package" and "Request review": the same builder as `trailpack build`, the same intake as an
/// upload (verify in a contained child, scan, store, register), the same catalog transition as the API.
extension PanelController {
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
        let outcome = try await server.blocking { try TourBuilder.plan(folder, progress: progress) }
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
        let temp = try server.folder.temporaryFolder()
        let output = temp + "/" + BlobNames.uploadFileName
        defer {
            // Ours: the package (moved into the store when accepted), its checksum file, the folder.
            unlink(output)
            unlink(output + ".sha256")
            rmdir(temp)
        }
        let timestamp = try TourBuilder.timestamp()
        _ = try await server.blocking {
            try TourBuilder.write(plan, to: output, timestamp: timestamp, progress: progress)
        }
        builds.stage(key.path, "checking the package and scanning it for malware, as every upload is")
        let result: PackageIntake.AcceptedPackage
        do {
            result = try await server.intake.ingest(folder: temp, by: visitor.user, rebuilding: true)
        } catch let error as ServerError {
            let more = PanelFinding.place(error.findings, draft: draft)
            let body = BuiltPage(
                draft: DraftLinkView(name: draft.name, path: key.path), built: false, message: error.message,
                findings: Self.findingsSection(more, path: key.path, heading: "Findings"))
            var response = try page(body, title: "Not stored", visitor: visitor)
            response.status = error.status
            return response
        }
        server.logger.info(
            "panel: package built",
            metadata: [
                "by": "\(visitor.user.name)", "draft": "\(key.path)", "version": "\(version)",
                "sha256": "\(result.summary.sha256)",
            ])
        // The package's own findings (the verifier's, on the stored bytes): what reviewers will see.
        let warnings = PanelFinding.place(result.findings, draft: draft)
        let gaps = warnings.filter { $0.code == FindingCode.accessibilityMissing.rawValue }
        var body = BuiltPage(
            draft: DraftLinkView(name: draft.name, path: key.path), built: true, message: result.message,
            findings: Self.findingsSection(warnings, path: key.path, heading: "Findings on the package"))
        body.version = result.summary.version
        body.sha256 = result.summary.sha256
        body.size = Self.size(result.summary.size)
        body.status = Self.statusWords(result.state.status)
        let detail = result.state.scanDetail
        body.scan = result.state.scanStatus.rawValue + (detail.isEmpty ? "" : ": " + detail)
        body.seconds = String(format: "%.1f", Date().timeIntervalSince(started))
        body.canRequestReview = result.state.status == .draft && server.configuration.approvals > 0
        body.released = result.state.status == .released
        body.gaps = gaps.map {
            BuiltPage.Gap(message: "\($0.label): \($0.message)", link: $0.link(draftPath: key.path))
        }
        body.hasGaps = !gaps.isEmpty
        return try page(body, title: "Built version \(result.summary.version)", visitor: visitor)
    }

    func requestReview(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> Response {
        let form = try await PanelForm.read(request)
        let version = form.text("version")
        let draft = try await drafts.load(key).draft
        // Judged on the stored package (what reviewers approve), not on the draft, which may have changed since.
        guard
            let manifestText = try await server.catalog.version(
                package: draft.id, version: version, releasedOnly: false)?.manifest,
            let manifest = ManifestReader.read(Array(manifestText.utf8)).manifest
        else {
            throw PanelError(
                status: .notFound, message: "version \(version) of this tour was not built yet: build it first")
        }
        let gaps = ManifestValidator.validate(manifest).filter { $0.code == .accessibilityMissing }
        if !gaps.isEmpty {
            let list = gaps.map(\.message).joined(separator: "; ")
            throw PanelError(
                status: .unprocessableContent,
                message:
                    "review cannot be requested yet: \(list). Add the missing texts on each stop's page (or, if a text truly cannot be given, write why in the stop's accessibility waiver, which reviewers see), build again and request review"
            )
        }
        let outcome = try await server.catalog.apply(
            .start, package: draft.id, version: version, by: visitor.user, required: server.configuration.approvals,
            signature: nil)
        let message: String
        switch outcome {
        case .moved(_, let to, _):
            server.mail?.after(
                .start, outcome: outcome, package: draft.id, version: version, by: visitor.user, reason: nil)
            message =
                "Review requested for version \(version): it is now \(Self.statusWords(to)). The reviewers (\(server.configuration.approvals) must approve) see it in their queue."
            server.logger.info(
                "panel: review requested",
                metadata: ["by": "\(visitor.user.name)", "package": "\(draft.id)", "version": "\(version)"])
        case .illegal(let current, let reason):
            throw PanelError(status: .conflict, message: "version \(version) is \(current.rawValue): \(reason)")
        case .forbidden(let reason): throw PanelError(status: .forbidden, message: reason)
        case .notFound:
            throw PanelError(
                status: .notFound, message: "version \(version) of this tour was not built yet: build it first")
        }
        var body = BuiltPage(draft: DraftLinkView(name: draft.name, path: key.path), built: true, message: message)
        body.version = version
        return try page(body, title: "Review requested", visitor: visitor)
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

extension PanelController {
    func buildStatus(_ key: DraftStore.Key) -> Response {
        guard let (text, percent) = builds.status(key.path) else {
            return Self.jsonMessage(.ok, "", extra: [JSONMember("running", .bool(false))])
        }
        var extra = [JSONMember("running", .bool(true))]
        if let percent { extra.append(JSONMember("percent", .number(JSONNumber(Int64(percent))))) }
        return Self.jsonMessage(.ok, text, extra: extra)
    }
}
