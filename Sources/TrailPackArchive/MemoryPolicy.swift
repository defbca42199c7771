internal import CLibArchive

/// Process-wide memory settings that keep peak memory flat whatever the package size.
public enum MemoryPolicy {
    /// Pins glibc's mmap threshold at 256 KiB, so the 1 MiB stream buffers are always mapped and
    /// unmapped whole. By default glibc raises the threshold after the first such buffer is freed;
    /// later ones then come from the heap, which fragments and is never returned: measured peak
    /// RSS 112 MiB on a 4.3 GB build (180 MiB on some 1 GB runs), 38 MiB with the threshold fixed.
    /// The corresponding C function is `mallopt(M_MMAP_THRESHOLD, …)`.
    public static func keepLargeBuffersOutOfTheHeap() {
        _ = trailpack_fix_mmap_threshold(256 << 10)
    }
}
