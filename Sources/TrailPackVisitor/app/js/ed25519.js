// Ed25519 signature verification: WebCrypto when the browser has Ed25519, else tweetnacl
// (`globalThis.nacl`, loaded by the page as a classic script).

// The group order L = 2^252 + 27742317777372353535851937790883648493, little-endian.
const L = new Uint8Array([
  0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
]);

// The SubtleCrypto objects found to lack Ed25519, so that they are not asked again.
const lacksEd25519 = new WeakSet();

/**
 * Whether the signature's S half (bytes 32..63, little-endian) is below L. OpenSSL, which the
 * trailpack program and WebCrypto use, refuses other values; tweetnacl does not check, so this
 * check makes both paths give the same answers.
 * @param {Uint8Array} signature
 */
function canonicalS(signature) {
  for (let i = 31; i >= 0; i--) {
    const s = signature[32 + i];
    if (s !== L[i]) return s < L[i];
  }
  return false; // S == L
}

/**
 * Verifies an Ed25519 signature.
 *
 * Uses WebCrypto when it supports Ed25519, else tweetnacl's `nacl.sign.detached.verify`. Returns false
 * for a signature or key of the wrong length and when WebCrypto reports an error (a malformed key);
 * never true on an exception.
 * @param {Uint8Array} signature 64 bytes
 * @param {Uint8Array} message
 * @param {Uint8Array} publicKey 32 bytes
 * @param {{subtle?: SubtleCrypto | null, nacl?: object | null}} [backends] for tests: the WebCrypto
 *   to use (null: none) and the tweetnacl object (null: none); by default `globalThis.crypto.subtle`
 *   and `globalThis.nacl`
 * @returns {Promise<boolean>}
 * @throws {Error} when neither WebCrypto's Ed25519 nor tweetnacl is available
 */
export async function ed25519Verify(signature, message, publicKey, backends = {}) {
  if (!(signature instanceof Uint8Array) || !(message instanceof Uint8Array) || !(publicKey instanceof Uint8Array)) {
    throw new TypeError('ed25519Verify takes Uint8Arrays');
  }
  if (signature.length !== 64 || publicKey.length !== 32 || !canonicalS(signature)) return false;
  const subtle = 'subtle' in backends ? backends.subtle : globalThis.crypto?.subtle;
  if (subtle && !lacksEd25519.has(subtle)) {
    let key;
    try {
      key = await subtle.importKey('raw', publicKey, { name: 'Ed25519' }, false, ['verify']);
    } catch (error) {
      if (error?.name !== 'NotSupportedError') return false;
      lacksEd25519.add(subtle);
    }
    if (key) {
      try {
        return (await subtle.verify({ name: 'Ed25519' }, key, signature, message)) === true;
      } catch {
        return false;
      }
    }
  }
  const nacl = 'nacl' in backends ? backends.nacl : globalThis.nacl;
  const verify = nacl?.sign?.detached?.verify;
  if (typeof verify !== 'function') {
    throw new Error(
      'Signatures cannot be checked in this browser: it has no Ed25519 support. Use a current browser.',
    );
  }
  try {
    return verify(message, signature, publicKey) === true; // tweetnacl takes the message first
  } catch {
    return false;
  }
}
