#ifndef TRAILPACK_CLIBARCHIVE_SHIM_H
#define TRAILPACK_CLIBARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>

/* archive_set_error is variadic and does not import into Swift. */
static inline void trailpack_archive_set_error(struct archive *a, int error_number, const char *message) {
    archive_set_error(a, error_number, "%s", message);
}
#endif
