import TrailPackArchive
import TrailPackCore
import TrailPackCrypto

/// The manifest's assets against the package's entries, each pair met as soon as both sides are
/// read: a stop's assets as the manifest's thread decodes them (``Feed``), an entry's data as the
/// entry walk checks it (``record(_:at:)``). Whichever comes second is compared then, so that
/// neither the manifest's model (17 MB at 100,000 assets) nor every entry's check beside every
/// asset's declaration is ever held whole: each entry has one slot, holding what came first.
///
/// The findings are those `checkContents` made from the whole model and every check, in the same
/// order (by asset, then its type before its presence, size or digest).
final class ContentMatcher: @unchecked Sendable {
    // @unchecked: `lock` guards `state`, `accepted`, `slots`, `extra`, `listed` and `found`;
    // `directory` and `byName` are written once, under the lock, before `state` becomes `.open`,
    // and only read after that.

    /// What the manifest says of one asset whose entry's data has not been read yet (38 bytes).
    struct Declared {
        /// The declared SHA-256, compared when ``comparesSHA``.
        var sha256: Bytes32
        /// The asset's number (the stops' assets in order, then the maps').
        var number: Int32
        /// The signature its content must start with (nil: any, or its type is already wrong).
        var content: ContentSniff.Format?
        /// Whether its SHA-256 is compared: its size was known and right, and its `sha256` 64 hex digits.
        var comparesSHA: Bool
    }

    /// What one entry's slot holds: 40 bytes an entry (a slot holding an entry's whole check, its
    /// first bytes too, was 56: 1.6 MB more at 100,000 entries).
    enum Slot {
        case empty
        /// An asset declared before the entry's data was read (more of them: ``extra``).
        case declared(Declared)
        /// The entry's data was read whole and passed its checks: its SHA-256, and what its first
        /// bytes are against the signature its name asks for (``Verdict``).
        case intact(Bytes32, Verdict)
        /// The entry's data is damaged or could not be read to its end (reported where it was found).
        case damaged
    }

    /// ``ContentSniff/ContentVerdict`` in a byte: 0 fits (or its name asks for no signature),
    /// 1 empty, 2 unknown, 3 + n seems to be `ContentSniff.Format.allCases[n]`.
    struct Verdict {
        var raw: UInt8

        static let fits = Verdict(raw: 0)

        init(raw: UInt8) { self.raw = raw }

        init(_ verdict: ContentSniff.ContentVerdict) {
            switch verdict {
            case .fits: raw = 0
            case .empty: raw = 1
            case .unknown: raw = 2
            case .seems(let format): raw = 3 + UInt8(ContentSniff.Format.allCases.firstIndex(of: format)!)
            }
        }

        var verdict: ContentSniff.ContentVerdict {
            switch raw {
            case 0: .fits
            case 1: .empty
            case 2: .unknown
            default: .seems(ContentSniff.Format.allCases[Int(raw) - 3])
            }
        }
    }

    /// A content finding, with what it is ordered by.
    struct Found {
        var number: Int32
        /// 0: the asset's type; 1: its presence, size or digest.
        var rank: UInt8
        /// The entry it is about; -1 for none.
        var position: Int32
        /// Read from the entry's data: withdrawn if the data turns out to be damaged after all.
        var fromData: Bool
        var finding: Finding
    }

    private enum State { case waiting, open, abandoned }

    private let lock = ThreadLock()
    private var state = State.waiting
    /// The reading whose declarations count (nil: none yet).
    private var accepted: ObjectIdentifier?
    private(set) var directory: ZipDirectory?
    private(set) var byName: ZipNameIndex?
    private var slots: [Slot] = []
    /// Further assets declared for an entry before its data was read (a path listed twice).
    private var extra: [Int32: [Declared]] = [:]
    /// Whether an asset names the entry (by its name's first entry).
    private var listed: [Bool] = []
    private var found: [Found] = []

