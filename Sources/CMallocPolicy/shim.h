#ifndef TRAILPACK_CMALLOCPOLICY_SHIM_H
#define TRAILPACK_CMALLOCPOLICY_SHIM_H
/* mallopt's constants are macros that do not import into Swift. Only the trailpack command's
   main calls this (see Sources/trailpack/ProcessPolicy.swift): a library never sets the
   process's allocator. Does nothing where the C library is not glibc. */
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif
static inline int trailpack_fix_mmap_threshold(int bytes) {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
    return mallopt(M_MMAP_THRESHOLD, bytes);
#else
    (void)bytes;
    return 0;
#endif
}
/* How much free memory at the top of the heap glibc keeps instead of handing it back by brk.
   Fixing the mmap threshold also fixes this one at its 128 KiB default, and libarchive allocates
   and frees zlib's deflate state (about 270 KiB) for every entry it compresses. */
static inline int trailpack_fix_trim_threshold(int bytes) {
#if defined(__GLIBC__) && defined(M_TRIM_THRESHOLD)
    return mallopt(M_TRIM_THRESHOLD, bytes);
#else
    (void)bytes;
    return 0;
#endif
}
/* Hands the heap's free memory back to the system: the free top by brk, and whole free pages
   inside the heap by madvise (glibc 2.8 and later). Returns 1 when some was given back. */
static inline int trailpack_release_free_memory(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
#endif
