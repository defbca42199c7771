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
    public func archive(tape: [UInt8]) -> (bytes: [UInt8], mutations: [String]) {
        var random = TapeRandom(tape)
        return archive(using: &random)
    }

    /// An archive from a seed and one to three mutations drawn from `random`.
    public func archive(using random: inout some RandomNumberGenerator) -> (bytes: [UInt8], mutations: [String]) {
        guard !seeds.isEmpty else { return ([], []) }
        var model = seeds[Int(random.next() % UInt64(seeds.count))]
        let count = 1 + Int(random.next() % 3)
        var done: [String] = []
        for _ in 0..<count { done.append(ZipMutator.mutate(&model, using: &random)) }
        return (model.bytes(), done)
    }
}
