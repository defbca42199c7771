// Hands-free narration (issue #50, part 2): which stop the visitor has arrived at, and the queue of
// stop recordings that play by themselves when the visitor asked for it: one at a time, never two
// at once, never one cut off by the next; a recording the visitor starts on a page holds the
// narration until it stops. A stop is announced once on a walk unless the visitor asks again.
// Pure: the queue answers each event with what to do (play a stop, pause, resume) and the page
// carries it out on its one narration player. No DOM, no storage, no clock.

import { arrivalRadius, distanceMetres, shownType } from './tour.js';

/**
 * The stop the visitor has arrived at: the nearest stop within its own radius (the stop's
 * `properties.radiusMetres`, else 30 m) that this walk has not announced, from a fix good enough
 * to tell (known to 50 m, or to the stop's radius when that is larger). Its number (1-based, in
 * the stops' order), or null.
 * @param {Array<{coordinate: {latitude: number, longitude: number}, properties?: any}>} stops in order
 * @param {{latitude: number, longitude: number, accuracy?: number}} position
 * @param {Set<number>} announced stop numbers already announced on this walk
 * @returns {number|null}
 */
export function arrivalAt(stops, position, announced) {
  if (!Number.isFinite(position?.latitude) || !Number.isFinite(position?.longitude)) return null;
  let arrived = null;
  let best = Infinity;
  stops.forEach((stop, i) => {
    const radius = arrivalRadius(stop);
    const good = !Number.isFinite(position.accuracy) || position.accuracy <= Math.max(50, radius);
    if (!good || announced.has(i + 1)) return;
    const d = distanceMetres(position, stop.coordinate);
    if (d <= radius && d < best) {
      best = d;
      arrived = i + 1;
    }
  });
  return arrived;
}

/**
 * A stop's recording: its first audio asset of a type the app plays (the stop as the visitor
 * reads it, so the recording in the visitor's language, falling back as the texts do), or null.
 * @param {{assets?: any[]}} stop
 */
export function recordingOf(stop) {
  const assets = Array.isArray(stop?.assets) ? stop.assets : [];
  return assets.find((a) => a?.kind === 'audio' && shownType(a.mediaType).startsWith('audio/')) ?? null;
}

/**
 * @typedef {{type: 'play', stop: number} | {type: 'pause'} | {type: 'resume'} | {type: 'stop'}} Action
 * What the page does next with its narration player: load and play a stop's recording, hold the
 * one playing, carry on with it, or stop it (the visitor skipped it).
 */

/** The queue of stop recordings. Every method returns the actions to carry out, in order. */
export class Narration {
  /** @param {{enabled?: boolean}} [options] */
  constructor({ enabled = false } = {}) {
    /** Whether recordings play by themselves on arrival (the visitor's opt-in). */
    this.enabled = enabled;
    /** @type {number|null} the stop whose recording is loaded in the player (playing or held) */
    this.current = null;
    /** @type {number[]} stops waiting, in the order the visitor reached them */
    this.queue = [];
    /** Held by the visitor (a page's recording playing, or pause on the lock screen). */
    this.heldByPage = false;
    this.pausedByVisitor = false;
  }

  /** Whether the player is playing now. */
  get playing() {
    return this.current !== null && !this.heldByPage && !this.pausedByVisitor;
  }

  /**
   * The visitor arrived at a stop (announced once per walk: the caller asks arrivalAt first), or
   * asked to hear it (`asked`, which plays even without the opt-in). A stop already playing or
   * waiting is not added twice.
   * @param {number} stop @param {{hasRecording: boolean, asked?: boolean}} options
   * @returns {Action[]}
   */
  arrive(stop, { hasRecording, asked = false }) {
    if (!hasRecording || (!this.enabled && !asked)) return [];
    if (this.current === stop || this.queue.includes(stop)) return [];
    if (this.current !== null) {
      this.queue.push(stop);
      return [];
    }
    if (this.heldByPage) {
      this.queue.push(stop);
      return [];
    }
    this.current = stop;
    this.pausedByVisitor = false;
    return [{ type: 'play', stop }];
  }

  /** The recording ended (or could not be played): the next one waiting starts, unless held. */
  ended() {
    this.current = null;
    this.pausedByVisitor = false;
    return this.#next();
  }

  /** The visitor skipped the recording playing (next on the lock screen). */
  skip() {
    if (this.current === null) return this.#next();
    this.current = null;
    this.pausedByVisitor = false;
    return [{ type: 'stop' }, ...this.#next()];
  }

  /** The visitor paused or played the narration (the player's own controls, the lock screen). */
  pauseByVisitor() {
    if (this.current === null || this.pausedByVisitor) return [];
    this.pausedByVisitor = true;
    return this.heldByPage ? [] : [{ type: 'pause' }];
  }

  playByVisitor() {
    if (this.current === null) return this.#next();
    if (!this.pausedByVisitor) return [];
    this.pausedByVisitor = false;
    return this.heldByPage ? [] : [{ type: 'resume' }];
  }

  /**
   * A recording or video of a page started (`true`) or no longer plays (`false`): the narration
   * holds meanwhile, and carries on where it was after.
   * @param {boolean} playing
   */
  pagePlaying(playing) {
    if (playing === this.heldByPage) return [];
    this.heldByPage = playing;
    if (playing) return this.current !== null && !this.pausedByVisitor ? [{ type: 'pause' }] : [];
    if (this.current !== null) return this.pausedByVisitor ? [] : [{ type: 'resume' }];
    return this.#next();
  }

  /** The opt-in changed. Turned off, nothing new starts: what plays ends as it is, the queue is let go. */
  setEnabled(enabled) {
    this.enabled = enabled;
    if (!enabled) this.queue = [];
  }

  /** The stops waiting are let go (the visitor left the tour); the one playing ends as it is. */
  clearQueue() {
    this.queue = [];
  }

  /** A new walk: the queue is let go and the player stopped. */
  reset() {
    const had = this.current !== null;
    this.current = null;
    this.queue = [];
    this.pausedByVisitor = false;
    return had ? [{ type: 'stop' }] : [];
  }

  #next() {
    if (this.heldByPage || this.queue.length === 0) return [];
    this.current = this.queue.shift();
    return [{ type: 'play', stop: this.current }];
  }
}
