// Tests of the visitor app's icons (issue #51): every icon the web app manifest marks maskable
// keeps its artwork inside the safe zone — a circle of 40 % of the icon's size around its centre
// (205 px of 512, 77 px of 192) — so that round launchers do not clip it. The PNGs are decoded
// here (zlib from node:zlib, the five PNG filters). Run with `node --test Tests/VisitorAppJS/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { deflateSync, inflateSync } from 'node:zlib';

const APP = new URL('../../Sources/TrailPackVisitor/app/', import.meta.url);

/** A PNG's width, height and RGBA pixels (8-bit gray, RGB, gray+alpha or RGBA; no interlace). */
export function decodePNG(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'not a PNG');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 8;
  let header = null;
  const data = [];
  while (at < bytes.length) {
    const length = view.getUint32(at);
    const kind = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (kind === 'IHDR') {
      header = { width: view.getUint32(at + 8), height: view.getUint32(at + 12), depth: body[8], type: body[9], interlace: body[12] };
    } else if (kind === 'IDAT') data.push(body);
    else if (kind === 'IEND') break;
    at += 12 + length;
  }
  assert.ok(header, 'no IHDR');
  assert.equal(header.depth, 8, 'only 8-bit samples are read here');
  assert.equal(header.interlace, 0, 'interlaced PNGs are not read here');
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[header.type];
  assert.ok(channels, `colour type ${header.type} is not read here`);
  const raw = inflateSync(Buffer.concat(data));
  const stride = header.width * channels;
  const out = new Uint8Array(header.width * header.height * 4);
  let previous = new Uint8Array(stride);
  for (let y = 0; y < header.height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? row[i - channels] : 0;
      const b = previous[i];
      const c = i >= channels ? previous[i - channels] : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a); const pb = Math.abs(p - b); const pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else assert.equal(filter, 0, `row ${y}: filter ${filter}`);
      row[i] = (line[i] + predictor) & 0xff;
    }
    for (let x = 0; x < header.width; x++) {
      const s = row.subarray(x * channels, (x + 1) * channels);
      const rgba = channels === 1 ? [s[0], s[0], s[0], 255] : channels === 2 ? [s[0], s[0], s[0], s[1]]
        : channels === 3 ? [s[0], s[1], s[2], 255] : [...s];
      out.set(rgba, (y * header.width + x) * 4);
    }
    previous = row;
  }
  return { width: header.width, height: header.height, pixels: out };
}

/** The farthest distance from the centre, in pixels, of an opaque pixel unlike the background (the corner's colour). */
function artworkReach({ width, height, pixels }) {
  const background = pixels.subarray(0, 4);
  let far = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = pixels.subarray((y * width + x) * 4, (y * width + x) * 4 + 4);
      if (p[3] === 0) continue;
      const differs = Math.abs(p[0] - background[0]) + Math.abs(p[1] - background[1]) + Math.abs(p[2] - background[2]) > 24;
      if (differs) far = Math.max(far, Math.hypot(x + 0.5 - width / 2, y + 0.5 - height / 2));
    }
  }
  return far;
}

const manifest = JSON.parse(readFileSync(new URL('manifest.webmanifest', APP), 'utf8'));
const maskable = manifest.icons.filter((icon) => String(icon.purpose ?? '').split(/\s+/).includes('maskable'));

describe('the maskable icons', () => {
  test('the manifest names maskable PNGs of 192 and 512 px', () => {
    assert.deepEqual(maskable.map((icon) => icon.sizes).sort(), ['192x192', '512x512']);
  });

  for (const icon of maskable) {
    test(`${icon.src}: its artwork lies within the safe zone (40 % of its size from the centre)`, () => {
      const image = decodePNG(readFileSync(new URL(icon.src, APP)));
      assert.equal(`${image.width}x${image.height}`, icon.sizes);
      const limit = 0.4 * image.width; // 204.8 px of 512: the 205 px of the safe zone
      const reach = artworkReach(image);
      assert.ok(reach > 0.2 * image.width, `no artwork found (${reach} px)`);
      assert.ok(reach <= limit, `artwork reaches ${reach.toFixed(1)} px from the centre, beyond ${limit} px`);
    });
  }

  test('the full-bleed icon (not maskable) reaches beyond: the check sees the artwork it guards', () => {
    const reach = artworkReach(decodePNG(readFileSync(new URL('icons/icon-512.png', APP))));
    assert.ok(reach > 205, `${reach}`);
  });

  test('filters 1 to 4 decode as Node wrote them (a tiny PNG with every filter)', () => {
    // 2x5 RGB: rows with filters 0–4, pixel (x, y) = [10x + y, 20y, 3x + 7].
    const width = 2;
    const rows = [];
    let prior = new Uint8Array(6);
    const expect = [];
    for (let y = 0; y < 5; y++) {
      const row = new Uint8Array(6);
      for (let x = 0; x < width; x++) row.set([10 * x + y, 20 * y, 3 * x + 7], x * 3);
      expect.push(row);
      const encoded = new Uint8Array(6);
      for (let i = 0; i < 6; i++) {
        const a = i >= 3 ? row[i - 3] : 0; const b = prior[i]; const c = i >= 3 ? prior[i - 3] : 0;
        const p = a + b - c;
        const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
        encoded[i] = (row[i] - [0, a, b, (a + b) >> 1, paeth][y]) & 0xff;
      }
      rows.push(Buffer.from([y]), Buffer.from(encoded));
      prior = row;
    }
    const chunk = (kind, body) => {
      const out = Buffer.alloc(12 + body.length);
      out.writeUInt32BE(body.length, 0);
      out.write(kind, 4, 'latin1');
      body.copy(out, 8);
      return out;
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(width, 0);
    ihdr.writeUInt32BE(5, 4);
    ihdr[8] = 8;
    ihdr[9] = 2;
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
    const image = decodePNG(new Uint8Array(png));
    for (let y = 0; y < 5; y++) {
      for (let x = 0; x < width; x++) {
        assert.deepEqual([...image.pixels.subarray((y * width + x) * 4, (y * width + x) * 4 + 3)],
          [...expect[y].subarray(x * 3, x * 3 + 3)], `(${x}, ${y})`);
      }
    }
  });
});
