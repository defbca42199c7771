import Foundation
import Testing
@testable import TrailPackBuilder
@testable import TrailPackPanel

/// The panel's build progress: what `…/build-status` answers while the builder runs.
@Suite("panel: build progress")
struct PanelBuildProgressTests {
    @Test("a running build reports its phase, files, bytes and percentage, then the checks' stage in words; none once it ended; a silent progress writes nowhere")
    func status() {
        let builds = PanelBuilds()
        #expect(builds.status("/drafts/a/b") == nil)
        let progress = BuildProgress(fileDescriptor: -1)
        builds.begin("/drafts/a/b", progress)
        #expect(builds.status("/drafts/a/b")?.text == "reading the tour folder")
        progress.start(phase: "writing", files: 4, bytes: 4 << 20)
        progress.advance(files: 1, bytes: 1 << 20)
        let running = builds.status("/drafts/a/b")
        #expect(running?.percent == 25)
        #expect(running?.text.hasPrefix("writing 1/4 files  1.0 MiB / 4.0 MiB") == true, "\(running?.text ?? "")")
        #expect(progress.snapshot.files == (1, 4) && progress.snapshot.bytes.done == 1 << 20)
        builds.stage("/drafts/a/b", "checking the package")
        #expect(builds.status("/drafts/a/b")?.text == "checking the package" && builds.status("/drafts/a/b")?.percent == nil)
        #expect(builds.status("/drafts/other/tour") == nil, "one draft's build is not another's")
        builds.end("/drafts/a/b")
        #expect(builds.status("/drafts/a/b") == nil)
        progress.finish()  // fileDescriptor -1: draws nothing, and does not fail
    }
}
