// The verifier's fuzz target.
//
// Built with libFuzzer by `make fuzz` (`-sanitize=fuzzer,address -DFUZZING`), it feeds archives
// to the whole verifier and to the single-asset reader. With TRAILPACK_FUZZ=structured the
// fuzzer's input is not an archive but a tape that picks a seed package and one to three
// structural mutations of its records (TrailPackFuzzing), so coverage guidance works on fields
// of records instead of raw bytes.
//
// Built normally it replays inputs, or generates structured inputs on its own:
//   trailpack-fuzz FILE...                         replay archives (a corpus or a crash)
//   trailpack-fuzz --tapes FILE...                 replay structured tapes (structured crashes)
//   trailpack-fuzz --generate N --seed S [--last F]   N structured inputs from seed S; the input
//                                                  being checked is first written to F, so a
//                                                  crash leaves its reproducer behind

import TrailPackArchive
import TrailPackCore
import TrailPackFuzzing
import TrailPackMap
import TrailPackVerifier

#if canImport(Glibc)
import Glibc
#endif

/// Verifies `bytes`; whatever the verifier accepts must also read asset by asset.
/// Returns the verifier's report, or nil when it could not read the bytes at all (or they are a map).
@discardableResult
func check(_ bytes: [UInt8]) -> VerificationReport? {
    // A PMTiles map on its own (seeded from fixtures/maps/): the whole map check, then every tile it accepts.
    if bytes.starts(with: PMTilesHeader.magic) {
        if let report = try? MapCheck.check(MapBytes(bytes), file: nil, frame: nil), !report.findings.hasErrors,
            let archive = try? PMTilesArchive(source: MapBytes(bytes))
        {
            _ = try? archive.walk { e throws(MapError) in _ = try archive.tileBytes(e) }
        }
        return nil
    }
    let source = MemorySource(bytes)
    guard let report = try? Verifier.verify(source: source, options: .init(threads: 1)) else { return nil }
    // On two threads the manifest is read ahead from the first record before the whole directory,
    // and half the CRC-32s are taken by the whole-file thread: what it finds must be the same.
    guard let two = try? Verifier.verify(source: source, options: .init(threads: 2)) else {
        fatalError("the verifier read the input on one thread but not on two")
    }
    // (The whole-file thread's CRC findings come after the manifest's: the same findings, in another order.)
    let found = (report.findings.map(\.description).sorted(), two.findings.map(\.description).sorted())
    // (A manifest read best-effort may hold a NaN, which equals nothing: compared as printed.)
    let manifests = (report.manifest.map { "\($0)" }, two.manifest.map { "\($0)" })
    if found.0 != found.1 || manifests.0 != manifests.1 || !(two.sha256 == report.sha256) {
        fatalError("the verifier on two threads disagrees with one: \(found.1) against \(found.0)")
    }
    // Letting the stops' assets go as they are read (`trailpack verify`) finds the same, in the same order.
    var letting = Verifier.Options(threads: 2)
    letting.keepsAssets = false
    guard let letGo = try? Verifier.verify(source: source, options: letting) else {
        fatalError("the verifier read the input keeping the assets but not letting them go")
    }
    if letGo.findings.map(\.description) != two.findings.map(\.description) || letGo.assetCount != two.assetCount {
        fatalError(
            "the verifier letting the assets go disagrees: \(letGo.findings.map(\.description)) against \(two.findings.map(\.description))"
        )
    }
    // A glance at the first entry alone (what a rebuild asks of the package it would replace)
    // never sees another tour than the whole verify does.
    if report.isValid, let manifest = report.manifest,
        PackageReader.identity(source: source).map({ [$0.id, $0.version] }) != [manifest.id, manifest.version]
    {
        fatalError("a valid package's id and version, read from its first entry alone, are not its manifest's")
    }
    if report.isValid, let reader = try? PackageReader(source: source) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        for asset in reader.manifest.allAssets {
            guard let stream = try? reader.openAsset(asset.path) else {
                fatalError("a valid package's asset '\(asset.path)' does not open")
            }
            do {
                while try stream.read(into: buffer) > 0 {}
            } catch {
                fatalError("a valid package's asset '\(asset.path)' does not read: \(error)")
            }
        }
    }
    // Every finding must carry a code from the table and a message.
    for f in report.findings where f.message.isEmpty { fatalError("a finding with no message: \(f.code)") }
    return report
}

