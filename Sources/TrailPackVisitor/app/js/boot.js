// Starts the app: js/app.js and the modules it imports. A start can fail on the way when one of
// those files does not reach the page: Chromium on a busy phone now and then answers a module from
// its service worker with a network error (net::ERR_FAILED), seen a moment after a reload. One
// missing module leaves the whole app unstarted, an empty page. Here the page is loaded again
// instead, at most twice a minute, and after that it says what happened and offers a button.
// A classic script, not a module, so that it runs even when a module cannot be had.
(() => {
  const KEY = 'trailpack-boot-retries';
  const recent = () => {
    try {
      const list = JSON.parse(sessionStorage.getItem(KEY) ?? '[]');
      return Array.isArray(list) ? list.filter((t) => Number.isFinite(t) && Date.now() - t < 60_000) : [];
    } catch {
      return [];
    }
  };
  const script = document.createElement('script');
  script.type = 'module';
  script.src = 'js/app.js';
  // Started: the count is of failed starts in a row.
  script.onload = () => {
    try {
      sessionStorage.removeItem(KEY);
    } catch {
      // Nothing was counted.
    }
  };
  script.onerror = () => {
    const tries = recent();
    if (tries.length < 2) {
      try {
        sessionStorage.setItem(KEY, JSON.stringify([...tries, Date.now()]));
        location.reload();
        return;
      } catch {
        // No session storage: a reload could repeat for ever, so the visitor decides.
      }
    }
    const main = document.getElementById('main');
    const heading = document.createElement('h1');
    heading.textContent = 'The app did not start';
    const words = document.createElement('p');
    words.className = 'notice notice-error';
    words.setAttribute('role', 'alert');
    words.textContent = 'Some of its files did not load on this phone. Your tours are safe. ' +
      'Load the page again; if this goes on, close the app and open it again.';
    const again = document.createElement('button');
    again.type = 'button';
    again.textContent = 'Load again';
    again.addEventListener('click', () => location.reload());
    main.replaceChildren(heading, words, again);
  };
  document.head.append(script);
})();
