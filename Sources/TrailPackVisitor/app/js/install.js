// Download, check and install one package: room on the phone first, then the bytes (in the
// download worker: by part from an older version on the phone, else whole and resumable), then the checks — SHA-256 against the catalog and the server's
// Repr-Digest, the reviewers' signatures against the keys the operator configured, the
// manifest's id and version, no older version over a newer one — then a rename into place and
// the confirmation to the server. Whatever fails, what was stored for it is deleted.

import * as catalog from './catalog.js';
import * as storage from './storage.js';
import { reprDigestSHA256 } from './downloader.js';
import { parsePublicKey, checkSignatures } from './minisign.js';
import { openTour, checkManifest, orderedStops, compareVersions, formatBytes } from './tour.js';
import { refusalOf, withRefusal, withoutRefusals } from './status.js';
import { askToKeep } from './keep.js';
import { trustSettings } from './trust.js';
import { t, appLanguage } from './i18n.js';

/** An install that stopped, in words for the visitor; `kept` when the partial download was kept. */
export class InstallError extends Error {
  constructor(message, kept = false) {
    super(message);
    this.name = 'InstallError';
    this.kept = kept;
  }
}

const active = new Map();

/**
 * Marks one step of an install on the page's performance timeline as `trailpack:<step>` (DevTools'
 * Performance panel shows them; bench/visitor.py reads them to say where an install's time goes).
 * `at` is a time from the epoch in milliseconds (`performance.timeOrigin + performance.now()` in
 * the worker that took it); without it, now.
 * @param {string} step @param {number} [at]
 */
function markStep(step, at) {
  try {
    performance.mark(`trailpack:${step}`, at === undefined ? undefined : { startTime: at - performance.timeOrigin });
  } catch {
    // A browser without User Timing marks the steps nowhere; the install goes on.
  }
}

/** Downloads under way in this page: sha256 → {entry, received, listeners}. */
export function activeDownload(sha256) {
  return active.get(sha256);
}

const changeListeners = new Set();

/**
 * Calls `listener` each time a download starts or ends in this page (My tours draws itself again;
 * a tour's page follows a download the app continued by itself). Returns how to stop listening.
 */
export function onDownloadsChange(listener) {
  changeListeners.add(listener);
  return () => changeListeners.delete(listener);
}

/**
 * Keeps a refusal (this file is not offered again until the catalog names another) and tells the
 * server which SHA-256 arrived and why it was refused (by the hash, or by the signatures of bytes
 * that matched): the confirmation route counts it as a failure for the operators.
 */
async function refuse(entry, reason, message, computed) {
  await storage.updateLibrary((lib) => withRefusal(lib, {
    id: entry.id, version: entry.version, sha256: entry.sha256, reason, message, at: Date.now(),
  }));
  // Sent with `keepalive` and not waited for: the visitor sees the refusal at once (catalog.js).
  if (/^[0-9a-f]{64}$/.test(computed ?? '')) {
    catalog.confirm(entry, computed, reason === 'sha256' ? 'hash' : 'signatures');
  }
}

/** The refusal that stands for this catalog entry, or null. */
export async function refusal(entry) {
  return refusalOf(await storage.readLibrary(), entry);
}

function downloadsChanged() {
  for (const listener of changeListeners) {
    try {
      listener();
    } catch {
      // A view's redraw failing is the view's concern, never the download's.
    }
  }
}

let naclLoading = null;
function loadTweetNaCl() {
  naclLoading ??= new Promise((resolve) => {
    const script = document.createElement('script');
    script.src = 'vendor/tweetnacl/nacl-fast.js';
    script.onload = () => resolve(true);
    script.onerror = () => resolve(false);
    document.head.append(script);
  });
  return naclLoading;
}

async function discard(sha256) {
  await storage.removeFile(storage.partName(sha256));
  await storage.updateLibrary((lib) => ({ ...lib, downloads: lib.downloads.filter((d) => d.sha256 !== sha256) }));
}

/**
 * Whether the package fits: the room the browser gives this origin against what is still to come.
 * @param {object} entry the catalog entry
 * @param {number} [partial] what its part file holds already, when the caller has read it
 * @returns {Promise<{fits: boolean, needed: number, free: number}>}
 */
