// Which reviewers the app trusts, and how many of them must have signed a tour: the operator's
// settings (config.json), fetched from the network before every install (the service worker
// answers its kept copy only when the network fails, and marks it), weighed against what this
// phone remembers of the settings it was given before:
//
// - the threshold is never lower than the highest one the app has seen: a server (or someone in
//   its place) that lowers it is not followed, and the visitor is told so;
// - keys come only from the network: the kept copy may drop a key (fewer keys is stricter) but
//   cannot add one the last answer of the network did not name.
//
// The memory is one IndexedDB record beside the list of tours (storage.js), changed in one
// transaction, so two windows of the app never lower each other's threshold.

import * as catalog from './catalog.js';
import * as storage from './storage.js';

/**
 * What the phone remembers of the trust settings.
 * @typedef {object} TrustMemory
 * @property {number} threshold the highest threshold ever seen (0: none yet)
 * @property {string[]|null} keys the public keys the last settings from the network named (null:
 *   none from the network yet)
 */

/**
 * The settings the app checks downloads against.
 * @typedef {object} TrustSettings
 * @property {number} threshold how many distinct trusted keys must have signed (0: no check)
 * @property {{keyId?: string, publicKey: string}[]} trustedKeys
 * @property {boolean} tweetnacl whether the server offers tweetnacl (browsers without Ed25519)
 */

/**
 * A notice for the visitor: a message key of the messages files and its parameters.
 * @typedef {{key: string, params: Record<string, number>}} TrustNotice
 */

/**
 * The memory as stored, made usable: anything unreadable counts as nothing remembered, but a
 * threshold never goes below what was read.
 * @param {any} stored
 * @returns {TrustMemory}
 */
export function validMemory(stored) {
  const threshold = Number.isSafeInteger(stored?.threshold) && stored.threshold > 0 ? stored.threshold : 0;
  const keys = Array.isArray(stored?.keys) ? stored.keys.filter((k) => typeof k === 'string') : null;
  return { threshold, keys };
}

/**
 * The served settings when they are usable: a whole threshold of 0 or more and a list of keys,
 * each with its public key as text. Otherwise null.
 * @param {any} served
 * @returns {TrustSettings|null}
 */
function validSettings(served) {
  if (!Number.isSafeInteger(served?.threshold) || served.threshold < 0 || !Array.isArray(served.trustedKeys)) return null;
  if (!served.trustedKeys.every((k) => typeof k?.publicKey === 'string' && k.publicKey.trim() !== '')) return null;
  return {
    threshold: served.threshold,
    trustedKeys: served.trustedKeys.map((k) => ({ ...k, publicKey: k.publicKey.trim() })),
    tweetnacl: served.tweetnacl === true,
  };
}

/**
 * What the app trusts, from the settings served and the memory (pure: trustSettings below
 * fetches and remembers). The threshold is the higher of the served one and the remembered one;
 * the keys are the served ones when they came from the network, else only those of them the
 * network named last time.
 * @param {any} served config.json as parsed
 * @param {any} remembered the stored memory (validMemory makes it usable)
 * @param {boolean} offlineCopy whether `served` is the service worker's kept copy (the network failed)
 * @returns {{settings: TrustSettings|null, memory: TrustMemory, notices: TrustNotice[]}} `settings`
 *   null when the served ones are not usable (then the memory is unchanged); `memory` what to
 *   remember from now on
 */
export function chooseTrust(served, remembered, offlineCopy) {
  const memory = validMemory(remembered);
  const settings = validSettings(served);
  if (!settings) return { settings: null, memory, notices: [] };
  const notices = [];
  const threshold = Math.max(settings.threshold, memory.threshold);
  if (settings.threshold < memory.threshold) {
    notices.push({ key: 'trust.thresholdKept', params: { served: settings.threshold, kept: memory.threshold } });
  }
  let trustedKeys = settings.trustedKeys;
  let keys = memory.keys;
  if (offlineCopy) {
    const known = new Set(memory.keys ?? []);
    trustedKeys = settings.trustedKeys.filter((k) => known.has(k.publicKey));
    const ignored = settings.trustedKeys.length - trustedKeys.length;
    if (ignored > 0) notices.push({ key: 'trust.offlineKeys', params: { n: ignored } });
  } else {
    keys = [...new Set(settings.trustedKeys.map((k) => k.publicKey))];
  }
  return { settings: { ...settings, threshold, trustedKeys }, memory: { threshold, keys }, notices };
}

/**
 * The settings to check a download against: config.json fetched (network first: catalog.js and
 * sw.js), weighed by chooseTrust against the memory, and the memory updated, in one transaction.
 * Throws when the settings cannot be fetched or the memory cannot be read or kept: without them
 * the app cannot know what to require, and refuses (fails closed).
 * @param {object} [o] (tests)
 * @param {() => Promise<{document: any, offlineCopy: boolean}>} [o.fetchConfig]
 * @param {(change: (stored: any) => TrustMemory) => Promise<unknown>} [o.updateMemory]
 * @returns {Promise<{settings: TrustSettings|null, memory: TrustMemory, notices: TrustNotice[]}>}
 */
export async function trustSettings(o = {}) {
  const fetchConfig = o.fetchConfig ?? catalog.config;
  const updateMemory = o.updateMemory ?? storage.updateTrust;
  const { document, offlineCopy } = await fetchConfig();
  let chosen = null;
  await updateMemory((stored) => {
    chosen = chooseTrust(document, stored, offlineCopy);
    return chosen.memory;
  });
  return chosen;
}
