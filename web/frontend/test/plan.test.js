import { test } from 'node:test';
import assert from 'node:assert/strict';
import './english.js';
import { formatMinutesLeft, readPlan, skippedBetween, stepperStages, totalLeftMs } from '../src/plan.js';
import { barHeights } from '../src/visualiser.js';
import { CaptionModel } from '../src/captions.js';

const planText = JSON.stringify({
  stages: [
    { name: 'greeting', title: 'Welcome', limit_ms: 60000 },
    { name: 'intro', title: 'Introduction', limit_ms: 120000 },
    { name: 'closing', title: 'Closing', limit_ms: 45000 },
  ],
});

test('readPlan reads the data block and survives junk', () => {
  assert.deepEqual(readPlan(planText).stages.map((s) => [s.name, s.title, s.limitMs]), [
    ['greeting', 'Welcome', 60000],
    ['intro', 'Introduction', 120000],
    ['closing', 'Closing', 45000],
  ]);
  assert.deepEqual(readPlan('not json'), { stages: [] });
  assert.deepEqual(readPlan('{"stages":[{"title":"no name"}]}'), { stages: [] });
});

test('stepperStages marks done, current and upcoming stages', () => {
  const plan = readPlan(planText);
  assert.deepEqual(
    stepperStages(plan, null).map((s) => s.state),
    ['upcoming', 'upcoming', 'upcoming'],
  );
  const stage = { name: 'intro', title: 'Introduction', index: 1, count: 3, deadline: 0 };
  assert.deepEqual(stepperStages(plan, stage), [
    { title: 'Welcome', state: 'done' },
    { title: 'Introduction', state: 'current' },
    { title: 'Closing', state: 'upcoming' },
  ]);
  // A plan the page does not know: the agent's count wins.
  const other = { name: 'x', title: 'Design', index: 0, count: 2, deadline: 0 };
  assert.deepEqual(stepperStages(plan, other), [
    { title: 'Design', state: 'current' },
    { title: 'Stage 2', state: 'upcoming' },
  ]);
});

test('totalLeftMs adds the later stages to the current deadline', () => {
  const plan = readPlan(planText);
  assert.equal(totalLeftMs(plan, null, 0), 225000);
  const stage = { name: 'intro', title: 'Introduction', index: 1, count: 3, deadline: 100_000 };
  assert.equal(totalLeftMs(plan, stage, 40_000), 60_000 + 45_000);
  assert.equal(totalLeftMs(plan, stage, 200_000), 45_000);
  assert.equal(totalLeftMs(plan, { ...stage, deadline: 0 }, 0), -1);
  assert.equal(totalLeftMs({ stages: [] }, stage, 0), -1);
  assert.equal(formatMinutesLeft(105_000), '2 min');
  assert.equal(formatMinutesLeft(30_000), 'under a minute');
  assert.equal(formatMinutesLeft(0), 'no time');
});

test('barHeights spreads the speech band over the bars', () => {
  const silent = barHeights(new Uint8Array(128), 8);
  assert.deepEqual(silent, new Array(8).fill(0));
  const loud = barHeights(new Uint8Array(128).fill(255), 8);
  assert.ok(loud.every((h) => h === 1));
});

test('captions: interrupted finals and restored turns', () => {
  const m = new CaptionModel();
  m.apply({ segmentId: 's1', speaker: 'agent', text: 'Describe a', final: false, at: 1, interrupted: true });
  assert.equal(m.lines[0].interrupted, false, 'only a final caption is interrupted');
  const r = m.apply({ segmentId: 's1', speaker: 'agent', text: 'Describe', final: true, at: 2, interrupted: true });
  assert.equal(r.line.interrupted, true);
  const restored = m.restore([
    { speaker: 'agent', text: 'Hello', interrupted: false },
    { speaker: 'candidate', text: 'Hi', interrupted: true },
    { speaker: 'agent', text: '  ' },
  ]);
  assert.equal(restored.length, 2);
  assert.deepEqual(
    m.lines.map((l) => [l.speaker, l.text, l.interrupted, l.restored]),
    [
      ['agent', 'Hello', false, true],
      ['you', 'Hi', false, true],
      ['agent', 'Describe', true, false],
    ],
  );
});

test('a stage jumped over is marked skipped, not left pending', () => {
  const plan = readPlan(planText);
  const greeting = { name: 'greeting', title: 'Welcome', index: 0, count: 3, deadline: 0 };
  const closing = { name: 'closing', title: 'Closing', index: 2, count: 3, deadline: 0 };
  const skipped = new Set(skippedBetween(greeting, closing));
  assert.deepEqual([...skipped], [1]);
  assert.deepEqual(stepperStages(plan, closing, skipped), [
    { title: 'Welcome', state: 'done' },
    { title: 'Introduction', state: 'skipped' },
    { title: 'Closing', state: 'current' },
  ]);
  // A page opened mid-interview knows of no skip; a step to the next stage skips nothing.
  assert.deepEqual(skippedBetween(null, closing), []);
  assert.deepEqual(skippedBetween(greeting, { ...closing, index: 1 }), []);
  assert.deepEqual(stepperStages(plan, closing).map((s) => s.state), ['done', 'done', 'current']);
});
