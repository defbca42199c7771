// Tests of the visitor app's WebAssembly hashes (Sources/TrailPackVisitor/app/js/fasthash.js and hashes.wasm,
// built from Sources/TrailPackVisitor/wasm/hashes.wat). Run with `node --test Tests/VisitorAppJS/fasthash.test.mjs`.
//
// Independent references: Node's crypto (OpenSSL's SHA-256 and BLAKE2b-512), the published test vectors, and the
// app's pure JavaScript classes (sha256.js, blake2b.js). The binary must be what wat2wasm makes of the source
// (skipped, with the reason, when wabt's wat2wasm is not installed).

import { nodeHash, randomBytes, xorshift32 as prng } from './support.mjs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import nodeCrypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { createHashers } from '../../Sources/TrailPackVisitor/app/js/fasthash.js';
import { SHA256, toHex } from '../../Sources/TrailPackVisitor/app/js/sha256.js';
import { BLAKE2b512 } from '../../Sources/TrailPackVisitor/app/js/blake2b.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WAT = path.join(ROOT, 'Sources/TrailPackVisitor/wasm/hashes.wat');
const WASM = path.join(ROOT, 'Sources/TrailPackVisitor/app/js/hashes.wasm');
const FASTHASH = path.join(ROOT, 'Sources/TrailPackVisitor/app/js/fasthash.js');
const MiB = 1 << 20;

/** Whether `program` runs. */
function hasProgram(program, args = ['--version']) {
  try {
    execFileSync(program, args, { stdio: 'ignore', timeout: 20000 });
    return true;
  } catch (error) {
    return error.code !== 'ENOENT';
  }
}

const utf8 = (s) => new TextEncoder().encode(s);


/** Feeds `bytes` to `hasher` in pieces of the given sizes (the rest in one last piece) and digests it, as hex. */
function hashInPieces(hasher, bytes, sizes) {
  let start = 0;
  for (const size of sizes) {
    const end = Math.min(bytes.length, start + size);
    hasher.update(bytes.subarray(start, end));
    start = end;
  }
  hasher.update(bytes.subarray(start));
  return toHex(hasher.digest());
}

/** Both hashers from the wasm engine (asserting that it is the wasm engine). */
async function wasmHashers() {
  const h = await createHashers({ sha256: true, blake2b: true });
  assert.equal(h.engine, 'wasm');
  return h;
}

/**
 * Checks both wasm hashers against Node's crypto and the pure JS classes for `bytes` fed in `sizes`.
 * @param {Uint8Array} bytes
 * @param {number[]} sizes
 */
async function checkAll(bytes, sizes, label) {
  const h = await wasmHashers();
  const sha = hashInPieces(h.sha256, bytes, sizes);
  const b2 = hashInPieces(h.blake2b, bytes, sizes);
  assert.equal(sha, nodeHash('sha256', bytes), `SHA-256 vs Node, ${label}`);
  assert.equal(b2, nodeHash('blake2b512', bytes), `BLAKE2b-512 vs Node, ${label}`);
  assert.equal(sha, hashInPieces(new SHA256(), bytes, sizes), `SHA-256 vs sha256.js, ${label}`);
  assert.equal(b2, hashInPieces(new BLAKE2b512(), bytes, sizes), `BLAKE2b-512 vs blake2b.js, ${label}`);
}

// ---------------------------------------------------------------------------------------------------------

describe('createHashers', () => {
  test('uses WebAssembly in Node, and gives only the hashers asked for', async () => {
    const both = await createHashers({ sha256: true, blake2b: true });
    assert.equal(both.engine, 'wasm');
    assert.ok(both.sha256 && both.blake2b);
    const plain = await createHashers();
    assert.equal(plain.engine, 'wasm');
    assert.ok(plain.sha256);
    assert.equal(plain.blake2b, null);
    const b2only = await createHashers({ sha256: false, blake2b: true });
    assert.equal(b2only.sha256, null);
    assert.ok(b2only.blake2b);
  });

  test('behaves like the JS classes: update() chains, takes only bytes, and ends with digest()', async () => {
    const h = await wasmHashers();
    assert.equal(h.sha256.update(utf8('a')), h.sha256);
    assert.equal(h.blake2b.update(utf8('a')), h.blake2b);
    assert.throws(() => h.sha256.update('text'), TypeError);
    assert.throws(() => h.blake2b.update([1, 2, 3]), TypeError);
    const sha = h.sha256.digest();
    const b2 = h.blake2b.digest();
    assert.equal(sha.length, 32);
    assert.equal(b2.length, 64);
    assert.deepEqual(h.sha256.digest(), sha);
    assert.deepEqual(h.blake2b.digest(), b2);
    sha[0] ^= 1; // the caller's copy
    assert.equal(toHex(h.sha256.digest()), nodeHash('sha256', utf8('a')));
    assert.throws(() => h.sha256.update(utf8('b')), /after digest/);
    assert.throws(() => h.blake2b.update(utf8('b')), /after digest/);
  });

  test('falls back to the pure JS classes where WebAssembly is missing (node --jitless)', () => {
    const script = `
      const { createHashers } = await import(${JSON.stringify(pathToFileURL(FASTHASH).href)});
      const h = await createHashers({ sha256: true, blake2b: true });
      h.sha256.update(new TextEncoder().encode('abc'));
      h.blake2b.update(new TextEncoder().encode('abc'));
      const hex = (u) => Buffer.from(u).toString('hex');
      console.log(JSON.stringify({ engine: h.engine, wasm: typeof WebAssembly, sha: hex(h.sha256.digest()),
        b2: hex(h.blake2b.digest()) }));`;
    const out = execFileSync(process.execPath, ['--jitless', '--input-type=module', '-e', script], {
      encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60000,
    });
    const result = JSON.parse(out.trim().split('\n').pop());
    assert.equal(result.wasm, 'undefined');
    assert.equal(result.engine, 'js');
    assert.equal(result.sha, nodeHash('sha256', utf8('abc')));
    assert.equal(result.b2, nodeHash('blake2b512', utf8('abc')));
  });
});

