// minisign public keys and signatures (https://jedisct1.github.io/minisign/), read and checked by the
// same rules as the trailpack program (Sources/TrailPackCrypto/Minisign.swift and
// Sources/TrailPackVerifier/Signatures.swift).

import { ed25519Verify } from './ed25519.js';

/** The largest key or signature text read, in UTF-8 bytes (real ones are a few hundred). */
const MAX_TEXT_BYTES = 4096;
const UNTRUSTED_PREFIX = 'untrusted comment: ';
const TRUSTED_PREFIX = 'trusted comment: ';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A key or signature that cannot be read. `code` is always 'malformed'. */
export class MinisignError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'MinisignError';
    this.code = 'malformed';
  }
}

/** `text` as a string (UTF-8 bytes are decoded, invalid sequences replaced), refused past the size limit. */
function boundedText(text, what) {
  if (text instanceof Uint8Array) {
    if (text.length > MAX_TEXT_BYTES) throw new MinisignError(`the ${what} is larger than ${MAX_TEXT_BYTES} bytes`);
    return new TextDecoder('utf-8', { ignoreBOM: true }).decode(text); // keeps a BOM, as Swift's String(decoding:) does
  }
  if (typeof text !== 'string') throw new MinisignError(`the ${what} is not text`);
  if (text.length > MAX_TEXT_BYTES || new TextEncoder().encode(text).length > MAX_TEXT_BYTES) {
    throw new MinisignError(`the ${what} is larger than ${MAX_TEXT_BYTES} bytes`);
  }
  return text;
}

/** Strips spaces and tabs (Swift's `.whitespaces`: tab and the Unicode space separators) from both ends. */
function trimSpaces(s) {
  return s.replace(/^[\t\p{Zs}]+|[\t\p{Zs}]+$/gu, '');
}

/**
 * Decodes padded standard base64 with nothing else around it; null when it is not that. (Foundation's
 * decoder also takes some odd forms, such as extra '=' at the end; those are refused here.)
 */
function decodeBase64(s) {
  if (s.length % 4 !== 0) return null;
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((s.length / 4) * 3 - pad);
  let bits = 0, nbits = 0, o = 0;
  for (let i = 0; i < s.length - pad; i++) {
    const v = BASE64.indexOf(s[i]);
    if (v < 0) return null;
    bits = ((bits << 6) | v) & 0xffffff;
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out[o++] = (bits >>> nbits) & 0xff;
    }
  }
  return out;
}

/** The key id as minisign prints it: the little-endian 64-bit number, 16 uppercase hex digits. */
function keyIdHex(keyId) {
  let out = '';
  for (let i = keyId.length - 1; i >= 0; i--) out += keyId[i].toString(16).toUpperCase().padStart(2, '0');
  return out;
}

function equalBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Reads a minisign public key: the text of a `.pub` file (an untrusted comment line, then the base64
 * of `Ed` ‖ key id (8 bytes) ‖ Ed25519 key (32 bytes)), or the base64 line alone.
 * @param {string | Uint8Array} text
 * @returns {{keyId: Uint8Array, key: Uint8Array, keyIdHex: string}} keyIdHex as minisign prints it
 *   (the key id bytes reversed, uppercase)
 * @throws {MinisignError}
 */
export function parsePublicKey(text) {
  const lines = boundedText(text, 'public key')
    .split(/\r\n|[\n\v\f\r\u0085\u2028\u2029]/)
    .map(trimSpaces);
  const b64 = lines.find((line) => line !== '' && !line.startsWith(UNTRUSTED_PREFIX));
  if (b64 === undefined) throw new MinisignError('no public key found (expected a minisign public key file)');
  const raw = decodeBase64(b64);
  if (!raw || raw.length !== 42) throw new MinisignError('the public key is not 42 bytes of base64');
  if (raw[0] !== 0x45 || raw[1] !== 0x64) throw new MinisignError("the public key is not an Ed25519 ('Ed') key");
  const keyId = raw.slice(2, 10);
  return { keyId, key: raw.slice(10, 42), keyIdHex: keyIdHex(keyId) };
}

/**
 * Reads a minisign signature (`.minisig` text): an untrusted comment line, the base64 of algorithm ‖
 * key id ‖ signature, a trusted comment line, and the base64 global signature. Lines may end in CRLF
 * (as Minisign.swift intends; its split on the Character "\n" does not see "\r\n", a single Character).
 * @param {string | Uint8Array} text at most 4096 bytes
 * @returns {{algorithm: 'ED' | 'Ed', keyId: Uint8Array, keyIdHex: string, signature: Uint8Array,
 *   untrustedComment: string, trustedComment: string, globalSignature: Uint8Array}}
 *   algorithm 'ED' is prehashed (BLAKE2b-512), 'Ed' legacy
 * @throws {MinisignError}
 */