export async function room(entry, partial) {
  const { usage, quota } = await storage.estimate();
  const needed = entry.size - (partial ?? (await storage.partSize(entry.sha256)));
  const free = Math.max(0, quota - usage);
  return { fits: quota === 0 || needed <= free, needed, free };
}

const newDownloadWorker = () => new Worker(new URL('./download-worker.js', import.meta.url), { type: 'module' });
/** A download worker started ahead of the visitor's tap (prepareDownload), or null. */
let spareWorker = null;

/**
 * Starts a download worker before it is needed, where the app offers a download: its scripts load
 * and its hashing worker starts while the visitor reads the page, so that the tap on Download
 * does not wait for them (about 70 ms of an install's fixed cost, bench/visitor.py). The next
 * download takes it; one is kept at most, until the visitor leaves the page (releaseSpare).
 */
export function prepareDownload() {
  if (spareWorker || typeof Worker !== 'function') return;
  try {
    const worker = newDownloadWorker();
    // Scripts that fail to load or run before the tap: this one is let go, and the tap starts
    // another, whose failure the download then reports (an error with no handler would be lost).
    worker.onerror = () => {
      worker.terminate();
      if (spareWorker === worker) spareWorker = null;
    };
    spareWorker = worker;
  } catch {
    spareWorker = null; // a page that may not start workers: the download says so when it starts one
  }
}

/**
 * Lets the spare download worker go (and its hashing worker, and their compiled WebAssembly), where
 * no download is offered any more: the visitor left the package's page.
 */
export function releaseSpare() {
  spareWorker?.terminate();
  spareWorker = null;
}

function runWorker(job, onProgress) {
  return new Promise((resolve, reject) => {
    const worker = spareWorker ?? newDownloadWorker();
    spareWorker = null;
    job.worker = worker;
    worker.onmessage = (event) => {
      const message = event.data;
      if (message.type === 'progress') onProgress(message.received);
      else if (message.type === 'retry') onProgress(null, message.seconds);
      else if (message.type === 'fallback') {
        // The part file now holds (the start of) the whole file: a later start resumes it.
        job.byPart = false;
        job.fallback = String(message.reason ?? '');
        storage.updateLibrary((lib) => ({
          ...lib, downloads: lib.downloads.map((d) => (d.sha256 === job.entry.sha256 ? { ...d, byPart: false } : d)),
        })).catch(() => {});
      } else {
        worker.terminate();
        if (message.type === 'done') resolve(message);
        else reject(Object.assign(new InstallError(message.message, !['size', 'range'].includes(message.code)), {
            code: message.code,
          }));
      }
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new InstallError(t('download.worker', { why: event.message ?? 'worker error' }), true));
    };
    worker.postMessage({
      type: 'start', name: storage.partName(job.entry.sha256), url: job.entry.download,
      etag: `"${job.entry.sha256}"`, size: job.entry.size, sha256: job.entry.sha256, prehash: job.prehash,
      installed: job.byPart ? job.installedFile : null, lang: appLanguage(),
    });
  });
}

/** A refusal in the visitor's words: what happened, and when the tour is offered again. */
export function refusedWords(refused) {
  return t('download.refused', {
    version: refused.version,
    why: refused.reason === 'sha256' ? t('download.refused.sha256') : t('download.refused.signatures'),
  });
}

/** Pauses a download under way (what arrived stays; it continues later). @param {string} sha256 */
export async function pause(sha256) {
  const job = active.get(sha256);
  if (job) job.paused = true;
  job?.worker?.postMessage({ type: 'pause' });
  // Remembered: a paused download does not start again by itself at the next start.
  await storage.updateLibrary((lib) => ({
    ...lib, downloads: lib.downloads.map((d) => (d.sha256 === sha256 ? { ...d, paused: true } : d)),
  }));
}

/**
 * Downloads, checks and installs `entry` (a catalog entry). `listener` hears
 * {phase: 'download'|'check'|'done', received, size}.
 * @returns {Promise<object>} the installed tour's library record
 */
