#ifndef TRAILPACK_CLIBCRYPTO_SHIM_H
#define TRAILPACK_CLIBCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/sha.h>

/* SHA-256 by libcrypto's own SHA256_Init/Update/Final, not through EVP. They are the same
   block functions (SHA-NI, AVX2, chosen at run time), without a provider: EVP_MD_fetch starts
   OpenSSL's default provider, which touched 2 MB of libcrypto's pages in every build and verify
   (3.4 MB resident against 1.5), and EVP needs a context allocated per hash. OpenSSL 3 marks the
   functions deprecated (for new code to use EVP); they remain in 3.x, and only these wrappers
   call them. The state is held by the caller, so a hash allocates nothing. */
typedef struct { SHA256_CTX state; } trailpack_sha256;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline void trailpack_sha256_init(trailpack_sha256 *h) { (void)SHA256_Init(&h->state); }
static inline void trailpack_sha256_update(trailpack_sha256 *h, const void *bytes, size_t count) {
    (void)SHA256_Update(&h->state, bytes, count);
}
static inline void trailpack_sha256_final(trailpack_sha256 *h, unsigned char out[32]) {
    (void)SHA256_Final(out, &h->state);
}
#pragma GCC diagnostic pop
#endif
