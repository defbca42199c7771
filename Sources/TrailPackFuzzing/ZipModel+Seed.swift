import TrailPackArchive

extension ZipModel {
    /// The model of a valid archive (a seed): its entries with their names, data, methods,
    /// flags, times, attributes and extra fields (ZIP64 fields become `zip64`). Nil when the
    /// archive is not one the reader accepts.
    public init?(seed bytes: [UInt8]) {
        let source = MemorySource(bytes)
        guard let directory = try? ZipDirectory.read(source), directory.isReadable,
            directory.entries.allSatisfy({ $0.dataOffset != nil })
        else { return nil }
        var entries: [Entry] = []
        // Walk the central records for what the directory does not keep (times, extras, comments).
        var c = LittleEndianReader(Array(bytes[Int(directory.centralDirectoryOffset)...]))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        for e in directory.entries {
            c.skip(12)
            let time = c.u32()
            c.skip(12)
            let nameLength = Int(c.u16()), extraLength = Int(c.u16()), commentLength = Int(c.u16())
            c.skip(12)
            c.skip(nameLength)
            let centralExtra = c.take(extraLength)
            let comment = c.take(commentLength)
            guard let dataOffset = e.dataOffset, let reader = try? EntryReader(source: source, entry: e) else {
                return nil
            }
            var data: [UInt8] = []
            while let n = try? reader.read(into: buffer), n > 0 {
                data += UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            }
            let start = Int(dataOffset)
            var local = LittleEndianReader(Array(bytes[Int(e.localHeaderOffset)..<start]))
            local.skip(26)
            let localNameLength = Int(local.u16()), localExtraLength = Int(local.u16())
            local.skip(localNameLength)
            let localExtra = local.take(localExtraLength)
            var entry = Entry(
                name: Array(e.nameBytes), data: data, stored: Array(bytes[start..<start + Int(e.compressedSize)]),
                method: e.method, flags: e.flags & ~0x0008)
            entry.versionMadeBy = e.versionMadeBy
            entry.dosTime = time
            entry.externalAttributes = e.externalAttributes
            entry.descriptor = e.hasDataDescriptor
            entry.descriptorSignature = e.descriptorLength == 16 || e.descriptorLength == 24
            entry.zip64 = Self.hasZip64(centralExtra) || Self.hasZip64(localExtra)
            entry.centralExtra = Self.withoutZip64(centralExtra)
            entry.localExtra = Self.withoutZip64(localExtra)
            entry.comment = comment
            entries.append(entry)
        }
        self.init(entries: entries)
    }

    private static func fields(_ extra: [UInt8]) -> [(id: UInt16, bytes: [UInt8])] {
        var r = LittleEndianReader(extra)
        var out: [(UInt16, [UInt8])] = []
        while r.remaining >= 4 {
            let id = r.u16(), length = Int(r.u16())
            out.append((id, le16(id) + le16(UInt16(length)) + r.take(length)))
        }
        return out
    }

    private static func hasZip64(_ extra: [UInt8]) -> Bool { fields(extra).contains { $0.id == 1 } }

    private static func withoutZip64(_ extra: [UInt8]) -> [UInt8] {
        fields(extra).filter { $0.id != 1 }.flatMap(\.bytes)
    }
}