    /// Opens the matcher on the package's directory: from now on the stops a reading takes are
    /// resolved against it (those taken before, at its next stop or ``Feed/drain()``), and counted
    /// if the reading is `feed` (another's are not).
    func open(_ directory: ZipDirectory, accepting feed: Feed?) {
        let byName = directory.positionsByName()
        lock.change {
            self.directory = directory
            self.byName = byName
            slots = [Slot](repeating: .empty, count: directory.entries.count)
            listed = [Bool](repeating: false, count: directory.entries.count)
            accepted = feed.map(ObjectIdentifier.init)
            state = .open
        }
    }

    /// Nothing declared from now on counts (the directory could not be read, or the verification
    /// ended early): a reading still going resolves nothing.
    func abandon() {
        lock.change {
            if state == .waiting { state = .abandoned }
            accepted = nil
        }
    }

    /// From now on `feed`'s declarations count, and only those: what an earlier reading declared is
    /// forgotten (its findings, and which entries it listed), what the entry walk recorded kept.
    func accept(_ feed: Feed) {
        lock.withLock {
            accepted = ObjectIdentifier(feed)
            for p in slots.indices { if case .declared = slots[p] { slots[p] = .empty } }
            extra = [:]
            for p in listed.indices { listed[p] = false }
            found = []
        }
    }

    /// The entry walk's check of the entry at `position`, compared with what the manifest declared
    /// of it, if that came first. Its first bytes are judged here, against the signature its
    /// name asks for (the one a declaration of it would ask for), and let go.
    func record(_ check: Verifier.EntryCheck, at position: Int) {
        var slot = Slot.damaged
        if case .intact(let sha256, let head) = check {
            var verdict = Verdict.fits
            if let directory, position < directory.entries.count,
                let expected = directory.entries[position].nameBytes.withUnsafeBufferPointer(
                    ContentSniff.expectedFormat(forName:))
            {
                verdict = Verdict(ContentSniff.contentVerdict(expected: expected, head: head.bytes))
            }
            slot = .intact(sha256.value, verdict)
        }
        lock.withLock {
            guard position < slots.count else { return }
            if case .declared(let d) = slots[position] {
                compare(d, position, slot)
                for e in extra.removeValue(forKey: Int32(position)) ?? [] { compare(e, position, slot) }
            }
            slots[position] = slot
        }
    }

    /// The SHA-256 of the entry at `position`'s data, when it was read whole and intact.
    func digest(at position: Int) -> SHA256Digest? {
        lock.withLock {
            guard position < slots.count, case .intact(let sha256, _) = slots[position] else { return nil }
            return SHA256Digest(sha256)
        }
    }

    /// The entries at `positions` turned out damaged (their CRC-32s, taken on another thread):
    /// what was read from their data no longer counts. (All at once: one pass over the findings.)
    func damaged(at positions: [Int]) {
        guard !positions.isEmpty else { return }
        lock.withLock {
            var isDamaged = [Bool](repeating: false, count: slots.count)
            for position in positions where position < slots.count {
                slots[position] = .damaged
                isDamaged[position] = true
            }
            found.removeAll { $0.fromData && $0.position >= 0 && isDamaged[Int($0.position)] }
        }
    }

    /// Marks the manifest's own entry as listed.
    func list(position: Int) {
        lock.withLock { if position < listed.count { listed[position] = true } }
    }

    /// Every content finding, in order: each asset's (the stops' in order, then the maps'), then
    /// the entries no asset lists. `feed` is the reading that counted (for the paths no entry has).
    func findings(feed: Feed) -> [Finding] {
        lock.withLock {
            guard let directory, let byName else { return [] }
            var out = found.enumerated().sorted {
                ($0.element.number, $0.element.rank, $0.offset) < ($1.element.number, $1.element.rank, $1.offset)
            }.map(\.element.finding)
            // Folders that hold listed assets, for directory entries (which many writers add): built on first use.
            var folders: Set<NameKey>?
            for e in directory.entries
            where !listed[e.index] && byName.position(of: e.nameBytes).map({ listed[$0] }) != true {
                if e.isDirectory {
                    if folders == nil {
                        var made: Set<NameKey> = []
                        for p in listed.indices where listed[p] {
                            for folder in ArchivePath.parentFolders(directory.entries[p].name) {
                                made.insert(NameKey(folder))
                            }
                        }
                        for path in feed.missing.values {
                            for folder in ArchivePath.parentFolders(path) { made.insert(NameKey(folder)) }
                        }
                        folders = made
                    }
                    if folders!.contains(NameKey(Array(e.nameBytes))) { continue }
                }
                out.append(
                    Finding(
                        .contentUnlisted, file: e.name,
                        "the package holds this \(e.isDirectory ? "folder" : "file") but the manifest does not list it")
                )
            }
            return out
        }
    }

