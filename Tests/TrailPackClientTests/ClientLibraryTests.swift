import Foundation
import Testing
import TrailPackClient
import TrailPackTestFixtures
import TrailPackTestSupport

/// The client library (what a phone app links) against a real `trailpack serve`.
@Suite("client: the library against a real server", .ownThreads, .serialized)
struct ClientLibraryTests {
    @Test("the library alone: fetch, then read one asset with verified random access", .needs(.curl, .clamscan))
    func libraryAPI() async throws {
        let dir = NSTemporaryDirectory() + "trailpack-client-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try ClientServer.setUp(dir, upload: ["santiam-wagon-road"])
        defer { s.server.stop() }
        let fetcher = PackageFetcher(
            client: CatalogClient(server: URL(string: s.base)!), library: PackageLibrary(folder: s.library))
        let stages = StageLog()
        let outcome = try await fetcher.fetch(id: ClientServer.id) { stages.append($0) }
        #expect(outcome.installed.version == "1.0.0")
        #expect(outcome.report?.isValid == true)
        #expect(stages.all.contains(.verifying) && stages.all.contains(.installing))
        #expect(
            stages.all.contains {
                if case .downloading(let p) = $0 { return p.received == p.total } else { return false }
            })
        let reader = try PackageReader(path: fetcher.library.path(of: outcome.installed))
        let asset = try #require(reader.manifest.allAssets.first)
        let stream = try reader.openAsset(asset.path)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while case let n = try stream.read(into: buffer), n > 0 { total += Int64(n) }
        #expect(total == asset.size)
        #expect(try fetcher.library.all().map(\.id) == [ClientServer.id])
    }
}

/// Stages seen by a progress callback (called from URLSession's queue).
final class StageLog: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var stages: [PackageFetcher.Stage] = []
    func append(_ stage: PackageFetcher.Stage) { lock.withLock { stages.append(stage) } }
    var all: [PackageFetcher.Stage] { lock.withLock { stages } }
}
