// An update by part, carried out: the plan of update-plan.js (the Swift client's PackageUpdater)
// against a server and the installed package. Every request is one single range with `If-Range`
// on the package's strong ETag and must come back as a 206 of exactly that range of a file of the
// catalog's size, with exactly that many bytes; the new file is written in order into an empty
// file (the download's part file) and hashed as it is written, and must hash to the catalog's
// SHA-256. Anything else is an `UpdateRefusal`: the caller empties the file and downloads it
// whole (a pause is downloader.js's DownloadError 'aborted'). The installed package is only read.

import { openZip } from './zip.js';
import { DownloadError, downloadInto, inlineHasher } from './downloader.js';
import { t } from './i18n.js';
import { streamBody } from './http.js';
import {
  KnownBytes, UpdateRefusal, firstTailRange, locateDirectory, planUpdate, readDirectory, restampedHeader,
} from './update-plan.js';

export { UpdateRefusal };

/** The largest manifest read (FORMAT.md's limit). */
const MANIFEST_LIMIT = 32 << 20;
/** Installed bytes are copied this much at a time. */
const COPY_CHUNK = 1 << 20;

/**
 * A package into `o.file`: by part from `o.installed` when there is one, else (and after any
 * refusal, the file emptied first) the whole resumable download of downloader.js.
 * @param {object} o `downloadInto`'s options, and:
 * @param {{size: number, read: Function}|null} [o.installed] the installed older version
 * @param {string} [o.sha256] the catalog's SHA-256 (needed by part)
 * @param {(reason: string) => void} [o.onFallback] told why the update by part was given up, before the whole download
 * @returns {Promise<{sha256: string, blake2b: Uint8Array|null, reprDigest: string|null, mode: 'by-part'|'full',
 *   fallback: string|null, report: object|null}>}
 */
export async function fetchPackage(o) {
  let fallback = null;
  if (o.installed) {
    try {
      const result = await updateByPart(o);
      return { ...result, mode: 'by-part', fallback: null };
    } catch (error) {
      if (!(error instanceof UpdateRefusal)) throw error;
      fallback = error.message;
      o.file.truncate(0);
      o.onFallback?.(fallback);
    }
  }
  const result = await downloadInto(o);
  return { ...result, mode: 'full', fallback, report: null };
}

/**
 * Puts the new package together in `o.file` from the installed one and the ranges that changed.
 * @param {object} o
 * @param {string} o.url the new package's download URL
 * @param {string} o.etag its strong ETag (`"<sha256>"`): every request's `If-Range`
 * @param {number} o.size the size the catalog gives
 * @param {string} o.sha256 the SHA-256 the catalog gives (hex)
 * @param {{size: number, read: (offset: number, length: number) => Promise<Uint8Array>}} o.installed
 *   the installed package (a BlobSource over its stored file)
 * @param {object} o.file a sync-access-handle-like file (getSize, write, truncate, flush), emptied first
 * @param {boolean} [o.prehash] also compute BLAKE2b-512 (what minisign signatures sign)
 * @param {(prehash: boolean) => Promise<object>} [o.hasher] makes the hashing sink (as downloader.js's)
 * @param {typeof fetch} [o.fetch]
 * @param {AbortSignal} [o.signal]
 * @param {(written: number) => void} [o.onProgress]
 * @returns {Promise<{sha256: string, blake2b: Uint8Array|null, reprDigest: string|null, report: {
 *   fetchedBytes: number, reusedBytes: number, requests: number, entriesReused: number, entriesFetched: number,
 *   ranges: [number, number][]}}>} `ranges`: every range asked for, `[start, end)`, in order
 */
export async function updateByPart(o) {
  if (!Number.isSafeInteger(o.size) || o.size <= 22) throw new UpdateRefusal('the package is too small to update by part');
  if (!/^[0-9a-f]{64}$/.test(o.sha256 ?? '')) throw new UpdateRefusal('the catalog gives no SHA-256 for the package');
  const hasher = await (o.hasher ?? inlineHasher)(Boolean(o.prehash));
  try {
    return await rebuild(o, hasher);
  } catch (error) {
    if (error instanceof UpdateRefusal || error instanceof DownloadError) throw error;
    throw new UpdateRefusal(error?.message ?? String(error));
  } finally {
    hasher.close?.();
  }
}

