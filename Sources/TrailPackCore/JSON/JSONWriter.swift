/// Writes JSON deterministically: members in the order given, two-space indentation,
/// `\n` line ends, non-ASCII characters written as UTF-8 (not escaped), and a final newline.
public enum JSONWriter {
    /// The UTF-8 bytes of `value`, pretty-printed.
    public static func bytes(_ value: JSONValue, pretty: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(value, into: &out, indent: pretty ? 0 : nil)
        if pretty { out.append(0x0A) }
        return out
    }

    /// The text of `value`, pretty-printed.
    public static func string(_ value: JSONValue, pretty: Bool = true) -> String {
        String(decoding: bytes(value, pretty: pretty), as: UTF8.self)
    }

    private static func write(_ value: JSONValue, into out: inout [UInt8], indent: Int?) {
        switch value {
        case .null: out += "null".utf8
        case .bool(let b): out += (b ? "true" : "false").utf8
        case .number(let n): out += n.literal.utf8
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            writeArray(count: items.count, element: { items[$0] }, into: &out, indent: indent, flush: { _ in })
        case .object(let members):
            writeObject(members, into: &out, indent: indent) { member, out, indent in
                write(member.value, into: &out, indent: indent)
            }
        }
    }

    /// An array of `count` elements, each made by `element` when it is written; `flush` is
    /// called after each (it may hand on what `out` holds and empty it).
    private static func writeArray(
        count: Int, element: (Int) -> JSONValue, into out: inout [UInt8], indent: Int?,
        flush: (inout [UInt8]) -> Void
    ) {
        if count == 0 { out += "[]".utf8; return }
        out.append(0x5B)
        for i in 0..<count {
            if i > 0 { out.append(0x2C) }
            newline(&out, indent.map { $0 + 1 })
            write(element(i), into: &out, indent: indent.map { $0 + 1 })
            flush(&out)
        }
        newline(&out, indent)
        out.append(0x5D)
    }

    /// An object whose members' values `value` writes (at the members' indent).
    private static func writeObject(
        _ members: [JSONMember], into out: inout [UInt8], indent: Int?, value: (JSONMember, inout [UInt8], Int?) -> Void
    ) {
        if members.isEmpty { out += "{}".utf8; return }
        out.append(0x7B)
        for (i, member) in members.enumerated() {
            if i > 0 { out.append(0x2C) }
            newline(&out, indent.map { $0 + 1 })
            writeString(member.key, into: &out)
            out.append(0x3A)
            if indent != nil { out.append(0x20) }
            value(member, &out, indent.map { $0 + 1 })
        }
        newline(&out, indent)
        out.append(0x7D)
    }

    /// Writes the object `members`, pretty-printed, with a final newline, exactly as
    /// `bytes(.object(members))` would, except that the value of each member named in `streamed`
    /// is an array whose elements are made one at a time by `element` and let go once written —
    /// for a document too large to hold whole as one tree (a manifest of 100,000 assets).
    package static func bytes(
        object members: [JSONMember], streamed: [String: (count: Int, element: (Int) -> JSONValue)],
        reserving capacity: Int = 4096
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        write(object: members, streamed: streamed, into: &out) { _ in }
        return out
    }

    /// Writes what ``bytes(object:streamed:reserving:)`` returns without holding it whole: the
    /// bytes go to `sink` in pieces of about `piece` bytes (cut after an element of a streamed
    /// array, and the rest at the end), and their count is returned. For a manifest written into
    /// a package as it is made (at 100,000 assets its bytes are 25 MB).
    package static func write(
        object members: [JSONMember], streamed: [String: (count: Int, element: (Int) -> JSONValue)],
        piece: Int = 64 << 10, to sink: (UnsafeRawBufferPointer) -> Void
    ) -> Int {
        var out: [UInt8] = []
        out.reserveCapacity(piece + 4096)
        var count = 0
        func handOn(_ out: inout [UInt8]) {
            count += out.count
            out.withUnsafeBytes { sink($0) }
            out.removeAll(keepingCapacity: true)
        }
        write(object: members, streamed: streamed, into: &out) { out in
            if out.count >= piece { handOn(&out) }
        }
        if !out.isEmpty { handOn(&out) }
        return count
    }

    private static func write(
        object members: [JSONMember], streamed: [String: (count: Int, element: (Int) -> JSONValue)],
        into out: inout [UInt8], flush: (inout [UInt8]) -> Void
    ) {
        writeObject(members, into: &out, indent: 0) { member, out, indent in
            if let array = streamed[member.key] {
                writeArray(count: array.count, element: array.element, into: &out, indent: indent, flush: flush)
            } else {
                write(member.value, into: &out, indent: indent)
            }
        }
        out.append(0x0A)
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int?) {
        guard let indent else { return }
        out.append(0x0A)
        for _ in 0..<(indent * 2) { out.append(0x20) }
    }

    private static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        for b in s.utf8 {
            switch b {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0D: out += [0x5C, 0x72]
            case 0x09: out += [0x5C, 0x74]
            case 0x00..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                out += [0x5C, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            default: out.append(b)  // UTF-8 passes through unescaped (C1 controls included, as RFC 8259 allows)
            }
        }
        out.append(0x22)
    }
}
