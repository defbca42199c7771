// Tests of the visitor app's cryptography (Sources/TrailPackVisitor/app/js): SHA-256, BLAKE2b-512,
// Ed25519 and minisign. Run with `node --test Tests/VisitorAppJS/crypto.test.mjs` (Node 20 or later).
//
// Independent references: Node's crypto, sha256sum, Python's hashlib, tweetnacl (Debian's node-tweetnacl),
// the minisign program, and the trailpack program (.build/debug/trailpack, or $TRAILPACK) for packages
// and their signatures. A test whose tool is missing is skipped and says which tool.

import { nodeHash, randomBytes, xorshift32 as prng } from './support.mjs';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import nodeCrypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { SHA256, sha256, toHex } from '../../Sources/TrailPackVisitor/app/js/sha256.js';
import { BLAKE2b512, blake2b512 } from '../../Sources/TrailPackVisitor/app/js/blake2b.js';
import { ed25519Verify } from '../../Sources/TrailPackVisitor/app/js/ed25519.js';
import {
  MinisignError, checkSignatures, parsePublicKey, parseSignature, trustedFields, verifySignature,
} from '../../Sources/TrailPackVisitor/app/js/minisign.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TRAILPACK = process.env.TRAILPACK ?? path.join(ROOT, '.build/debug/trailpack');
const TWEETNACL = '/usr/share/nodejs/tweetnacl/nacl-fast.js';

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'visitor-crypto-'));
after(() => fs.rmSync(TMP, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------------------------
// Helpers

/** Whether `program` runs (found on PATH or at its path). */
function hasProgram(program, args = ['--version']) {
  try {
    execFileSync(program, args, { stdio: 'ignore', timeout: 20000 });
    return true;
  } catch (error) {
    return error.code !== 'ENOENT';
  }
}

/** A skip reason when `ok` is false. */
const gate = (ok, tool) => (ok ? false : `${tool} is not installed`);

const HAS_SHA256SUM = hasProgram('sha256sum');
const HAS_PYTHON = hasProgram('python3');
const HAS_MINISIGN = hasProgram('minisign', ['-v']);
const HAS_TRAILPACK = fs.existsSync(TRAILPACK);
const HAS_UNZIP = hasProgram('unzip', ['-v']);
const nacl = fs.existsSync(TWEETNACL) ? createRequire(import.meta.url)(TWEETNACL) : null;

function run(program, args, options = {}) {
  return execFileSync(program, args, { cwd: TMP, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60000, ...options });
}

const fromHex = (hex) => Uint8Array.from(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));
const utf8 = (s) => new TextEncoder().encode(s);


/** Feeds `bytes` to `hasher` in pieces ending at the offsets `cuts` (ascending), then digests it. */
function hashInPieces(hasher, bytes, cuts) {
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    hasher.update(bytes.subarray(start, cut));
    start = cut;
  }
  return toHex(hasher.digest());
}

/** MB/s of hashing `mb` MiB with `Hasher` in 1 MiB pieces; returns the speed and the digest. */
function throughput(Hasher, data) {
  new Hasher().update(data.subarray(0, 4 << 20)).digest(); // warm up the JIT
  const start = performance.now();
  const h = new Hasher();
  for (let o = 0; o < data.length; o += 1 << 20) h.update(data.subarray(o, o + (1 << 20)));
  const digest = toHex(h.digest());
  const seconds = (performance.now() - start) / 1000;
  return { mbps: data.length / (1 << 20) / seconds, digest };
}

/** The signature with L (the group order) added to its S half: another encoding of the same signature. */
function plusL(signature) {
  const L = fromHex(`edd3f55c1a631258d69cf7a2def9de14${'00'.repeat(15)}10`);
  assert.equal(L.length, 32);
  const out = signature.slice();
  let carry = 0;
  for (let i = 0; i < 32; i++) {
    const sum = out[32 + i] + L[i] + carry;
    out[32 + i] = sum & 0xff;
    carry = sum >> 8;
  }
  assert.equal(carry, 0);
  return out;
}

/** Writes `bytes` to a file in TMP and returns its path. */
function writeTemp(name, bytes) {
  const file = path.join(TMP, name);
  fs.writeFileSync(file, bytes);
  return file;
}

// ---------------------------------------------------------------------------------------------------------
// SHA-256

