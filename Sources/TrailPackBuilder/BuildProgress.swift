import Foundation
#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Musl)
import Musl
private let systemWrite = Musl.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// Progress of a long build on a terminal: files and bytes done, rate and time left.
///
/// Thread-safe; redraws at most ten times a second on one line of standard error.
public final class BuildProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var phase = ""
    private var totalFiles = 0, totalBytes: Int64 = 0
    private var doneFiles = 0, doneBytes: Int64 = 0
    private var started = DispatchTime.now()
    private var lastDraw: UInt64 = 0
    private let output: Int32

    /// A progress display on `fileDescriptor` (standard error by default).
    public init(fileDescriptor: Int32 = 2) { output = fileDescriptor }

    /// Whether standard error is a terminal, where progress belongs.
    public static var stderrIsTerminal: Bool { isatty(2) == 1 }

    func start(phase: String, files: Int, bytes: Int64) {
        lock.lock(); defer { lock.unlock() }
        self.phase = phase
        totalFiles = files; totalBytes = bytes
        doneFiles = 0; doneBytes = 0
        started = DispatchTime.now()
        lastDraw = 0
    }

    func advance(files: Int = 0, bytes: Int = 0) {
        lock.lock(); defer { lock.unlock() }
        doneFiles += files
        doneBytes += Int64(bytes)
        let now = DispatchTime.now().uptimeNanoseconds
        if now - lastDraw >= 100_000_000 {
            lastDraw = now
            draw(now: now)
        }
    }

    func finish() {
        lock.lock(); defer { lock.unlock() }
        draw(now: DispatchTime.now().uptimeNanoseconds)
        emit("\n")
    }

    private func draw(now: UInt64) {
        let seconds = max(0.001, Double(now - started.uptimeNanoseconds) / 1e9)
        let rate = Double(doneBytes) / seconds
        let left = rate > 0 ? Double(totalBytes - doneBytes) / rate : 0
        let line = String(format: "\r%@ %d/%d files  %@ / %@  %@/s  %@ left   ",
            phase, doneFiles, totalFiles, Format.bytes(doneBytes), Format.bytes(totalBytes), Format.bytes(Int64(rate)), Format.duration(left))
        emit(line)
    }

    private func emit(_ s: String) {
        let bytes = Array(s.utf8)
        _ = bytes.withUnsafeBytes { systemWrite(output, $0.baseAddress, $0.count) }
    }
}

/// Human-readable sizes and durations.
public enum Format {
    /// `1.4 GiB`, `512 B`.
    public static func bytes(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(n)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// `1:05`, `0:03`, `1:02:03`.
    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
