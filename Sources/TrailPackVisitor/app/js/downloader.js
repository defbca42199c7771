// Resumable download of one package into a file, hashed while the bytes arrive.
//
// The file is anything with the shape of a FileSystemSyncAccessHandle (getSize, read, write,
// truncate, flush): in the browser the download worker passes the Origin Private File System's
// handle; the tests pass one in memory. What is already stored is hashed again first (reading
// local bytes is fast), then the rest is asked for with `Range` and `If-Range` on the package's
// strong ETag, so a server holding other bytes answers with the whole file and we start over.

import { toHex } from './sha256.js';
import { createHashers } from './fasthash.js';
import { t } from './i18n.js';
import { streamBody } from './http.js';

/** A download that cannot go on, with `code`: 'http', 'size', 'range', 'network', 'aborted'. */
export class DownloadError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'DownloadError';
    this.code = code;
  }
}

/**
 * Downloads `url` into `file` until it holds `size` bytes.
 * @param {object} o
 * @param {string} o.url the package's download URL
 * @param {string} o.etag the strong ETag the bytes must keep between requests (`"<sha256>"`)
 * @param {number} o.size the size the catalog gives
 * @param {object} o.file a sync-access-handle-like file
 * @param {boolean} [o.prehash] also compute BLAKE2b-512 (what minisign signatures sign)
 * @param {typeof fetch} [o.fetch]
 * @param {(received: number) => void} [o.onProgress]
 * @param {AbortSignal} [o.signal]
 * @param {number} [o.retries] network failures tolerated in a row before giving up
 * @param {(ms: number) => Promise<void>} [o.sleep]
 * @param {(seconds: number) => void} [o.onRetry] told before each wait for another try
 * @param {(step: string) => void} [o.onStep] told when the first answer arrives ('response'), when the last
 *   byte is stored ('received') and when the digests are known ('hashed')
 * @param {(prehash: boolean) => Promise<object>} [o.hasher] makes the hashing sink (default: in this thread;
 *   the download worker passes one that hashes in a second worker, in parallel with the download)
 * @returns {Promise<{sha256: string, blake2b: Uint8Array|null, reprDigest: string|null, requests: number}>}
 */
export async function downloadInto(o) {
  const hasher = await (o.hasher ?? inlineHasher)(Boolean(o.prehash));
  try {
    return await download(o, hasher);
  } finally {
    hasher.close?.();
  }
}

