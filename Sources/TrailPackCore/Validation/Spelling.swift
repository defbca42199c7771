/// Near-miss suggestions for names a person typed.
public enum Spelling {
    /// The candidate closest to `word` by case-insensitive edit distance: at most 1 for names of
    /// up to 3 characters, else at most 2 or a fifth of the length (paths differ in a whole
    /// extension: `birdsong.mp3` for `birdsong.wav`). Nil when nothing is that close.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let lower = word.lowercased()
        var best: (String, Int)?
        for c in candidates {
            let d = distance(lower, c.lowercased())
            let limit = c.count <= 3 ? 1 : max(2, c.count / 5)
            if d <= limit, best == nil || d < best!.1 { best = (c, d) }
        }
        return best?.0
    }

    /// Levenshtein distance over Unicode scalars.
    public static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        var current = Array(repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}
