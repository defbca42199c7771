import TrailPackArchive

/// Turns a fuzzer's input into a structurally mutated archive: the input picks a seed package
/// and one to three mutations (``ZipMutator``), so that libFuzzer's coverage guidance works on
/// the structure of the archive rather than on its raw bytes.
public struct ZipFuzzer: Sendable {
    public let seeds: [ZipModel]

    public init(seeds: [ZipModel]) { self.seeds = seeds }

    /// Seeds from the valid archives among `archives`.
    public init(seedArchives archives: [[UInt8]]) {
        self.init(seeds: archives.compactMap { ZipModel(seed: $0) })
    }

    /// The archive that `tape` describes, and the mutations applied.
    /// A mutated archive and the mutations applied.
    public struct Fuzzed: Sendable {
        /// The archive's bytes.
        public var bytes: [UInt8]
        /// Each mutation, for the log and for replaying.
        public var mutations: [String]
    }

    public func archive(tape: [UInt8]) -> Fuzzed {
        var random = TapeRandom(tape)
        return archive(using: &random)
    }

    /// An archive from a seed and one to three mutations drawn from `random`.
    public func archive(using random: inout some RandomNumberGenerator) -> Fuzzed {
        guard !seeds.isEmpty else { return Fuzzed(bytes: [], mutations: []) }
        var model = seeds[Int(random.next() % UInt64(seeds.count))]
        let count = 1 + Int(random.next() % 3)
        var done: [String] = []
        for _ in 0..<count { done.append(ZipMutator.mutate(&model, using: &random)) }
        return Fuzzed(bytes: model.bytes(), mutations: done)
    }
}
