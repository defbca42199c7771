import TrailPackCore

/// Limits that bound what a package may make a reader do (documented in `docs/FORMAT.md`).
public struct ZipLimits: Sendable, Equatable {
    /// The most entries an archive may have.
    public var maxEntries: Int
    /// The largest uncompressed entry.
    public var maxEntrySize: Int64
    /// The largest sum of uncompressed entry sizes.
    public var maxTotalSize: Int64
    /// The largest central directory, in bytes (it is read into memory).
    public var maxCentralDirectoryBytes: Int64

    public init(maxEntries: Int = 100_000, maxEntrySize: Int64 = 64 << 30, maxTotalSize: Int64 = 256 << 30, maxCentralDirectoryBytes: Int64 = 64 << 20) {
        self.maxEntries = maxEntries
        self.maxEntrySize = maxEntrySize
        self.maxTotalSize = maxTotalSize
        self.maxCentralDirectoryBytes = maxCentralDirectoryBytes
    }

    public static let `default` = ZipLimits()
}

/// One entry of the central directory, cross-checked against its local header.
public struct ZipEntry: Sendable, Equatable {
    /// The position in the central directory, from 0.
    public var index: Int
    /// The name, decoded from UTF-8 (or ASCII); invalid bytes are replaced for messages.
    public var name: String
    public var nameBytes: [UInt8]
    public var flags: UInt16
    /// 0 = stored, 8 = deflated.
    public var method: UInt16
    public var crc32: UInt32
    public var compressedSize: Int64
    public var uncompressedSize: Int64
    public var localHeaderOffset: Int64
    /// Where the entry's (compressed) data starts; known when the local header could be read.
    public var dataOffset: Int64?
    /// The length of the data descriptor after the data (0 when there is none).
    public var descriptorLength: Int64
    public var versionMadeBy: UInt16
    public var externalAttributes: UInt32

    public var isDirectory: Bool { nameBytes.last == UInt8(ascii: "/") }
    public var isEncrypted: Bool { flags & 0x0001 != 0 || flags & 0x0040 != 0 || flags & 0x2000 != 0 || method == 99 }
    public var hasDataDescriptor: Bool { flags & 0x0008 != 0 }
    /// The end of everything the entry occupies: local header, data, descriptor.
    public var endOffset: Int64? { dataOffset.map { $0 + compressedSize + descriptorLength } }
    /// The Unix file type bits, when the entry was made on Unix.
    public var unixMode: UInt32? { versionMadeBy >> 8 == 3 ? externalAttributes >> 16 : nil }
}

/// The layout of a ZIP archive as read strictly from its end records and central directory,
/// with every local header cross-checked — and everything found wrong with it.
///
/// libarchive and others prefer the local headers when they disagree with the central
/// directory; unzip prefers the central directory. An archive on which they could disagree is
/// rejected here, so that whatever trailpack accepts, every reader reads the same way.
public struct ZipDirectory: Sendable {
    public var entries: [ZipEntry]
    /// Where the central directory starts (the end of the entries' data).
    public var centralDirectoryOffset: Int64
    public var findings: [Finding]

    /// Whether the layout is sound enough to read entry data.
    public var isReadable: Bool { !findings.contains { Self.fatalCodes.contains($0.code) } }

    static let fatalCodes: Set<FindingCode> = [.zipEOCDMissing, .zipEOCDMultiple, .zipEOCDInvalid, .zipZip64Invalid, .zipCentralDirectory, .zipTooManyEntries]

    /// Reads and checks the structure of `source`. Throws only when the source cannot be read.
    public static func read(_ source: some ByteSource, limits: ZipLimits = .default) throws(ArchiveError) -> ZipDirectory {
        var parser = DirectoryParser(source: source, limits: limits)
        return try parser.parse()
    }
}

// MARK: - little-endian reading

