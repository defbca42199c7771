/// A word diff of two texts, for a reviewer: which words were removed, which added, which kept.
///
/// Longest common subsequence over words, after the common prefix and suffix are set aside.
/// Bounded: when the differing middle is larger than `maxCells` (words × words), the middle is
/// reported as removed and added whole — a hostile 1 MB description costs at most `maxCells`
/// steps and `maxCells` bytes, never quadratic time on the whole text.
public struct WordDiff: Sendable, Equatable, Codable {
    /// One run of words.
    public struct Run: Sendable, Equatable, Codable {
        public enum Kind: String, Sendable, Codable { case same, removed, added }
        public var kind: Kind
        public var text: String
    }

    public var runs: [Run]

    /// Whether the middle was too large to align word by word (then it is shown as replaced whole).
    public var approximate: Bool

    public static let maxCells = 4_000_000

    public init(old: String, new: String) {
        let a = Self.words(old), b = Self.words(new)
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            suffix += 1
        }
        let midA = Array(a[prefix..<(a.count - suffix)]), midB = Array(b[prefix..<(b.count - suffix)])
        var ops: [(Run.Kind, Substring)] = a[..<prefix].map { (.same, $0) }
        approximate = false
        if midA.count * midB.count > Self.maxCells {
            approximate = true
            ops += midA.map { (.removed, $0) } + midB.map { (.added, $0) }
        } else {
            ops += Self.lcs(midA, midB)
        }
        ops += a[(a.count - suffix)...].map { (.same, $0) }
        // Adjacent words of one kind make one run.
        var runs: [Run] = []
        for (kind, word) in ops {
            if let last = runs.last, last.kind == kind {
                runs[runs.count - 1].text += " " + word
            } else {
                runs.append(Run(kind: kind, text: String(word)))
            }
        }
        self.runs = runs
    }

    /// Whether anything changed.
    public var changed: Bool { runs.contains { $0.kind != .same } }

    /// `[-removed-]` and `{+added+}`, as `git diff --word-diff` writes them.
    public var marked: String {
        runs.map { run in
            switch run.kind {
            case .same: run.text
            case .removed: "[-\(run.text)-]"
            case .added: "{+\(run.text)+}"
            }
        }.joined(separator: " ")
    }

    static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0.isWhitespace })
    }

    /// The edit script of `a` into `b` by longest common subsequence (a.count × b.count ≤ maxCells).
    static func lcs(_ a: [Substring], _ b: [Substring]) -> [(Run.Kind, Substring)] {
        let n = a.count, m = b.count
        if n == 0 { return b.map { (.added, $0) } }
        if m == 0 { return a.map { (.removed, $0) } }
        // lengths[i][j]: LCS of a[i...] and b[j...], in one flat array of UInt32.
        var lengths = [UInt32](repeating: 0, count: (n + 1) * (m + 1))
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lengths[i * (m + 1) + j] =
                    a[i] == b[j]
                    ? lengths[(i + 1) * (m + 1) + j + 1] + 1
                    : max(lengths[(i + 1) * (m + 1) + j], lengths[i * (m + 1) + j + 1])
            }
        }
        var ops: [(Run.Kind, Substring)] = []
        var i = 0, j = 0
        while i < n, j < m {
            if a[i] == b[j] {
                ops.append((.same, a[i]))
                i += 1
                j += 1
            } else if lengths[(i + 1) * (m + 1) + j] >= lengths[i * (m + 1) + j + 1] {
                ops.append((.removed, a[i]))
                i += 1
            } else {
                ops.append((.added, b[j]))
                j += 1
            }
        }
        ops += a[i...].map { (.removed, $0) } + b[j...].map { (.added, $0) }
        return ops
    }
}
