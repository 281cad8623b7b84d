import { test } from 'node:test';
import assert from 'node:assert/strict';
import './english.js';
import { CaptionModel, SPEAKER_AGENT, SPEAKER_OTHER, SPEAKER_YOU, speakerLabel } from '../src/captions.js';

const view = (m) => m.lines.map((l) => `${speakerLabel(l.speaker)}:${l.text}${l.final ? '' : '…'}${l.pending ? ' (pending)' : ''}`);

test('one line per segment, interim replaced by later updates and the final', () => {
  const m = new CaptionModel();
  const steps = [
    [{ segmentId: 'a1', speaker: SPEAKER_AGENT, text: 'Hello', final: false, at: 1 }, ['Interviewer:Hello…']],
    [{ segmentId: 'a1', speaker: SPEAKER_AGENT, text: 'Hello Ada.', final: false, at: 2 }, ['Interviewer:Hello Ada.…']],
    [{ segmentId: 'u1', speaker: SPEAKER_YOU, text: 'yes', final: false, at: 3 }, ['Interviewer:Hello Ada.…', 'You:yes…']],
    [{ segmentId: 'a1', speaker: SPEAKER_AGENT, text: 'Hello Ada. Can you hear me?', final: true, at: 4 },
      ['Interviewer:Hello Ada. Can you hear me?', 'You:yes…']],
    // An interim that arrives after the final changes nothing.
    [{ segmentId: 'a1', speaker: SPEAKER_AGENT, text: 'Hello', final: false, at: 5 }, ['Interviewer:Hello Ada. Can you hear me?', 'You:yes…']],
    // An older interim arriving late is ignored.
    [{ segmentId: 'u1', speaker: SPEAKER_YOU, text: 'y', final: false, at: 2 }, ['Interviewer:Hello Ada. Can you hear me?', 'You:yes…']],
    [{ segmentId: 'u1', speaker: SPEAKER_YOU, text: 'yes I can hear you', final: true, at: 6 },
      ['Interviewer:Hello Ada. Can you hear me?', 'You:yes I can hear you']],
    // Empty text does not open a line.
    [{ segmentId: 'u2', speaker: SPEAKER_YOU, text: '  ', final: false, at: 7 },
      ['Interviewer:Hello Ada. Can you hear me?', 'You:yes I can hear you']],
  ];
  for (const [update, want] of steps) {
    m.apply(update);
    assert.deepEqual(view(m), want, JSON.stringify(update));
  }
});

test('apply reports what changed', () => {
  const m = new CaptionModel();
  const first = m.apply({ segmentId: 's', speaker: SPEAKER_AGENT, text: 'Hi', final: false });
  assert.equal(first.created, true);
  assert.equal(m.apply({ segmentId: 's', speaker: SPEAKER_AGENT, text: 'Hi', final: false }), null);
  const second = m.apply({ segmentId: 's', speaker: SPEAKER_AGENT, text: 'Hi there', final: true });
  assert.equal(second.created, false);
  assert.equal(second.line, first.line);
});

test('a typed message is shown at once and merged with its echo', () => {
  const m = new CaptionModel();
  const typed = m.addTyped('  I am  ready ');
  assert.deepEqual(view(m), ['You:I am  ready (pending)']);
  m.apply({ segmentId: 'a1', speaker: SPEAKER_AGENT, text: 'Great.', final: false });
  const echo = m.apply({ segmentId: 'chat-1', speaker: SPEAKER_YOU, text: 'I am ready', final: true });
  assert.equal(echo.created, false);
  assert.equal(echo.line, typed);
  assert.deepEqual(view(m), ['You:I am ready', 'Interviewer:Great.…']);
  // A second identical message is a new line, not merged with the first.
  m.addTyped('I am ready');
  m.apply({ segmentId: 'chat-2', speaker: SPEAKER_YOU, text: 'I am ready', final: true });
  assert.deepEqual(view(m), ['You:I am ready', 'Interviewer:Great.…', 'You:I am ready']);
  // Spoken words never merge with a typed line, nor do the agent's.
  m.addTyped('hello');
  m.apply({ segmentId: 'a2', speaker: SPEAKER_AGENT, text: 'hello', final: true });
  m.apply({ segmentId: 'u9', speaker: SPEAKER_YOU, text: 'hello', final: false });
  assert.equal(m.lines.filter((l) => l.pending).length, 1);
});

test('remove drops an unsent message', () => {
  const m = new CaptionModel();
  const line = m.addTyped('lost');
  m.remove(line);
  assert.deepEqual(view(m), []);
  m.apply({ segmentId: 'chat-1', speaker: SPEAKER_YOU, text: 'lost', final: true });
  assert.deepEqual(view(m), ['You:lost']);
});

test('a caption that arrived before its sender was known is relabelled when the sender turns out to be the interviewer', () => {
  const m = new CaptionModel();
  m.apply({ segmentId: 'a1', speaker: SPEAKER_OTHER, identity: 'agent-AJ_1', text: 'Hello Ada.', final: true, at: 1 });
  m.apply({ segmentId: 'o1', speaker: SPEAKER_OTHER, identity: 'observer', text: 'hi', final: true, at: 2 });
  assert.deepEqual(view(m), ['Participant:Hello Ada.', 'Participant:hi']);
  const changed = m.identify('agent-AJ_1', SPEAKER_AGENT);
  assert.deepEqual(changed.map((l) => l.segmentId), ['a1']);
  assert.deepEqual(view(m), ['Interviewer:Hello Ada.', 'Participant:hi']);
  // Later updates of the segment keep the speaker, and naming it again changes nothing.
  m.apply({ segmentId: 'a1', speaker: SPEAKER_AGENT, identity: 'agent-AJ_1', text: 'Hello Ada. Can you hear me?', final: true, at: 3 });
  assert.deepEqual(m.identify('agent-AJ_1', SPEAKER_AGENT), []);
  assert.deepEqual(view(m), ['Interviewer:Hello Ada. Can you hear me?', 'Participant:hi']);
});
