// Installed and kept (issue #51): the app offers to install itself where the browser allows it
// (`beforeinstallprompt`: an Install button), tells iPhone and iPad visitors how (Safari's Share,
// then Add to Home Screen: Safari has no prompt), and asks the browser to keep the tours
// (`navigator.storage.persist()`) at the first download; where it will not, the visitor is told
// plainly what that means and what to do.

import { t } from './i18n.js';

let deferred = null; // the browser's install prompt, kept until the visitor uses it
const listeners = new Set();

function changed() {
  for (const listener of listeners) {
    try {
      listener();
    } catch {
      // a view's redraw failing is the view's concern
    }
  }
}

globalThis.addEventListener?.('beforeinstallprompt', (event) => {
  event.preventDefault();
  deferred = event;
  changed();
});
globalThis.addEventListener?.('appinstalled', () => {
  deferred = null;
  changed();
});

/** Whether the app runs installed (from the home screen), not in a browser tab. */
export function runsInstalled() {
  return globalThis.matchMedia?.('(display-mode: standalone)').matches === true || navigator.standalone === true;
}

/** Safari on an iPhone or iPad (iPadOS says it is a Mac with a touch screen), where only Share installs. */
export function isIOSSafari(ua = navigator.userAgent, touchPoints = navigator.maxTouchPoints ?? 0) {
  const apple = /iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && touchPoints > 1);
  return apple && /Safari\//.test(ua) && !/CriOS|FxiOS|EdgiOS|OPiOS/.test(ua);
}

/**
 * The offer to install the app, kept up to date in its own element: the Install button while the
 * browser offers a prompt, the iOS hint on Safari, nothing once installed.
 * @param {Function} h the app's element maker
 */
export function installOffer(h) {
  const slot = h('div', { class: 'install-offer' });
  const draw = () => {
    if (!slot.isConnected && slot.dataset.drawn) {
      listeners.delete(draw);
      return;
    }
    slot.dataset.drawn = '1';
    if (runsInstalled()) {
      slot.replaceChildren();
    } else if (deferred) {
      slot.replaceChildren(h('p', {}, t('install.why')), h('button', {
        type: 'button', id: 'install-app',
        onclick: async () => {
          const prompt = deferred;
          deferred = null;
          try {
            await prompt.prompt();
            const choice = await prompt.userChoice;
            slot.replaceChildren(h('p', { class: 'notice notice-info', role: 'status' },
              choice?.outcome === 'accepted' ? t('install.done') : t('install.later')));
          } catch {
            slot.replaceChildren();
          }
        },
      }, t('install.button')));
    } else if (isIOSSafari()) {
      slot.replaceChildren(h('p', { class: 'notice notice-info ios-hint', role: 'note' }, t('install.ios')));
    } else {
      slot.replaceChildren();
    }
  };
  listeners.add(draw);
  draw();
  return slot;
}

const ASKED = 'trailpack.persist-asked';

/**
 * Asks the browser to keep this app's data (the first download; again later while refused: the
 * browser may say yes once the app is installed). Resolves with whether it is kept; true where the
 * browser has no such request (nothing to warn about).
 */
export async function askToKeep() {
  if (typeof navigator.storage?.persist !== 'function') return true;
  try {
    if (await navigator.storage.persisted()) return true;
    try {
      localStorage.setItem(ASKED, String(Date.now()));
    } catch {
      // not remembered: the warning still shows
    }
    return await navigator.storage.persist();
  } catch {
    return false;
  }
}

/** Whether the browser keeps this app's data (true where it cannot say). */
export async function kept() {
  try {
    return typeof navigator.storage?.persisted !== 'function' || (await navigator.storage.persisted());
  } catch {
    return true;
  }
}

/**
 * The warning where the browser may remove the tours and the log when the phone runs out of space
 * (after the app asked, at the first download), or null.
 * @param {Function} h @param {Function} notice the app's box maker
 */
export async function keepWarning(h, notice) {
  let asked = false;
  try {
    asked = localStorage.getItem(ASKED) !== null;
  } catch {
    asked = true;
  }
  if (!asked || (await kept())) return null;
  const box = notice('info', t('persist.warning'));
  box.classList.add('persist-warning');
  return box;
}
