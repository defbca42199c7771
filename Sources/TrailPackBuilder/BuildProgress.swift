import Foundation
import Synchronization

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
public final class BuildProgress: Sendable {
    /// Where the build is; the drawing is done while it is held, so lines never interleave.
    private struct State {
        var phase = ""
        var totalFiles = 0, totalBytes: Int64 = 0
        var doneFiles = 0, doneBytes: Int64 = 0
        /// Bytes counted as done when the phase began (hashed while the folder was read): not
        /// part of its rate.
        var bytesBefore: Int64 = 0
        var started = DispatchTime.now()
        var lastDraw: UInt64 = 0
    }

    private let state = Mutex(State())
    private let output: Int32

    /// A progress display on `fileDescriptor` (standard error by default); -1 draws nothing (another
    /// program reads ``snapshot`` instead: the control panel's progress bar).
    public init(fileDescriptor: Int32 = 2) { output = fileDescriptor }

    /// Where a build is: its phase, files and bytes done of the total, seconds since the phase began.
    public struct Snapshot: Sendable, Equatable {
        public var phase: String
        public var files: (done: Int, total: Int)
        public var bytes: (done: Int64, total: Int64)
        public var seconds: Double
        /// Of `bytes.done`, those done before the phase began (not part of its rate).
        public var bytesBefore: Int64 = 0

        public static func == (a: Snapshot, b: Snapshot) -> Bool {
            a.phase == b.phase && a.files == b.files && a.bytes == b.bytes && a.seconds == b.seconds
                && a.bytesBefore == b.bytesBefore
        }

        /// The terminal's line: `writing 3/17 files  1.2 MiB / 4.0 MiB  9.5 MiB/s  0:03 left`.
        public var line: String {
            BuildProgress.status(phase: phase, files: files, bytes: bytes, seconds: seconds, bytesBefore: bytesBefore)
        }
    }

    /// The progress now.
    public var snapshot: Snapshot {
        state.withLock { s in
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - s.started.uptimeNanoseconds) / 1e9
            return Snapshot(
                phase: s.phase, files: (s.doneFiles, s.totalFiles), bytes: (s.doneBytes, s.totalBytes),
                seconds: seconds,
                bytesBefore: s.bytesBefore)
        }
    }

    /// Whether standard error is a terminal, where progress belongs.
    public static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Begins a phase of `files` files and `bytes` bytes, of which `doneFiles` and `doneBytes`
    /// are done already (shown as done, left out of the rate and the time left).
    func start(phase: String, files: Int, bytes: Int64, doneFiles: Int = 0, doneBytes: Int64 = 0) {
        state.withLock { s in
            s.phase = phase
            s.totalFiles = files; s.totalBytes = bytes
            s.doneFiles = doneFiles; s.doneBytes = doneBytes
            s.bytesBefore = doneBytes
            s.started = DispatchTime.now()
            s.lastDraw = 0
        }
    }

    func advance(files: Int = 0, bytes: Int = 0) {
        state.withLock { s in
            s.doneFiles += files
            s.doneBytes += Int64(bytes)
            let now = DispatchTime.now().uptimeNanoseconds
            if now - s.lastDraw >= 100_000_000 {
                s.lastDraw = now
                draw(s, now: now)
            }
        }
    }

    func finish() {
        state.withLock { s in
            draw(s, now: DispatchTime.now().uptimeNanoseconds)
            emit("\n")
        }
    }

    private func draw(_ s: State, now: UInt64) {
        guard output >= 0 else { return }
        let seconds = max(0.001, Double(now - s.started.uptimeNanoseconds) / 1e9)
        let line = Self.status(
            phase: s.phase, files: (s.doneFiles, s.totalFiles), bytes: (s.doneBytes, s.totalBytes), seconds: seconds,
            bytesBefore: s.bytesBefore)
        emit("\r" + Self.fit(line, width: terminalWidth()) + "\u{1B}[K")
    }

    /// `hashing 3/17 files  1.2 MiB / 4.0 MiB  9.5 MiB/s  0:03 left`. The time left is shown only
    /// once the rate means something: after a second and 5% of the bytes (a first guess from the
    /// first few milliseconds said "3:30:43 left" for a 1.4 s build).
    /// `bytesBefore` of `bytes.done` were done before the phase began: the rate and the time left
    /// are of the rest.
    static func status(
        phase: String, files: (done: Int, total: Int), bytes: (done: Int64, total: Int64), seconds: Double,
        bytesBefore: Int64 = 0
    ) -> String {
        let rate = Double(bytes.done - bytesBefore) / max(0.001, seconds)
        let enough =
            seconds >= 1 && bytes.total > bytesBefore
            && Double(bytes.done - bytesBefore) >= 0.05 * Double(bytes.total - bytesBefore) && rate > 0
        let left = enough ? Format.duration(Double(bytes.total - bytes.done) / rate) + " left" : "estimating time left"
        return
            "\(phase) \(files.done)/\(files.total) files  \(Format.bytes(bytes.done)) / \(Format.bytes(bytes.total))  "
            + (seconds >= 1 ? "\(Format.bytes(Int64(rate)))/s  " : "") + left
    }

    /// Cut to `width - 1` columns so that a redraw never wraps (and so never scrolls).
    static func fit(_ line: String, width: Int) -> String {
        let room = max(10, width - 1)
        return line.count <= room ? line : String(line.prefix(room - 1)) + "…"
    }

    /// The terminal's width (TIOCGWINSZ on the progress output), else COLUMNS, else 80.
    private func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let c = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), c > 0 { return c }
        return 80
    }

    private func emit(_ s: String) {
        guard output >= 0 else { return }
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

    /// `106.1 km (65.9 mi)`: a route's length, in both units.
    public static func kilometres(_ metres: Double) -> String {
        String(format: "%.1f km (%.1f mi)", metres / 1000, metres / 1609.344)
    }

    /// `1,591`: whole metres, grouped by thousands.
    public static func whole(_ x: Double) -> String {
        let digits = String(Int64(x.rounded()).magnitude)
        var out = x < -0.5 ? "-" : ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }

    /// `1:05`, `0:03`, `1:02:03`.
    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let s = Int(seconds.rounded())
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
