import ArgumentParser
import TrailPackArchive
import TrailPackBuilder
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackClient
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO
import TrailPackMap
import TrailPackPanel
import TrailPackServer
import TrailPackVerifier

/// The one place where an error becomes an exit status: every module's error type, by its code.
/// Commands let errors through (adding context to the message where they know more); `main`
/// ends the process with what this says.
struct ExitStatus: Equatable {
    /// The documented exit code.
    var code: CLIExit
    /// The message for people.
    var message: String

    /// `usage`, `io` or `invalid`: the error's kind in a `--json` report.
    var kind: String {
        switch code {
        case .usage: "usage"
        case .io: "io"
        default: "invalid"
        }
    }

    /// The exit status for `error`; nil for what swift-argument-parser handles itself (a parse
    /// error, `--help`, `--version`).
    static func of(_ error: any Error) -> ExitStatus? {
        switch error {
        case let e as CLIError:
            return ExitStatus(code: e.code, message: e.message)
        case let e as BuildError:
            // A malformed input file (a GPX file, a tour's JSON) was given on the command line: fix it and run again.
            return ExitStatus(code: e.code == .usage || e.code == .malformedFile ? .usage : .io, message: e.description)
        case let e as PackageError:
            switch e.code {
            case .invalid, .assetMismatch: return ExitStatus(code: .invalid, message: e.message)
            case .noSuchAsset, .destinationExists: return ExitStatus(code: .usage, message: e.message)
            default: return ExitStatus(code: .io, message: e.message)
            }
        case let e as ArchiveError:
            return ExitStatus(code: e.code.findingCode == nil ? .io : .invalid, message: e.message)
        case let e as MapError:
            return ExitStatus(code: e.code == .io ? .io : .invalid, message: e.message)
        case let e as CryptoError:
            return ExitStatus(code: e.code == .library ? .io : .usage, message: e.description)
        case let e as FileIOError:
            return ExitStatus(code: .io, message: e.description)
        case let e as CatalogError:
            return ExitStatus(code: .usage, message: e.message)
        case let e as ClientError:
            // Refused (the bytes, the package or the answer are not what they must be) or not there: 1; the network or the disk: 3.
            let refused: Set<ClientError.Code> = [.damaged, .invalid, .signature, .rollback, .badResponse, .notFound]
            return ExitStatus(code: refused.contains(e.code) ? .invalid : .io, message: e.message)
        case let e as ServerError:
            return ExitStatus(code: .io, message: e.code == .dataFolder ? e.message : "\(e)")
        case let e as PanelError:
            return ExitStatus(code: .usage, message: e.message)
        case let e as CoreError:
            return ExitStatus(code: e.code.findingCode == nil ? .usage : .invalid, message: e.description)
        default:
            let parsed = TrailPack.exitCode(for: error)
            if parsed == .success || parsed == .validationFailure { return nil }
            return ExitStatus(code: .io, message: "\(error)")
        }
    }
}
