#ifndef TRAILPACK_CWRITEBEHIND_SHIM_H
#define TRAILPACK_CWRITEBEHIND_SHIM_H
/* sync_file_range is declared by <fcntl.h> only under _GNU_SOURCE, which Swift's Glibc module is
   not built with; glibc and musl export it whatever the feature macros, so it is declared here
   (its offsets are off64_t, a 64-bit signed integer everywhere). The C library's wrapper passes
   the arguments in the order each architecture's system call takes (sync_file_range2 on 32-bit
   Arm and PowerPC). The flags are the kernel's, fixed in its ABI. */
#include <errno.h>
#include <stdint.h>

enum {
    TRAILPACK_SYNC_FILE_RANGE_WAIT_BEFORE = 1,
    TRAILPACK_SYNC_FILE_RANGE_WRITE = 2,
    TRAILPACK_SYNC_FILE_RANGE_WAIT_AFTER = 4,
};

#if defined(__linux__)
#include <sys/vfs.h>
extern int sync_file_range(int fd, int64_t offset, int64_t nbytes, unsigned int flags);
#endif

/* 0, or -1 with errno set (ENOSYS where there is no such call). */
static inline int trailpack_sync_file_range(int fd, int64_t offset, int64_t count, unsigned int flags) {
#if defined(__linux__)
    return sync_file_range(fd, offset, count, flags);
#else
    (void)fd; (void)offset; (void)count; (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}

/* (For the tests.) The type of the file system that holds the open file (statfs's f_type: 0xEF53 for ext2/3/4,
   0x01021994 for tmpfs), or -1. */
static inline long trailpack_file_system_type(int fd) {
#if defined(__linux__)
    struct statfs s;
    if (fstatfs(fd, &s) != 0) return -1;
    return (long)s.f_type;
#else
    (void)fd;
    return -1;
#endif
}
#endif
