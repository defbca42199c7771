import ArgumentParser
import Foundation
import TrailPackCatalog
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO
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
            // Marked unfinished first, marked a data folder last: a backup stopped half-way (or one
            // that misses a package) is never started from.
            do { try DataFolder.beginBackup(at: destination) } catch let e as ServerError {
                throw CLIError.usage(e.message)
            }
            let root =
                destination.count > 1 && destination.hasSuffix("/") ? String(destination.dropLast()) : destination
            let catalogCopy = root + "/catalog.sqlite"
            do { try catalog.backup(to: catalogCopy) } catch {
                throw CLIError.io("cannot write the catalog backup to '\(catalogCopy)': \(error)")
            }
            let snapshot: Catalog
            do { snapshot = try Catalog(path: catalogCopy) } catch {
                throw CLIError.io("cannot read back the catalog backup: \(error)")
            }
            var linked = 0, copied = 0
            var missing: [String] = [], written = [catalogCopy]
            for blob in try snapshot.storedBlobs() {
                let relative = BlobStore.relativePath(for: try BlobStore.digest(blob.sha256))
                let source = folder.root + "/" + relative, copy = root + "/" + relative
                guard fm.fileExists(atPath: source) else {
                    missing.append(blob.sha256)
                    continue
                }
                try? fm.createDirectory(
                    atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                written.append(copy)
                if link(source, copy) == 0 { linked += 1; continue }
                do { try fm.copyItem(atPath: source, toPath: copy); copied += 1 } catch {
                    throw CLIError.io("cannot copy '\(source)' to '\(copy)': \(error)")
                }
            }
            if !missing.isEmpty {
                let names = missing.prefix(10).map { "blobs/\($0.prefix(2))/\($0).zip" }.joined(separator: ", ")
                throw CLIError.io(
                    "the backup in '\(root)' is not complete: \(missing.count) package\(missing.count == 1 ? "" : "s") the catalog names \(missing.count == 1 ? "is" : "are") missing from '\(folder.root)' (\(names)\(missing.count > 10 ? ", …" : "")); it stays marked unfinished and no server starts from it. Run 'trailpack admin scrub' to take the missing packages out of service (or put them back), then back up again into a new folder"
                )
            }
            do { try DataFolder.finishBackup(at: root, files: written) } catch let e as ServerError {
                throw CLIError.io(e.message)
            }
            Admin.say(
                options,
                "backup written to \(root): the catalog, \(linked) packages hard-linked, \(copied) copied",
                [
                    "folder": .string(root), "linked": .number(JSONNumber(Int64(linked))),
                    "copied": .number(JSONNumber(Int64(copied))), "missing": .number(JSONNumber(Int64(0))),
                ])
            Admin.finish(options, "backup")
        }
    }

    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring back a version taken out of service as damaged, from an intact copy of its package.",
            discussion: """
                FILE must be the very bytes that were published (its SHA-256 is the damaged version's): a copy from a \
                backup, the publisher's build output, or a phone. It is stored again under blobs/ and every version \
                stored as those bytes returns to the state it had before the damage, audited. Works while the server \
                runs. (Uploading the same bytes again through the API or the panel does the same.)
                """)
        @OptionGroup var options: Options
        @Argument(help: "An intact copy of the damaged version's package.") var file: String

        func run() throws {
            let folder = try options.folder(.shared)
            let catalog: Catalog
            do { catalog = try Catalog(path: folder.catalogPath) } catch {
                throw CLIError.io("cannot open the catalog in '\(options.data)': \(error)")
            }
            let digest: SHA256Digest
            do { digest = try FileHashing.sha256(path: file).digest } catch {
                throw CLIError.io("cannot read '\(file)': \(error)")
            }
            let damaged = try catalog.storedBlobs().contains { $0.sha256 == digest.hex }
            let versions = try catalog.damagedVersions(sha256: digest.hex)
            guard damaged, !versions.isEmpty else {
                throw CLIError.usage(
                    "no version taken out of service as damaged is stored as '\(file)' (SHA-256 \(digest.hex)); 'trailpack admin scrub --json' lists the damaged ones, and a restore needs the very bytes that were published"
                )
            }
            let store: BlobStore
            do { store = try BlobStore(root: folder.root) } catch { throw CLIError.io("\(error)") }
            // Copied beside the blobs (same file system), flushed, then renamed into place.
            let temporary: String
            do { temporary = try store.temporaryFolder() } catch { throw CLIError.io("\(error)") }
            defer { rmdir(temporary) }
            let copy = temporary + "/" + BlobStore.uploadFileName
            do {
                try FileManager.default.copyItem(atPath: file, toPath: copy)
                let descriptor = try FileIO.open(copy, .readOnly)
                defer { try? descriptor.close() }
                try descriptor.sync(path: copy)
                // The copy must still be those bytes (the file may have changed since it was hashed).
                guard try FileHashing.sha256(path: copy).digest == digest else {
                    throw CLIError.io("'\(file)' changed while it was being copied; nothing was restored")
                }
                try store.commit(temporary: copy, sha256: digest, replacing: true)
            } catch let error as CLIError {
                unlink(copy)
                throw error
            } catch {
                unlink(copy)
                throw CLIError.io("cannot store the copy: \(error)")
            }
            let back = try catalog.restoreDamaged(
                sha256: digest.hex, actor: "admin-cli",
                detail: "restored from an intact copy by 'trailpack admin restore'")
            for version in back {
                Admin.say(
                    options, "restored \(version): back in service",
                    ["version": .string(version), "sha256": .string(digest.hex), "restored": .bool(true)])
            }
            Admin.finish(options, "restore")
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
