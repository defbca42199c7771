import TrailPackCore

/// Changes a `ZipModel` the way an attacker would: one to three fields of its records set to
/// boundary values, records duplicated, dropped or reordered, ZIP64 sentinels with and without
/// their extra fields, names made to collide, and the file cut short.
public enum ZipMutator {
    /// One mutation chosen from `random`, applied to `model`; returns what was done (for logs).
    @discardableResult
    public static func mutate(_ model: inout ZipModel, using random: inout some RandomNumberGenerator) -> String {
        guard !model.entries.isEmpty else {
            model.trailing += [0x50, 0x4B]
            return "trailing bytes"
        }
        let layout = model.layout()
        let k = Int.random(in: 0..<model.entries.count, using: &random)
        let name = String(decoding: model.entries[k].name, as: UTF8.self)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<30:  // an entry field to a boundary value
            let field = ZipModel.Field.allCases.randomElement(using: &random)!
            let honest = layout.values[k][field] ?? 0
            let other = layout.values.randomElement(using: &random)?[field] ?? 0
            let value = boundary(honest: honest, other: other, width: field.width, using: &random)
            model.entries[k].overrides[field] = value
            return "\(name): \(field) = \(value)"
        case 30..<42:  // an end-record field
            let field = ZipModel.EndField.allCases.randomElement(using: &random)!
            if field.rawValue >= ZipModel.EndField.zip64RecordSize.rawValue { model.zip64End = true }
            let honest = model.layout().end[field] ?? 0
            let value = boundary(
                honest: honest, other: UInt64(layout.boundaries.randomElement(using: &random) ?? 0),
                width: field.width, using: &random)
            model.endOverrides[field] = value
            return "end: \(field) = \(value)"
        case 42..<50:  // ZIP64 sentinels, with or without the extra field
            let withExtra = Bool.random(using: &random)
            if withExtra {
                model.entries[k].zip64.toggle()
            } else {
                let fields: [ZipModel.Field] = [
                    .centralUncompressed, .centralCompressed, .centralOffset, .localCompressed, .localUncompressed,
                ]
                model.entries[k].overrides[fields.randomElement(using: &random)!] = 0xFFFF_FFFF
            }
            if Int.random(in: 0..<4, using: &random) == 0 { model.zip64End.toggle() }
            return "\(name): ZIP64 sentinel \(withExtra ? "with" : "without") its extra field"
        case 50..<60:  // names that collide
            let other = model.entries.randomElement(using: &random)!.name
            let variant = collidingName(other, using: &random)
            if Bool.random(using: &random) {
                model.entries[k].name = variant
            } else {
                var copy = model.entries[k]
                copy.name = variant
                model.entries.insert(copy, at: Int.random(in: 0...model.entries.count, using: &random))
                model.centralOrder = Array(model.entries.indices)
            }
            return "\(name): renamed to collide (\(String(decoding: variant, as: UTF8.self)))"
        case 60..<68:  // duplicate, drop or reorder records
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                model.entries.insert(model.entries[k], at: Int.random(in: 0...model.entries.count, using: &random))
                model.centralOrder = Array(model.entries.indices)
                return "\(name): duplicated"
            case 1:
                model.entries[k].inCentral = false
                return "\(name): dropped from the central directory"
            case 2:
                model.entries[k].inLocal = false
                return "\(name): local record dropped"
            case 3:
                let j = Int.random(in: 0..<model.entries.count, using: &random)
                model.entries.swapAt(k, j)
                return "local records \(k) and \(j) swapped"
            default:
                model.centralOrder.shuffle(using: &random)
                if Bool.random(using: &random), let first = model.centralOrder.first {
                    model.centralOrder.append(first)
                }
                return "central records reordered"
            }
        case 68..<76:  // descriptors, methods and flags
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                model.entries[k].descriptor.toggle()
                return "\(name): data descriptor toggled"
            case 1:
                model.entries[k].descriptorSignature.toggle()
                return "\(name): descriptor signature toggled"
            case 2:
                model.entries[k].method = model.entries[k].method == 8 ? 0 : 8
                return "\(name): method changed, data kept"
            default:
                model.entries[k].flags ^= [0x0001, 0x0040, 0x0800, 0x2000, 0x0008].randomElement(using: &random)!
                return "\(name): a flag bit flipped"
            }
        case 76..<80:  // the manifest's content, by its JSON structure (CRC and sizes stay honest)
            guard let m = model.entries.firstIndex(where: { $0.name == Array("manifest.json".utf8) }),
                let mutation = JSONMutator.mutate(model.entries[m].data, using: &random)
            else { return "no manifest to change" }
            let (json, what) = (mutation.bytes, mutation.what)
            model.entries[m].data = json
            model.entries[m].stored = model.entries[m].method == 8 ? ZipModel.deflate(json) : json
            return "manifest.json: \(what)"
        case 80..<84:  // the data itself
            var e = model.entries[k]
            if !e.stored.isEmpty {
                let i = Int.random(in: 0..<e.stored.count, using: &random)
                e.stored[i] ^= UInt8.random(in: 1...255, using: &random)
            } else {
                e.stored = [0x03, 0x00]
            }
            if Bool.random(using: &random) {
                e.stored.removeLast(min(e.stored.count, Int.random(in: 1...4, using: &random)))
            }
            model.entries[k] = e
            return "\(name): stored bytes damaged"
        case 84..<90:  // extra fields
            let id: UInt16 = [0x0001, 0x5455, 0x7875, 0x7075, 0xCAFE].randomElement(using: &random)!
            let length = [0, 1, 4, 8, 24, 0xFFFF].randomElement(using: &random)!
            let body = [UInt8](repeating: UInt8.random(in: 0...255, using: &random), count: min(length, 32))
            let field = le16(id) + le16(UInt16(length)) + body
            if Bool.random(using: &random) {
                model.entries[k].centralExtra += field
            } else {
                model.entries[k].localExtra += field
            }
            return "\(name): extra field 0x\(String(id, radix: 16)) of \(length) bytes"
        case 90..<95:  // bytes before, after, in the comment
            switch Int.random(in: 0..<3, using: &random) {
            case 0: model.prefix += Array("#!/bin/sh\nexit 0\n".utf8)
            case 1: model.trailing += [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)
            default: model.comment += [0x50, 0x4B, 0x05, 0x06]
            }
            return "bytes around the archive"
        default:  // cut short at a record boundary, or near one
            let at = layout.boundaries.randomElement(using: &random) ?? 0
            model.truncateAt = max(0, at + Int.random(in: -2...2, using: &random))
            return "cut at byte \(model.truncateAt!)"
        }
    }

    /// A value at the edge: 0, 1, all ones, the top bit, the honest value ± 1, another record's.
    static func boundary(
        honest: UInt64, other: UInt64, width: Int, using random: inout some RandomNumberGenerator
    ) -> UInt64 {
        let mask: UInt64 = width >= 8 ? .max : (1 << (8 * UInt64(width))) - 1
        let choices: [UInt64] = [
            0, 1, mask, mask >> 1, (mask >> 1) + 1, honest &+ 1, honest &- 1, other, honest &* 2, mask &- 1,
        ]
        return choices.randomElement(using: &random)! & mask
    }

    /// A name that collides with `name`: the same, another case, another normalization, the
    /// file used as a folder, or the folder form.
    static func collidingName(_ name: [UInt8], using random: inout some RandomNumberGenerator) -> [UInt8] {
        let text = String(decoding: name, as: UTF8.self)
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return name
        case 1: return Array(text.uppercased().utf8)
        case 2: return Array((text + "/x.txt").utf8)
        case 3: return Array((text.hasSuffix("/") ? text : text + "/").utf8)
        case 4: return Array((text.replacingOccurrences(of: "e", with: "e\u{301}")).utf8)  // NFD against NFC
        default: return Array(("waypoints/É/" + text.split(separator: "/").last.map(String.init)!).utf8)
        }
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// Random numbers read from a fuzzer's input, so that libFuzzer's byte mutations of the input
/// become structural mutations of the archive. Once the tape runs out it goes on with a
/// generator seeded from the tape (never a constant: the standard library's bounded `random`
/// rejects some values and would wait for ever on a constant).
public struct TapeRandom: RandomNumberGenerator {
    private let tape: [UInt8]
    private var position = 0
    private var after: SeededRandom

    public init(_ tape: [UInt8]) {
        self.tape = tape
        var seed: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a of the tape
        for byte in tape { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01B3 }
        self.after = SeededRandom(seed: seed)
    }

    public var isExhausted: Bool { position >= tape.count }

    public mutating func next() -> UInt64 {
        guard position + 8 <= tape.count else {
            position = tape.count
            return after.next()
        }
        var value: UInt64 = 0
        for i in 0..<8 { value |= UInt64(tape[position + i]) << (8 * UInt64(i)) }
        position += 8
        return value
    }
}

/// A small seeded generator (SplitMix64) for reproducible runs.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
