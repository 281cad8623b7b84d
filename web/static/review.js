// Live reviewer page: while an interview runs, the timeline carries
// data-live-url; every POLL_MS this script fetches that address (the
// page's summary and timeline as HTML fragments) and swaps the parts in,
// keeping the reader's scroll position. When the fragment's timeline no
// longer carries data-live-url the interview is over: the page reloads
// once to show everything a finished interview has. Loaded with defer.
(() => {
  'use strict';

  /** POLL_MS is the time between two polls, in milliseconds. */
  const POLL_MS = 3000;
  /** MAX_BACKOFF_MS bounds the wait after failed polls. */
  const MAX_BACKOFF_MS = 30000;

  const timeline = document.getElementById('timeline');
  const url = timeline && timeline.dataset.liveUrl;
  if (!url) return;

  let wait = POLL_MS;
  const swap = (html) => {
    const tpl = document.createElement('template');
    tpl.innerHTML = html;
    let live = false;
    for (const part of tpl.content.querySelectorAll('[data-live-part]')) {
      const current = document.getElementById(part.id);
      if (current) current.replaceWith(part);
      if (part.id === 'timeline') live = Boolean(part.dataset.liveUrl);
    }
    return live;
  };
  const poll = async () => {
    try {
      const res = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'text/html' } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      if (!swap(await res.text())) {
        window.location.reload();
        return;
      }
      wait = POLL_MS;
    } catch {
      wait = Math.min(wait * 2, MAX_BACKOFF_MS); // the server or the network is down: try again later
    }
    setTimeout(poll, wait);
  };
  setTimeout(poll, wait);
})();