export async function install(entry, site, listener = () => {}) {
  const existing = active.get(entry.sha256);
  if (existing) {
    existing.listeners.add(listener);
    return existing.promise;
  }
  const job = { entry, received: 0, listeners: new Set([listener]), worker: null, trustNotices: [] };
  const tell = (event) => job.listeners.forEach((l) => l(event));
  job.promise = (async () => {
    markStep('install-start');
    // What the catalog says is checked before it names a file or a size here.
    if (!/^[0-9a-f]{64}$/.test(entry.sha256 ?? '') || !Number.isSafeInteger(entry.size) || entry.size <= 0
      || typeof entry.download !== 'string' || typeof entry.id !== 'string' || typeof entry.version !== 'string') {
      throw new InstallError(t('download.unusable'));
    }
    const library = await storage.readLibrary();
    const newer = library.tours.find((t) => t.id === entry.id && compareVersions(t.version, entry.version) > 0);
    if (newer) {
      throw new InstallError(t('download.newer', { installed: newer.version, offered: entry.version }));
    }
    if (library.tours.some((t) => t.sha256 === entry.sha256)) {
      throw new InstallError(t('download.already'));
    }
    const refused = refusalOf(library, entry);
    if (refused) throw new InstallError(refusedWords(refused));
    // The room (then the browser's keeping) and the trust settings are asked for at once (each
    // waits on storage or the network, not on the other); their answers are weighed in this order.
    const [space, trust] = await Promise.allSettled([
      // (The part file's size is read once: for the room, and below for whether to update by part.)
      // Where the tour fits, the browser is asked to keep the tours (the answer is read back where
      // the page warns: keep.js); not for a download that stops for want of room (Firefox asks
      // the visitor, and a question about keeping what will not be kept is noise).
      storage.partSize(entry.sha256).then(async (partial) => {
        const space = { partial, ...(await room(entry, partial)) };
        if (space.fits) await askToKeep().catch(() => false);
        return space;
      }),
      // Without the operator's settings the app cannot know which signatures to require: it refuses
      // rather than install unchecked (fail closed). They come from the network first, never with
      // a lower threshold than one seen before, nor a key only the offline copy names (trust.js);
      // what the app kept of its own is said beside the result (job.trustNotices).
      trustSettings(),
    ]);
    if (space.status === 'rejected') throw space.reason;
    if (!space.value.fits) {
      const { needed, free } = space.value;
      throw new InstallError(t('download.noRoom', { needed: formatBytes(needed), free: formatBytes(free) }));
    }
    if (trust.status === 'rejected') throw new InstallError(t('download.noSettings'), true);
    job.trustNotices = trust.value.notices.map((n) => t(n.key, n.params));
    const config = trust.value.settings;
    if (!config) throw new InstallError(t('download.badSettings'), true);
    if (config.trustedKeys.length < config.threshold) {
      throw new InstallError(t('download.tooFewKeys', { keys: config.trustedKeys.length, threshold: config.threshold }), true);
    }
    job.prehash = config.threshold > 0;
    if (job.paused || job.cancelled) throw new InstallError(t('download.paused'), true);
    // An older version on the phone: the new one is put together by part from it (the whole file
    // only if that is refused). Not over a whole download under way: that one is resumed.
    const older = library.tours.find((t) => t.id === entry.id && compareVersions(t.version, entry.version) < 0);
    const underWay = library.downloads.find((d) => d.sha256 === entry.sha256);
    job.byPart = older !== undefined && (underWay?.byPart === true || space.value.partial === 0);
    job.installedFile = older ? storage.fileOf(older) : null;
    await storage.updateLibrary((lib) => ({
      ...lib,
      downloads: [
        ...lib.downloads.filter((d) => d.sha256 !== entry.sha256),
        { ...entry, siteName: site?.name ?? entry.site, startedAt: Date.now(), paused: false, byPart: job.byPart },
      ],
    }));
    // The reviewers' signatures are asked for while the package downloads (they are small, and
    // checked only once its bytes are in); a failure here is weighed after the download.
    const signatures = config.threshold > 0
      ? catalog.signatures(entry.id, entry.version).then((served) => ({ served }), (error) => ({ error }))
      : null;
    let result;
    markStep('worker-start');
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          result = await runWorker(job, (received, retryIn) => {
            if (received === null) {
              tell({ phase: 'retry', seconds: retryIn, received: job.received, size: entry.size });
              return;
            }
            job.received = received;
            tell({ phase: 'download', received, size: entry.size });
          });
          break;
        } catch (error) {
          // A page closed a moment ago may still hold the file: wait for the browser to let it go.
          if (error.code !== 'busy' || attempt >= 5) throw error;
          await new Promise((resolve) => setTimeout(resolve, 1000));
          if (job.paused || job.cancelled) {
            throw Object.assign(new InstallError(t('download.paused'), true), { code: 'aborted' });
          }
        }
      }
    } catch (error) {
      // Bytes that cannot be the package (too many, the wrong range) are not kept.
      if (error.code === 'size' || error.code === 'range') await discard(entry.sha256);
      throw error;
    }
    for (const [step, at] of result.marks ?? []) markStep(step, at);
    markStep('downloaded');
    tell({ phase: 'check', received: entry.size, size: entry.size });
    const served = reprDigestSHA256(result.reprDigest);
    if (result.sha256 !== entry.sha256 || (served && served !== entry.sha256)) {
      await discard(entry.sha256);
      const message = t('download.mismatch');
      await refuse(entry, 'sha256', message, result.sha256);
      throw new InstallError(message);
    }
    if (config.threshold > 0) {
      // Asked for again when the early request failed (a moment's lost connection at the start).
      let { served, error: notServed } = await signatures;
      if (notServed) {
        try {
          served = await catalog.signatures(entry.id, entry.version);
        } catch (error) {
          throw new InstallError(t('download.noSignatures', { why: error.message }), true);
        }
      }
      const trustedKeys = config.trustedKeys.map((k) => parsePublicKey(k.publicKey));
      const checkServed = () => checkSignatures({
        signatures: served.signatures ?? [], trustedKeys, threshold: config.threshold, prehash: result.blake2b,
        manifest: { id: entry.id, version: entry.version }, sha256Hex: result.sha256,
      });
      let check;
      try {
        check = await checkServed();
      } catch (error) {
        // A browser without WebCrypto's Ed25519: Debian's tweetnacl, loaded once, then again.
        if (config.tweetnacl && !globalThis.nacl && (await loadTweetNaCl())) {
          check = await checkServed();
        } else {
          throw new InstallError(t('download.cannotCheck', { why: error.message }), true);
        }
      }
      if (!check.ok) {
        await discard(entry.sha256);
        const why = check.problems.map((p) => p.message).join(' ');
        const message = t('download.notSigned', { valid: check.validSigners.length, threshold: config.threshold, why });
        await refuse(entry, 'signatures', message, result.sha256);
        throw new InstallError(message);
      }
    }
    markStep('checked');
    // The manifest the worker read back from the bytes just checked; read here from the stored
    // file when the worker could not read it (a storage error, not the package's).
    const part = result.tour?.manifest === undefined && result.tour?.error === undefined
      ? await (await (await storage.folder()).getFileHandle(storage.partName(entry.sha256))).getFile()
      : null;
    let opened;
    try {
      if (result.tour?.error !== undefined) throw new Error(result.tour.error);
      opened = part ? await openTour(part)
        : { manifest: checkManifest(result.tour.manifest), stops: orderedStops(result.tour.manifest) };
    } catch (error) {
      await discard(entry.sha256);
      throw new InstallError(t('download.damaged', { why: error.message }));
    }
    if (opened.manifest.id !== entry.id || opened.manifest.version !== entry.version) {
      await discard(entry.sha256);
      throw new InstallError(t('download.otherTour'));
    }
    if (job.cancelled) {
      await discard(entry.sha256);
      const stopped = new InstallError(t('download.stopped'));
      throw Object.assign(stopped, { code: 'aborted' });
    }
    markStep('opened');
    const update = result.mode === 'by-part'
      ? { mode: 'by-part', fetchedBytes: result.report.fetchedBytes, requests: result.report.requests }
      : { mode: 'full', fallback: job.fallback ?? result.fallback ?? null };
    return withLibraryLock(() => finish(entry, site, opened, tell, older ? update : null));
  })();
  active.set(entry.sha256, job);
  downloadsChanged();
  try {
    return await job.promise;
  } finally {
    active.delete(entry.sha256);
    downloadsChanged();
  }
}

