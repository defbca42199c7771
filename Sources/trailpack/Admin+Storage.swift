import ArgumentParser
import Foundation
import TrailPackCatalog
import TrailPackCore
import TrailPackCrypto
import TrailPackServer

/// The admin commands that look after the stored packages: gc, scrub, backup, rescan.
extension Admin {
    struct GC: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gc",
            abstract:
                "Move blobs the catalog does not know, or no version uses, into quarantine/ (never deleting them).",
            discussion: """
                An orphan is a file in blobs/ that no catalog entry names (what an older catalog restored next \
                to newer blobs leaves), or a blob no package version refers to (the bytes of an upload refused \
                as a replaced version). gc moves each into quarantine/ (with a note saying why) and logs it in \
                the audit log; nothing is deleted. Needs the server stopped.
                """)
        @OptionGroup var options: Options
        @Flag(name: .customLong("dry-run"), help: "Only list the orphans (exit 1 when there are any).")
        var dryRun = false

        func run() throws {
            let folder = try options.folder(dryRun ? .shared : .exclusive)
            let catalog: Catalog
            do { catalog = try Catalog(path: folder.catalogPath) } catch {
                throw CLIError.io("cannot open the catalog in '\(options.data)': \(error)")
            }
            let known = try catalog.blobHashes()
            let onDisk = folder.blobsOnDisk()
            let unused = Set(try catalog.unusedBlobs())
            let orphans =
                onDisk.filter { !known.contains($0) }.map { ($0, "not in the catalog") }
                + onDisk.filter { unused.contains($0) }.map { ($0, "no package version refers to it") }
            for (sha, why) in orphans {
                if dryRun {
                    Admin.say(
                        options, "orphan \(folder.root)/blobs/\(sha.prefix(2))/\(sha).zip: \(why)",
                        ["sha256": .string(sha), "reason": .string(why), "moved": .null])
                } else {
                    let moved: String
                    do {
                        moved = try folder.quarantine(sha256: sha, reason: "\(why); moved by 'trailpack admin gc'")
                    } catch let e as ServerError { throw CLIError.io(e.message) }
                    if unused.contains(sha) { try catalog.forgetUnusedBlob(sha256: sha) }
                    try catalog.audit(
                        actor: "admin-cli", action: .gcQuarantine, id: nil, version: nil, sha256: sha,
                        detail: "\(why); moved to \(moved)")
                    Admin.say(
                        options, "moved \(sha) (\(why)) to \(moved)",
                        ["sha256": .string(sha), "reason": .string(why), "moved": .string(moved)])
                }
            }
            CLI.note(
                "\(orphans.count) orphan\(orphans.count == 1 ? "" : "s")\(dryRun ? " (nothing moved: --dry-run)" : orphans.isEmpty ? "" : " moved to \(folder.root)/quarantine")"
            )
            Admin.finish(options, "gc", ok: !(dryRun && !orphans.isEmpty))
            if dryRun && !orphans.isEmpty { throw ExitCode(1) }
        }
    }

    struct Scrub: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-hash every stored package; quarantine and take out of service the damaged ones.",
            discussion: """
                Reads every blob the catalog holds (streaming), compares its size and SHA-256 with the catalog, and \
                moves a damaged or missing one out of service: the file into quarantine/, its versions marked damaged \
                (no longer listed or served), an audit entry. Progress goes to standard error. Exit 1 when any is \
                damaged. Needs the server stopped.
                """)
        @OptionGroup var options: Options

        func run() throws {
            let folder = try options.folder(.exclusive)
            let catalog: Catalog
            do { catalog = try Catalog(path: folder.catalogPath) } catch {
                throw CLIError.io("cannot open the catalog in '\(options.data)': \(error)")
            }
            let blobs = try catalog.storedBlobs(inService: true)
            var damaged = 0
            for (n, blob) in blobs.enumerated() {
                let path = folder.root + "/" + BlobStore.relativePath(for: try BlobStore.digest(blob.sha256))
                CLI.note("[\(n + 1)/\(blobs.count)] \(blob.sha256)")
                var problem: String?
                do {
                    let result = try FileHashing.sha256(path: path)
                    if result.size != blob.size {
                        problem = "the stored file has \(result.size) bytes, the catalog says \(blob.size)"
                    } else if result.digest.hex != blob.sha256 {
                        problem = "the stored file's SHA-256 is \(result.digest.hex)"
                    }
                } catch {
                    problem = "the stored file cannot be read: \(error)"
                }
                guard let problem else { continue }
                damaged += 1
                var detail = problem
                if FileManager.default.fileExists(atPath: path) {
                    do {
                        detail += "; moved to \(try folder.quarantine(sha256: blob.sha256, reason: problem))"
                    } catch let e as ServerError { throw CLIError.io(e.message) }
                }
                let versions = try catalog.markDamaged(
                    sha256: blob.sha256, reason: detail + " (found by 'trailpack admin scrub')", actor: "admin-cli")
                Admin.say(
                    options,
                    "damaged \(blob.sha256): \(detail)\(versions.isEmpty ? "" : "; out of service: " + versions.joined(separator: ", "))",
                    [
                        "sha256": .string(blob.sha256), "damage": .string(detail),
                        "outOfService": .array(versions.map { .string($0) }),
                    ])
            }
            CLI.note("\(blobs.count) package\(blobs.count == 1 ? "" : "s") checked, \(damaged) damaged")
            Admin.finish(options, "scrub", ok: damaged == 0)
            if damaged > 0 { throw ExitCode(1) }
        }
    }

    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a consistent snapshot of the data folder to a new folder, restorable by 'serve --data'.",
            discussion: """
                The catalog is copied through SQLite's online backup API, then the packages it names are hard-linked \
                (copied when DEST is on another file system; packages are never changed in place, so a link is a \
                safe copy). Works while the server runs. DEST must not exist or be empty.
                """)
        @OptionGroup var options: Options
        @Argument(help: "The new folder to write the snapshot to.") var destination: String

        func run() throws {
            let folder = try options.folder(.shared)
            let catalog: Catalog
            do { catalog = try Catalog(path: folder.catalogPath) } catch {
                throw CLIError.io("cannot open the catalog in '\(options.data)': \(error)")
            }
            let fm = FileManager.default
            if fm.fileExists(atPath: destination),
                !((try? fm.contentsOfDirectory(atPath: destination)) ?? ["?"]).isEmpty
            {
                throw CLIError.usage("'\(destination)' exists and is not empty; name a new folder for the backup")
            }
            let target: DataFolder
            do { target = try DataFolder(path: destination, create: true, access: .exclusive) } catch let e
                as ServerError
            { throw CLIError.io(e.message) }
            do { try catalog.backup(to: target.catalogPath) } catch {
                throw CLIError.io("cannot write the catalog backup to '\(target.catalogPath)': \(error)")
            }
            let snapshot: Catalog
            do { snapshot = try Catalog(path: target.catalogPath) } catch {
                throw CLIError.io("cannot read back the catalog backup: \(error)")
            }
            var linked = 0, copied = 0, missing = 0
            for blob in try snapshot.storedBlobs() {
                let relative = BlobStore.relativePath(for: try BlobStore.digest(blob.sha256))
                let source = folder.root + "/" + relative, copy = target.root + "/" + relative
                guard fm.fileExists(atPath: source) else {
                    missing += 1; CLI.note("missing in the data folder (not copied): \(source)"); continue
                }
                try? fm.createDirectory(
                    atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                if link(source, copy) == 0 { linked += 1; continue }
                do { try fm.copyItem(atPath: source, toPath: copy); copied += 1 } catch {
                    throw CLIError.io("cannot copy '\(source)' to '\(copy)': \(error)")
                }
            }
            Admin.say(
                options,
                "backup written to \(target.root): the catalog, \(linked) packages hard-linked, \(copied) copied\(missing > 0 ? ", \(missing) missing" : "")",
                [
                    "folder": .string(target.root), "linked": .number(JSONNumber(Int64(linked))),
                    "copied": .number(JSONNumber(Int64(copied))),
                    "missing": .number(JSONNumber(Int64(missing))),
                ])
            Admin.finish(options, "backup")
        }
    }

    struct Rescan: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scan stored versions for malware again (after the scanner was fixed).",
            discussion: """
                Scans the versions held because the scanner could not vouch for them (--held), one version (ID VERSION), \
                or every stored version, and records each new verdict in the catalog and the audit log. Works while the \
                server runs. Exit 1 when any version stays held or is found infected.
                """)
        @OptionGroup var options: Options
        @Flag(help: "Only the versions whose scan is held.") var held = false
        @Argument(help: "A package id (with VERSION: rescan that one version).") var id: String?
        @Argument(help: "The version.") var version: String?
        @Option(
            name: .customLong("clamav-db"),
            help: "A folder of ClamAV signature databases for clamscan (default: clamscan's own).") var clamavDB:
            String?
        @Option(
            name: .customLong("clamd-socket"),
            help: "Scan with clamdscan through this clamd socket instead of clamscan.") var clamdSocket: String?

        func run() throws {
            guard (id == nil) == (version == nil) else {
                throw CLIError.usage(
                    "give both a package id and a version, or neither (with --held: every held version)")
            }
            let folder = try options.folder(.shared)
            let catalog: Catalog
            do { catalog = try Catalog(path: folder.catalogPath) } catch {
                throw CLIError.io("cannot open the catalog in '\(options.data)': \(error)")
            }
            var targets = try catalog.scanTargets(heldOnly: held)
            if let id, let version {
                targets = targets.filter { $0.id == id && $0.version == version }
                guard !targets.isEmpty else {
                    throw CLIError.usage("no stored version \(version) of '\(id)'\(held ? " that is held" : "")")
                }
            }
            let scanner = MalwareScanner(
                engine: clamdSocket.map { .clamd(socket: $0) } ?? .clamscan(database: clamavDB))
            var bad = 0
            for t in targets {
                let path = folder.root + "/" + BlobStore.relativePath(for: try BlobStore.digest(t.sha256))
                let state = MalwareScanner.catalogState(scanner.scan(path))
                let (status, detail) = (state.status, state.detail)
                try catalog.recordRescan(
                    package: t.id, version: t.version, status: status, detail: detail, actor: "admin-cli")
                if status == .held || status == .infected { bad += 1 }
                Admin.say(
                    options, "\(t.id) \(t.version): \(t.scanStatus) → \(status)\(detail.isEmpty ? "" : " (\(detail))")",
                    [
                        "id": .string(t.id), "version": .string(t.version), "before": .string(t.scanStatus.rawValue),
                        "after": .string(status.rawValue),
                        "detail": .string(detail),
                    ])
            }
            CLI.note("\(targets.count) version\(targets.count == 1 ? "" : "s") scanned, \(bad) held or infected")
            Admin.finish(options, "rescan", ok: bad == 0)
            if bad > 0 { throw ExitCode(1) }
        }
    }
}
