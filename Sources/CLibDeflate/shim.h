#ifndef TRAILPACK_CLIBDEFLATE_SHIM_H
#define TRAILPACK_CLIBDEFLATE_SHIM_H
/* libdeflate: only its CRC-32 (folded with carry-less multiplication where the CPU has it, about
   three times zlib 1.2.13's on this machine), which the verifier and the reader take of every byte. */
#include <libdeflate.h>
#endif
