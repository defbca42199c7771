import TrailPackCore

/// Step 1 of reading an archive: the end-of-central-directory record and, when it needs them or
/// a locator is present, the ZIP64 locator and end record. They say where the central directory
/// is, how long it is and how many records it holds.
struct ZipEndRecords: Sendable, Equatable {
    /// The number of central-directory records, within the limits.
    var entryCount: Int
    /// Where the central directory starts, as the end records say.
    var centralDirectoryOffset: Int64
    /// The central directory's length in bytes, as the end records say.
    var centralDirectorySize: Int64
    /// Where the central directory must end: the ZIP64 end record, or the end record.
    var centralDirectoryEnd: Int64
    var isZip64: Bool

    /// Reads the end records of `source`. Returns nil when the archive cannot be read further
    /// (the reason is in `findings`); throws only when the source cannot be read.
    static func read(
        _ source: some ByteSource, limits: ZipLimits, findings: inout [Finding]
    ) throws(ArchiveError) -> ZipEndRecords? {
        let size = source.size
        guard size >= 22 else {
            findings.append(Finding(.zipEOCDMissing, "the file is \(size) bytes, too small to be a ZIP archive"))
            return nil
        }
        // The end record must end exactly at the end of the file (after its comment).
        let tailLength = Int(min(size, 22 + 65_535))
        let tailStart = size - Int64(tailLength)
        let tail = try source.bytes(at: tailStart, count: tailLength)
        guard tail.count == tailLength else {
            findings.append(Finding(.zipEOCDMissing, "the file could not be read to its end"))
            return nil
        }
        var candidates: [Int] = []
        var anySignature: Int?
        var i = tail.count - 22
        while i >= 0 {
            if tail[i] == 0x50, tail[i + 1] == 0x4B, tail[i + 2] == 0x05, tail[i + 3] == 0x06 {
                anySignature = anySignature ?? i
                let commentLength = Int(tail[i + 20]) | Int(tail[i + 21]) << 8
                if i + 22 + commentLength == tail.count { candidates.append(i) }
            }
            i -= 1
        }
        guard let eocdIndex = candidates.first else {
            if let s = anySignature {
                findings.append(
                    Finding(
                        .zipTrailing,
                        "there are bytes after the end-of-central-directory record at byte \(tailStart + Int64(s))"))
            } else {
                findings.append(
                    Finding(
                        .zipEOCDMissing,
                        "there is no end-of-central-directory record: the file is not a ZIP archive, or it was cut short"
                    ))
            }
            return nil
        }
        if candidates.count > 1 {
            findings.append(
                Finding(
                    .zipEOCDMultiple,
                    "\(candidates.count) end-of-central-directory records fit the file; readers could disagree on which is real"
                ))
            return nil
        }
        let eocdOffset = tailStart + Int64(eocdIndex)
        var r = LittleEndianReader(tail, at: eocdIndex + 4)
        let disk = r.u16(), cdDisk = r.u16()
        let entriesOnDisk = r.u16(), totalEntries16 = r.u16()
        let cdSize32 = r.u32(), cdOffset32 = r.u32()
        if disk != 0 || cdDisk != 0 || entriesOnDisk != totalEntries16 {
            findings.append(
                Finding(
                    .zipEOCDInvalid,
                    "the archive claims to span several disks (disk \(disk), central directory on disk \(cdDisk), "
                        + "\(entriesOnDisk) of \(totalEntries16) entries here)"))
            return nil
        }
        var totalEntries = UInt64(totalEntries16)
        var cdSize = UInt64(cdSize32)
        var cdOffset = UInt64(cdOffset32)
        var cdEnd = eocdOffset

        let needsZip64 = totalEntries16 == 0xFFFF || cdSize32 == 0xFFFF_FFFF || cdOffset32 == 0xFFFF_FFFF
        let locatorOffset = eocdOffset - 20
        let locator = locatorOffset >= 0 ? try source.bytes(at: locatorOffset, count: 20) : []
        let hasLocator = locator.count == 20 && LittleEndianReader(locator).peekSignature == ZipSignature.zip64Locator
        if needsZip64 || hasLocator {
            guard hasLocator else {
                findings.append(
                    Finding(
                        .zipZip64Invalid,
                        "the end record needs ZIP64 values but there is no ZIP64 locator before it"))
                return nil
            }
            var l = LittleEndianReader(locator, at: 4)
            let locatorDisk = l.u32()
            let recordOffset = l.u64()
            let disks = l.u32()
            // The record is at least 56 bytes and ends where the locator begins.
            guard locatorDisk == 0, disks == 1, recordOffset <= UInt64(locatorOffset),
                UInt64(locatorOffset) - recordOffset >= 56
            else {
                findings.append(
                    Finding(
                        .zipZip64Invalid,
                        "the ZIP64 locator is inconsistent (disk \(locatorDisk) of \(disks), record at \(recordOffset))"
                    ))
                return nil
            }
            let record = try source.bytes(at: Int64(recordOffset), count: 56)
            var z = LittleEndianReader(record)
            guard record.count == 56, z.u32() == ZipSignature.zip64End else {
                findings.append(
                    Finding(
                        .zipZip64Invalid,
                        "there is no ZIP64 end record where the locator points (byte \(recordOffset))"))
                return nil
            }
            let recordSize = z.u64()
            z.skip(4)  // versions
            let d = z.u32(), cd = z.u32()
            let onDisk = z.u64(), total = z.u64(), size64 = z.u64(), offset64 = z.u64()
            guard recordSize >= 44, recordSize == UInt64(locatorOffset) - recordOffset - 12 else {
                findings.append(
                    Finding(
                        .zipZip64Invalid,
                        "the ZIP64 end record's size (\(recordSize)) does not reach the locator"))
                return nil
            }
            guard d == 0, cd == 0, onDisk == total else {
                findings.append(Finding(.zipZip64Invalid, "the ZIP64 end record claims several disks"))
                return nil
            }
            let mismatch =
                (totalEntries16 != 0xFFFF && UInt64(totalEntries16) != total)
                || (cdSize32 != 0xFFFF_FFFF && UInt64(cdSize32) != size64)
                || (cdOffset32 != 0xFFFF_FFFF && UInt64(cdOffset32) != offset64)
            if mismatch {
                findings.append(
                    Finding(
                        .zipZip64Invalid,
                        "the ZIP64 end record (\(total) entries, directory of \(size64) bytes at \(offset64)) disagrees "
                            + "with the end record (\(totalEntries16), \(cdSize32), \(cdOffset32))"))
                return nil
            }
            totalEntries = total
            cdSize = size64
            cdOffset = offset64
            cdEnd = Int64(recordOffset)
        }

        guard totalEntries <= UInt64(max(0, limits.maxEntries)) else {
            findings.append(
                Finding(
                    .zipTooManyEntries,
                    "the archive has \(totalEntries) entries; the limit is \(limits.maxEntries)"))
            return nil
        }
        guard cdOffset <= UInt64(cdEnd), cdSize <= UInt64(cdEnd) - cdOffset else {
            findings.append(
                Finding(
                    .zipCentralDirectory,
                    "the central directory (\(cdSize) bytes at byte \(cdOffset)) runs past the end records"))
            return nil
        }
        return ZipEndRecords(
            entryCount: Int(totalEntries), centralDirectoryOffset: Int64(cdOffset),
            centralDirectorySize: Int64(cdSize), centralDirectoryEnd: cdEnd, isZip64: needsZip64 || hasLocator)
    }
}