describe('known vectors', () => {
  test('SHA-256 (FIPS 180-2): empty, "abc", 448 bits, a million "a"', async () => {
    const cases = [
      ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
      ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
      [
        'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
        '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
      ],
    ];
    for (const [message, expected] of cases) {
      const h = await wasmHashers();
      assert.equal(toHex(h.sha256.update(utf8(message)).digest()), expected, JSON.stringify(message));
    }
    const million = new Uint8Array(1000000).fill(0x61);
    const expected = 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0';
    assert.equal(toHex((await wasmHashers()).sha256.update(million).digest()), expected);
    assert.equal(hashInPieces((await wasmHashers()).sha256, million, new Array(999).fill(1000)), expected);
    assert.equal(hashInPieces((await wasmHashers()).sha256, million, new Array(15000).fill(61)), expected);
  });

  test('BLAKE2b-512 (RFC 7693 appendix A): "abc"; and the empty message', async () => {
    const abc =
      'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1' +
      '7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923';
    const empty =
      '786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419' +
      'd25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce';
    assert.equal(toHex((await wasmHashers()).blake2b.update(utf8('abc')).digest()), abc);
    assert.equal(toHex((await wasmHashers()).blake2b.digest()), empty);
    assert.equal(toHex((await wasmHashers()).blake2b.update(new Uint8Array(0)).digest()), empty);
    assert.equal(hashInPieces((await wasmHashers()).blake2b, utf8('abc'), [1, 0, 1]), abc);
  });
});

