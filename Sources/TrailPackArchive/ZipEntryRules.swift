import TrailPackCore

/// Step 3 of reading an archive: what each central-directory record may say on its own —
/// encryption, method, a safe name, a regular file or folder, sizes within the limits and
/// consistent with the method.
enum ZipEntryRules {
    /// The highest "version needed to extract" a package's entry may ask for: 4.5, what ZIP64 needs
    /// (store and deflate need 2.0). Info-ZIP's unzip 6.0 skips an entry that asks for more than 4.6 and
    /// Python's zipfile refuses more than 6.3, while bsdtar reads it: a higher value makes readers disagree.
    static let maxVersionNeeded: UInt16 = 45

    /// The flag bits a package's entry may set: 1 and 2 (deflate's level, informational), 3 (data
    /// descriptor), 11 (UTF-8 name). Encryption (0, 6, 13) is `zip.encrypted`; the others (patched
    /// data, 5, which Python's zipfile refuses; bits reserved by APPNOTE) are `zip.flags`.
    static let allowedFlags: UInt16 = 0x0002 | 0x0004 | 0x0008 | 0x0800
    static let encryptionFlags: UInt16 = 0x0001 | 0x0040 | 0x2000

    /// The version-needed rule, for the central directory's record and the local header alike.
    static func versionNeededProblem(_ version: UInt16, in record: String) -> String? {
        guard version > maxVersionNeeded else { return nil }
        return
            "\(record) asks for version \(version / 10).\(version % 10) (0x\(String(version, radix: 16))) to extract the entry; "
            + "store and deflate need 2.0 and ZIP64 4.5, and readers that do not know a higher version skip the entry "
            + "(unzip: \"need PK compat.\") or refuse the archive (Python's zipfile): build the package again"
    }

    static func check(_ e: ZipEntry, limits: ZipLimits, findings: inout [Finding]) {
        var name: String { e.name }  // made only for a finding
        if let problem = versionNeededProblem(e.versionNeeded, in: "the central directory") {
            findings.append(Finding(.zipVersionNeeded, file: name, problem))
        }
        let unknown = e.flags & ~(allowedFlags | encryptionFlags)
        if unknown != 0 {
            findings.append(
                Finding(
                    .zipFlags, file: name,
                    "the entry sets flag bits 0x\(String(unknown, radix: 16)) (patched data or bits APPNOTE reserves); "
                        + "readers treat them differently (Python's zipfile refuses patched data): packages set only bits 1, 2, 3 and 11"
                ))
        }
        // MS-DOS attributes, which every host keeps in the low byte: 0x10 is a folder.
        if e.externalAttributes & 0x10 != 0 && !e.isDirectory {
            findings.append(
                Finding(
                    .zipEntryType, file: name,
                    "the entry's MS-DOS attributes mark it as a folder but its name does not end with '/'; bsdtar makes a folder of it"
                ))
        }
        if e.isEncrypted {
            findings.append(Finding(.zipEncrypted, file: name, "the entry is encrypted; packages must not be"))
        }
        if e.method != 0 && e.method != 8 && e.method != 99 {
            findings.append(
                Finding(
                    .zipMethod, file: name,
                    "compression method \(e.method) is not allowed; use store (0) or deflate (8)"))
        }
        let problems = ArchivePath.problems(name, allowDirectory: true)
        if !problems.isEmpty {
            findings.append(
                Finding(.zipNameUnsafe, file: name, "unsafe entry name: \(problems.joined(separator: "; "))"))
        }
        if let mode = e.unixMode {
            let type = mode & 0o170000
            if type == 0o120000 {
                findings.append(
                    Finding(
                        .zipEntryType, file: name,
                        "the entry is a symbolic link; packages hold regular files only"))
            } else if type != 0 && type != 0o100000 && type != 0o040000 {
                findings.append(
                    Finding(
                        .zipEntryType, file: name,
                        "the entry is a device, pipe or socket; packages hold regular files only"))
            } else if type == 0o040000 && !e.isDirectory {
                findings.append(
                    Finding(
                        .zipEntryType, file: name,
                        "the entry is marked as a folder but its name does not end with '/'"))
            }
        }
        guard e.sizesKnown else { return }  // reported when the record was read
        if e.isDirectory && (e.uncompressedSize != 0 || e.compressedSize > 2) {
            findings.append(
                Finding(.zipEntryType, file: name, "a folder entry holds \(e.uncompressedSize) bytes of data"))
        }
        if e.uncompressedSize < 0 || e.compressedSize < 0 || e.localHeaderOffset < 0 {
            findings.append(Finding(.zipTooLarge, file: name, "the entry declares a size or offset over 2^63 bytes"))
            return
        }
        if e.uncompressedSize > limits.maxEntrySize {
            findings.append(
                Finding(
                    .zipTooLarge, file: name,
                    "the entry uncompresses to \(e.uncompressedSize) bytes; the limit is \(limits.maxEntrySize)"))
        }
        if e.method == 0 && e.compressedSize != e.uncompressedSize && !e.isEncrypted {
            findings.append(
                Finding(
                    .zipSizeMismatch, file: name,
                    "a stored entry declares \(e.compressedSize) stored bytes but \(e.uncompressedSize) uncompressed"))
        }
        // Deflate cannot expand data by more than about 1032:1: a larger claim is a lie.
        let (product, overflow) = e.compressedSize.multipliedReportingOverflow(by: 1032)
        if e.method == 8 && !overflow && e.uncompressedSize > product &+ 1024 {
            findings.append(
                Finding(
                    .zipSizeMismatch, file: name,
                    "the entry claims \(e.uncompressedSize) bytes from \(e.compressedSize) compressed bytes, more than deflate can produce"
                ))
        }
    }
}