export function parseSignature(text) {
  const lines = boundedText(text, 'signature')
    .split('\n')
    .map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines.length < 4 || !lines[0].startsWith(UNTRUSTED_PREFIX) || !lines[2].startsWith(TRUSTED_PREFIX)) {
    throw new MinisignError(
      'not a minisign signature (expected an untrusted comment, the signature, a trusted comment ' +
        'and the global signature)',
    );
  }
  const raw = decodeBase64(trimSpaces(lines[1]));
  if (!raw || raw.length !== 74) throw new MinisignError('the signature line is not 74 bytes of base64');
  const globalSignature = decodeBase64(trimSpaces(lines[3]));
  if (!globalSignature || globalSignature.length !== 64) {
    throw new MinisignError('the global signature line is not 64 bytes of base64');
  }
  if (raw[0] !== 0x45 || (raw[1] !== 0x44 && raw[1] !== 0x64)) {
    throw new MinisignError('unknown signature algorithm');
  }
  const keyId = raw.slice(2, 10);
  return {
    algorithm: raw[1] === 0x44 ? 'ED' : 'Ed',
    keyId,
    keyIdHex: keyIdHex(keyId),
    signature: raw.slice(10, 74),
    untrustedComment: lines[0].slice(UNTRUSTED_PREFIX.length),
    trustedComment: lines[2].slice(TRUSTED_PREFIX.length),
    globalSignature,
  };
}

/**
 * The trusted comment's `key:value` fields, tab-separated as minisign and trailpack write them
 * (`timestamp:…\tfile:…\thashed\tid:…\tversion:…\tsha256:…`). A field without a colon is skipped; the
 * value is everything after the first colon; a later field of the same key wins.
 * @param {{trustedComment: string}} sig a parsed signature
 * @returns {Record<string, string>} an object without prototype
 */
export function trustedFields(sig) {
  const out = Object.create(null);
  for (const field of sig.trustedComment.split('\t')) {
    const colon = field.indexOf(':');
    if (colon >= 0) out[field.slice(0, colon)] = field.slice(colon + 1);
  }
  return out;
}

/**
 * Checks a parsed signature and its trusted comment against a file's BLAKE2b-512 prehash, in the
 * order the trailpack program does: key id, algorithm, signature, then the trusted comment.
 * @param {ReturnType<typeof parseSignature>} sig
 * @param {Uint8Array} prehash the file's BLAKE2b-512 (64 bytes)
 * @param {{keyId: Uint8Array, key: Uint8Array}} publicKey a parsed public key
 * @returns {Promise<'valid' | 'otherKey' | 'badSignature' | 'badTrustedComment' | 'legacy'>}
 *   otherKey: made by another key id; legacy: an 'Ed' (not prehashed) signature, not accepted
 * @throws {Error} when this browser cannot check Ed25519 signatures
 */
export async function verifySignature(sig, prehash, publicKey) {
  if (!equalBytes(sig.keyId, publicKey.keyId)) return 'otherKey';
  if (sig.algorithm !== 'ED') return 'legacy';
  if (!(await ed25519Verify(sig.signature, prehash, publicKey.key))) return 'badSignature';
  const comment = new TextEncoder().encode(sig.trustedComment);
  const signed = new Uint8Array(64 + comment.length);
  signed.set(sig.signature, 0);
  signed.set(comment, 64);
  if (!(await ed25519Verify(sig.globalSignature, signed, publicKey.key))) return 'badTrustedComment';
  return 'valid';
}

/**
 * A package version's numbers: 1 to 4 dot-separated whole numbers of at most 9 digits, without
 * leading zeros, padded with zeros to 4 (so '1.0' equals '1' and '1.0.0'); null when not a version.
 * As PackageVersion in Sources/TrailPackCore/Manifest/PackageVersion.swift.
 */
function versionNumbers(text) {
  if (typeof text !== 'string') return null;
  const parts = text.split('.');
  if (parts.length > 4) return null;
  for (const part of parts) if (!/^(0|[1-9][0-9]{0,8})$/.test(part)) return null;
  const numbers = parts.map(Number);
  while (numbers.length < 4) numbers.push(0);
  return numbers;
}

function sameVersion(a, b) {
  const x = versionNumbers(a), y = versionNumbers(b);
  return x !== null && y !== null && x.every((n, i) => n === y[i]);
}

function sameSHA256(a, b) {
  const hex = /^[0-9a-fA-F]{64}$/;
  return typeof a === 'string' && typeof b === 'string' && hex.test(a) && hex.test(b) &&
    a.toLowerCase() === b.toLowerCase();
}