describe('against Node crypto and the JS classes', () => {
  test('every length 0..1000 (random bytes), whole and in random pieces', async () => {
    const next = prng(0x5eed);
    for (let n = 0; n <= 1000; n++) {
      const bytes = randomBytes(n, next);
      await checkAll(bytes, [], `length ${n} whole`);
      const sizes = [];
      for (let left = n; left > 0;) {
        const size = next() % 300;
        sizes.push(size);
        left -= size;
      }
      await checkAll(bytes, sizes, `length ${n} in pieces ${sizes.join(',')}`);
    }
  });

  test('pieces around the block sizes: 63/64/65 and 127/128/129 bytes', async () => {
    const next = prng(42);
    const bytes = randomBytes(5000, next);
    for (const size of [1, 63, 64, 65, 127, 128, 129]) {
      await checkAll(bytes, new Array(Math.ceil(5000 / size)).fill(size), `pieces of ${size}`);
    }
    for (const pattern of [[63, 1, 64], [65, 63], [127, 1, 128, 129, 127], [128, 128, 0, 128], [129, 127, 1]]) {
      const sizes = [];
      while (sizes.length < 200) sizes.push(...pattern);
      await checkAll(bytes, sizes, `pieces ${pattern.join('/')}`);
    }
    for (const length of [63, 64, 65, 119, 120, 127, 128, 129, 255, 256, 257]) {
      await checkAll(bytes.subarray(0, length), [], `length ${length}`);
      await checkAll(bytes.subarray(0, length), [length], `length ${length} then an empty update`);
    }
  });

  test('pieces larger than the 1 MiB input buffer (3 MiB in one update) and around its size', async () => {
    const next = prng(7);
    const bytes = randomBytes(3 * MiB + 77, next);
    await checkAll(bytes.subarray(0, 3 * MiB), [], '3 MiB in one update');
    await checkAll(bytes, [], '3 MiB + 77 in one update');
    await checkAll(bytes, [5, 3 * MiB], 'a partial block, then 3 MiB');
    await checkAll(bytes, [MiB - 1, MiB, MiB + 1], 'pieces of 1 MiB - 1, 1 MiB, 1 MiB + 1');
    await checkAll(bytes.subarray(0, 2 * MiB), [MiB], 'exactly two buffers');
    await checkAll(bytes.subarray(1, 2 * MiB + 129), [127, MiB + 2], 'an unaligned view');
  });

  test('hashers interleaved: independent results, within one instance and across instances', async () => {
    const next = prng(99);
    const x = randomBytes(300000, next);
    const y = randomBytes(200001, next);
    const one = await wasmHashers();
    const two = await wasmHashers();
    const three = await createHashers({ sha256: true, blake2b: true });
    // one: x; two: y; three: y then x; pieces alternate between them.
    const pieces = [1, 64, 1000, 65, 128, 4095, 129, 70000, 3];
    let ox = 0;
    let oy = 0;
    let o3 = 0;
    const yx = new Uint8Array(y.length + x.length);
    yx.set(y);
    yx.set(x, y.length);
    for (let i = 0; ox < x.length || oy < y.length || o3 < yx.length; i++) {
      const size = pieces[i % pieces.length];
      const px = x.subarray(ox, (ox += size));
      const py = y.subarray(oy, (oy += size + 1));
      const p3 = yx.subarray(o3, (o3 += size * 2));
      one.sha256.update(px);
      two.blake2b.update(py);
      three.sha256.update(p3);
      one.blake2b.update(px);
      two.sha256.update(py);
      three.blake2b.update(p3);
    }
    assert.equal(toHex(one.sha256.digest()), nodeHash('sha256', x));
    assert.equal(toHex(one.blake2b.digest()), nodeHash('blake2b512', x));
    assert.equal(toHex(two.sha256.digest()), nodeHash('sha256', y));
    assert.equal(toHex(two.blake2b.digest()), nodeHash('blake2b512', y));
    assert.equal(toHex(three.sha256.digest()), nodeHash('sha256', yx));
    assert.equal(toHex(three.blake2b.digest()), nodeHash('blake2b512', yx));
  });

  test('a 512 MiB + 5 byte stream: SHA-256 with a length word above 2^32 bits (and BLAKE2b)', async () => {
    // 2^29 bytes are 2^32 bits: the high 32-bit half of the length field is 1 here.
    const chunk = randomBytes(MiB, prng(512));
    const h = await wasmHashers();
    const reference = nodeCrypto.createHash('sha256');
    const blake = nodeCrypto.createHash('blake2b512');
    for (let i = 0; i < 512; i++) {
      chunk[i] ^= 0xa5; // every MiB differs
      h.sha256.update(chunk);
      h.blake2b.update(chunk);
      reference.update(chunk);
      blake.update(chunk);
    }
    const tail = utf8('tail!');
    h.sha256.update(tail);
    h.blake2b.update(tail);
    reference.update(tail);
    blake.update(tail);
    assert.equal(toHex(h.sha256.digest()), reference.digest('hex'));
    assert.equal(toHex(h.blake2b.digest()), blake.digest('hex'));
  });
});

describe('the binary', () => {
  const WAT2WASM = hasProgram('wat2wasm') ? false : "wabt's wat2wasm is not installed (apt-get install wabt)";

  test('hashes.wasm is exactly what wat2wasm makes of hashes.wat', { skip: WAT2WASM }, () => {
    // The command at the top of hashes.wat.
    const header = fs.readFileSync(WAT, 'utf8').split('\n').slice(0, 8).join('\n');
    assert.match(header, /^;;\s+wat2wasm hashes\.wat -o \.\.\/app\/js\/hashes\.wasm$/m);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'visitor-wasm-'));
    try {
      const out = path.join(dir, 'hashes.wasm');
      execFileSync('wat2wasm', ['hashes.wat', '-o', out], { cwd: path.dirname(WAT), stdio: 'pipe', timeout: 60000 });
      const same = fs.readFileSync(out).equals(fs.readFileSync(WASM));
      assert.ok(same, 'hashes.wasm is not what hashes.wat compiles to: regenerate it (the command atop hashes.wat)');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('speed of wasm and pure JS (a diagnostic, not asserted)', async (t) => {
    const data = randomBytes(4 * MiB, prng(3));
    const rounds = 16; // 64 MiB a measurement
    /** MB/s (10^6 bytes) of `hasher`, in 1 MiB pieces; the best of three. */
    const speed = async (make) => {
      let best = 0;
      for (let attempt = 0; attempt < 3; attempt++) {
        const hasher = await make();
        const start = performance.now();
        for (let r = 0; r < rounds; r++) {
          for (let o = 0; o < data.length; o += MiB) hasher.update(data.subarray(o, o + MiB));
        }
        hasher.digest();
        best = Math.max(best, (rounds * data.length) / 1e6 / ((performance.now() - start) / 1000));
      }
      return best.toFixed(0);
    };
    const sha = [await speed(async () => (await wasmHashers()).sha256), await speed(async () => new SHA256())];
    const b2 = [await speed(async () => (await wasmHashers()).blake2b), await speed(async () => new BLAKE2b512())];
    t.diagnostic(`SHA-256: wasm ${sha[0]} MB/s, js ${sha[1]} MB/s`);
    t.diagnostic(`BLAKE2b-512: wasm ${b2[0]} MB/s, js ${b2[1]} MB/s`);
  });
});
