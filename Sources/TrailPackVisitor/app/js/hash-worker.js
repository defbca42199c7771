// Hashes a download's bytes beside the download worker, so that hashing and writing run on two
// cores. Messages in: {type: 'start', prehash}, {type: 'update', bytes} (the buffer transferred),
// {type: 'digest'}. Out: {type: 'hashed', length} after each update (the sender's flow control),
// {type: 'digest', sha256, blake2b}, {type: 'error', message}.

import { inlineHasher } from './downloader.js';

let hasher = null;
let queue = Promise.resolve();

self.onmessage = (event) => {
  const message = event.data;
  queue = queue.then(async () => {
    if (message.type === 'start') {
      hasher = await inlineHasher(Boolean(message.prehash));
    } else if (message.type === 'update') {
      hasher.update(message.bytes);
      self.postMessage({ type: 'hashed', length: message.bytes.length });
    } else if (message.type === 'digest') {
      self.postMessage({ type: 'digest', ...(await hasher.digest()) });
    }
  }).catch((error) => self.postMessage({ type: 'error', message: String(error?.message ?? error) }));
};