struct LE {
    let bytes: [UInt8]
    var offset: Int
    init(_ bytes: [UInt8], at offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }
    var remaining: Int { bytes.count - offset }
    mutating func u16() -> UInt16 {
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }
    mutating func u32() -> UInt32 {
        defer { offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
    mutating func u64() -> UInt64 {
        let lo = UInt64(u32())
        return lo | UInt64(u32()) << 32
    }
    mutating func take(_ n: Int) -> [UInt8] {
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }
}

enum Signature {
    static let local: UInt32 = 0x0403_4B50
    static let central: UInt32 = 0x0201_4B50
    static let end: UInt32 = 0x0605_4B50
    static let zip64End: UInt32 = 0x0606_4B50
    static let zip64Locator: UInt32 = 0x0706_4B50
    static let descriptor: UInt32 = 0x0807_4B50
}

/// Extra fields of one header, parsed.
struct ExtraFields {
    var fields: [(id: UInt16, data: [UInt8])] = []
    var malformed: String?

    init(_ bytes: [UInt8]) {
        var r = LE(bytes)
        var seen = Set<UInt16>()
        while r.remaining > 0 {
            guard r.remaining >= 4 else { malformed = "an extra field is cut short"; return }
            let id = r.u16()
            let length = Int(r.u16())
            guard length <= r.remaining else { malformed = "extra field 0x\(String(id, radix: 16)) runs past the end of the header"; return }
            if !seen.insert(id).inserted { malformed = "extra field 0x\(String(id, radix: 16)) appears twice" }
            fields.append((id, r.take(length)))
        }
    }

    func field(_ id: UInt16) -> [UInt8]? { fields.first(where: { $0.id == id })?.data }
}

// MARK: - the parser

private struct DirectoryParser<Source: ByteSource> {
    let source: Source
    let limits: ZipLimits
    var findings: [Finding] = []

    init(source: Source, limits: ZipLimits) {
        self.source = source
        self.limits = limits
    }

    mutating func add(_ code: FindingCode, _ file: String? = nil, _ message: String) {
        findings.append(Finding(code, file: file, message))
    }

    mutating func parse() throws(ArchiveError) -> ZipDirectory {
        let empty = ZipDirectory(entries: [], centralDirectoryOffset: 0, findings: [])
        let size = source.size
        guard size >= 22 else {
            add(.zipEOCDMissing, nil, "the file is \(size) bytes, too small to be a ZIP archive")
            return finish(empty)
        }
        // 1. Find the end-of-central-directory record: it must end exactly at the end of the file.
        let tailLength = Int(min(size, 22 + 65_535))
        let tailStart = size - Int64(tailLength)
        let tail = try source.bytes(at: tailStart, count: tailLength)
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
                let at = tailStart + Int64(s)
                add(.zipTrailing, nil, "there are bytes after the end-of-central-directory record at byte \(at)")
            } else {
                add(.zipEOCDMissing, nil, "there is no end-of-central-directory record: the file is not a ZIP archive, or it was cut short")
            }
            return finish(empty)
        }
        if candidates.count > 1 {
            add(.zipEOCDMultiple, nil, "\(candidates.count) end-of-central-directory records fit the file; readers could disagree on which is real")
            return finish(empty)
        }
        let eocdOffset = tailStart + Int64(eocdIndex)
        var r = LE(tail, at: eocdIndex + 4)
        let disk = r.u16(), cdDisk = r.u16()
        let entriesOnDisk = r.u16(), totalEntries16 = r.u16()
        let cdSize32 = r.u32(), cdOffset32 = r.u32()
        if disk != 0 || cdDisk != 0 || entriesOnDisk != totalEntries16 {
            add(.zipEOCDInvalid, nil, "the archive claims to span several disks (disk \(disk), central directory on disk \(cdDisk), \(entriesOnDisk) of \(totalEntries16) entries here)")
            return finish(empty)
        }
        var totalEntries = UInt64(totalEntries16)
        var cdSize = UInt64(cdSize32)
        var cdOffset = UInt64(cdOffset32)
        var endOfCentralDirectory = eocdOffset  // where the central directory must end

        // 2. ZIP64 records, when the end record points to them or when a locator is present.
        let needsZip64 = totalEntries16 == 0xFFFF || cdSize32 == 0xFFFF_FFFF || cdOffset32 == 0xFFFF_FFFF
        let locatorOffset = eocdOffset - 20
        let locator = locatorOffset >= 0 ? try source.bytes(at: locatorOffset, count: 20) : []
        let hasLocator = locator.count == 20 && LE(locator).peekSignature == Signature.zip64Locator
        if needsZip64 || hasLocator {
            guard hasLocator else {
                add(.zipZip64Invalid, nil, "the end record needs ZIP64 values but there is no ZIP64 locator before it")
                return finish(empty)
            }
            var l = LE(locator, at: 4)
            let locDisk = l.u32()
            let recordOffset = l.u64()
            let disks = l.u32()
            guard locDisk == 0, disks == 1, recordOffset < UInt64(locatorOffset) else {
                add(.zipZip64Invalid, nil, "the ZIP64 locator is inconsistent (disk \(locDisk) of \(disks), record at \(recordOffset))")
                return finish(empty)
            }
            let record = try source.bytes(at: Int64(recordOffset), count: 56)
            var z = LE(record)
            guard record.count == 56, z.u32() == Signature.zip64End else {
                add(.zipZip64Invalid, nil, "there is no ZIP64 end record where the locator points (byte \(recordOffset))")
                return finish(empty)
            }
            let recordSize = z.u64()
            _ = z.u16(); _ = z.u16()
            let d = z.u32(), cd = z.u32()
            let onDisk = z.u64(), total = z.u64(), size64 = z.u64(), offset64 = z.u64()
            guard recordSize >= 44, recordOffset + 12 + recordSize == UInt64(locatorOffset) else {
                add(.zipZip64Invalid, nil, "the ZIP64 end record's size (\(recordSize)) does not reach the locator")
                return finish(empty)
            }
            guard d == 0, cd == 0, onDisk == total else {
                add(.zipZip64Invalid, nil, "the ZIP64 end record claims several disks")
                return finish(empty)
            }
            let mismatch = (totalEntries16 != 0xFFFF && UInt64(totalEntries16) != total)
                || (cdSize32 != 0xFFFF_FFFF && UInt64(cdSize32) != size64)
                || (cdOffset32 != 0xFFFF_FFFF && UInt64(cdOffset32) != offset64)
            if mismatch {
                add(.zipZip64Invalid, nil, "the ZIP64 end record (\(total) entries, directory of \(size64) bytes at \(offset64)) disagrees with the end record (\(totalEntries16), \(cdSize32), \(cdOffset32))")
                return finish(empty)
            }
            totalEntries = total
            cdSize = size64
            cdOffset = offset64
            endOfCentralDirectory = Int64(recordOffset)
        }

        // 3. The central directory must end exactly where the end records begin.
        guard totalEntries <= UInt64(limits.maxEntries) else {
            add(.zipTooManyEntries, nil, "the archive has \(totalEntries) entries; the limit is \(limits.maxEntries)")
            return finish(empty)
        }
        guard cdOffset <= UInt64(endOfCentralDirectory), cdSize <= UInt64(endOfCentralDirectory) - cdOffset else {
            add(.zipCentralDirectory, nil, "the central directory (\(cdSize) bytes at byte \(cdOffset)) runs past the end records")
            return finish(empty)
        }
        if cdOffset + cdSize < UInt64(endOfCentralDirectory) {
            add(.zipGap, nil, "\(UInt64(endOfCentralDirectory) - cdOffset - cdSize) bytes between the central directory and the end record belong to nothing")
        }
        guard Int64(cdSize) <= limits.maxCentralDirectoryBytes else {
            add(.zipCentralDirectory, nil, "the central directory is \(cdSize) bytes; the limit is \(limits.maxCentralDirectoryBytes)")
            return finish(empty)
        }
        let cd = try source.bytes(at: Int64(cdOffset), count: Int(cdSize))
        guard cd.count == Int(cdSize) else {
            add(.zipCentralDirectory, nil, "the central directory is cut short")
            return finish(empty)
        }

        // 4. The entries.
        var entries: [ZipEntry] = []
        var c = LE(cd)
        for index in 0..<Int(totalEntries) {
            guard c.remaining >= 46, c.peekSignature == Signature.central else {
                add(.zipCentralDirectory, nil, "the central directory holds \(index) entries, but the end record says \(totalEntries)")
                return finish(ZipDirectory(entries: entries, centralDirectoryOffset: Int64(cdOffset), findings: []))
            }
            _ = c.u32()
            let madeBy = c.u16()
            _ = c.u16()  // version needed
            let flags = c.u16(), method = c.u16()
            _ = c.u32()  // DOS time and date
            let crc = c.u32(), compressed32 = c.u32(), uncompressed32 = c.u32()
            let nameLength = Int(c.u16()), extraLength = Int(c.u16()), commentLength = Int(c.u16())
            let diskStart = c.u16()
            _ = c.u16()  // internal attributes
            let external = c.u32(), offset32 = c.u32()
            guard c.remaining >= nameLength + extraLength + commentLength else {
                add(.zipCentralDirectory, nil, "central-directory entry \(index) runs past the end of the directory")
                return finish(ZipDirectory(entries: entries, centralDirectoryOffset: Int64(cdOffset), findings: []))
            }
            let nameBytes = c.take(nameLength)
            let extra = ExtraFields(c.take(extraLength))
            _ = c.take(commentLength)
            let name = decodeName(nameBytes, flags: flags, index: index)

            var entry = ZipEntry(
                index: index, name: name, nameBytes: nameBytes, flags: flags, method: method, crc32: crc,
                compressedSize: Int64(compressed32), uncompressedSize: Int64(uncompressed32), localHeaderOffset: Int64(offset32),
                dataOffset: nil, descriptorLength: 0, versionMadeBy: madeBy, externalAttributes: external)
            if let problem = extra.malformed { add(.zipExtraField, name, problem) }
            // ZIP64 extended information: only the fields whose 32-bit value is all ones, in order.
            let needs = (uncompressed32 == 0xFFFF_FFFF, compressed32 == 0xFFFF_FFFF, offset32 == 0xFFFF_FFFF, diskStart == 0xFFFF)
            let needed = [needs.0, needs.1, needs.2].filter { $0 }.count * 8 + (needs.3 ? 4 : 0)
            if needed > 0 {
                guard let z = extra.field(0x0001), z.count >= needed else {
                    add(.zipZip64Invalid, name, "the entry needs ZIP64 sizes or offset but has no (or a short) ZIP64 extra field")
                    continue
                }
                var zr = LE(z)
                if needs.0 { entry.uncompressedSize = Int64(bitPattern: zr.u64()) }
                if needs.1 { entry.compressedSize = Int64(bitPattern: zr.u64()) }
                if needs.2 { entry.localHeaderOffset = Int64(bitPattern: zr.u64()) }
            }
            if diskStart != 0 && diskStart != 0xFFFF {
                add(.zipEOCDInvalid, name, "the entry claims to start on disk \(diskStart)")
            }
            if let u = extra.field(0x7075), !unicodePathMatches(u, nameBytes: nameBytes) {
                add(.zipExtraField, name, "the entry carries a second, different name in a Unicode-path extra field; readers would disagree on its name")
            }
            checkEntry(&entry)
            entries.append(entry)
        }
        if c.remaining > 0 {
            add(.zipCentralDirectory, nil, "\(c.remaining) bytes after the last central-directory entry belong to nothing")
        }

        // 5. Names: duplicates exact, and after case folding and normalization.
        var exact: [[UInt8]: Int] = [:]
        var folded: [String: Int] = [:]
        var files: Set<String> = []
        for e in entries {
            if let first = exact[e.nameBytes] {
                add(.zipNameDuplicate, e.name, "two entries are named '\(e.name)' (entries \(first) and \(e.index)); readers would disagree on which one counts")
                continue
            }
            exact[e.nameBytes] = e.index
            let key = ArchivePath.foldingKey(e.isDirectory ? String(e.name.dropLast()) : e.name)
            if let first = folded[key] {
                add(.zipNameFoldedDuplicate, e.name, "'\(e.name)' and '\(entries[first].name)' are the same file on case-insensitive phones")
            } else { folded[key] = e.index }
            if !e.isDirectory { files.insert(key) }
        }
        for e in entries {
            // A file used as a folder: 'a' and 'a/b' cannot both be extracted.
            for folder in ArchivePath.parentFolders(e.name) {
                let parent = String(decoding: folder.dropLast(), as: UTF8.self)
                if files.contains(ArchivePath.foldingKey(parent)) {
                    add(.zipNameDuplicate, e.name, "'\(parent)' is both a file and a folder")
                    break
                }
            }
        }

        // 6. Local headers, and the layout of the entries in the file.
        var total: Int64 = 0
        for k in entries.indices {
            try checkLocalHeader(&entries[k], limit: Int64(cdOffset))
            total = total &+ max(0, entries[k].uncompressedSize)
        }
        if total > limits.maxTotalSize || total < 0 {
            add(.zipTooLarge, nil, "the entries uncompress to \(total) bytes in all; the limit is \(limits.maxTotalSize)")
        }
        checkLayout(entries, centralDirectoryOffset: Int64(cdOffset))
        return finish(ZipDirectory(entries: entries, centralDirectoryOffset: Int64(cdOffset), findings: []))
    }