describe('SHA-256', () => {
  test('FIPS 180-2 vectors: empty, "abc", 448 bits, a million "a"', () => {
    assert.equal(toHex(sha256(new Uint8Array(0))), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(toHex(sha256(utf8('abc'))), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(
      toHex(sha256(utf8('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))),
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    const million = new Uint8Array(1000000).fill(0x61);
    const expected = 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0';
    assert.equal(toHex(sha256(million)), expected);
    const pieces = [];
    for (let i = 1000; i < million.length; i += 1000) pieces.push(i);
    assert.equal(hashInPieces(new SHA256(), million, pieces), expected);
  });

  test('random lengths 0..300 match Node crypto', () => {
    const next = prng(1);
    for (let n = 0; n <= 300; n++) {
      const data = randomBytes(n, next);
      assert.equal(toHex(sha256(data)), nodeHash('sha256', data), `length ${n}`);
    }
  });

  test('every two-piece split of lengths around the 55/56/63/64-byte padding boundaries', () => {
    const next = prng(2);
    for (const n of [55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 191, 192, 200]) {
      const data = randomBytes(n, next);
      const expected = nodeHash('sha256', data);
      for (let cut = 0; cut <= n; cut++) {
        assert.equal(hashInPieces(new SHA256(), data, [cut]), expected, `length ${n} split at ${cut}`);
      }
    }
  });

  test('random many-piece splits (empty pieces included) and byte by byte', () => {
    const next = prng(3);
    for (let round = 0; round < 200; round++) {
      const n = next() % 1000;
      const data = randomBytes(n, next);
      const cuts = Array.from({ length: next() % 8 }, () => next() % (n + 1)).sort((a, b) => a - b);
      assert.equal(hashInPieces(new SHA256(), data, cuts), nodeHash('sha256', data), `length ${n}, cuts ${cuts}`);
    }
    const data = randomBytes(300, next);
    const oneByOne = Array.from({ length: 299 }, (_, i) => i + 1);
    assert.equal(hashInPieces(new SHA256(), data, oneByOne), nodeHash('sha256', data));
  });

  test('update() returns the hasher; a finished hasher refuses update() and repeats its digest', () => {
    const h = new SHA256();
    assert.equal(h.update(utf8('a')), h);
    const first = h.digest();
    assert.throws(() => h.update(utf8('b')), /after digest/);
    assert.deepEqual(h.digest(), first);
    first[0] ^= 1; // the caller's copy is its own
    assert.notDeepEqual(h.digest(), first);
    assert.throws(() => new SHA256().update('abc'), TypeError);
  });

  test('toHex is lowercase with leading zeros', () => {
    assert.equal(toHex(Uint8Array.from([0, 1, 0x0f, 0x10, 0xab, 0xff])), '00010f10abff');
    assert.equal(toHex(new Uint8Array(0)), '');
  });

  test('files of various sizes match sha256sum', { skip: gate(HAS_SHA256SUM, 'sha256sum') }, () => {
    const next = prng(4);
    const sizes = [0, 1, 55, 64, 1000, 65537, (3 << 20) + 13, 5 << 20];
    const files = sizes.map((n, i) => writeTemp(`sha-${i}.bin`, randomBytes(n, next)));
    const lines = run('sha256sum', files).toString().trim().split('\n');
    assert.equal(lines.length, files.length);
    for (const [i, file] of files.entries()) {
      const [expected, name] = lines[i].split(/\s+\*?/);
      assert.equal(name, file);
      const data = fs.readFileSync(file);
      const cuts = [];
      for (let o = 65521; o < data.length; o += 65521) cuts.push(o); // odd pieces, as a stream delivers
      assert.equal(hashInPieces(new SHA256(), data, cuts), expected, `${sizes[i]} bytes`);
    }
  });

  test('a message over 512 MiB, whose length in bits needs the high word', () => {
    const piece = new Uint8Array(1 << 20).fill(0x5a);
    const ours = new SHA256();
    const node = nodeCrypto.createHash('sha256');
    for (let i = 0; i < 513; i++) {
      ours.update(piece);
      node.update(piece);
    }
    ours.update(piece.subarray(0, 3));
    node.update(piece.subarray(0, 3));
    assert.equal(toHex(ours.digest()), node.digest('hex'));
  });

  test('throughput (diagnostic)', (t) => {
    const data = nodeCrypto.randomBytes(64 << 20);
    const { mbps, digest } = throughput(SHA256, data);
    assert.equal(digest, nodeHash('sha256', data));
    t.diagnostic(`SHA-256: ${mbps.toFixed(0)} MB/s`);
  });
});

// ---------------------------------------------------------------------------------------------------------
// BLAKE2b-512

describe('BLAKE2b-512', () => {
  test('RFC 7693 appendix A ("abc") and the empty message', () => {
    assert.equal(
      toHex(blake2b512(utf8('abc'))),
      'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1' +
        '7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923',
    );
    assert.equal(
      toHex(blake2b512(new Uint8Array(0))),
      '786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419' +
        'd25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce',
    );
  });

  test('random lengths 0..300 and block multiples match Node crypto', () => {
    const next = prng(5);
    const lengths = [...Array(301).keys(), 383, 384, 385, 1023, 1024, 1025, 4096, 65536 + 1];
    for (const n of lengths) {
      const data = randomBytes(n, next);
      assert.equal(toHex(blake2b512(data)), nodeHash('blake2b512', data), `length ${n}`);
    }
  });

  test('every two-piece split of lengths around the 128-byte blocks', () => {
    const next = prng(6);
    for (const n of [1, 127, 128, 129, 255, 256, 257, 384]) {
      const data = randomBytes(n, next);
      const expected = nodeHash('blake2b512', data);
      for (let cut = 0; cut <= n; cut++) {
        assert.equal(hashInPieces(new BLAKE2b512(), data, [cut]), expected, `length ${n} split at ${cut}`);
      }
    }
  });

  test('a full buffered block waits: 128 then empty pieces, 128 + 128, 256 then 0, byte by byte', () => {
    const next = prng(7);
    const data = randomBytes(512, next);
    const cases = [
      [128, [128, 128]],
      [256, [128, 128, 128, 256]],
      [256, [256, 256]],
      [129, [128]],
      [384, [1, 129, 257]],
    ];
    for (const [n, cuts] of cases) {
      const slice = data.subarray(0, n);
      assert.equal(hashInPieces(new BLAKE2b512(), slice, cuts), nodeHash('blake2b512', slice), `${n}: ${cuts}`);
    }
    const oneByOne = Array.from({ length: 511 }, (_, i) => i + 1);
    assert.equal(hashInPieces(new BLAKE2b512(), data, oneByOne), nodeHash('blake2b512', data));
  });

  test('random many-piece splits', () => {
    const next = prng(8);
    for (let round = 0; round < 200; round++) {
      const n = next() % 2000;
      const data = randomBytes(n, next);
      const cuts = Array.from({ length: next() % 8 }, () => next() % (n + 1)).sort((a, b) => a - b);
      assert.equal(hashInPieces(new BLAKE2b512(), data, cuts), nodeHash('blake2b512', data), `${n}: ${cuts}`);
    }
  });

  test('a finished hasher refuses update() and repeats its digest', () => {
    const h = new BLAKE2b512();
    assert.equal(h.update(utf8('abc')), h);
    const first = h.digest();
    assert.equal(first.length, 64);
    assert.throws(() => h.update(utf8('d')), /after digest/);
    assert.deepEqual(h.digest(), first);
    assert.throws(() => new BLAKE2b512().update([1, 2, 3]), TypeError);
  });

  test('files match Python hashlib.blake2b', { skip: gate(HAS_PYTHON, 'python3') }, () => {
    const next = prng(9);
    const sizes = [0, 1, 127, 128, 129, 255, 256, 257, 1000, 100003, 2 << 20];
    const files = sizes.map((n, i) => writeTemp(`b2-${i}.bin`, randomBytes(n, next)));
    const script = [
      'import hashlib, sys',
      'for p in sys.argv[1:]:',
      '    print(hashlib.blake2b(open(p, "rb").read()).hexdigest())',
    ].join('\n');
    const lines = run('python3', ['-c', script, ...files]).toString().trim().split('\n');
    assert.equal(lines.length, files.length);
    for (const [i, file] of files.entries()) {
      const data = fs.readFileSync(file);
      const cuts = [];
      for (let o = 4093; o < data.length; o += 4093) cuts.push(o);
      assert.equal(hashInPieces(new BLAKE2b512(), data, cuts), lines[i], `${sizes[i]} bytes`);
    }
  });

  test('throughput (diagnostic)', (t) => {
    const data = nodeCrypto.randomBytes(64 << 20);
    const { mbps, digest } = throughput(BLAKE2b512, data);
    assert.equal(digest, nodeHash('blake2b512', data));
    t.diagnostic(`BLAKE2b-512: ${mbps.toFixed(0)} MB/s`);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Ed25519

describe('Ed25519', () => {
  /** RFC 8032 section 7.1 tests 1 to 3, then signatures by Node's crypto and by tweetnacl. */
  const vectors = [
    {
      name: 'RFC 8032 test 1',
      key: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
      message: '',
      signature:
        'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155' +
        '5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    },
    {
      name: 'RFC 8032 test 2',
      key: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
      message: '72',
      signature:
        '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da' +
        '085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
    },
    {
      name: 'RFC 8032 test 3',
      key: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
      message: 'af82',
      signature:
        '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac' +
        '18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
    },
  ].map((v) => ({ name: v.name, key: fromHex(v.key), message: fromHex(v.message), signature: fromHex(v.signature) }));

  before(() => {
    const next = prng(10);
    for (const n of [1, 64, 1000]) {
      const { publicKey, privateKey } = nodeCrypto.generateKeyPairSync('ed25519');
      const key = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));
      const message = randomBytes(n, next);
      const signature = new Uint8Array(nodeCrypto.sign(null, message, privateKey));
      vectors.push({ name: `Node crypto, ${n} bytes`, key, message, signature });
    }
    if (nacl) {
      const pair = nacl.sign.keyPair.fromSeed(randomBytes(32, next));
      const message = randomBytes(200, next);
      const signature = nacl.sign.detached(message, pair.secretKey);
      vectors.push({ name: 'tweetnacl', key: pair.publicKey, message, signature });
    }
  });

  const paths = {
    WebCrypto: () => ({ subtle: globalThis.crypto.subtle, nacl: null }),
    tweetnacl: () => ({ subtle: null, nacl }),
  };

  for (const [pathName, backends] of Object.entries(paths)) {
    const skip = pathName === 'tweetnacl' ? gate(nacl !== null, 'node-tweetnacl') : false;

    test(`${pathName}: valid signatures verify; a flipped bit anywhere does not`, { skip }, async () => {
      assert.ok(vectors.length >= 6);
      for (const { name, key, message, signature } of vectors) {
        assert.equal(await ed25519Verify(signature, message, key, backends()), true, name);
        for (const bit of [0, 7, 8 * 31 + 7, 8 * 32, 8 * 63 + 3]) {
          const bad = signature.slice();
          bad[bit >> 3] ^= 1 << (bit & 7);
          assert.equal(await ed25519Verify(bad, message, key, backends()), false, `${name}, signature bit ${bit}`);
        }
        const badKey = key.slice();
        badKey[5] ^= 0x10;
        assert.equal(await ed25519Verify(signature, message, badKey, backends()), false, `${name}, key`);
        const longer = new Uint8Array([...message, 0]);
        assert.equal(await ed25519Verify(signature, longer, key, backends()), false, `${name}, message`);
        if (message.length > 0) {
          const badMessage = message.slice();
          badMessage[message.length - 1] ^= 0x80;
          assert.equal(await ed25519Verify(signature, badMessage, key, backends()), false, `${name}, message bit`);
        }
      }
    });

    test(`${pathName}: wrong lengths and a non-canonical S (S + L) are refused`, { skip }, async () => {
      const { key, message, signature } = vectors[1];
      assert.equal(await ed25519Verify(signature.subarray(0, 63), message, key, backends()), false);
      assert.equal(await ed25519Verify(new Uint8Array([...signature, 0]), message, key, backends()), false);
      assert.equal(await ed25519Verify(signature, message, key.subarray(0, 31), backends()), false);
      // S + L names the same scalar; OpenSSL (the trailpack program) refuses it, so both paths must.
      const malleable = plusL(signature);
      assert.notDeepEqual(malleable, signature);
      assert.equal(await ed25519Verify(malleable, message, key, backends()), false);
    });
  }

  test('tweetnacl alone accepts S + L, which is why ed25519Verify checks S', {
    skip: gate(nacl, 'node-tweetnacl'),
  }, () => {
    const { key, message, signature } = vectors[0];
    assert.equal(nacl.sign.detached.verify(message, plusL(signature), key), true);
  });

  test('the default backend (globalThis.crypto.subtle in Node) verifies', async () => {
    const { key, message, signature } = vectors[2];
    assert.equal(await ed25519Verify(signature, message, key), true);
    const bad = signature.slice();
    bad[10] ^= 4;
    assert.equal(await ed25519Verify(bad, message, key), false);
  });

  test('WebCrypto without Ed25519 (NotSupportedError) falls back to tweetnacl, asked once', {
    skip: gate(nacl, 'node-tweetnacl'),
  }, async () => {
    let imports = 0;
    const noEd25519 = {
      importKey: async () => {
        imports++;
        throw new DOMException('Unrecognized algorithm name', 'NotSupportedError');
      },
      verify: async () => true, // never reached
    };
    for (const { name, key, message, signature } of vectors) {
      assert.equal(await ed25519Verify(signature, message, key, { subtle: noEd25519, nacl }), true, name);
      const bad = signature.slice();
      bad[40] ^= 1;
      assert.equal(await ed25519Verify(bad, message, key, { subtle: noEd25519, nacl }), false, name);
    }
    assert.equal(imports, 1);
  });

  test('neither WebCrypto Ed25519 nor tweetnacl: an error saying so, never an answer', async () => {
    const { key, message, signature } = vectors[0];
    const noEd25519 = {
      importKey: async () => {
        throw new DOMException('Unrecognized algorithm name', 'NotSupportedError');
      },
    };
    await assert.rejects(
      ed25519Verify(signature, message, key, { subtle: noEd25519, nacl: null }),
      /cannot be checked in this browser/,
    );
    await assert.rejects(ed25519Verify(signature, message, key, { subtle: null, nacl: {} }), /cannot be checked/);
  });

  test('other WebCrypto errors give false, not the fallback and not true', async () => {
    const { key, message, signature } = vectors[0];
    const yes = { sign: { detached: { verify: () => true } } }; // a fallback that would say yes
    const badKey = { importKey: async () => { throw new DOMException('bad key', 'DataError'); } };
    assert.equal(await ed25519Verify(signature, message, key, { subtle: badKey, nacl: yes }), false);
    const throwingVerify = {
      importKey: async () => ({}),
      verify: async () => { throw new DOMException('boom', 'OperationError'); },
    };
    assert.equal(await ed25519Verify(signature, message, key, { subtle: throwingVerify, nacl: yes }), false);
    const throwingNacl = { sign: { detached: { verify: () => { throw new Error('bad size'); } } } };
    assert.equal(await ed25519Verify(signature, message, key, { subtle: null, nacl: throwingNacl }), false);
    const truthy = { sign: { detached: { verify: () => 1 } } };
    assert.equal(await ed25519Verify(signature, message, key, { subtle: null, nacl: truthy }), false);
  });
});

// ---------------------------------------------------------------------------------------------------------
// minisign: keys and signatures made by the minisign program

describe('minisign signatures made by minisign', { skip: gate(HAS_MINISIGN, 'minisign') }, () => {
  const dir = path.join(TMP, 'minisign');
  let pubA, pubB, fileA, prehash, alteredPrehash, sigText, legacyText;

  before(() => {
    fs.mkdirSync(dir);
    const opts = { cwd: dir };
    run('minisign', ['-G', '-W', '-p', 'a.pub', '-s', 'a.key'], opts);
    run('minisign', ['-G', '-W', '-p', 'b.pub', '-s', 'b.key'], opts);
    const content = randomBytes(300000, prng(11));
    fileA = path.join(dir, 'tour.zip');
    fs.writeFileSync(fileA, content);
    run('minisign', ['-S', '-s', 'a.key', '-m', 'tour.zip', '-t', 'checked by the ranger'], opts);
    run('minisign', ['-S', '-l', '-s', 'a.key', '-m', 'tour.zip', '-x', 'legacy.minisig'], opts);
    pubA = fs.readFileSync(path.join(dir, 'a.pub'), 'utf8');
    pubB = fs.readFileSync(path.join(dir, 'b.pub'), 'utf8');
    sigText = fs.readFileSync(path.join(dir, 'tour.zip.minisig'), 'utf8');
    legacyText = fs.readFileSync(path.join(dir, 'legacy.minisig'), 'utf8');
    prehash = blake2b512(content);
    const altered = content.slice();
    altered[123456] ^= 1;
    alteredPrehash = blake2b512(altered);
  });

  test('public keys: the key id prints as minisign prints it (bytes reversed, uppercase)', () => {
    const key = parsePublicKey(pubA);
    // minisign prints the number with %PRIX64, so without leading zeros; trailpack (and this) pads to 16.
    const printed = pubA.match(/minisign public key ([0-9A-F]{1,16})\n/)[1].padStart(16, '0');
    assert.equal(key.keyIdHex, printed);
    assert.equal(key.keyId.length, 8);
    assert.equal(key.key.length, 32);
    const raw = Buffer.from(pubA.trim().split('\n')[1], 'base64');
    assert.deepEqual(key.keyId, new Uint8Array(raw.subarray(2, 10)));
    assert.equal(Buffer.from(key.keyId).reverse().toString('hex').toUpperCase(), printed);
    // The bare base64 line, CRLF line ends, and spaces around the line read the same.
    assert.deepEqual(parsePublicKey(pubA.trim().split('\n')[1]), key);
    assert.deepEqual(parsePublicKey(pubA.replace(/\n/g, '\r\n')), key);
    assert.deepEqual(parsePublicKey(`\n  ${pubA.trim().split('\n')[1]}\t \n`), key);
    assert.notEqual(parsePublicKey(pubB).keyIdHex, key.keyIdHex);
  });

  test('a signature parses into its parts', () => {
    const sig = parseSignature(sigText);
    assert.equal(sig.algorithm, 'ED');
    assert.equal(sig.keyIdHex, parsePublicKey(pubA).keyIdHex);
    assert.equal(sig.signature.length, 64);
    assert.equal(sig.globalSignature.length, 64);
    assert.equal(sig.trustedComment, 'checked by the ranger');
    assert.equal(sig.untrustedComment, 'signature from minisign secret key');
    assert.equal(parseSignature(legacyText).algorithm, 'Ed');
  });

  test('verdicts: valid, badSignature, badTrustedComment, otherKey, legacy', async () => {
    run('minisign', ['-V', '-q', '-p', 'a.pub', '-m', 'tour.zip'], { cwd: dir }); // minisign agrees it is valid
    const keyA = parsePublicKey(pubA), keyB = parsePublicKey(pubB);
    const sig = parseSignature(sigText);
    assert.equal(await verifySignature(sig, prehash, keyA), 'valid');
    assert.equal(await verifySignature(sig, alteredPrehash, keyA), 'badSignature');
    const edited = sigText.replace('checked by the ranger', 'checked by the ranger!');
    assert.equal(await verifySignature(parseSignature(edited), prehash, keyA), 'badTrustedComment');
    assert.equal(await verifySignature(sig, prehash, keyB), 'otherKey');
    assert.equal(await verifySignature(parseSignature(legacyText), prehash, keyA), 'legacy');
    // Legacy is decided before the signature is checked, as in the Swift verify.
    assert.equal(await verifySignature(parseSignature(legacyText), alteredPrehash, keyA), 'legacy');
    // Another key under A's key id: the key id matches, the signature does not.
    const impostor = { keyId: keyA.keyId, key: keyB.key, keyIdHex: keyA.keyIdHex };
    assert.equal(await verifySignature(sig, prehash, impostor), 'badSignature');
    // The trusted comment is not checked before the signature: an altered file with an edited comment.
    assert.equal(await verifySignature(parseSignature(edited), alteredPrehash, keyA), 'badSignature');
  });

  test('CRLF line ends, spaces around base64 lines and a missing final newline are accepted', async () => {
    const keyA = parsePublicKey(pubA);
    const crlf = sigText.replace(/\n/g, '\r\n');
    assert.equal(await verifySignature(parseSignature(crlf), prehash, keyA), 'valid');
    const lines = sigText.split('\n');
    const spaced = [lines[0], ` ${lines[1]}\t`, lines[2], `${lines[3]}  `].join('\n');
    assert.equal(await verifySignature(parseSignature(spaced), prehash, keyA), 'valid');
    assert.equal(await verifySignature(parseSignature(sigText.trimEnd()), prehash, keyA), 'valid');
    assert.equal(await verifySignature(parseSignature(utf8(sigText)), prehash, keyA), 'valid');
  });

  test('malformed signatures throw MinisignError (code malformed), never anything else', () => {
    const lines = sigText.split('\n');
    const sigRaw = Buffer.from(lines[1], 'base64');
    const b64 = (bytes) => Buffer.from(bytes).toString('base64');
    const withLine = (i, text) => lines.map((l, j) => (j === i ? text : l)).join('\n');
    const base64url = (line) => {
      const url = line.replace(/\+/g, '-').replace(/\//g, '_');
      return url === line ? `${line.slice(0, 10)}-${line.slice(11)}` : url;
    };
    const cases = {
      empty: '',
      'one word': 'hello',
      'three lines': lines.slice(0, 3).join('\n'),
      'no untrusted comment prefix': withLine(0, 'untrusted: x'),
      'no trusted comment prefix': withLine(2, 'trusted: x'),
      'lines swapped': [lines[2], lines[1], lines[0], lines[3]].join('\n'),
      'truncated signature base64 (4 characters)': withLine(1, lines[1].slice(0, -4)),
      'truncated signature base64 (1 character)': withLine(1, lines[1].slice(0, -1)),
      'signature of 73 bytes': withLine(1, b64(sigRaw.subarray(0, 73))),
      'signature of 75 bytes': withLine(1, b64(Buffer.concat([sigRaw, Buffer.from([0])]))),
      'a character outside base64': withLine(1, `${lines[1].slice(0, 10)}*${lines[1].slice(11)}`),
      // A line with neither '+' nor '/' (1 in 24 of minisign's random signatures) reads the same in
      // both alphabets: then one of its characters is made base64url's own.
      base64url: withLine(1, base64url(lines[1])),
      'unpadded base64': withLine(1, lines[1].replace(/=+$/, '')),
      'an unknown algorithm': withLine(1, b64(Buffer.concat([Buffer.from('EX'), sigRaw.subarray(2)]))),
      'a global signature of 63 bytes': withLine(3, b64(Buffer.from(lines[3], 'base64').subarray(0, 63))),
      'an empty global signature': withLine(3, ''),
      '5000 bytes': sigText + 'x'.repeat(5000 - sigText.length),
      '4098 bytes in 2049 characters': `untrusted comment: ${'é'.repeat(2049)}\n${lines.slice(1).join('\n')}`,
      'UTF-8 bytes over the limit': utf8('a'.repeat(4097)),
      'a byte order mark (as in the program)': `\uFEFF${sigText}`,
      'a byte order mark in UTF-8 bytes': utf8(`\uFEFF${sigText}`),
      null: null,
      number: 42,
      object: { text: sigText },
    };
    for (const [name, text] of Object.entries(cases)) {
      assert.throws(
        () => parseSignature(text),
        (error) => error instanceof MinisignError && error.code === 'malformed' && error.message.length > 0,
        name,
      );
    }
    assert.throws(() => parseSignature(cases['5000 bytes']), /larger than 4096 bytes/);
    // Exactly at the limit is fine.
    assert.doesNotThrow(() => parseSignature(sigText + ' '.repeat(4096 - sigText.length)));
  });

  test('malformed public keys throw MinisignError', () => {
    const line = pubA.trim().split('\n')[1];
    const raw = Buffer.from(line, 'base64');
    const cases = {
      empty: '',
      'only the comment': 'untrusted comment: minisign public key 0011223344556677\n',
      'short base64': 'RWQ=',
      'a truncated line': line.slice(0, -4),
      'not Ed': Buffer.concat([Buffer.from('Xd'), raw.subarray(2)]).toString('base64'),
      'a byte order mark': `\uFEFF${line}`,
      '5000 bytes': `${pubA}${'\n'.repeat(5000)}`,
      undefined,
    };
    for (const [name, text] of Object.entries(cases)) {
      assert.throws(() => parsePublicKey(text), (e) => e instanceof MinisignError && e.code === 'malformed', name);
    }
  });

  test('random damage to a signature: MinisignError or a verdict, never a crash or a false valid', async () => {
    const keyA = parsePublicKey(pubA);
    const next = prng(12);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= :\t\r\n\u00e9';
    let parsed = 0, thrown = 0;
    for (let round = 0; round < 1500; round++) {
      let text = sigText;
      for (let k = 1 + (next() % 3); k > 0; k--) {
        const at = next() % (text.length + 1);
        const ch = alphabet[next() % alphabet.length];
        const op = next() % 3;
        text = op === 0 ? text.slice(0, at) + ch + text.slice(at + 1)
          : op === 1 ? text.slice(0, at) + text.slice(at + 1)
          : text.slice(0, at) + ch + text.slice(at);
      }
      let sig;
      try {
        sig = parseSignature(text);
      } catch (error) {
        assert.ok(error instanceof MinisignError, `${error} for ${JSON.stringify(text)}`);
        thrown++;
        continue;
      }
      parsed++;
      const verdict = await verifySignature(sig, prehash, keyA);
      assert.ok(['valid', 'otherKey', 'badSignature', 'badTrustedComment', 'legacy'].includes(verdict));
      if (verdict === 'valid') {
        // Only damage that leaves the signed parts as they were (the untrusted comment, spaces, CR) may pass.
        const original = parseSignature(sigText);
        assert.deepEqual(sig.signature, original.signature);
        assert.deepEqual(sig.globalSignature, original.globalSignature);
        assert.equal(sig.trustedComment, original.trustedComment);
      }
    }
    assert.ok(parsed > 0 && thrown > 0, `parsed ${parsed}, thrown ${thrown}`);
  });

  test('trustedFields splits tab-separated key:value fields', () => {
    const sig = { trustedComment: 'timestamp:1\tfile:a:b.zip\thashed\t\tid:x\tid:y\tversion:' };
    const fields = trustedFields(sig);
    assert.deepEqual({ ...fields }, { timestamp: '1', file: 'a:b.zip', id: 'y', version: '' });
    assert.equal(Object.getPrototypeOf(fields), null);
    assert.deepEqual({ ...trustedFields(parseSignature(sigText)) }, {});
  });

  test('the tweetnacl path verifies minisign signatures too (WebCrypto without Ed25519)', {
    skip: gate(nacl, 'node-tweetnacl'),
  }, async () => {
    const keyA = parsePublicKey(pubA);
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
    const noEd25519 = {
      importKey: async () => {
        throw new DOMException('Unrecognized algorithm name', 'NotSupportedError');
      },
    };
    Object.defineProperty(globalThis, 'crypto', { value: { subtle: noEd25519 }, configurable: true });
    globalThis.nacl = nacl;
    try {
      const sig = parseSignature(sigText);
      assert.equal(await verifySignature(sig, prehash, keyA), 'valid');
      assert.equal(await verifySignature(sig, alteredPrehash, keyA), 'badSignature');
      const edited = parseSignature(sigText.replace('ranger', 'rangers'));
      assert.equal(await verifySignature(edited, prehash, keyA), 'badTrustedComment');
      delete globalThis.nacl;
      await assert.rejects(verifySignature(sig, prehash, keyA), /cannot be checked in this browser/);
    } finally {
      Object.defineProperty(globalThis, 'crypto', descriptor);
      delete globalThis.nacl;
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// checkSignatures: a package and signatures made by the trailpack program

describe('checkSignatures on a package signed by trailpack', {
  skip: gate(HAS_TRAILPACK, `the trailpack program (${TRAILPACK})`) || gate(HAS_UNZIP, 'unzip'),
}, () => {
  const dir = path.join(TMP, 'trailpack');
  const keys = {};
  const sigs = {};
  let manifest, sha256Hex, prehash;

  before(() => {
    fs.mkdirSync(dir);
    const opts = { cwd: dir };
    run(TRAILPACK, ['build', path.join(ROOT, 'fixtures/santiam-wagon-road'), '-o', 's.zip'], opts);
    for (const name of ['alice', 'bob', 'carol']) {
      run(TRAILPACK, ['keygen', '-s', `${name}.key`, '-p', `${name}.pub`, '--unencrypted'], opts);
      keys[name] = parsePublicKey(fs.readFileSync(path.join(dir, `${name}.pub`), 'utf8'));
      run(TRAILPACK, ['sign', 's.zip', '-s', `${name}.key`, '-o', `s.zip.${name}.minisig`], opts);
      sigs[name] = fs.readFileSync(path.join(dir, `s.zip.${name}.minisig`), 'utf8');
    }
    const json = JSON.parse(run('unzip', ['-p', 's.zip', 'manifest.json'], opts).toString());
    manifest = { id: json.id, version: json.version };
    const zip = fs.readFileSync(path.join(dir, 's.zip'));
    sha256Hex = nodeHash('sha256', zip);
    prehash = blake2b512(zip);
  });

  const served = (...names) => names.map((name) => ({ reviewer: name, minisig: sigs[name] }));
  const check = (overrides) =>
    checkSignatures({
      signatures: served('alice'),
      trustedKeys: [keys.alice, keys.bob],
      threshold: 1,
      prehash,
      manifest,
      sha256Hex,
      ...overrides,
    });
  const codes = (result) => result.problems.map((p) => p.code);

  test('the fixture: trailpack writes id, version and sha256 into the trusted comment', () => {
    const fields = trustedFields(parseSignature(sigs.alice));
    assert.equal(fields.id, manifest.id);
    assert.equal(fields.version, manifest.version);
    assert.equal(fields.sha256, sha256Hex);
    assert.equal(fields.file, 's.zip');
    assert.equal(parseSignature(sigs.alice).keyIdHex, keys.alice.keyIdHex);
  });

  test('threshold 1, one trusted signature: ok', async () => {
    const result = await check({});
    assert.deepEqual(result, { ok: true, validSigners: [keys.alice.keyIdHex], problems: [] });
  });

  test('threshold 2, two distinct keys: ok, both signers listed in order', async () => {
    const result = await check({ signatures: served('alice', 'bob'), threshold: 2 });
    assert.equal(result.ok, true);
    assert.deepEqual(result.validSigners, [keys.alice.keyIdHex, keys.bob.keyIdHex].sort());
    assert.deepEqual(result.problems, []);
  });

  test('threshold 2, one key twice: not ok, counted once', async () => {
    const twice = [{ reviewer: 'alice', minisig: sigs.alice }, { reviewer: 'alice again', minisig: sigs.alice }];
    const result = await check({ signatures: twice, threshold: 2 });
    assert.equal(result.ok, false);
    assert.deepEqual(result.validSigners, [keys.alice.keyIdHex]);
    assert.deepEqual(codes(result), ['signature.threshold']);
    assert.match(result.problems[0].message, /2 different reviewers; it has 1/);
    assert.equal(result.problems[0].reviewer, null);
    // The same key trusted twice counts once too.
    const listedTwice = await check({ trustedKeys: [keys.alice, keys.alice], threshold: 2 });
    assert.equal(listedTwice.ok, false);
    assert.deepEqual(listedTwice.validSigners, [keys.alice.keyIdHex]);
  });

  test('a threshold below 1 or missing means 1', async () => {
    for (const threshold of [0, -3, undefined, 1.5]) {
      assert.equal((await check({ threshold })).ok, true, String(threshold));
      assert.deepEqual(codes(await check({ threshold, trustedKeys: [keys.bob] })), [
        'signature.untrusted-key', 'signature.threshold',
      ]);
    }
  });

  test('id mismatch', async () => {
    const result = await check({ manifest: { ...manifest, id: 'gov.example.other-tour' } });
    assert.equal(result.ok, false);
    assert.deepEqual(result.validSigners, []);
    assert.deepEqual(codes(result), ['signature.comment-mismatch', 'signature.threshold']);
    assert.equal(result.problems[0].reviewer, 'alice');
    assert.match(result.problems[0].message, /the package 'gov\.usda\.fs\.willamette\.santiam-wagon-road'/);
    assert.match(result.problems[0].message, /this download is 'gov\.example\.other-tour'/);
  });

  test('version mismatch, compared as versions (1.0 and 1 equal 1.0.0; 1.00 is no version)', async () => {
    assert.equal(manifest.version, '1.0.0');
    for (const version of ['1.0.1', '2', '1.0.0.1', '1.00', '01.0.0', '1.0.0 ', '', 'v1.0.0', '1..0']) {
      const result = await check({ manifest: { ...manifest, version } });
      assert.deepEqual(codes(result), ['signature.comment-mismatch', 'signature.threshold'], version);
      assert.match(result.problems[0].message, /version 1\.0\.0/);
    }
    for (const version of ['1.0.0', '1.0', '1', '1.0.0.0']) {
      assert.equal((await check({ manifest: { ...manifest, version } })).ok, true, version);
    }
  });

  test('without a manifest, id and version are not compared (as in the program)', async () => {
    assert.equal((await check({ manifest: null })).ok, true);
  });

  test('sha256 mismatch; the package hash may be in either case', async () => {
    const other = nodeHash('sha256', utf8('another file'));
    const result = await check({ sha256Hex: other });
    assert.deepEqual(codes(result), ['signature.comment-mismatch', 'signature.threshold']);
    assert.match(result.problems[0].message, /another SHA-256/);
    assert.equal((await check({ sha256Hex: sha256Hex.toUpperCase() })).ok, true);
    assert.equal((await check({ sha256Hex: undefined })).ok, false);
  });

  test('untrusted key: named by its key id', async () => {
    const result = await check({ signatures: served('carol') });
    assert.equal(result.ok, false);
    assert.deepEqual(codes(result), ['signature.untrusted-key', 'signature.threshold']);
    assert.equal(result.problems[0].reviewer, 'carol');
    assert.ok(result.problems[0].message.includes(keys.carol.keyIdHex));
    assert.match(result.problems[1].message, /signatures do not match this download|could be confirmed/);
  });

  test('one good and one untrusted signature: not ok, as every signature finding is an error', async () => {
    const result = await check({ signatures: served('alice', 'carol') });
    assert.equal(result.ok, false);
    assert.deepEqual(result.validSigners, [keys.alice.keyIdHex]);
    assert.deepEqual(codes(result), ['signature.untrusted-key']);
  });

  test('an altered download, an altered comment, a malformed and a missing signature', async () => {
    const altered = prehash.slice();
    altered[0] ^= 1;
    const badFile = await check({ prehash: altered });
    assert.deepEqual(codes(badFile), ['signature.invalid', 'signature.threshold']);
    assert.match(badFile.problems[0].message, /does not match this download/);

    const edited = sigs.alice.replace('\tversion:1.0.0', '\tversion:1.0.1');
    assert.notEqual(edited, sigs.alice);
    const badComment = await check({ signatures: [{ reviewer: 'alice', minisig: edited }] });
    assert.deepEqual(codes(badComment), ['signature.invalid', 'signature.threshold']);
    assert.match(badComment.problems[0].message, /altered after it was made/);

    const malformed = await check({
      signatures: [{ reviewer: 'dave', minisig: sigs.alice.slice(0, 100) }, { minisig: 7 }, ...served('alice')],
    });
    assert.equal(malformed.ok, false);
    assert.deepEqual(codes(malformed), ['signature.malformed', 'signature.malformed']);
    assert.deepEqual(malformed.problems.map((p) => p.reviewer), ['dave', null]);
    assert.match(malformed.problems[1].message, /signature 2/);
    assert.deepEqual(malformed.validSigners, [keys.alice.keyIdHex]);

    const none = await check({ signatures: [] });
    assert.deepEqual(none, { ok: false, validSigners: [], problems: [none.problems[0]] });
    assert.equal(none.problems[0].code, 'signature.missing');
    assert.equal((await check({ signatures: undefined })).problems[0].code, 'signature.missing');
  });

  test('a trusted key with the same key id but other key bytes does not hide the right one', async () => {
    const impostor = { keyId: keys.alice.keyId, key: keys.bob.key, keyIdHex: keys.alice.keyIdHex };
    const result = await check({ trustedKeys: [impostor, keys.alice] });
    assert.equal(result.ok, true);
    assert.deepEqual(result.validSigners, [keys.alice.keyIdHex]);
    const onlyImpostor = await check({ trustedKeys: [impostor] });
    assert.deepEqual(codes(onlyImpostor), ['signature.invalid', 'signature.threshold']);
  });

  test('minisign accepts trailpack signatures; a minisign legacy signature is refused', {
    skip: gate(HAS_MINISIGN, 'minisign'),
  }, async () => {
    run('minisign', ['-V', '-q', '-p', 'alice.pub', '-m', 's.zip', '-x', 's.zip.alice.minisig'], { cwd: dir });
    run('minisign', ['-G', '-W', '-p', 'm.pub', '-s', 'm.key'], { cwd: dir });
    run('minisign', ['-S', '-l', '-s', 'm.key', '-m', 's.zip', '-x', 'legacy.minisig'], { cwd: dir });
    const minisignKey = parsePublicKey(fs.readFileSync(path.join(dir, 'm.pub'), 'utf8'));
    const legacy = fs.readFileSync(path.join(dir, 'legacy.minisig'), 'utf8');
    const result = await check({ signatures: [{ reviewer: 'old', minisig: legacy }], trustedKeys: [minisignKey] });
    assert.deepEqual(codes(result), ['signature.malformed', 'signature.threshold']);
    assert.match(result.problems[0].message, /old format/);
  });

  test('a minisign signature whose trusted comment says version 1.0 counts for 1.0.0', {
    skip: gate(HAS_MINISIGN, 'minisign'),
  }, async () => {
    const comment =
      `timestamp:1\tfile:s.zip\thashed\tid:${manifest.id}\tversion:1.0\tsha256:${sha256Hex.toUpperCase()}`;
    run('minisign', ['-G', '-W', '-f', '-p', 'v.pub', '-s', 'v.key'], { cwd: dir });
    run('minisign', ['-S', '-s', 'v.key', '-m', 's.zip', '-x', 'v.minisig', '-t', comment], { cwd: dir });
    const key = parsePublicKey(fs.readFileSync(path.join(dir, 'v.pub'), 'utf8'));
    const minisig = fs.readFileSync(path.join(dir, 'v.minisig'), 'utf8');
    assert.equal(parseSignature(minisig).trustedComment, comment);
    const result = await check({ signatures: [{ reviewer: 'v', minisig }], trustedKeys: [key] });
    assert.deepEqual(result, { ok: true, validSigners: [key.keyIdHex], problems: [] });
  });
});