/**
 * Checks a package's reviewer signatures, by the rules of the trailpack program's SignatureCheck.check.
 *
 * A signature counts when its key id names a trusted key, its Ed25519 signature of the prehash
 * matches, its global signature authenticates the trusted comment, and the comment's `id:`,
 * `version:` and `sha256:` fields (those present) name this package: the id exactly, the version as
 * a version ('1.0' equals '1.0.0'), the SHA-256 in either case. Signers are counted by public key
 * bytes, so one key listed twice counts once. Every problem fails the check, as every signature
 * finding is an error in the program: `ok` is true only when there are no problems, which includes
 * reaching the threshold.
 * @param {object} input
 * @param {{reviewer?: string, minisig: string}[]} input.signatures as served by
 *   GET /v1/packages/:id/versions/:version/signatures
 * @param {{keyId: Uint8Array, key: Uint8Array, keyIdHex: string}[]} input.trustedKeys parsed public keys
 * @param {number} [input.threshold] how many distinct trusted keys must have signed (at least 1)
 * @param {Uint8Array} input.prehash the package's BLAKE2b-512
 * @param {{id: string, version: string} | null} [input.manifest] the package's; without it the id
 *   and version fields are not compared
 * @param {string} input.sha256Hex the package's SHA-256 in hex; a comment's `sha256:` field must equal it
 * @returns {Promise<{ok: boolean, validSigners: string[],
 *   problems: {reviewer: string | null, code: string, message: string}[]}>}
 *   validSigners: the key ids (keyIdHex) of the distinct valid signers, sorted; problems: in plain
 *   words for visitors, with a code as the program's finding codes (`signature.*`)
 * @throws {Error} when this browser cannot check Ed25519 signatures
 */
export async function checkSignatures({ signatures, trustedKeys, threshold, prehash, manifest, sha256Hex }) {
  const list = Array.isArray(signatures) ? signatures : [];
  const keys = Array.isArray(trustedKeys) ? trustedKeys : [];
  const problems = [];
  const problem = (reviewer, code, message) => problems.push({ reviewer, code, message });
  if (list.length === 0) {
    problem(null, 'signature.missing',
      'This download has no reviewer signatures, so it cannot be shown to come from the tour\'s publisher.');
  }
  /** @type {Map<string, string>} public key bytes (hex) → key id */
  const signers = new Map();
  for (const [index, entry] of list.entries()) {
    const reviewer = typeof entry?.reviewer === 'string' && entry.reviewer !== '' ? entry.reviewer : null;
    const who = reviewer === null ? `signature ${index + 1}` : `reviewer ${reviewer}`;
    let sig;
    try {
      sig = parseSignature(entry?.minisig);
    } catch (error) {
      if (!(error instanceof MinisignError)) throw error;
      problem(reviewer, 'signature.malformed', `The signature from ${who} is damaged and cannot be read.`);
      continue;
    }
    const candidates = keys.filter((key) => equalBytes(key.keyId, sig.keyId));
    if (candidates.length === 0) {
      problem(reviewer, 'signature.untrusted-key',
        `The signature from ${who} was made with a key this app does not trust (key ${sig.keyIdHex}).`);
      continue;
    }
    const verdicts = [];
    let valid = null;
    for (const key of candidates) {
      const verdict = await verifySignature(sig, prehash, key);
      verdicts.push(verdict);
      if (verdict === 'valid') {
        valid = key;
        break;
      }
    }
    if (valid === null) {
      if (verdicts.includes('legacy')) {
        problem(reviewer, 'signature.malformed',
          `The signature from ${who} is in an old format that this app does not accept.`);
      } else if (verdicts.includes('badTrustedComment')) {
        problem(reviewer, 'signature.invalid', `The signature from ${who} was altered after it was made.`);
      } else {
        problem(reviewer, 'signature.invalid',
          `The signature from ${who} does not match this download: the file was changed after it was ` +
            'signed, or the signature is for another file.');
      }
      continue;
    }
    const fields = trustedFields(sig);
    const mismatches = [];
    if (fields.id !== undefined && manifest && fields.id !== manifest.id) {
      mismatches.push(`the package '${fields.id}' (this download is '${manifest.id}')`);
    }
    if (fields.version !== undefined && manifest && !sameVersion(fields.version, manifest.version)) {
      mismatches.push(`version ${fields.version} (this download is version ${manifest.version})`);
    }
    if (fields.sha256 !== undefined && !sameSHA256(fields.sha256, sha256Hex)) {
      mismatches.push('a file with another SHA-256 checksum');
    }
    if (mismatches.length > 0) {
      problem(reviewer, 'signature.comment-mismatch',
        `The signature from ${who} is for something else: it names ${mismatches.join(', ')}.`);
      continue;
    }
    const id = Array.from(valid.key, (b) => b.toString(16).padStart(2, '0')).join('');
    if (!signers.has(id)) signers.set(id, valid.keyIdHex ?? keyIdHex(valid.keyId));
  }
  const required = Math.max(1, Number.isInteger(threshold) ? threshold : 1);
  if (signers.size < required && list.length > 0) {
    problem(null, 'signature.threshold',
      signers.size === 0
        ? "The reviewers' signatures do not match this download."
        : `This download needs valid signatures from ${required} different reviewers; it has ${signers.size}.`);
  }
  return { ok: problems.length === 0, validSigners: [...signers.values()].sort(), problems };
}
