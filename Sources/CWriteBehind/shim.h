#ifndef TRAILPACK_CWRITEBEHIND_SHIM_H
#define TRAILPACK_CWRITEBEHIND_SHIM_H
/* sync_file_range is declared by <fcntl.h> only under _GNU_SOURCE, which Swift's Glibc module is
   not built with, so it is called here by its system call number (x86-64 and arm64 take the
   arguments in this order; where the call is missing or named otherwise, it fails with ENOSYS and
   the caller's final fsync does all the flushing). The flags are the kernel's, fixed in its ABI. */
#include <errno.h>
#include <stdint.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

enum {
    TRAILPACK_SYNC_FILE_RANGE_WAIT_BEFORE = 1,
    TRAILPACK_SYNC_FILE_RANGE_WRITE = 2,
    TRAILPACK_SYNC_FILE_RANGE_WAIT_AFTER = 4,
};

static inline int trailpack_sync_file_range(int fd, int64_t offset, int64_t count, unsigned int flags) {
#if defined(__linux__) && defined(SYS_sync_file_range) && (defined(__x86_64__) || defined(__aarch64__))
    return (int)syscall(SYS_sync_file_range, fd, offset, count, flags);
#else
    (void)fd; (void)offset; (void)count; (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}
#endif
