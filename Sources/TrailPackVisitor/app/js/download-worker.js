// The download worker: writes a package into the Origin Private File System through a sync
// access handle (in place, no copy on each commit), hashing as the bytes arrive, off the page's
// thread. Messages in: {type: 'start', name, url, etag, size, prehash}. Out: {type: 'progress',
// received}, {type: 'done', sha256, blake2b, reprDigest}, {type: 'error', code, message}.

import { downloadInto, DownloadError } from './downloader.js';
import { FOLDER } from './storage.js';

let controller = null;

self.onmessage = async (event) => {
  const job = event.data;
  if (job.type === 'pause') {
    controller?.abort();
    return;
  }
  if (job.type !== 'start') return;
  controller = new AbortController();
  let handle = null;
  try {
    const root = await navigator.storage.getDirectory();
    const folder = await root.getDirectoryHandle(FOLDER, { create: true });
    const fileHandle = await folder.getFileHandle(job.name, { create: true });
    handle = await fileHandle.createSyncAccessHandle();
    let last = 0;
    const result = await downloadInto({
      url: job.url, etag: job.etag, size: job.size, prehash: job.prehash, file: handle,
      signal: controller.signal,
      onProgress: (received) => {
        const now = Date.now();
        if (now - last > 200 || received === job.size) {
          last = now;
          self.postMessage({ type: 'progress', received });
        }
      },
    });
    handle.flush();
    handle.close();
    handle = null;
    self.postMessage({ type: 'done', ...result });
  } catch (error) {
    try { handle?.flush(); handle?.close(); } catch { /* closed already */ }
    const code = error instanceof DownloadError ? error.code : 'storage';
    const message = error instanceof DownloadError ? error.message
      : `The phone's storage refused the download (${error?.name ?? 'error'}). Free some space and try again.`;
    self.postMessage({ type: 'error', code, message });
  }
};