    func finish(_ directory: ZipDirectory) -> ZipDirectory {
        var d = directory
        d.findings = findings
        return d
    }

    mutating func decodeName(_ bytes: [UInt8], flags: UInt16, index: Int) -> String {
        if let s = String(validating: bytes, as: UTF8.self) {
            if flags & 0x0800 == 0, bytes.contains(where: { $0 >= 0x80 }) {
                add(.zipNameEncoding, s, "the name is not ASCII but the UTF-8 flag is not set: readers would decode it as code page 437 and get another name")
            }
            return s
        }
        let shown = String(decoding: bytes, as: UTF8.self)
        add(.zipNameEncoding, shown, "entry \(index)'s name is not valid UTF-8")
        return shown
    }

    func unicodePathMatches(_ field: [UInt8], nameBytes: [UInt8]) -> Bool {
        // version (1), CRC-32 of the header name (4), the UTF-8 name
        guard field.count >= 5, field[0] == 1 else { return false }
        return Array(field[5...]) == nameBytes
    }

    mutating func checkEntry(_ e: inout ZipEntry) {
        let name = e.name
        if e.isEncrypted { add(.zipEncrypted, name, "the entry is encrypted; packages must not be") }
        if e.method != 0 && e.method != 8 && e.method != 99 {
            add(.zipMethod, name, "compression method \(e.method) is not allowed; use store (0) or deflate (8)")
        }
        let problems = ArchivePath.problems(name, allowDirectory: true)
        if !problems.isEmpty { add(.zipNameUnsafe, name, "unsafe entry name: \(problems.joined(separator: "; "))") }
        if let mode = e.unixMode {
            let type = mode & 0o170000
            if type == 0o120000 {
                add(.zipEntryType, name, "the entry is a symbolic link; packages hold regular files only")
            } else if type != 0 && type != 0o100000 && type != 0o040000 {
                add(.zipEntryType, name, "the entry is a device, pipe or socket; packages hold regular files only")
            } else if type == 0o040000 && !e.isDirectory {
                add(.zipEntryType, name, "the entry is marked as a folder but its name does not end with '/'")
            }
        }
        if e.isDirectory && (e.uncompressedSize != 0 || e.compressedSize > 2) {
            add(.zipEntryType, name, "a folder entry holds \(e.uncompressedSize) bytes of data")
        }
        if e.uncompressedSize < 0 || e.compressedSize < 0 {
            add(.zipTooLarge, name, "the entry declares a size over 2^63 bytes")
        } else if e.uncompressedSize > limits.maxEntrySize {
            add(.zipTooLarge, name, "the entry uncompresses to \(e.uncompressedSize) bytes; the limit is \(limits.maxEntrySize)")
        }
        if e.method == 0 && e.compressedSize != e.uncompressedSize && !e.isEncrypted {
            add(.zipSizeMismatch, name, "a stored entry declares \(e.compressedSize) stored bytes but \(e.uncompressedSize) uncompressed")
        }
        // Deflate cannot expand data by more than about 1032:1: a larger claim is a lie.
        if e.method == 8 && e.uncompressedSize > e.compressedSize * 1032 + 1024 {
            add(.zipSizeMismatch, name, "the entry claims \(e.uncompressedSize) bytes from \(e.compressedSize) compressed bytes, more than deflate can produce")
        }
    }

