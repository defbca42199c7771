// The download worker: writes a package into the Origin Private File System through a sync
// access handle (in place, no copy on each commit), hashing as the bytes arrive, off the page's
// thread. With `installed` (the stored file of an older version of the tour) it first puts the
// package together by part (updater.js) and downloads it whole only if that is refused. Messages
// in: {type: 'start', name, url, etag, size, sha256, prehash, installed}. Out: {type: 'progress',
// received}, {type: 'fallback', reason}, {type: 'done', sha256, blake2b, reprDigest, mode,
// fallback, report, tour, marks}, {type: 'error', code, message}. `tour` is the package's manifest
// as read back from the file: {manifest}, {error} (the package's), or {readError} (the file's). `marks` are [step, time] pairs (times
// from the epoch in milliseconds) the page puts on its performance timeline (install.js).

import { DownloadError } from './downloader.js';
import { BlobSource, HandleSource } from './bytes.js';
import { openTourFrom } from './tour.js';
import { fetchPackage } from './updater.js';
import { FOLDER } from './storage.js';
import { t, setLanguage } from './i18n.js';

let controller = null;

const newHashWorker = () => new Worker(new URL('./hash-worker.js', import.meta.url), { type: 'module' });
/**
 * The hashing worker, started with this one: its scripts load and its WebAssembly compiles while
 * this worker waits for its job and opens the file (a download's first bytes find it ready).
 */
let spareHashWorker = typeof Worker === 'function' ? spare(newHashWorker()) : null;

/**
 * A worker kept for later: if its scripts fail to load or to run before it is taken, it is let go
 * (an error with no handler yet would be lost, and whoever took it would wait for it for ever).
 */
function spare(worker) {
  worker.onerror = () => {
    worker.terminate();
    if (spareHashWorker === worker) spareHashWorker = null;
  };
  return worker;
}
let marks = [];
/** Notes when a step of this download was reached, for the page's timeline. @param {string} step */
const stamp = (step) => marks.push([step, performance.timeOrigin + performance.now()]);

/**
 * The hashing sink: SHA-256 and, with `prehash`, BLAKE2b-512 in a second worker, so that hashing
 * and this worker's writing run side by side. Chunks are transferred to it (no copy) and hashed
 * while the next ones download; at most `window` bytes wait there, so memory stays flat when
 * hashing is the slower side. (The two hashes in two workers were slower on two cores: the copy
 * for the second and a third busy thread beside the browser's network process.)
 */
function workerHasher(prehash, window = 32 << 20) {
  const worker = spareHashWorker ?? newHashWorker();
  spareHashWorker = null;
  let waiting = 0;
  let wake = null;
  let finish = null;
  let failure = null;
  worker.onmessage = (event) => {
    const message = event.data;
    if (message.type === 'hashed') {
      waiting -= message.length;
      if (wake && waiting <= window) {
        wake();
        wake = null;
      }
    } else if (message.type === 'digest') {
      finish?.resolve({ sha256: message.sha256, blake2b: message.blake2b });
    } else if (message.type === 'error') {
      failure = new Error(message.message);
      finish?.reject(failure);
      wake?.();
    }
  };
  worker.onerror = (event) => {
    failure = new Error(event.message || 'the hashing worker stopped');
    finish?.reject(failure);
    wake?.();
  };
  const start = () => worker.postMessage({ type: 'start', sha256: true, blake2b: prehash });
  start();
  return {
    async update(bytes) {
      if (failure) throw failure;
      waiting += bytes.length;
      worker.postMessage({ type: 'update', bytes }, [bytes.buffer]);
      if (waiting > window) await new Promise((resolve) => { wake = resolve; });
      if (failure) throw failure;
    },
    async reset() {
      start();
    },
    digest() {
      return new Promise((resolve, reject) => {
        finish = { resolve, reject };
        if (failure) reject(failure);
        else worker.postMessage({ type: 'digest' });
      });
    },
    close() {
      worker.terminate();
    },
  };
}

