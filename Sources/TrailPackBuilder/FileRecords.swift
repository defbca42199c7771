/// The files of a tour to package, as the folder was read: each stop's own list of records, then
/// the maps'. A file is named by its position in that order, the manifest's (stop by stop, each
/// stop's files as its waypoint.json lists them, then the maps').
///
/// The lists are the loader's, moved in and never copied into one: one list of every record
/// beside the stops' own (4.8 MB at 100,000 files) was the plan's peak. The write gives each list
/// up once its files are written (``release(group:)``).
struct FileRecords: RandomAccessCollection, Sendable {
    /// The stops' lists, in the stops' order, then the maps' (the last).
    private(set) var groups: [[TourSource.SourceFile]]
    /// The list `g` holds the positions `starts[g]..<starts[g + 1]`; one more than there are lists.
    let starts: [Int32]

    /// `groups`: the stops' lists, then the maps' (at least that one).
    init(groups: [[TourSource.SourceFile]]) {
        precondition(!groups.isEmpty, "the maps' list comes last, even when it is empty")
        var starts: [Int32] = [0]
        starts.reserveCapacity(groups.count + 1)
        for g in groups { starts.append(starts[starts.count - 1] + Int32(g.count)) }
        (self.groups, self.starts) = (groups, starts)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { Int(starts[starts.count - 1]) }

    /// How many stops there are (the lists before the maps').
    var stopCount: Int { groups.count - 1 }
    /// How many of the files are the stops' (the positions before the maps').
    var stopFileCount: Int { Int(starts[stopCount]) }

    /// The list that holds position `p` (the last list starting at or before it: lists of no
    /// files start where the next one does).
    func group(of p: Int) -> Int {
        var (low, high) = (0, groups.count - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if Int(starts[middle]) <= p { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The record at position `p`; its list must not have been released.
    subscript(p: Int) -> TourSource.SourceFile { record(p, in: group(of: p)) }

    /// The record at position `p` of list `g` (which holds it), without searching for the list.
    func record(_ p: Int, in g: Int) -> TourSource.SourceFile { groups[g][p - Int(starts[g])] }

    /// The record at position `p`, or nil once its list was released.
    func recordIfKept(_ p: Int) -> TourSource.SourceFile? {
        precondition(indices.contains(p), "position \(p) of \(count)")
        let g = group(of: p), k = p - Int(starts[g])
        return k < groups[g].count ? groups[g][k] : nil
    }

    /// Each list's records in turn (not through a search for each position).
    func makeIterator() -> FlattenSequence<[[TourSource.SourceFile]]>.Iterator { groups.joined().makeIterator() }

    /// Lets list `g` go: its positions are no longer to be read.
    mutating func release(group g: Int) { groups[g] = [] }
}
