import TrailPackCore

/// Step 5 of reading an archive: each entry's local header, read where the central directory
/// says, compared field by field with the central directory, and its data descriptor. An entry
/// gets a `dataOffset` only when all of that holds together inside the entry area.
enum ZipLocalHeaders {
    /// Checks every entry's local header; `limit` is where the entry area ends (the central
    /// directory's offset).
    static func check(
        _ entries: inout [ZipEntry], source: some ByteSource, limit: Int64, findings: inout [Finding]
    ) throws(ArchiveError) {
        for k in entries.indices {
            try check(&entries[k], source: source, limit: limit, findings: &findings)
        }
    }

    /// Checks one entry's local header (sets its `dataOffset` when it holds together).
    static func check(
        _ e: inout ZipEntry, source: some ByteSource, limit: Int64, findings: inout [Finding]
    ) throws(ArchiveError) {
        let nameBytes = e.nameBytes
        var name: String { nameBytes.description }  // made only for a finding
        func add(_ code: FindingCode, _ message: String) { findings.append(Finding(code, file: name, message)) }
        guard e.sizesKnown, e.compressedSize >= 0, e.uncompressedSize >= 0 else { return }  // already reported
        guard e.localHeaderOffset >= 0, limit >= 30, e.localHeaderOffset <= limit - 30 else {
            add(.zipLocalHeader, "the entry's local header offset \(e.localHeaderOffset) is outside the entry area")
            return
        }
        let fixed = try source.bytes(at: e.localHeaderOffset, count: 30)
        var r = LittleEndianReader(fixed)
        guard fixed.count == 30, r.u32() == ZipSignature.local else {
            add(.zipLocalHeader, "there is no local header at byte \(e.localHeaderOffset)")
            return
        }
        let versionNeeded = r.u16()
        let flags = r.u16(), method = r.u16()
        r.skip(4)  // DOS time and date
        let crc = r.u32(), compressed32 = r.u32(), uncompressed32 = r.u32()
        let nameLength = Int(r.u16()), extraLength = Int(r.u16())
        let variableEnd = e.localHeaderOffset + 30 + Int64(nameLength + extraLength)
        guard variableEnd <= limit else {
            add(.zipLocalHeader, "the local header runs into the central directory")
            return
        }
        let variable = try source.bytes(at: e.localHeaderOffset + 30, count: nameLength + extraLength)
        guard variable.count == nameLength + extraLength else {
            add(.zipLocalHeader, "the local header is cut short")
            return
        }
        let localName = variable.prefix(nameLength)
        let extra = ZipExtraFields(variable.suffix(extraLength))
        if !e.nameBytes.withUnsafeBufferPointer({ localName.elementsEqual($0) }) {
            add(
                .zipLocalMismatch,
                "the local header names it '\(String(decoding: localName, as: UTF8.self))'; readers would disagree on its name"
            )
        }
        if flags != e.flags {
            add(
                .zipLocalMismatch,
                "the local header's flags (0x\(String(flags, radix: 16))) differ from the central directory's (0x\(String(e.flags, radix: 16)))"
            )
        }
        if let problem = ZipEntryRules.versionNeededProblem(versionNeeded, in: "the local header") {
            add(.zipVersionNeeded, problem)
        }
        if method != e.method {
            add(
                .zipLocalMismatch,
                "the local header's method (\(method)) differs from the central directory's (\(e.method))")
        }
        if let problem = extra.malformed { add(.zipExtraField, "local header: \(problem)") }
        if !extra.unicodePathAgrees(with: e.nameBytes) {
            add(.zipExtraField, "the local header carries a different Unicode-path name")
        }
        var localCompressed = Int64(compressed32), localUncompressed = Int64(uncompressed32)
        let zip64 = extra.field(0x0001)
        if compressed32 == 0xFFFF_FFFF || uncompressed32 == 0xFFFF_FFFF {
            guard let z = zip64, z.count >= 16 else {
                add(.zipZip64Invalid, "the local header needs ZIP64 sizes but has no ZIP64 extra field with both")
                return
            }
            var zr = LittleEndianReader(Array(z))
            localUncompressed = Int64(bitPattern: zr.u64())
            localCompressed = Int64(bitPattern: zr.u64())
        }
        let descriptor = flags & 0x0008 != 0
        if !descriptor || crc != 0 || localCompressed != 0 || localUncompressed != 0 {
            // Without a data descriptor the local values must match; with one they may be zero.
            if crc != e.crc32 && !(descriptor && crc == 0) {
                add(.zipLocalMismatch, "the local header's CRC-32 differs from the central directory's")
            }
            if localCompressed != e.compressedSize && !(descriptor && localCompressed == 0) {
                add(
                    .zipLocalMismatch,
                    "the local header's compressed size (\(localCompressed)) differs from the central directory's (\(e.compressedSize))"
                )
            }
            if localUncompressed != e.uncompressedSize && !(descriptor && localUncompressed == 0) {
                add(
                    .zipLocalMismatch,
                    "the local header's size (\(localUncompressed)) differs from the central directory's (\(e.uncompressedSize))"
                )
            }
        }
        let dataOffset = variableEnd
        guard e.compressedSize <= limit - dataOffset else {
            add(
                .zipOverlap,
                "the entry's data (\(e.compressedSize) bytes at byte \(dataOffset)) runs into the central directory")
            return
        }
        var descriptorLength: Int64 = 0
        if descriptor {
            let wide = zip64 != nil || e.compressedSize >= 0xFFFF_FFFF || e.uncompressedSize >= 0xFFFF_FFFF
            let at = dataOffset + e.compressedSize
            let fields = wide ? 20 : 12  // CRC-32 and the two sizes
            let d = try source.bytes(at: at, count: 4 + fields)
            var dr = LittleEndianReader(d)
            if dr.peekSignature == ZipSignature.descriptor {
                dr.skip(4)
                descriptorLength = 4
            }
            guard dr.remaining >= fields else {
                add(.zipDescriptor, "the data descriptor after the entry is missing or cut short")
                return
            }
            let dcrc = dr.u32()
            let dc = wide ? Int64(bitPattern: dr.u64()) : Int64(dr.u32())
            let du = wide ? Int64(bitPattern: dr.u64()) : Int64(dr.u32())
            descriptorLength += Int64(fields)
            if dcrc != e.crc32 || dc != e.compressedSize || du != e.uncompressedSize {
                add(
                    .zipDescriptor,
                    "the data descriptor (CRC \(String(dcrc, radix: 16)), \(dc) → \(du) bytes) disagrees with the central "
                        + "directory (CRC \(String(e.crc32, radix: 16)), \(e.compressedSize) → \(e.uncompressedSize))")
            }
            if descriptorLength > limit - at {
                add(.zipOverlap, "the entry's data descriptor runs into the central directory")
                return
            }
        }
        e.dataOffset = dataOffset
        e.descriptorLength = descriptorLength
    }
}