async function rebuild(o, hasher) {
  const fetchImpl = o.fetch ?? globalThis.fetch.bind(globalThis);
  const report = { fetchedBytes: 0, reusedBytes: 0, requests: 0, entriesReused: 0, entriesFetched: 0, ranges: [] };
  const state = { reprDigest: null };
  const range = (start, end, sink) => fetchRange(fetchImpl, o, start, end, sink, report, state);
  const inMemory = async (start, end) => {
    const parts = [];
    await range(start, end, (bytes) => parts.push(bytes.slice()));
    const out = new Uint8Array(end - start);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };

  // 1. The installed package, read as the app reads it: its directory and its manifest.
  let old;
  let oldManifest;
  try {
    old = await openZip(o.installed);
    const entry = old.entry('manifest.json');
    oldManifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(await old.bytes(entry, MANIFEST_LIMIT)));
  } catch (error) {
    throw new UpdateRefusal(`the installed package cannot be read (${error.message})`);
  }

  // 2. The new file's end: end records and central directory (usually one range, sized from the
  // installed directory; a second one when the directory grew past it).
  const known = new KnownBytes(o.size);
  let { start: tailStart } = firstTailRange(o.size, o.installed.size - old.directoryOffset);
  known.add(tailStart, await inMemory(tailStart, o.size));
  let directory = null;
  for (let tries = 0; tries < 3 && !directory; tries++) {
    const found = await locateDirectory(known, tailStart);
    if ('directory' in found) {
      directory = found.directory;
    } else {
      known.add(found.need.start, await inMemory(found.need.start, found.need.end));
      tailStart = found.need.start;
    }
  }
  if (!directory) throw new UpdateRefusal('the new package\'s central directory could not be found');
  const fresh = await readDirectory(known);

  // 3. The new manifest (always changed: it holds the version), for the assets' SHA-256.
  const manifestEntry = fresh.entry('manifest.json');
  if (!manifestEntry || manifestEntry.localHeaderOffset !== 0) {
    throw new UpdateRefusal('the new package does not start with manifest.json');
  }
  const next = Math.min(fresh.directoryOffset,
    ...fresh.entries.filter((e) => e.localHeaderOffset > 0).map((e) => e.localHeaderOffset));
  if (!known.covers(0, next)) known.add(0, await inMemory(0, next));
  let newManifest;
  try {
    newManifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(await fresh.bytes(manifestEntry,
      MANIFEST_LIMIT)));
  } catch (error) {
    throw new UpdateRefusal(`the new package's manifest cannot be read (${error.message})`);
  }

  // 4. The plan.
  const plan = planUpdate(
    { entries: old.entries, directoryOffset: old.directoryOffset, manifest: oldManifest },
    { entries: fresh.entries, directoryOffset: fresh.directoryOffset, size: o.size, manifest: newManifest });
  const manifestHeader = await known.read(0, (await fresh.dataRange(manifestEntry)).start);

  // 5. The new file, in order, hashed as it is written.
  const file = o.file;
  file.truncate(0);
  let written = 0;
  const write = async (bytes, at) => {
    if (at !== written) throw new UpdateRefusal(`the plan skips from byte ${written} to ${at}`);
    let done = 0;
    while (done < bytes.length) done += file.write(bytes.subarray(done), { at: at + done });
    await hasher.update(bytes.slice()); // (a copy: the hasher may take its buffer)
    written += bytes.length;
    o.onProgress?.(written);
  };
  await write(await known.read(plan.manifest.start, plan.manifest.end - plan.manifest.start), 0);
  const byName = new Map(old.entries.map((e) => [e.name, e]));
  for (const piece of plan.pieces) {
    if (o.signal?.aborted) throw new DownloadError('aborted', t('download.paused'));
    if (piece.kind === 'copy') {
      // The installed header (checked against its directory record by the reader) with the new
      // time, then its data and data descriptor as they are.
      const entry = byName.get(piece.name);
      const { start: dataStart } = await old.dataRange(entry);
      const header = await o.installed.read(piece.from.start, dataStart - piece.from.start);
      await write(restampedHeader(header, manifestHeader), piece.start);
      for (let at = dataStart; at < piece.from.end;) {
        const n = Math.min(COPY_CHUNK, piece.from.end - at);
        await write(await o.installed.read(at, n), piece.start + (at - piece.from.start));
        at += n;
      }
      report.reusedBytes += entry.compressedSize;
      report.entriesReused += 1;
    } else if (known.covers(piece.start, piece.end)) {
      await write(await known.read(piece.start, piece.end - piece.start), piece.start); // within the end fetched
    } else {
      let at = piece.start;
      await range(piece.start, piece.end, async (bytes) => {
        await write(bytes, at);
        at += bytes.length;
      });
    }
  }
  report.entriesFetched = fresh.entries.length - report.entriesReused;
  await write(await known.read(plan.directory.start, plan.directory.end - plan.directory.start), plan.directory.start);
  file.flush();

  // 6. Exactly the published bytes, or nothing.
  const digests = await hasher.digest();
  if (written !== o.size || digests.sha256 !== o.sha256) {
    throw new UpdateRefusal(`the package put together by part hashes to ${digests.sha256}, not the catalog's SHA-256`);
  }
  return { ...digests, reprDigest: state.reprDigest, report };
}

