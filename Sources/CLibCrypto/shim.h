#ifndef TRAILPACK_CLIBCRYPTO_SHIM_H
#define TRAILPACK_CLIBCRYPTO_SHIM_H
#include <stdlib.h>
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
   call them. The state is held by the caller, so a hash allocates nothing.
   A libcrypto built without the deprecated functions (OPENSSL_NO_DEPRECATED_3_0), or one whose
   SHA-256 must come from a provider (FIPS), gets the same four functions over EVP instead: define
   TRAILPACK_SHA256_EVP to choose it. trailpack_sha256_release frees what init took (nothing, or
   the EVP context); final releases too. */
#if defined(OPENSSL_NO_DEPRECATED_3_0) && !defined(TRAILPACK_SHA256_EVP)
#define TRAILPACK_SHA256_EVP 1
#endif

#ifdef TRAILPACK_SHA256_EVP
typedef struct { EVP_MD_CTX *context; } trailpack_sha256;
static inline void trailpack_sha256_init(trailpack_sha256 *h) {
    h->context = EVP_MD_CTX_new();
    if (h->context == NULL || EVP_DigestInit_ex(h->context, EVP_sha256(), NULL) != 1) abort();
}
static inline void trailpack_sha256_update(trailpack_sha256 *h, const void *bytes, size_t count) {
    (void)EVP_DigestUpdate(h->context, bytes, count);
}
static inline void trailpack_sha256_release(trailpack_sha256 *h) {
    EVP_MD_CTX_free(h->context);
    h->context = NULL;
}
static inline void trailpack_sha256_final(trailpack_sha256 *h, unsigned char out[32]) {
    unsigned int length = 0;
    (void)EVP_DigestFinal_ex(h->context, out, &length);
    trailpack_sha256_release(h);
}
#else
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
static inline void trailpack_sha256_release(trailpack_sha256 *h) { (void)h; }
#endif
#endif
