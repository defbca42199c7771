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
#endif
