#ifndef TRAILPACK_CZLIB_SHIM_H
#define TRAILPACK_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro; wrap it so Swift can call it. */
static inline int trailpack_inflate_init_raw(z_streamp strm) {
    return inflateInit2(strm, -15);
}
/* deflateInit2 is a macro too; raw deflate (no zlib header), as ZIP stores it. */
static inline int trailpack_deflate_init_raw(z_streamp strm, int level) {
    return deflateInit2(strm, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}
/* gzip streams (PMTiles directories and metadata): windowBits 15 + 16 selects the gzip wrapper. */
static inline int trailpack_inflate_init_gzip(z_streamp strm) {
    return inflateInit2(strm, 15 + 16);
}
static inline int trailpack_deflate_init_gzip(z_streamp strm, int level) {
    return deflateInit2(strm, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif
