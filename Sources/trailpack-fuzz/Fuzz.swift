// The verifier's fuzz target.
//
// Built with libFuzzer by `make fuzz` (`-sanitize=fuzzer,address -DFUZZING`), it feeds random and
// mutated archives to the whole verifier and to the single-asset reader. Built normally, it
// replays the files given as arguments (a corpus or a crash reproducer) through the same function.

import TrailPackArchive
import TrailPackMap
import TrailPackVerifier

func check(_ bytes: [UInt8]) {
    // A PMTiles map on its own (seeded from fixtures/maps/): the whole map check, then every tile it accepts.
    if bytes.starts(with: PMTilesHeader.magic) {
        if let report = try? MapCheck.check(MapBytes(bytes), file: nil, frame: nil), !report.findings.hasErrors,
           let archive = try? PMTilesArchive(source: MapBytes(bytes)) {
            _ = try? archive.walk { e throws(MapError) in _ = try archive.tileBytes(e) }
        }
        return
    }
    let source = MemorySource(bytes)
    guard let report = try? Verifier.verify(source: source, options: .init(threads: 1)) else { return }
    // Whatever the verifier accepts must also read asset by asset.
    if report.isValid, let reader = try? PackageReader(source: source) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        for asset in reader.manifest.allAssets {
            guard let stream = try? reader.openAsset(asset.path) else { fatalError("a valid package's asset '\(asset.path)' does not open") }
            do {
                while try stream.read(into: buffer) > 0 {}
            } catch {
                fatalError("a valid package's asset '\(asset.path)' does not read: \(error)")
            }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if FUZZING
// SwiftPM links an executable with `main` aliased to `<module>_main`: give it one that hands
// control to libFuzzer's driver. (Pointer-and-integer arguments pass alike in Swift and C.)
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@_cdecl("trailpack_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var vector = argv
    return LLVMFuzzerRunDriver(&count, &vector) { data, size in fuzzOne(data, size) }
}
#else
import Foundation

@main
enum Replay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(3)
            }
            check(Array(data))
        }
        print("replayed \(CommandLine.arguments.count - 1) inputs")
    }
}
#endif
