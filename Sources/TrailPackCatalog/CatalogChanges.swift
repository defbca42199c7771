import GRDB
import Synchronization

/// Counts the committed transactions that change what the public catalog answers show (sites,
/// released versions, their manifests): the server keeps those answers as bytes and serves them
/// again until this count moves. Confirmation counters, scans' details, users, tokens and the
/// audit log do not move it.
final class CatalogChanges: TransactionObserver, Sendable {
    private let count = Atomic<UInt64>(0)
    /// Whether the transaction under way changed something observed (written by GRDB's writer only).
    private let pending = Atomic<Bool>(false)

    static let tables: Set<String> = ["site", "packageVersion", "blob"]
    /// Columns of packageVersion that no public answer shows.
    static let unseenColumns: Set<String> = ["confirmMatch", "confirmMismatch", "scanDetail"]

    var value: UInt64 { count.load(ordering: .acquiring) }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        guard Self.tables.contains(eventKind.tableName) else { return false }
        if case .update(_, let columns) = eventKind, columns.isSubset(of: Self.unseenColumns) { return false }
        return true
    }

    func databaseDidChange(with event: DatabaseEvent) { pending.store(true, ordering: .relaxed) }

    func databaseDidCommit(_ db: Database) {
        if pending.exchange(false, ordering: .relaxed) { count.wrappingAdd(1, ordering: .releasing) }
    }

    func databaseDidRollback(_ db: Database) { pending.store(false, ordering: .relaxed) }
}
