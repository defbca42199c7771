import ArgumentParser
import Foundation
import TrailPackCore
import TrailPackVerifier

#if canImport(Glibc)
import Glibc
#endif

/// The server's contained verifier (hidden): limits itself, verifies one upload, prints the report
/// as JSON with the manifest. `trailpack serve` runs it in a child process for every upload.
struct VerifyUpload: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-upload",
        abstract: "Verify an upload for the server, in a limited child process (used by 'trailpack serve').",
        shouldDisplay: false)

    /// Test hook: set to `1` in the environment, the child traps before verifying (a crash the
    /// server must contain); set to `hang`, it never answers (the server's timeout must end it).
    /// Only the server's tests set it.
    static let trapHook = "TRAILPACK_TEST_VERIFY_UPLOAD_TRAP"

    @Option(name: .customLong("max-memory-mb"), help: "The address-space limit (RLIMIT_AS), in MiB.")
    var maxMemoryMB: Int64 = 4096

    @Option(name: .customLong("max-cpu-seconds"), help: "The CPU-time limit (RLIMIT_CPU), in seconds.")
    var maxCPUSeconds: Int64 = 600

    @Option(help: "The upload's own temporary folder: the child's working folder.")
    var directory: String?

    @Argument(help: "The uploaded package (in --directory, or the current folder).")
    var file: String

    func run() throws {
        guard (64...(Int64.max >> 20)).contains(maxMemoryMB), maxCPUSeconds >= 1 else {
            throw CLIError.usage("--max-memory-mb must be 64 or more and --max-cpu-seconds 1 or more")
        }
        if let directory, chdir(directory) != 0 {
            throw CLIError.io("cannot change to '\(directory)': \(String(cString: strerror(errno)))")
        }
        // Nothing but the standard streams stays open; no file can be written; no core file.
        closefrom(3)
        func limit(_ resource: __rlimit_resource, _ value: UInt64) throws {
            var l = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(value))
            guard setrlimit(__rlimit_resource_t(resource.rawValue), &l) == 0 else {
                throw CLIError.io("cannot set a resource limit: \(String(cString: strerror(errno)))")
            }
        }
        try limit(RLIMIT_AS, UInt64(maxMemoryMB) << 20)
        try limit(RLIMIT_CPU, UInt64(maxCPUSeconds))
        try limit(RLIMIT_FSIZE, 0)
        try limit(RLIMIT_CORE, 0)
        switch ProcessInfo.processInfo.environment[Self.trapHook] {
        case "1": fatalError("test hook \(Self.trapHook): trapping as a verifier bug would")
        case "hang": while true { pause() }  // as a verifier caught in a loop or a deadlock would
        default: break
        }
        let report: VerificationReport
        do { report = try Verifier.verify(path: file) } catch { throw CLIError.io("\(error)") }
        CLI.printJSON(
            .object([
                JSONMember("valid", .bool(report.isValid)),
                JSONMember("size", .number(JSONNumber(report.size))),
                JSONMember("sha256", .string(report.sha256.hex)),
                JSONMember("manifest", report.manifest?.jsonValue ?? .null),
                JSONMember("findings", .array(report.findings.map(\.jsonValue))),
            ]))
        if !report.isValid { throw ExitCode(1) }
    }
}
