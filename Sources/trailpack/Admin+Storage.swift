import ArgumentParser
import Foundation
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO
import TrailPackServer

/// The admin commands that look after the stored packages: gc, scrub, backup, rescan.
extension Admin {
    /// Runs a command that moves stored files (gc, scrub) as the only one on the catalog: another,
    /// from this machine or a server sharing the catalog, is refused while it runs.
    static func maintenance(_ stores: OpenedStores, _ body: @Sendable () async throws -> Void) async throws {
        do {
            try await stores.catalog.withMaintenanceLock(body)
        } catch let error as CatalogError where error.code == .busy {
            throw CLIError.io(error.message)
        }
    }

    struct GC: AsyncParsableCommand {
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

        func run() async throws {
            let stores = try await options.stores(dryRun ? .shared : .exclusive)
            try await Admin.maintenance(stores) { try await collect(stores) }
        }

        func collect(_ stores: OpenedStores) async throws {
            let (folder, catalog) = (stores.folder, stores.catalog)
            // Listed before the catalog is read: a blob stored meanwhile was recorded first, so it is known.
            let onDisk = try await stores.blobs.list().map(\.sha256)
            let known = try await catalog.blobHashes()
            // A shared catalog's servers keep running: a blob recorded in the last hour may be an
            // upload whose version is being registered now, and stays.
            let shared = options.storeOptions.catalog != nil
            let unused = Set(
                try await catalog.unusedBlobs(recordedBefore: Date(timeIntervalSinceNow: shared ? -3600 : 0)))
            let orphans =
                onDisk.filter { !known.contains($0) }.map { ($0, "not in the catalog") }
                + onDisk.filter { unused.contains($0) }.map { ($0, "no package version refers to it") }
            for (sha, why) in orphans {
                if dryRun {
                    Admin.say(
                        options, "orphan blobs/\(sha.prefix(2))/\(sha).zip in \(stores.blobs.description): \(why)",
                        ["sha256": .string(sha), "reason": .string(why), "moved": .null])
                } else {
                    let moved: String
                    do {
                        moved = try await stores.blobs.quarantine(
                            sha256: sha, reason: "\(why); moved by 'trailpack admin gc'")
                    } catch let e as ServerError { throw CLIError.io(e.message) }
                    if unused.contains(sha) { try await catalog.forgetUnusedBlob(sha256: sha) }
                    try await catalog.audit(
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

    struct Scrub: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "scrub",
            abstract: "Re-hash every stored package; quarantine and take out of service the damaged ones.",
            discussion: """
                Reads every blob the catalog holds (streaming), compares its size and SHA-256 with the catalog, and \
                moves a damaged or missing one out of service: the file into quarantine/, its versions marked damaged \
                (no longer listed or served), an audit entry. Progress goes to standard error. Exit 1 when any is \
                damaged. Needs the server stopped.
                """)
        @OptionGroup var options: Options

        func run() async throws {
            let stores = try await options.stores(.exclusive)
            try await Admin.maintenance(stores) { try await check(stores) }
        }

        func check(_ stores: OpenedStores) async throws {
            let catalog = stores.catalog
            let blobs = try await catalog.storedBlobs(inService: true)
            // Every package read first; nothing is marked until all were.
            var found: [(blob: (sha256: String, size: Int64), problem: String, present: Bool)] = []
            for (n, blob) in blobs.enumerated() {
                let digest = try BlobNames.digest(blob.sha256)
                CLI.note("[\(n + 1)/\(blobs.count)] \(blob.sha256)")
                guard let problem = try await stores.blobs.check(sha256: digest, size: blob.size) else { continue }
                found.append((blob, problem, try await stores.blobs.size(of: digest) != nil))
            }
            // A bucket holding none of them at all: a mistyped --blobs, not damage. (A data folder's
            // catalog and packages are one folder: what is missing there is missing.)
            if !(stores.blobs is FolderBlobStore), !found.isEmpty, found.count == blobs.count,
                found.allSatisfy({ !$0.present })
            {
                throw CLIError.io(
                    "none of the \(blobs.count) packages the catalog records is in \(stores.blobs.description): is it the right place (--blobs, --data)? Nothing was marked damaged"
                )
            }
            var damaged = 0
            for (blob, problem, present) in found {
                damaged += 1
                var detail = problem
                if present {
                    do {
                        detail +=
                            "; moved to \(try await stores.blobs.quarantine(sha256: blob.sha256, reason: problem))"
                    } catch let e as ServerError { throw CLIError.io(e.message) }
                }
                let versions = try await catalog.markDamaged(
                    sha256: blob.sha256, reason: detail + " (found by 'trailpack admin scrub')", actor: "admin-cli")
                detail += "; bring it back with 'trailpack admin restore FILE' (a copy of the very bytes published)"
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

    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup",
            abstract: "Write a consistent snapshot of the data folder to a new folder, restorable by 'serve --data'.",
            discussion: """
                The catalog is copied through SQLite's online backup API, then the packages it names are hard-linked \
                (copied when DEST is on another file system; packages are never changed in place, so a link is a \
                safe copy). Works while the server runs. DEST must not exist or be empty.
                """)
        @OptionGroup var options: Options
        @Argument(help: "The new folder to write the snapshot to.") var destination: String

        func run() async throws {
            // Refused before anything is made: a shared catalog and bucket have their own backups.
            if options.storeOptions.catalog != nil || options.storeOptions.blobs != nil {
                throw CLIError.usage(
                    "admin backup snapshots a data folder's own catalog.sqlite and blobs/; back up a PostgreSQL catalog with pg_dump (for example 'pg_dump -Fc -f trailpack-catalog.dump DATABASE') and a bucket with the store's own tools (versioning, replication, or a copy such as 'aws s3 sync'); nothing was made"
                )
            }
            let stores = try await options.stores(.shared)
            let catalog = stores.catalog
            let fm = FileManager.default
            // Marked unfinished first, marked a data folder last: a backup stopped half-way (or one
            // that misses a package) is never started from.
            do { try DataFolder.beginBackup(at: destination) } catch let e as ServerError {
                throw CLIError.usage(e.message)
            }
            let root =
                destination.count > 1 && destination.hasSuffix("/") ? String(destination.dropLast()) : destination
            let catalogCopy = root + "/catalog.sqlite"
            do { try await catalog.backup(to: catalogCopy) } catch {
                throw CLIError.io("cannot write the catalog backup to '\(catalogCopy)': \(error)")
            }
            let snapshot: any CatalogStore
            do { snapshot = try SQLiteCatalog(path: catalogCopy) } catch {
                throw CLIError.io("cannot read back the catalog backup: \(error)")
            }
            var linked = 0, copied = 0
            var missing: [String] = [], written = [catalogCopy]
            for blob in try await snapshot.storedBlobs() {
                let digest = try BlobNames.digest(blob.sha256)
                let copy = root + "/" + BlobNames.relativePath(for: digest)
                // The folder store's own file; an object store's copy fetched (and checked) into the cache.
                guard try await stores.blobs.size(of: digest) != nil,
                    let source = try? await stores.blobs.localFile(for: digest), fm.fileExists(atPath: source)
                else {
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
                    "the backup in '\(root)' is not complete: \(missing.count) package\(missing.count == 1 ? "" : "s") the catalog names \(missing.count == 1 ? "is" : "are") missing from \(stores.blobs.description) (\(names)\(missing.count > 10 ? ", …" : "")); it stays marked unfinished and no server starts from it. Run 'trailpack admin scrub' to take the missing packages out of service (or put them back), then back up again into a new folder"
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

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Bring back a version taken out of service as damaged, from an intact copy of its package.",
            discussion: """
                FILE must be the very bytes that were published (its SHA-256 is the damaged version's): a copy from a \
                backup, the publisher's build output, or a phone. It is stored again under blobs/ and every version \
                stored as those bytes returns to the state it had before the damage, audited. Works while the server \
                runs. (Uploading the same bytes again through the API or the panel does the same.)
                """)
        @OptionGroup var options: Options
        @Argument(help: "An intact copy of the damaged version's package.") var file: String

        func run() async throws {
            let stores = try await options.stores(.shared)
            let catalog = stores.catalog
            let digest: SHA256Digest
            do { digest = try FileHashing.sha256(path: file).digest } catch {
                throw CLIError.io("cannot read '\(file)': \(error)")
            }
            let damaged = try await catalog.storedBlobs().contains { $0.sha256 == digest.hex }
            let versions = try await catalog.damagedVersions(sha256: digest.hex)
            guard damaged, !versions.isEmpty else {
                throw CLIError.usage(
                    "no version taken out of service as damaged is stored as '\(file)' (SHA-256 \(digest.hex)); 'trailpack admin scrub --json' lists the damaged ones, and a restore needs the very bytes that were published"
                )
            }
            // Copied into the data folder's tmp/ (beside the blobs of a folder store), flushed, then stored.
            let temporary: String
            do { temporary = try stores.folder.temporaryFolder() } catch { throw CLIError.io("\(error)") }
            defer { rmdir(temporary) }
            let copy = temporary + "/" + BlobNames.uploadFileName
            do {
                try FileManager.default.copyItem(atPath: file, toPath: copy)
                let descriptor = try FileOperations.open(copy, .readOnly)
                defer { try? descriptor.close() }
                try descriptor.sync(path: copy)
                // The copy must still be those bytes (the file may have changed since it was hashed).
                guard try FileHashing.sha256(path: copy).digest == digest else {
                    throw CLIError.io("'\(file)' changed while it was being copied; nothing was restored")
                }
                let size = Int64(try FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int ?? 0)
                try await stores.blobs.commit(temporary: copy, sha256: digest, size: size, replacing: true)
            } catch let error as CLIError {
                unlink(copy)
                throw error
            } catch {
                unlink(copy)
                throw CLIError.io("cannot store the copy: \(error)")
            }
            let back = try await catalog.restoreDamaged(
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

    struct Rescan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rescan",
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

        func run() async throws {
            guard (id == nil) == (version == nil) else {
                throw CLIError.usage(
                    "give both a package id and a version, or neither (with --held: every held version)")
            }
            let stores = try await options.stores(.shared)
            let catalog = stores.catalog
            var targets = try await catalog.scanTargets(heldOnly: held)
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
                let path = try await stores.blobs.localFile(for: try BlobNames.digest(t.sha256))
                let state = MalwareScanner.catalogState(scanner.scan(path))
                let (status, detail) = (state.status, state.detail)
                try await catalog.recordRescan(
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