    mutating func checkLocalHeader(_ e: inout ZipEntry, limit: Int64) throws(ArchiveError) {
        let name = e.name
        guard e.localHeaderOffset >= 0, e.localHeaderOffset + 30 <= limit else {
            add(.zipLocalHeader, name, "the entry's local header offset \(e.localHeaderOffset) is outside the entry area")
            return
        }
        let fixed = try source.bytes(at: e.localHeaderOffset, count: 30)
        var r = LE(fixed)
        guard fixed.count == 30, r.u32() == Signature.local else {
            add(.zipLocalHeader, name, "there is no local header at byte \(e.localHeaderOffset)")
            return
        }
        _ = r.u16()
        let flags = r.u16(), method = r.u16()
        _ = r.u32()
        let crc = r.u32(), compressed32 = r.u32(), uncompressed32 = r.u32()
        let nameLength = Int(r.u16()), extraLength = Int(r.u16())
        let variable = try source.bytes(at: e.localHeaderOffset + 30, count: nameLength + extraLength)
        guard variable.count == nameLength + extraLength, e.localHeaderOffset + 30 + Int64(variable.count) <= limit else {
            add(.zipLocalHeader, name, "the local header runs into the central directory")
            return
        }
        let localName = Array(variable.prefix(nameLength))
        let extra = ExtraFields(Array(variable.suffix(extraLength)))
        if localName != e.nameBytes {
            add(.zipLocalMismatch, name, "the local header names it '\(String(decoding: localName, as: UTF8.self))'; readers would disagree on its name")
        }
        if flags != e.flags { add(.zipLocalMismatch, name, "the local header's flags (0x\(String(flags, radix: 16))) differ from the central directory's (0x\(String(e.flags, radix: 16)))") }
        if method != e.method { add(.zipLocalMismatch, name, "the local header's method (\(method)) differs from the central directory's (\(e.method))") }
        if let problem = extra.malformed { add(.zipExtraField, name, "local header: \(problem)") }
        if let u = extra.field(0x7075), !unicodePathMatches(u, nameBytes: e.nameBytes) {
            add(.zipExtraField, name, "the local header carries a different Unicode-path name")
        }
        var localCompressed = Int64(compressed32), localUncompressed = Int64(uncompressed32)
        let zip64 = extra.field(0x0001)
        if compressed32 == 0xFFFF_FFFF || uncompressed32 == 0xFFFF_FFFF {
            guard let z = zip64, z.count >= 16 else {
                add(.zipZip64Invalid, name, "the local header needs ZIP64 sizes but has no ZIP64 extra field with both")
                return
            }
            var zr = LE(z)
            localUncompressed = Int64(bitPattern: zr.u64())
            localCompressed = Int64(bitPattern: zr.u64())
        }
        let descriptor = flags & 0x0008 != 0
        if !descriptor || crc != 0 || localCompressed != 0 || localUncompressed != 0 {
            // Without a data descriptor the local values must match; with one they may be zero.
            if crc != e.crc32 && !(descriptor && crc == 0) {
                add(.zipLocalMismatch, name, "the local header's CRC-32 differs from the central directory's")
            }
            if localCompressed != e.compressedSize && !(descriptor && localCompressed == 0) {
                add(.zipLocalMismatch, name, "the local header's compressed size (\(localCompressed)) differs from the central directory's (\(e.compressedSize))")
            }
            if localUncompressed != e.uncompressedSize && !(descriptor && localUncompressed == 0) {
                add(.zipLocalMismatch, name, "the local header's size (\(localUncompressed)) differs from the central directory's (\(e.uncompressedSize))")
            }
        }
        let dataOffset = e.localHeaderOffset + 30 + Int64(nameLength + extraLength)
        guard e.compressedSize >= 0, dataOffset <= limit, e.compressedSize <= limit - dataOffset else {
            add(.zipOverlap, name, "the entry's data (\(e.compressedSize) bytes at byte \(dataOffset)) runs into the central directory")
            return
        }
        e.dataOffset = dataOffset
        if descriptor {
            let wide = zip64 != nil || e.compressedSize >= 0xFFFF_FFFF || e.uncompressedSize >= 0xFFFF_FFFF
            let at = dataOffset + e.compressedSize
            let d = try source.bytes(at: at, count: wide ? 24 : 16)
            var dr = LE(d)
            var length: Int64 = 0
            if d.count >= 4, LE(d).peekSignature == Signature.descriptor { _ = dr.u32(); length = 4 }
            let need = wide ? 20 : 12
            guard dr.remaining >= need - (length == 4 ? 4 : 0) + (length == 4 ? 0 : 0), d.count >= Int(length) + (wide ? 20 : 12) else {
                add(.zipDescriptor, name, "the data descriptor after the entry is missing or cut short")
                return
            }
            let dcrc = dr.u32()
            let dc = wide ? Int64(bitPattern: dr.u64()) : Int64(dr.u32())
            let du = wide ? Int64(bitPattern: dr.u64()) : Int64(dr.u32())
            length += wide ? 20 : 12
            if dcrc != e.crc32 || dc != e.compressedSize || du != e.uncompressedSize {
                add(.zipDescriptor, name, "the data descriptor (CRC \(String(dcrc, radix: 16)), \(dc) → \(du) bytes) disagrees with the central directory (CRC \(String(e.crc32, radix: 16)), \(e.compressedSize) → \(e.uncompressedSize))")
            }
            if at + length > limit {
                add(.zipOverlap, name, "the entry's data descriptor runs into the central directory")
            }
            e.descriptorLength = length
        }
    }