    // MARK: meeting (under the lock)

    /// Declares `d` for the entry at `position`: compared now if its data was read, else kept.
    private func meet(_ d: Declared, _ position: Int) {
        switch slots[position] {
        case .empty: slots[position] = .declared(d)
        case .declared: extra[Int32(position), default: []].append(d)
        case .intact, .damaged: compare(d, position, slots[position])
        }
    }

    /// What the data read says of a declaration: its signature, then its digest.
    private func compare(_ d: Declared, _ position: Int, _ slot: Slot) {
        // Unreadable: already reported.
        guard let directory, case .intact(let actual, let verdict) = slot else { return }
        let entry = directory.entries[position]
        if let expected = d.content,
            let reason = ContentSniff.contentMismatch(path: entry.name, expected: expected, verdict: verdict.verdict)
        {
            found.append(
                Found(
                    number: d.number, rank: 0, position: Int32(position), fromData: true,
                    finding: Finding(.assetTypeMismatch, file: entry.name, reason)))
        }
        if d.comparesSHA, d.sha256 != actual {
            found.append(
                Found(
                    number: d.number, rank: 1, position: Int32(position), fromData: true,
                    finding: Finding(
                        .contentSHA256, file: entry.name,
                        "the asset's SHA-256 is \(actual.hex), not \(d.sha256.hex) as the manifest says: it was altered or damaged"
                    )))
        }
    }

    // MARK: the manifest's side

    /// One reading of the manifest: takes its assets as they are decoded, resolves each against the
    /// directory (waiting for it to be read), and keeps for each only its entry's position.
    final class Feed: ManifestAssetSink {
        let matcher: ContentMatcher
        let keepsAssets: Bool
        /// Each asset's entry, by the asset's number; -1: none (its path is in ``missing``).
        private var positions: [Int32] = []
        /// The paths of the assets no entry holds (or of every asset, when this reading does not count).
        private(set) var missing: [Int32: String] = [:]
        /// Where the next asset is looked for first: the entry after the last one found.
        private var guess = 0
        /// The directory's entries by folding key, for a missing asset's hint: built on first use.
        private var byFolded: [String: Int32]?
        /// Stops read before the directory was: resolved once it is. The manifest's thread goes on
        /// parsing meanwhile, until ``readAhead`` assets wait (at 100,000 entries, the directory
        /// takes about a quarter of the manifest's time: 26,000 assets held there were 4.8 MB).
        private var pending: [(assets: [Asset], first: Int)] = []
        private var pendingCount = 0
        static let readAhead = 4096
        /// How many assets to make room for before the directory says (``assetCapacity``).
        private let expectedAssets: Int

        /// A reading for `matcher`; `expectedAssets`: how many assets it may list, when the
        /// directory has not said yet (from the manifest's size).
        init(_ matcher: ContentMatcher, keepsAssets: Bool, expectedAssets: Int = 0) {
            self.matcher = matcher
            self.keepsAssets = keepsAssets
            self.expectedAssets = expectedAssets
        }

        var assetCapacity: Int { matcher.lock.withLock { matcher.directory?.entries.count } ?? expectedAssets }

        func path(ofAsset number: Int) -> String {
            guard number < positions.count else {
                // The pending stop that holds it: the last one numbered from at most `number`.
                var low = 0
                var high = pending.count
                while low < high {
                    let mid = (low + high) / 2
                    if pending[mid].first <= number { low = mid + 1 } else { high = mid }
                }
                guard low > 0, number - pending[low - 1].first < pending[low - 1].assets.count else { return "" }
                return pending[low - 1].assets[number - pending[low - 1].first].path
            }
            let position = positions[number]
            if position >= 0, let directory = matcher.directory { return directory.entries[Int(position)].name }
            return missing[Int32(number)] ?? ""
        }

