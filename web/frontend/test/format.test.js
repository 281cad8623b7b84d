import { test } from 'node:test';
import assert from 'node:assert/strict';
import './english.js';
import {
  audioConstraints,
  formatCountdown,
  levelFromRms,
  micProblem,
  parseStage,
  reconnectDelay,
  readEvent,
  stageFromEvent,
  stageLabel,
  stateView,
} from '../src/format.js';

test('stateView', () => {
  const cases = [
    ['listening', 'listening', 'Listening'],
    ['thinking', 'thinking', 'Thinking…'],
    ['speaking', 'speaking', 'Speaking'],
    ['initializing', 'connecting', 'Getting ready…'],
    [undefined, 'connecting', 'Connecting to your interviewer…'],
    ['left', 'left', 'Your interviewer left the room'],
  ];
  for (const [in_, state, text] of cases) {
    assert.deepEqual(stateView(in_), { state, text }, String(in_));
  }
  assert.deepEqual(stateView('listening', 'true'), { state: 'listening', text: 'Take your time' });
  assert.deepEqual(stateView('speaking', 'true'), { state: 'speaking', text: 'Speaking' });
  assert.deepEqual(stateView('listening', ''), { state: 'listening', text: 'Listening' });
});

test('parseStage', () => {
  const attrs = {
    'viva.stage': 'intro',
    'viva.stage_title': 'Introduction',
    'viva.stage_index': '1',
    'viva.stage_count': '4',
    'viva.stage_deadline': '1700000000000',
  };
  assert.deepEqual(parseStage(attrs), { name: 'intro', title: 'Introduction', index: 1, count: 4, deadline: 1700000000000 });
  assert.equal(stageLabel(parseStage(attrs)), 'Stage 2 of 4 — Introduction');
  const cases = [
    [{}, null],
    [{ ...attrs, 'viva.stage': '' }, null],
    [{ ...attrs, 'viva.stage_index': '4' }, null],
    [{ ...attrs, 'viva.stage_index': '-1' }, null],
    [{ ...attrs, 'viva.stage_count': '0' }, null],
    [{ ...attrs, 'viva.stage_count': 'x' }, null],
  ];
  for (const [a, want] of cases) assert.equal(parseStage(a), want, JSON.stringify(a));
  // No title: the stage name, capitalised; no deadline: 0.
  const bare = parseStage({ 'viva.stage': 'system_design', 'viva.stage_index': '0', 'viva.stage_count': '1' });
  assert.equal(bare.title, 'System design');
  assert.equal(bare.deadline, 0);
  assert.equal(stageLabel(null), 'Waiting for the interview to start');
});

test('stageFromEvent', () => {
  const ev = { type: 'stage_change', stage: 'experience', title: 'Experience', index: 2, count: 4, deadline: 1234 };
  assert.deepEqual(stageFromEvent(ev), { name: 'experience', title: 'Experience', index: 2, count: 4, deadline: 1234 });
  assert.equal(stageFromEvent({ type: 'stage_change' }), null);
  assert.equal(stageFromEvent(null), null);
});

test('readEvent', () => {
  const enc = (v) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));
  const change = { type: 'stage_change', stage: 'intro', index: 1, count: 4 };
  assert.deepEqual(readEvent(enc(change), 'agent'), change);
  // Before the room announces the interviewer, its packets come from an
  // unknown sender; they still count.
  assert.deepEqual(readEvent(enc({ type: 'interview_ending' }), 'unknown'), { type: 'interview_ending' });
  assert.equal(readEvent(enc({ type: 'interview_ending' }), 'other'), null);
  assert.equal(readEvent(enc('not json'), 'agent'), null);
  assert.equal(readEvent(enc({ type: 'something_else' }), 'agent'), null);
  assert.equal(readEvent(enc(null), 'agent'), null);
  assert.equal(readEvent(enc([1, 2]), 'agent'), null);
});

test('formatCountdown', () => {
  const cases = [
    [0, '00:00'],
    [-5000, '00:00'],
    [1, '00:01'],
    [999, '00:01'],
    [1000, '00:01'],
    [1001, '00:02'],
    [59_000, '00:59'],
    [60_000, '01:00'],
    [61_500, '01:02'],
    [3_600_000, '60:00'],
  ];
  for (const [left, want] of cases) assert.equal(formatCountdown(10_000 + left, 10_000), want, String(left));
});

test('levelFromRms', () => {
  const cases = [
    [0, 0],
    [NaN, 0],
    [0.0001, 0], // -80 dBFS
    [0.001, 0], // -60 dBFS
    [0.01, 33], // -40 dBFS
    [0.1, 67], // -20 dBFS
    [1, 100],
    [2, 100],
  ];
  for (const [rms, want] of cases) assert.equal(levelFromRms(rms), want, String(rms));
});

test('micProblem', () => {
  const cases = [
    ['NotAllowedError', 'denied', /blocked the microphone\. Allow it in the address bar and press Try again/],
    ['SecurityError', 'denied', /Allow it/],
    ['NotFoundError', 'missing', /No microphone was found/],
    ['OverconstrainedError', 'missing', /Connect one/],
    ['NotReadableError', 'busy', /another app/],
    ['InsecureContext', 'insecure', /secure connection/],
    ['TypeError', 'other', /could not start \(boom\)\. Press Try again/],
  ];
  for (const [name, kind, message] of cases) {
    const err = new Error('boom');
    err.name = name;
    const got = micProblem(err);
    assert.equal(got.kind, kind, name);
    assert.match(got.message, message, name);
    // Whatever stops the microphone, the candidate may go on by typing.
    assert.match(got.message, /continue by typing your answers\.$/, name);
  }
});

test('reconnectDelay', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => reconnectDelay(n, 0)), [1000, 2000, 4000, 8000, 10000, 10000]);
  assert.equal(reconnectDelay(1, 0.999), 1200);
});

test('audioConstraints', () => {
  assert.deepEqual(audioConstraints(false), { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 });
  assert.deepEqual(audioConstraints(true), { echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 });
});
