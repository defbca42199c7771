import TrailPackCore

/// Step 3 of reading an archive: what each central-directory record may say on its own —
/// encryption, method, a safe name, a regular file or folder, sizes within the limits and
/// consistent with the method.
enum ZipEntryRules {
    static func check(_ e: ZipEntry, limits: ZipLimits, findings: inout [Finding]) {
        let name = e.name
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