        func take(_ assets: [Asset], waypoint: Int, first: Int) {
            let me = ObjectIdentifier(self)
            pending.append((assets, first))
            pendingCount += assets.count
            var (open, counts) = matcher.lock.withLock { (matcher.state != .waiting, matcher.accepted == me) }
            if !open {
                guard pendingCount >= Self.readAhead else { return }
                // Far enough ahead: the directory first.
                counts = matcher.lock.wait(until: { matcher.state != .waiting }, then: { matcher.accepted == me })
            }
            resolvePending(counts: counts)
        }

        /// Resolves the stops taken before the directory was read (the directory is read by now).
        func drain() {
            let me = ObjectIdentifier(self)
            resolvePending(counts: matcher.lock.withLock { matcher.accepted == me })
        }

        private func resolvePending(counts: Bool) {
            guard !pending.isEmpty else { return }
            let stops = pending
            pending = []
            pendingCount = 0
            for stop in stops { resolve(stop.assets, first: stop.first, counts: counts) }
        }

        /// Each asset's entry, and what can be said of it before its data is read.
        private func resolve(_ assets: [Asset], first: Int, counts: Bool) {
            let me = ObjectIdentifier(self)
            guard counts, let directory = matcher.directory, let byName = matcher.byName else {
                for (k, a) in assets.enumerated() {
                    positions.append(-1)
                    missing[Int32(first + k)] = a.path
                }
                return
            }
            var found: [Found] = []
            var declared: [(Declared, Int)] = []
            declared.reserveCapacity(assets.count)
            for (k, a) in assets.enumerated() {
                let number = Int32(first + k)
                let position = byName.position(of: a.path, guess: guess)
                positions.append(position.map(Int32.init) ?? -1)
                // The declared type against the extension now; the content when the data is read.
                let typed = ContentSniff.declaredMismatch(path: a.path, kind: a.kind, mediaType: a.mediaType)
                if let reason = typed.reason {
                    found.append(
                        Found(
                            number: number, rank: 0, position: position.map(Int32.init) ?? -1, fromData: false,
                            finding: Finding(.assetTypeMismatch, file: a.path, reason)))
                }
                guard let position else {
                    missing[number] = a.path
                    let near = folded(a.path, directory).map {
                        "; the package has '\(directory.entries[Int($0)].name)', which differs in case or accents"
                    }
                    found.append(
                        Found(
                            number: number, rank: 1, position: -1, fromData: false,
                            finding: Finding(
                                .contentMissing, file: a.path,
                                "the manifest lists this asset but the package does not hold it\(near ?? "")")))
                    continue
                }
                guess = position + 1
                let entry = directory.entries[position]
                var comparesSHA = entry.sizesKnown  // unknown sizes: already reported
                if entry.sizesKnown, entry.uncompressedSize != a.size {
                    found.append(
                        Found(
                            number: number, rank: 1, position: Int32(position), fromData: false,
                            finding: Finding(
                                .contentSize, file: a.path,
                                "the manifest says \(a.size) bytes, the package holds \(entry.uncompressedSize)")))
                    comparesSHA = false
                }
                let declaredSHA = SHA256Digest(of: a)
                let d = Declared(
                    sha256: declaredSHA?.value ?? Bytes32(), number: number,
                    content: typed.reason == nil ? typed.content : nil, comparesSHA: comparesSHA && declaredSHA != nil)
                declared.append((d, position))
            }
            matcher.lock.withLock {
                guard matcher.accepted == me else { return }
                matcher.found += found
                for (d, position) in declared {
                    matcher.listed[position] = true
                    matcher.meet(d, position)
                }
            }
        }

        /// The first entry whose name differs from `path` only in case or accents.
        private func folded(_ path: String, _ directory: ZipDirectory) -> Int32? {
            if byFolded == nil {
                var made: [String: Int32] = [:]
                for e in directory.entries where made[ArchivePath.foldingKey(e.name)] == nil {
                    made[ArchivePath.foldingKey(e.name)] = Int32(e.index)
                }
                byFolded = made
            }
            return byFolded![ArchivePath.foldingKey(path)]
        }
    }
}