    mutating func checkLayout(_ entries: [ZipEntry], centralDirectoryOffset: Int64) {
        let placed = entries.filter { $0.dataOffset != nil }.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
        guard placed.count == entries.count else { return }  // a missing local header is already reported
        var position: Int64 = 0
        var previous: ZipEntry?
        for e in placed {
            if e.localHeaderOffset > position {
                if let p = previous {
                    add(.zipGap, e.name, "\(e.localHeaderOffset - position) bytes between '\(p.name)' and this entry belong to nothing")
                } else {
                    add(.zipPrefix, nil, "\(e.localHeaderOffset) bytes before the first entry belong to nothing (a self-extractor or a disguised file?)")
                }
            } else if e.localHeaderOffset < position, let p = previous {
                add(.zipOverlap, e.name, "the entry overlaps '\(p.name)'; entries must not share bytes")
            }
            position = max(position, e.endOffset!)
            previous = e
        }
        if entries.isEmpty && centralDirectoryOffset > 0 {
            add(.zipPrefix, nil, "\(centralDirectoryOffset) bytes before the central directory belong to no entry")
        } else if position < centralDirectoryOffset {
            add(.zipGap, nil, "\(centralDirectoryOffset - position) bytes between the last entry and the central directory belong to nothing")
        }
    }
}

extension LE {
    var peekSignature: UInt32 {
        guard remaining >= 4 else { return 0 }
        var copy = self
        return copy.u32()
    }
}