self.onmessage = async (event) => {
  const job = event.data;
  if (job.type === 'pause') {
    controller?.abort();
    return;
  }
  if (job.type !== 'start') return;
  marks = [];
  stamp('worker-running');
  setLanguage(job.lang ?? 'en'); // the words it sends back, in the page's language
  controller = new AbortController();
  const signal = controller.signal;
  // The part file's lock, held for as long as this worker writes it. A page closed a moment ago may
  // still hold the file (its worker not yet ended): this one waits for the lock instead of failing
  // as busy after the page's five tries of a second each, and a pause while it waits ends the wait.
  // Another window downloading the same tour holds it too: this one then goes on where that one
  // stops, if it is closed.
  if (self.navigator?.locks?.request) {
    try {
      await navigator.locks.request(`trailpack-part:${job.name}`, { signal }, () => write(job, signal));
    } catch (error) {
      const paused = error?.name === 'AbortError';
      self.postMessage({
        type: 'error', code: paused ? 'aborted' : 'storage',
        message: paused ? t('download.paused') : t('download.noStart', { why: error?.message ?? error }),
      });
    }
  } else {
    await write(job, signal);
  }
};

/**
 * The package's manifest, read from the file this worker holds (no round trips to the browser, as
 * the page's reading of the stored file takes): {manifest}, {error} (the package's, in the words of
 * tour.js) or {readError} (the file could not be read: the page reads the stored file itself). The
 * page uses it only once the file's SHA-256 and signatures are checked: these are the bytes that
 * were hashed, read back through the same exclusive handle.
 */
async function readTour(handle) {
  let source = null;
  try {
    source = new HandleSource(handle);
    const { manifest } = await openTourFrom(source);
    stamp('manifest-read');
    return { manifest };
  } catch (error) {
    // The file could not be read (the page reads it itself then): nothing said of the package.
    if (source === null || source.failure) return { readError: String(source?.failure?.message ?? error?.message ?? error) };
    return { error: String(error?.message ?? error) };
  }
}

/** Downloads `job` into its part file and says how it ended. */
async function write(job, signal) {
  let handle = null;
  try {
    const root = await navigator.storage.getDirectory();
    const folder = await root.getDirectoryHandle(FOLDER, { create: true });
    const fileHandle = await folder.getFileHandle(job.name, { create: true });
    handle = await fileHandle.createSyncAccessHandle();
    stamp('file-open');
    let last = 0;
    let reading = null;
    // The installed version, read only (a snapshot: a tour deleted meanwhile makes a read fail, and
    // the update falls back to the whole download).
    let installed = null;
    if (job.installed) {
      try {
        installed = new BlobSource(await (await folder.getFileHandle(job.installed)).getFile());
      } catch (error) {
        self.postMessage({ type: 'fallback', reason: `the installed version cannot be read (${error?.message ?? error})` });
        handle.truncate(0); // (what an earlier update by part left is no part of the whole file)
      }
    }
    const result = await fetchPackage({
      url: job.url, etag: job.etag, size: job.size, sha256: job.sha256, prehash: job.prehash, file: handle, installed,
      onFallback: (reason) => self.postMessage({ type: 'fallback', reason }),
      hasher: async (prehash) => (typeof Worker === 'function' ? workerHasher(prehash) : undefined),
      signal,
      onStep: (step) => {
        stamp(step);
        // Every byte is in the file: its manifest is read while the hashing worker finishes.
        if (step === 'received') reading ??= readTour(handle);
      },
      onRetry: (seconds) => self.postMessage({ type: 'retry', seconds }),
      onProgress: (received) => {
        const now = Date.now();
        if (now - last > 200 || received === job.size) {
          last = now;
          self.postMessage({ type: 'progress', received });
        }
      },
    });
    const tour = await (reading ?? readTour(handle));
    handle.flush();
    handle.close();
    handle = null;
    stamp('file-closed');
    self.postMessage({ type: 'done', ...result, tour, marks });
  } catch (error) {
    try { handle?.flush(); handle?.close(); } catch { /* closed already */ }
    let code = error instanceof DownloadError ? error.code : 'storage';
    let message = error instanceof DownloadError ? error.message
      : t('download.storage');
    if (error?.name === 'NoModificationAllowedError') {
      // Another window of the app holds the file: it is downloading this tour already.
      code = 'busy';
      message = t('download.busy');
    } else if (error?.name === 'QuotaExceededError') {
      message = t('download.full');
    }
    self.postMessage({ type: 'error', code, message });
  }
}