/// The seed packages for structured fuzzing: TRAILPACK_FUZZ_SEEDS, else fixtures/fuzz/seeds.
func loadSeeds() -> ZipFuzzer {
    let folder = getenv("TRAILPACK_FUZZ_SEEDS").map { String(cString: $0) } ?? "fixtures/fuzz/seeds"
    var archives: [[UInt8]] = []
    if let dir = opendir(folder) {
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".zip") { names.append(name) }
        }
        for name in names.sorted() { archives.append(readFile(folder + "/" + name) ?? []) }
    }
    let fuzzer = ZipFuzzer(seedArchives: archives)
    if fuzzer.seeds.isEmpty { fatalError("no seed packages in \(folder) (set TRAILPACK_FUZZ_SEEDS)") }
    return fuzzer
}

func readFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n == 0 { break }
        out += chunk[0..<n]
    }
    return out
}

func writeFile(_ bytes: [UInt8], to path: String) {
    guard let file = fopen(path + ".tmp", "wb") else { return }
    _ = fwrite(bytes, 1, bytes.count, file)
    fclose(file)
    rename(path + ".tmp", path)
}

nonisolated(unsafe) let structured = getenv("TRAILPACK_FUZZ").map { String(cString: $0) == "structured" } ?? false
nonisolated(unsafe) var seeds: ZipFuzzer?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    if structured {
        if seeds == nil { seeds = loadSeeds() }
        check(seeds!.archive(tape: input).bytes)
    } else {
        check(input)
    }
    return 0
}

#if FUZZING
// SwiftPM links an executable with `main` aliased to `<module>_main`: give it one that hands
// control to libFuzzer's driver. (Pointer-and-integer arguments pass alike in Swift and C.)
@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("trailpack_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var vector = argv
    return llvmFuzzerRunDriver(&count, &vector) { data, size in fuzzOne(data, size) }
}
#else
@main
enum Replay {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        func value(_ flag: String) -> String? {
            guard let i = arguments.firstIndex(of: flag), i + 1 < arguments.count else { return nil }
            defer { arguments.removeSubrange(i...i + 1) }
            return arguments[i + 1]
        }
        if let n = value("--generate").flatMap(Int.init) {
            let seed = value("--seed").flatMap(UInt64.init) ?? 1
            let last = value("--last")
            generate(count: n, seed: seed, last: last)
            return
        }
        let tapes = arguments.first == "--tapes"
        if tapes { arguments.removeFirst() }
        for path in arguments {
            guard let bytes = readFile(path) else {
                print("cannot read \(path)")
                exit(3)
            }
            if tapes {
                let fuzzed = loadSeeds().archive(tape: bytes)
                let (archive, mutations) = (fuzzed.bytes, fuzzed.mutations)
                print("\(path): \(mutations.joined(separator: "; "))")
                check(archive)
            } else {
                check(bytes)
            }
        }
        print("replayed \(arguments.count) inputs")
    }

    /// Checks `count` structured inputs drawn from `seed`, and prints what the verifier made of them.
    static func generate(count: Int, seed: UInt64, last: String?) {
        let fuzzer = loadSeeds()
        var random = SeededRandom(seed: seed)
        var valid = 0, unreadable = 0
        var codes: [String: Int] = [:]
        for n in 0..<count {
            let fuzzed = fuzzer.archive(using: &random)
            let (archive, mutations) = (fuzzed.bytes, fuzzed.mutations)
            if let last {
                writeFile(archive, to: last)
                writeFile(
                    Array((["input \(n + 1) of seed \(seed)"] + mutations).joined(separator: "\n").utf8),
                    to: last + ".txt")
            }
            guard let report = check(archive) else {
                unreadable += 1
                continue
            }
            if report.isValid { valid += 1 }
            for code in Set(report.findings.map(\.code.rawValue)) { codes[code, default: 0] += 1 }
        }
        print(
            "generated \(count) structured inputs from \(fuzzer.seeds.count) seeds (seed \(seed)): \(valid) valid, "
                + "\(count - valid - unreadable) refused with findings, \(unreadable) unreadable")
        for (code, n) in codes.sorted(by: { $0.value > $1.value }) { print("  \(code)\t\(n)") }
    }
}
#endif