/**
 * One single range, `[start, end)`: a 206 whose Content-Range is exactly that range of a file of
 * the catalog's size, whose ETag (when the browser shows it) is the one asked for, with exactly
 * that many bytes; each chunk goes to `sink` as it arrives.
 */
async function fetchRange(fetchImpl, o, start, end, sink, report, state) {
  if (!(start >= 0 && start < end && end <= o.size)) throw new UpdateRefusal(`no range ${start}-${end} to ask for`);
  report.requests += 1;
  report.ranges.push([start, end]);
  let response;
  try {
    response = await fetchImpl(o.url, {
      headers: { Range: `bytes=${start}-${end - 1}`, 'If-Range': o.etag }, cache: 'no-store', signal: o.signal,
    });
  } catch (error) {
    if (o.signal?.aborted) throw new DownloadError('aborted', t('download.paused'));
    throw new UpdateRefusal(`the connection broke (${error?.message ?? error})`);
  }
  const refuse = async (reason) => {
    await response.body?.cancel().catch(() => {});
    throw new UpdateRefusal(reason);
  };
  if (response.status !== 206) await refuse(`the server answered a range request with ${response.status}, not 206`);
  const expected = `bytes ${start}-${end - 1}/${o.size}`;
  const contentRange = response.headers.get('Content-Range');
  if (contentRange !== expected) await refuse(`the server sent '${contentRange ?? ''}', not '${expected}'`);
  const etag = response.headers.get('ETag');
  if (etag !== null && etag !== o.etag) await refuse(`the server sent the range of another file (ETag ${etag})`);
  state.reprDigest ??= response.headers.get('Repr-Digest');
  let received = 0;
  try {
    // Exactly the range: a longer body is cut off as it arrives (http.js), its extra chunk unread.
    await streamBody(response, end - start, async (value) => {
      received += value.length;
      report.fetchedBytes += value.length;
      await sink(value);
    }, () => new UpdateRefusal('the server sent more than the range asked for'));
  } catch (error) {
    if (error instanceof UpdateRefusal) throw error;
    if (o.signal?.aborted) throw new DownloadError('aborted', t('download.paused'));
    throw new UpdateRefusal(`the connection broke (${error?.message ?? error})`);
  }
  if (received !== end - start) throw new UpdateRefusal(`the range ended after ${received} of ${end - start} bytes`);
}
