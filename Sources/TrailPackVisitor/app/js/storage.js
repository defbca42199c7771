// The tours on this phone: the Origin Private File System's folder `trailpack-tours`, holding
// `<sha256>.zip` (installed packages), `<sha256>.part` (downloads under way) and `library.json`
// (what is installed and what is being downloaded). library.json is written through a writable
// stream, which the browser commits whole on close: a crash leaves the old list or the new one.

/** The folder's name in the origin's private storage. */
export const FOLDER = 'trailpack-tours';
const LIBRARY = 'library.json';
const OWN_NAME = /^[0-9a-f]{64}\.(zip|part)$/;

let queue = Promise.resolve();

/** @returns {Promise<FileSystemDirectoryHandle>} */
export async function folder() {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(FOLDER, { create: true });
}

/**
 * The list of installed tours and downloads under way.
 * @returns {Promise<{tours: object[], downloads: object[]}>}
 */
export async function readLibrary() {
  const dir = await folder();
  let handle;
  try {
    handle = await dir.getFileHandle(LIBRARY);
  } catch (error) {
    if (error?.name === 'NotFoundError') return { tours: [], downloads: [] };
    throw new Error('The list of tours on this phone cannot be read right now. Close the app and open it again.');
  }
  // Anything else than a readable list stops here: an unreadable list is never taken for an empty
  // one (that would make every installed tour look like a stray file to remove).
  const file = await handle.getFile();
  let value;
  try {
    if (file.size > 4 << 20) throw new Error('too large');
    value = JSON.parse(await file.text());
  } catch {
    throw new Error('The list of tours on this phone is damaged. Delete the app\'s data in the browser settings.');
  }
  const list = (field) => (Array.isArray(value?.[field]) ? value[field] : []);
  return { tours: list('tours'), downloads: list('downloads') };
}

/**
 * Changes the library under a lock: `change` gets the current list and returns the new one.
 * @param {(library: {tours: object[], downloads: object[]}) => object} change
 */
export function updateLibrary(change) {
  const run = queue.then(async () => {
    const next = change(await readLibrary());
    const dir = await folder();
    const writable = await (await dir.getFileHandle(LIBRARY, { create: true })).createWritable();
    await writable.write(JSON.stringify(next));
    await writable.close();
    return next;
  });
  queue = run.catch(() => {});
  return run;
}

/** @param {string} sha256 @returns {string} */
export const packageName = (sha256) => `${sha256}.zip`;
/** @param {string} sha256 @returns {string} */
export const partName = (sha256) => `${sha256}.part`;

/**
 * An installed package's file (a Blob backed by storage: slices read only what they cover).
 * @param {string} sha256
 * @returns {Promise<File>}
 */
export async function packageFile(sha256) {
  const dir = await folder();
  return (await dir.getFileHandle(packageName(sha256))).getFile();
}

/** The bytes a download under way holds. @param {string} sha256 @returns {Promise<number>} */
export async function partSize(sha256) {
  try {
    return (await (await (await folder()).getFileHandle(partName(sha256))).getFile()).size;
  } catch {
    return 0;
  }
}

/** A finished, checked download becomes the installed package (a rename). @param {string} sha256 */
export async function installPart(sha256) {
  const dir = await folder();
  const handle = await dir.getFileHandle(partName(sha256));
  await handle.move(dir, packageName(sha256));
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

/** Files of ours the library no longer names (a crash between steps): removed. */
export async function removeStrays() {
  const library = await readLibrary();
  const wanted = new Set([
    ...library.tours.map((t) => packageName(t.sha256)),
    ...library.downloads.map((d) => partName(d.sha256)),
  ]);
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
