// docwright page-view script for static docs sites. Include it once per page:
//   <script defer src="https://docwright.example.com/script.js" data-project="prj_..."></script>
// It records a view when the page is first shown and after every single-page-app navigation to
// another path. It sends only the path and the referrer: no cookies, no storage, no identifiers.
// The server takes the user agent and address from the request. See docs/browser-script.md.
(() => {
  const script = document.currentScript;
  const project = script?.getAttribute('data-project');
  if (!project) return;
  const base = script.getAttribute('data-api') || new URL(script.src).origin;
  const endpoint = `${base.replace(/\/+$/, '')}/v1/analytics/${encodeURIComponent(project)}/collect`;
  let lastPath = null;
  let referrer = document.referrer;
  // AI assistants tag the links they cite (utm_source=chatgpt.com): sent once, like the referrer.
  let utmSource = null;
  const utm = /[?&]utm_source=([^&#]*)/.exec(location.search || '');
  try {
    if (utm) utmSource = decodeURIComponent(utm[1].replace(/\+/g, ' '));
  } catch (_) {}
  let waiting = false;

  function send() {
    const path = location.pathname;
    // replaceState for scroll positions or query changes is not a new page.
    if (path === lastPath) return;
    lastPath = path;
    const body = { path: path };
    if (referrer) body.referrer = referrer;
    if (utmSource) body.utmSource = utmSource.slice(0, 200);
    referrer = '';
    utmSource = null;
    const text = JSON.stringify(body);
    // text/plain keeps the request simple: no CORS preflight, and every sendBeacon accepts it.
    try {
      if (navigator.sendBeacon?.(endpoint, new Blob([text], { type: 'text/plain' }))) return;
    } catch (_) {}
    if (window.fetch) {
      fetch(endpoint, {
        method: 'POST',
        body: text,
        headers: { 'content-type': 'text/plain' },
        keepalive: true,
        credentials: 'omit',
      }).catch(() => {});
    }
  }

  // A prerendered page, or one opened in a background tab, is not read yet: count it when it is
  // first shown, and not at all if it is closed unseen.
  function hidden() {
    return (
      document.prerendering ||
      document.visibilityState === 'hidden' ||
      document.visibilityState === 'prerender'
    );
  }
  function whenShown() {
    if (!hidden()) return send();
    if (waiting) return;
    waiting = true;
    function shown() {
      if (hidden()) return;
      waiting = false;
      document.removeEventListener('visibilitychange', shown);
      document.removeEventListener('prerenderingchange', shown);
      send();
    }
    document.addEventListener('visibilitychange', shown);
    document.addEventListener('prerenderingchange', shown);
  }

  ['pushState', 'replaceState'].forEach((name) => {
    const original = history[name];
    if (typeof original !== 'function') return;
    history[name] = function (...args) {
      const result = original.apply(this, args);
      whenShown();
      return result;
    };
  });
  window.addEventListener('popstate', whenShown);
  whenShown();
})();
