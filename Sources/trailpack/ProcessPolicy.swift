import CMallocPolicy
import TrailPackFileIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the `trailpack` process sets for itself in `main`, and the libraries never do: the
/// allocator's mmap threshold and the signal handlers that remove half-written files.
///
/// Not set, on purpose: NIO's takeover of Swift's global executor (`NIOSingletons.
/// unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`). Measured on a site's
/// list under wrk (2 cores, 32 connections): 20,000 requests/s with it against 27,400 without
/// (p99 6.0 ms against 3.0), as the two event loops then also run every handler. It also cannot
/// work in the release program, whose statically linked runtime keeps its hook symbol local.
enum ProcessPolicy {
    /// Pins glibc's mmap threshold at 256 KiB, so the 1 MiB stream buffers are always mapped and
    /// unmapped whole. By default glibc raises the threshold after the first such buffer is freed;
    /// later ones then come from the heap, which fragments and is never returned: measured peak
    /// RSS 112 MiB on a 4.3 GB build (180 MiB on some 1 GB runs), 38 MiB with the threshold fixed.
    /// The corresponding C function is `mallopt(M_MMAP_THRESHOLD, …)`.
    ///
    /// Fixing it also fixes the trim threshold, at glibc's 128 KiB: the heap's free top was given
    /// back by `brk` whenever it passed that, and zlib's deflate state (about 270 KiB, which
    /// libarchive allocates and frees for every compressed entry) was faulted in and zeroed by the
    /// kernel again for every small file: a third of a 20,000-file build's time. The heap now keeps
    /// up to 4 MiB of free top for the next entry.
    static func keepLargeBuffersOutOfTheHeap() {
        _ = trailpack_fix_mmap_threshold(256 << 10)
        _ = trailpack_fix_trim_threshold(4 << 20)
    }

    /// Gives the heap's free memory back to the system (`malloc_trim(0)`): between a build's plan
    /// and its write. The plan's records, digests and model pass through the heap and are let go
    /// as the plan ends; what the write allocates next (libarchive's central directory, about 90
    /// bytes an entry) comes in other sizes, so those pages stayed resident under it. At 100,000
    /// files the build's peak RSS went 58.6–58.9 → 54.7–54.8 MiB (its write starts 3.4 MiB lower).
    static func releaseFreeMemory() {
        _ = trailpack_release_free_memory()
    }

    /// On SIGINT, SIGTERM or SIGHUP, removes the temporary files the libraries registered with
    /// `InterruptCleanup` and exits with 128 + the signal's number.
    static func removeTemporaryFilesOnInterrupt() {
        InterruptCleanup.prepare()
        // A parent may have started us with these signals blocked (test runners and some
        // supervisors do): unblock them, or an interrupt would be held until the build ends.
        var set = sigset_t()
        sigemptyset(&set)
        for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, sig) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { sig in
                InterruptCleanup.removeRegisteredFiles()
                _exit(128 + sig)
            }
        }
    }
}
