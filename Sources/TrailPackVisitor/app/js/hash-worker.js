// Hashes a download's bytes beside the download worker, so that hashing and writing run on two
// cores. Messages in: {type: 'start',
// sha256, blake2b} (which to compute), {type: 'update', bytes} (the buffer transferred),
// {type: 'digest'}. Out: {type: 'hashed', length} after each update (the sender's flow control),
// {type: 'digest', sha256, blake2b}, {type: 'error', message}.

import { createHashers, prepareHashers } from './fasthash.js';
import { toHex } from './sha256.js';

// Started before its first message (download-worker.js makes this worker as it starts): the
// WebAssembly compiles while the download is asked for.
prepareHashers();

let hasher = null;
let queue = Promise.resolve();

self.onmessage = (event) => {
  const message = event.data;
  queue = queue.then(async () => {
    if (message.type === 'start') {
      hasher = await createHashers({ sha256: Boolean(message.sha256), blake2b: Boolean(message.blake2b) });
    } else if (message.type === 'update') {
      hasher.sha256?.update(message.bytes);
      hasher.blake2b?.update(message.bytes);
      self.postMessage({ type: 'hashed', length: message.bytes.length });
    } else if (message.type === 'digest') {
      self.postMessage({
        type: 'digest', sha256: hasher.sha256 ? toHex(hasher.sha256.digest()) : null,
        blake2b: hasher.blake2b ? hasher.blake2b.digest() : null,
      });
    }
  }).catch((error) => self.postMessage({ type: 'error', message: String(error?.message ?? error) }));
};
