import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FocusClock, MIN_FOCUS_LOSS_MS, encodeSignal, pastedLength, watchIntegrity } from '../src/signals.js';
import { endConfirm } from '../src/format.js';
import './english.js';

test('encodeSignal', () => {
  assert.equal(encodeSignal('focus_lost', 4200.4), '{"kind":"focus_lost","ms":4200}');
  assert.equal(encodeSignal('paste', 230), '{"kind":"paste","chars":230}');
  assert.equal(encodeSignal('focus_lost', 1e12), '{"kind":"focus_lost","ms":86400000}');
  assert.ok(encodeSignal('paste', 1e9).length <= 256);
  assert.throws(() => encodeSignal('verdict', 1));
});

test('FocusClock counts the first loss and the first return', () => {
  const c = new FocusClock();
  assert.equal(c.back(1000), 0, 'a return without a loss');
  c.lost(1000);
  c.lost(3000); // blur and visibilitychange both fire
  assert.equal(c.back(9000), 8000);
  assert.equal(c.back(9500), 0, 'the second return');
  c.lost(10_000);
  assert.equal(c.back(10_000 + MIN_FOCUS_LOSS_MS - 1), 0, 'a glance away is not reported');
});

test('pastedLength counts characters, not bytes', () => {
  assert.equal(pastedLength({ clipboardData: { getData: () => 'héllo 👋' } }), 7);
  assert.equal(pastedLength({}), 0);
});

/** target is an EventTarget-like object with the listeners it holds. */
function target(extra = {}) {
  const on = new Map();
  return {
    ...extra,
    on,
    addEventListener: (type, fn) => on.set(type, fn),
    removeEventListener: (type) => on.delete(type),
    fire: (type, ev = {}) => on.get(type) && on.get(type)(ev),
  };
}

test('watchIntegrity reports while live, and stops', () => {
  const win = target();
  const doc = target({ visibilityState: 'visible' });
  const input = target();
  const sent = [];
  let now = 0;
  let live = true;
  const stop = watchIntegrity({ win, doc, input, send: (j) => sent.push(j), live: () => live, now: () => now });
  doc.visibilityState = 'hidden';
  doc.fire('visibilitychange');
  win.fire('blur');
  now = 42_000;
  doc.visibilityState = 'visible';
  doc.fire('visibilitychange');
  win.fire('focus');
  input.fire('paste', { clipboardData: { getData: () => 'x'.repeat(230) } });
  assert.deepEqual(sent, ['{"kind":"focus_lost","ms":42000}', '{"kind":"paste","chars":230}']);
  live = false;
  input.fire('paste', { clipboardData: { getData: () => 'later' } });
  assert.equal(sent.length, 2, 'nothing is reported outside the interview');
  stop();
  assert.equal(win.on.size + doc.on.size + input.on.size, 0);
});

test('endConfirm speaks to the screen in hand', () => {
  assert.equal(endConfirm(true).label, 'Tap again to end');
  assert.equal(endConfirm(false).label, 'Click again to end');
  assert.match(endConfirm(true).hint, /^Tap again/);
});