async function download(o, hasher) {
  const fetchImpl = o.fetch ?? globalThis.fetch.bind(globalThis);
  const sleep = o.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  const retries = o.retries ?? 6;
  const file = o.file;
  let have = file.getSize();
  if (have > o.size) {
    file.truncate(0);
    have = 0;
  }
  // What is stored already: hashed again so that the digest covers every byte.
  const buffer = new Uint8Array(1 << 20);
  for (let at = 0; at < have;) {
    const n = file.read(buffer.subarray(0, Math.min(buffer.length, have - at)), { at });
    if (n <= 0) {
      have = at;
      file.truncate(at);
      break;
    }
    await hasher.update(buffer.slice(0, n));
    at += n;
  }
  o.onProgress?.(have);
  let reprDigest = null;
  let requests = 0;
  let failures = 0;
  let sinceFlush = 0;
  while (have < o.size) {
    if (o.signal?.aborted) throw new DownloadError('aborted', t('download.paused'));
    const headers = {};
    if (have > 0) {
      headers.Range = `bytes=${have}-`;
      headers['If-Range'] = o.etag;
    }
    let response;
    try {
      requests += 1;
      response = await fetchImpl(o.url, { headers, cache: 'no-store', signal: o.signal });
    } catch (error) {
      if (o.signal?.aborted) throw new DownloadError('aborted', t('download.paused'));
      failures += 1;
      if (failures > retries) {
        throw new DownloadError('network', t('download.lost'));
      }
      await pauseBeforeRetry(o, sleep, failures);
      continue;
    }
    if (response.status === 206) {
      const header = response.headers.get('Content-Range');
      const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header ?? '');
      // A CDN on another origin that does not expose Content-Range to scripts (CORS): the part is
      // taken when its length is the rest of the file (the whole file's SHA-256 is checked anyway).
      const hidden = header === null && Number(response.headers.get('Content-Length')) === o.size - have;
      if (!hidden && (!range || Number(range[1]) !== have || Number(range[3]) !== o.size)) {
        await response.body?.cancel();
        throw new DownloadError('range', t('download.wrongPart'));
      }
    } else if (response.status === 200) {
      if (have > 0) {
        // The server sent the whole file (its bytes changed, or it does not resume): start again.
        file.truncate(0);
        have = 0;
        await hasher.reset();
        o.onProgress?.(0);
      }
      const length = response.headers.get('Content-Length');
      if (length !== null && Number(length) !== o.size) {
        await response.body?.cancel();
        throw new DownloadError('size', t('download.sizeWrong', { sent: String(length), size: String(o.size) }));
      }
    } else {
      await response.body?.cancel();
      throw new DownloadError('http', t('download.http', { status: String(response.status) }));
    }
    if (requests === 1) o.onStep?.('response');
    reprDigest ??= response.headers.get('Repr-Digest');
    const had = have;
    try {
      // Never more than the rest of the file: a longer body is cut off as it arrives (http.js).
      await streamBody(response, o.size - have, async (value) => {
        let written = 0;
        while (written < value.length) {
          written += file.write(value.subarray(written), { at: have + written });
        }
        const length = value.length;
        await hasher.update(value); // (the hasher may take the chunk's buffer: not used after this)
        have += length;
        sinceFlush += length;
        // A flush is an fsync: written bytes survive a closed tab without it, a power cut needs it.
        if (sinceFlush >= 64 << 20) {
          file.flush();
          sinceFlush = 0;
        }
        failures = 0;
        o.onProgress?.(have);
      }, () => new DownloadError('size', t('download.sizeMore', { size: String(o.size) })));
    } catch (error) {
      if (error instanceof DownloadError) throw error;
      if (o.signal?.aborted) {
        file.flush();
        throw new DownloadError('aborted', t('download.paused'));
      }
      failures += 1;
      if (failures > retries) {
        file.flush();
        throw new DownloadError('network', t('download.lost'));
      }
      await pauseBeforeRetry(o, sleep, failures);
    }
    file.flush();
    sinceFlush = 0;
    if (have === had && have < o.size) {
      // An answer that brought nothing (an empty body, a broken server) counts as a failure, with
      // the same pause: never a tight loop of requests.
      failures += 1;
      if (failures > retries) {
        throw new DownloadError('network', t('download.silent'));
      }
      await pauseBeforeRetry(o, sleep, failures);
    }
  }
  o.onStep?.('received');
  const digests = await hasher.digest();
  o.onStep?.('hashed');
  return { ...digests, reprDigest, requests };
}

/** Waits before trying again (0.5 s doubling to 30 s), saying how long first. */
async function pauseBeforeRetry(o, sleep, failures) {
  const ms = Math.min(30000, 500 * 2 ** failures);
  o.onRetry?.(Math.ceil(ms / 1000));
  await sleep(ms);
}

/**
 * Hashes in this thread: SHA-256 (and BLAKE2b-512 with `prehash`), WebAssembly where the browser
 * allows it (several times the pure JS ones), else JS.
 * @param {boolean} prehash
 */
export async function inlineHasher(prehash) {
  let sha;
  let b2;
  const reset = async () => {
    const made = await createHashers({ sha256: true, blake2b: prehash });
    [sha, b2] = [made.sha256, made.blake2b];
  };
  await reset();
  return {
    update(bytes) {
      sha.update(bytes);
      b2?.update(bytes);
    },
    reset,
    async digest() {
      return { sha256: toHex(sha.digest()), blake2b: b2 ? b2.digest() : null };
    },
  };
}

/**
 * The SHA-256 a `Repr-Digest` header names (`sha-256=:BASE64:`), as hex, or null.
 * @param {string|null} header
 * @returns {string|null}
 */
export function reprDigestSHA256(header) {
  if (!header) return null;
  const match = /(?:^|,)\s*sha-256=:([A-Za-z0-9+/=]+):/.exec(header);
  if (!match) return null;
  let binary;
  try {
    binary = atob(match[1]);
  } catch {
    return null;
  }
  if (binary.length !== 32) return null;
  let hex = '';
  for (let i = 0; i < binary.length; i++) hex += binary.charCodeAt(i).toString(16).padStart(2, '0');
  return hex;
}
