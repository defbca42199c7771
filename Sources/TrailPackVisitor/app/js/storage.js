// The tours on this phone. The packages are files in the Origin Private File System's folder
// `trailpack-tours`: `<sha256>.part` while downloading, `<sha256>.zip` once installed (or still
// `.part` where the browser cannot rename a file: the list says which). The list of what is
// installed and what is being downloaded is one IndexedDB record, changed in transactions: every
// browser with the file system has it, a crash leaves the old list or the new one, and two
// windows of the app never lose each other's changes.

/** The folder's name in the origin's private storage. */
import { validRefusals } from './status.js';
import { t } from './i18n.js';

export const FOLDER = 'trailpack-tours';
const OWN_NAME = /^[0-9a-f]{64}\.(zip|part)$/;
const DATABASE = 'trailpack';
const STORE = 'library';
const KEY = 'library';

/** @returns {Promise<FileSystemDirectoryHandle>} */
export async function folder() {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(FOLDER, { create: true });
}

let database = null;

function open() {
  database ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error('blocked by another window of the app'));
  }).catch((error) => {
    database = null;
    throw new Error(t('storage.cannotOpen', { why: error?.message ?? error }));
  });
  return database;
}

function valid(value) {
  const list = (field) => (Array.isArray(value?.[field]) ? value[field] : []);
  return { tours: list('tours'), downloads: list('downloads'), refused: validRefusals(value?.refused) };
}

/**
 * Runs `body(store, done)` in one transaction of `db` on `storeName`; resolves with the value given
 * to `done` once committed, rejects with the transaction's error (or `notSaved`) when it fails.
 * The list of tours and the visitor's log (journal.js) both change through it.
 */
export function runTransaction(db, storeName, mode, body, notSaved) {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(storeName, mode);
    let result;
    tx.oncomplete = () => resolve(result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error(notSaved));
    body(tx.objectStore(storeName), (value) => { result = value; });
  });
}

/** Runs `body(store)` in one transaction; resolves with what it returns once committed. */
async function transaction(mode, body) {
  return runTransaction(await open(), STORE, mode, body, 'the change to the list of tours was not saved');
}

/**
 * The list of installed tours and downloads under way. An unreadable list throws: it is never
 * taken for an empty one (that would make every installed tour look like a stray file).
 * @returns {Promise<{tours: object[], downloads: object[]}>}
 */
export function readLibrary() {
  return transaction('readonly', (store, done) => {
    const request = store.get(KEY);
    request.onsuccess = () => done(valid(request.result));
  });
}

/**
 * Changes the list in one transaction: `change` gets the current list and returns the new one.
 * @param {(library: {tours: object[], downloads: object[]}) => object} change
 */
export function updateLibrary(change) {
  return transaction('readwrite', (store, done) => {
    const request = store.get(KEY);
    request.onsuccess = () => {
      const next = valid(change(valid(request.result)));
      store.put(next, KEY);
      done(next);
    };
  });
}

/** The record of what the app remembers of its trust settings (trust.js), beside the list. */
const TRUST_KEY = 'trust';

/**
 * Changes the remembered trust settings in one transaction: `change` gets the stored record
 * (undefined at first) and returns the new one (trust.js: the highest threshold seen, the keys the
 * network named last). Two windows of the app never undo each other's change.
 * @param {(stored: any) => object} change
 */
export function updateTrust(change) {
  return transaction('readwrite', (store, done) => {
    const request = store.get(TRUST_KEY);
    request.onsuccess = () => {
      const next = change(request.result);
      store.put(next, TRUST_KEY);
      done(next);
    };
  });
}

/** @param {string} sha256 @returns {string} */
export const packageName = (sha256) => `${sha256}.zip`;
/** @param {string} sha256 @returns {string} */
export const partName = (sha256) => `${sha256}.part`;
/** The file an installed tour's record names. @param {{sha256: string, file?: string}} tour */
export const fileOf = (tour) => (OWN_NAME.test(tour.file ?? '') ? tour.file : packageName(tour.sha256));

/**
 * An installed package's file (a Blob backed by storage: slices read only what they cover).
 * @param {{sha256: string, file?: string}} tour
 * @returns {Promise<File>}
 */
export async function packageFile(tour) {
  const dir = await folder();
  return (await dir.getFileHandle(fileOf(tour))).getFile();
}

/** The bytes a download under way holds. @param {string} sha256 @returns {Promise<number>} */
export async function partSize(sha256) {
  try {
    return (await (await (await folder()).getFileHandle(partName(sha256))).getFile()).size;
  } catch {
    return 0;
  }
}

/**
 * A finished, checked download becomes the installed package: renamed where the browser can
 * (`FileSystemHandle.move`), else kept under its download name. Returns the file's name.
 * @param {string} sha256
 */
export async function installPart(sha256) {
  const dir = await folder();
  const handle = await dir.getFileHandle(partName(sha256));
  if (typeof handle.move !== 'function') return partName(sha256);
  try {
    await handle.move(dir, packageName(sha256));
    return packageName(sha256);
  } catch {
    return partName(sha256);
  }
}

/**
 * Removes one of our own files; names that are not ours are never touched.
 * @param {string} name
 */
export async function removeFile(name) {
  if (!OWN_NAME.test(name)) throw new Error(`not a tour file: ${name}`);
  try {
    await (await folder()).removeEntry(name);
  } catch (error) {
    if (error?.name !== 'NotFoundError') throw error;
  }
}

/** Files of ours the list no longer names (a crash between steps): removed. */
export async function removeStrays() {
  const library = await readLibrary();
  const wanted = new Set([...library.tours.map(fileOf), ...library.downloads.map((d) => partName(d.sha256))]);
  const dir = await folder();
  const strays = [];
  for await (const name of dir.keys()) {
    if (OWN_NAME.test(name) && !wanted.has(name)) strays.push(name);
  }
  for (const name of strays) await removeFile(name);
  return strays;
}

/** How much the origin uses and may use. @returns {Promise<{usage: number, quota: number}>} */
export async function estimate() {
  const { usage = 0, quota = 0 } = (await navigator.storage?.estimate?.()) ?? {};
  return { usage, quota };
}
