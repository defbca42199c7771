#ifndef TRAILPACK_CLIBCRYPTO_SHIM_H
#define TRAILPACK_CLIBCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#endif