/** The last step, under the lock: rename into place, record, replace the older version, confirm. */
async function finish(entry, site, opened, tell, update) {
  const before = await storage.readLibrary();
  const newer = before.tours.find((t) => t.id === entry.id && compareVersions(t.version, entry.version) > 0);
  if (newer) {
    // Another window installed a newer version while this one downloaded: never a rollback.
    await discard(entry.sha256);
    throw new InstallError(t('download.newerNow', { installed: newer.version }));
  }
  {
    const file = await storage.installPart(entry.sha256);
    const record = {
      id: entry.id, version: entry.version, name: opened.manifest.name, park: opened.manifest.park ?? '',
      site: entry.site, siteName: site?.name ?? entry.site, description: opened.manifest.description ?? '',
      sha256: entry.sha256, file, size: entry.size, stops: opened.stops.length, installedAt: Date.now(),
      confirm: entry.confirm, ...(update ? { update } : {}),
    };
    const replaced = [];
    const outdated = [];
    await storage.updateLibrary((lib) => {
      replaced.push(...lib.tours.filter((t) => t.id === entry.id && storage.fileOf(t) !== file));
      // Downloads of this tour at this version or older are of no use any more.
      outdated.push(...lib.downloads.filter((d) => d.sha256 !== entry.sha256 && d.id === entry.id
        && compareVersions(d.version, entry.version) <= 0 && !active.has(d.sha256)));
      return {
        ...withoutRefusals(lib, entry.id),
        tours: [...lib.tours.filter((t) => t.id !== entry.id), record],
        downloads: lib.downloads.filter((d) => d.sha256 !== entry.sha256 && !outdated.includes(d)),
      };
    });
    for (const old of replaced) await storage.removeFile(storage.fileOf(old));
    for (const old of outdated) await storage.removeFile(storage.partName(old.sha256));
    // The confirmation goes out as the visitor is told (it survives the page: catalog.js): a
    // phone's slow link never holds up the tour it already has.
    catalog.confirm(entry, entry.sha256);
    markStep('installed');
    tell({ phase: 'done', received: entry.size, size: entry.size });
    return record;
  }
}

