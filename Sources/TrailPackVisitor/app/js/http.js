// What a server sends, read no further than what was asked for. A response's body is read by its
// stream reader, a chunk at a time, and the read is cancelled as soon as more than the limit has
// arrived: a server (or a CDN in front of it) that answers a range with the whole file, sends a
// 206 longer than the range, or a JSON document without end costs the app the limit and one
// chunk at most, never the whole answer in memory. Every body the app reads from the network goes
// through `streamBody` or `readBody`: the catalog's documents and the app's settings
// (catalog.js), a download and an update by part (downloader.js, updater.js), the ranges a tour's
// page reads out of a package on the server (`HttpSource` below), the control panel's preview
// (walk.js) and the hashing module (fasthash.js).

import { t } from './i18n.js';

/** A server that sent more than was asked for (or than the stated limit): the read was stopped. */
export class TooMuchError extends Error {
  /** @param {string} message @param {number} limit */
  constructor(message, limit) {
    super(message);
    this.name = 'TooMuchError';
    this.code = 'too-much';
    /** @type {number} */
    this.limit = limit;
  }
}

/** The error of a body longer than `limit`, in the app's words. @param {number} limit */
export const tooMuch = (limit) => new TooMuchError(t('http.tooMuch', { limit }), limit);

/**
 * Cancels `response`'s body (a body not read is otherwise still fetched, and held, by the
 * browser); a failure to cancel is nobody's concern.
 * @param {Response} response
 */
export async function discardBody(response) {
  await response?.body?.cancel?.().catch?.(() => {});
}

/**
 * Passes each chunk of `response`'s body to `onChunk` as it arrives, and stops at once (cancels
 * the read, then throws `makeError(limit)`) when the body would pass `limit` bytes: a chunk that
 * would is neither given to `onChunk` nor counted. A Content-Length above the limit is refused
 * before a byte is read. An error of `onChunk` or of the network also cancels the read, and is
 * thrown as it is.
 * @param {Response} response
 * @param {number} limit the most bytes taken (a whole number, 0 or more)
 * @param {(chunk: Uint8Array) => (void|Promise<void>)} onChunk
 * @param {(limit: number) => Error} [makeError] the error for a body over the limit (default: `tooMuch`)
 * @returns {Promise<number>} the bytes read (at most `limit`)
 */
export async function streamBody(response, limit, onChunk, makeError = tooMuch) {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`no limit of ${limit} bytes`);
  const declared = response.headers?.get?.('Content-Length') ?? null;
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > limit) {
    await discardBody(response);
    throw makeError(limit);
  }
  if (!response.body) return 0; // (a 204, a HEAD: no body at all)
  const reader = response.body.getReader();
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return received;
      if (value.length > limit - received) throw makeError(limit);
      received += value.length;
      await onChunk(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
}

/**
 * `response`'s whole body, at most `limit` bytes (`streamBody`'s cut-off), as one array.
 * @param {Response} response
 * @param {number} limit
 * @param {(limit: number) => Error} [makeError]
 * @returns {Promise<Uint8Array>}
 */
export async function readBody(response, limit, makeError = tooMuch) {
  const parts = [];
  const total = await streamBody(response, limit, (chunk) => { parts.push(chunk); }, makeError);
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * `response`'s whole body as a Blob of `type`, at most `limit` bytes (`streamBody`'s cut-off).
 * What arrives is folded into the Blob every 8 MiB, so the browser may keep a large body out of
 * the page's memory (as `response.blob()` does), and a body over the limit stops there.
 * @param {Response} response
 * @param {number} limit
 * @param {string} [type] the Blob's media type
 * @param {(limit: number) => Error} [makeError]
 * @returns {Promise<Blob>}
 */
export async function readBlob(response, limit, type = '', makeError = tooMuch) {
  let blob = new Blob([], { type });
  let parts = [];
  let pending = 0;
  await streamBody(response, limit, (chunk) => {
    parts.push(chunk);
    pending += chunk.length;
    if (pending >= 8 << 20) {
      blob = new Blob([blob, ...parts], { type });
      parts = [];
      pending = 0;
    }
  }, makeError);
  return parts.length > 0 ? new Blob([blob, ...parts], { type }) : blob;
}

/**
 * A byte source (`size`, `read`) over HTTP ranges of a file on a server: a tour's page reads its
 * first photo and its route out of the package before it is downloaded, a few small requests.
 * Each read is one `Range` request answered by a 206 of exactly that range (its Content-Range,
 * when the browser shows it, names it), of which exactly the bytes asked for are read: anything
 * longer is cut off as it arrives.
 */
export class HttpSource {
  /**
   * @param {string} url
   * @param {number} size the file's size (the catalog's)
   * @param {typeof fetch} [fetchImpl]
   */
  constructor(url, size, fetchImpl = globalThis.fetch.bind(globalThis)) {
    /** @type {string} */
    this.url = url;
    /** @type {number} */
    this.size = size;
    this.fetch = fetchImpl;
  }

  /**
   * Exactly `length` bytes from `offset`.
   * @param {number} offset
   * @param {number} length
   * @returns {Promise<Uint8Array>}
   */
  async read(offset, length) {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 ||
        offset + length > this.size) {
      throw new RangeError(`cannot read ${length} bytes at byte ${offset} of a file of ${this.size} bytes`);
    }
    if (length === 0) return new Uint8Array(0);
    const last = offset + length - 1;
    const response = await this.fetch(this.url, { headers: { Range: `bytes=${offset}-${last}` } });
    if (response.status !== 206) {
      await discardBody(response);
      throw new Error(t('http.notRange', { status: response.status }));
    }
    const range = response.headers.get('Content-Range');
    if (range !== null && range.trim() !== `bytes ${offset}-${last}/${this.size}`) {
      await discardBody(response);
      throw new Error(t('http.wrongRange'));
    }
    const bytes = await readBody(response, length);
    if (bytes.length !== length) throw new Error(t('http.shortRange', { received: bytes.length, length }));
    return bytes;
  }
}
