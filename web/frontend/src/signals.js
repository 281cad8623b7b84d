// Integrity signals the room page reports to the interviewer, as the
// consent notice tells the candidate: when the interview's tab or window
// lost focus (and for how long), and text pasted into the answer box (its
// length, never the text). The interviewer keeps them beside the answer
// they concern, as context for a reviewer; they are never a verdict.

/** TOPIC_SIGNALS is the data topic the interviewer reads them on. */
export const TOPIC_SIGNALS = 'viva.signals';

/** MIN_FOCUS_LOSS_MS: shorter losses of focus (a click on the browser's
 * own bar) are not reported. */
export const MIN_FOCUS_LOSS_MS = 2000;

/** MAX_SIGNAL_MS bounds a reported duration (a day), as the interviewer does. */
const MAX_SIGNAL_MS = 24 * 60 * 60 * 1000;

/** encodeSignal is the JSON of one report: {"kind","ms"} or {"kind","chars"}. */
export function encodeSignal(kind, figure) {
  const n = Math.max(0, Math.round(Number(figure) || 0));
  if (kind === 'focus_lost') return JSON.stringify({ kind, ms: Math.min(n, MAX_SIGNAL_MS) });
  if (kind === 'paste') return JSON.stringify({ kind, chars: n });
  throw new Error(`unknown signal kind ${kind}`);
}

/**
 * FocusClock measures how long the page was out of focus: lost(now) when
 * the tab is hidden or the window blurred, back(now) when it returns; back
 * returns the time away in ms when it is worth reporting, else 0. Either
 * event may come twice (blur and visibilitychange both fire); the first
 * loss and the first return count.
 */
export class FocusClock {
  constructor(minMs = MIN_FOCUS_LOSS_MS) {
    this.minMs = minMs;
    this.since = null;
  }

  lost(now) {
    if (this.since === null) this.since = now;
  }

  back(now) {
    if (this.since === null) return 0;
    const away = now - this.since;
    this.since = null;
    return away >= this.minMs ? away : 0;
  }
}

/** pastedLength is how many characters a paste event brings (0 when unknown). */
export function pastedLength(event) {
  const data = event && event.clipboardData;
  if (!data || typeof data.getData !== 'function') return 0;
  return [...(data.getData('text') || '')].length;
}

/**
 * watchIntegrity reports focus losses of the page and pastes into input to
 * send(json), while live() is true. It returns a function that stops
 * watching.
 */
export function watchIntegrity({ win, doc, input, send, live, now = () => Date.now() }) {
  const clock = new FocusClock();
  const lost = () => {
    if (live()) clock.lost(now());
  };
  const back = () => {
    const ms = clock.back(now());
    if (ms && live()) send(encodeSignal('focus_lost', ms));
  };
  const visibility = () => (doc.visibilityState === 'hidden' ? lost() : back());
  const paste = (e) => {
    const chars = pastedLength(e);
    if (chars > 0 && live()) send(encodeSignal('paste', chars));
  };
  win.addEventListener('blur', lost);
  win.addEventListener('focus', back);
  doc.addEventListener('visibilitychange', visibility);
  input.addEventListener('paste', paste);
  return () => {
    win.removeEventListener('blur', lost);
    win.removeEventListener('focus', back);
    doc.removeEventListener('visibilitychange', visibility);
    input.removeEventListener('paste', paste);
  };
}