/**
 * Deletes an installed tour; returns the bytes given back.
 * @param {string} sha256
 */
export async function remove(sha256) {
  let tour = null;
  await storage.updateLibrary((lib) => {
    tour = lib.tours.find((t) => t.sha256 === sha256) ?? null;
    return { ...lib, tours: lib.tours.filter((t) => t.sha256 !== sha256) };
  });
  if (!tour) return 0;
  await storage.removeFile(storage.fileOf(tour));
  const size = tour.size ?? 0;
  localStorage.removeItem(`trailpack.visited.tour/${sha256}`);
  // The tour's own size: the browser's usage estimate is padded and updated late.
  return size;
}

/**
 * Cancels a download under way and deletes what arrived.
 * @param {string} sha256
 */
export async function cancel(sha256) {
  const job = active.get(sha256);
  if (job) job.cancelled = true;
  job?.worker?.postMessage({ type: 'pause' });
  await job?.promise.catch(() => {});
  // A download that was already being installed when cancelled is a tour now: never deleted here.
  const library = await storage.readLibrary();
  if (!library.tours.some((t) => t.sha256 === sha256)) await discard(sha256);
}

/** Runs `body` holding the app's one lock on the list of tours (all windows), where the browser has locks. */
function withLibraryLock(body) {
  return navigator.locks?.request ? navigator.locks.request('trailpack-library', body) : body();
}

/** Removes files of ours the list does not name, under the lock installs take (never a tour being installed). */
export function removeStrays() {
  return withLibraryLock(() => storage.removeStrays());
}
