#ifndef TRAILPACK_CZLIB_SHIM_H
#define TRAILPACK_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro; wrap it so Swift can call it. */
static inline int trailpack_inflate_init_raw(z_streamp strm) {
    return inflateInit2(strm, -15);
}
#endif
