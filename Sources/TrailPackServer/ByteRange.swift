import Foundation

/// `Range: bytes=…` for one range (RFC 9110 §14). Several ranges are answered with the whole file.
enum ByteRange: Equatable {
    case none
    case unsatisfiable
    case range(ClosedRange<Int64>)

    static func parse(_ header: String, size: Int64) -> ByteRange {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return .none }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .none }
        let a = parts[0].trimmingCharacters(in: .whitespaces), b = parts[1].trimmingCharacters(in: .whitespaces)
        if a.isEmpty {
            guard let n = Int64(b), n >= 0, b.allSatisfy(\.isNumber) else { return .none }
            if n == 0 || size == 0 { return .unsatisfiable }
            return .range(max(0, size - n)...(size - 1))
        }
        guard let start = Int64(a), a.allSatisfy(\.isNumber) else { return .none }
        if start >= size { return .unsatisfiable }
        if b.isEmpty { return .range(start...(size - 1)) }
        guard let end = Int64(b), b.allSatisfy(\.isNumber), end >= start else { return .none }
        return .range(start...min(end, size - 1))
    }
}

/// Entity tags (RFC 9110 §8.8.3).
enum ETag {
    /// Whether `If-None-Match: header` names `etag`: weak comparison (a `W/` prefix is ignored), or `*`.
    static func noneMatchHits(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            var tag = item.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}
