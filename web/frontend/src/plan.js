// The interview's plan on the room page: every stage from the server's
// JSON data block, which of them is done, current or to come, and the
// time left in the whole interview. Pure functions: `npm test` runs them.

import { t } from './text.js';

/**
 * readPlan parses the plan the server renders into the page
 * ({stages: [{name, title, limit_ms}]}); an empty plan when it is missing
 * or malformed.
 */
export function readPlan(text) {
  let plan;
  try {
    plan = JSON.parse(text || '');
  } catch {
    return { stages: [] };
  }
  const stages = Array.isArray(plan && plan.stages) ? plan.stages : [];
  return {
    stages: stages
      .filter((s) => s && typeof s.name === 'string' && s.name)
      .map((s) => ({
        name: s.name,
        title: typeof s.title === 'string' && s.title ? s.title : s.name,
        limitMs: Number.isFinite(s.limit_ms) && s.limit_ms > 0 ? s.limit_ms : 0,
      })),
  };
}

/**
 * skippedBetween lists the indices of the stages a move from prev to stage
 * jumped over: promised, never entered (the interviewer says so aloud).
 * Nothing is known to be skipped before the page saw a stage.
 */
export function skippedBetween(prev, stage) {
  if (!prev || !stage || prev.count !== stage.count) return [];
  const out = [];
  for (let i = prev.index + 1; i < stage.index; i++) out.push(i);
  return out;
}

/**
 * stepperStages lists the stages the stepper shows, each with state done,
 * skipped, current or upcoming. stage is the agent's current stage
 * (parseStage) or null before the interview starts; skipped holds the
 * indices of the stages passed over (skippedBetween). When the agent's
 * stage count differs from the plan (a plan the page does not know), the
 * agent's count wins and only the current stage has a title.
 */
export function stepperStages(plan, stage, skipped = new Set()) {
  const fromPlan = plan.stages.length > 0 && (!stage || stage.count === plan.stages.length);
  const count = fromPlan ? plan.stages.length : stage ? stage.count : 0;
  const current = stage ? stage.index : -1;
  const out = [];
  for (let i = 0; i < count; i++) {
    let title = fromPlan ? plan.stages[i].title : t('stage_n', { n: i + 1 });
    if (stage && i === current && stage.title) title = stage.title;
    let state = i === current ? 'current' : 'upcoming';
    if (i < current) state = skipped.has(i) ? 'skipped' : 'done';
    out.push({ title, state });
  }
  return out;
}

/**
 * totalLeftMs is the time left in the whole interview at nowMs: what is
 * left of the current stage (its deadline) plus the limits of the stages
 * after it. Before the interview starts it is the plan's whole length.
 * Returns -1 when it cannot be known (no plan, or no deadline).
 */
export function totalLeftMs(plan, stage, nowMs) {
  if (plan.stages.length === 0) return -1;
  if (!stage) return plan.stages.reduce((sum, s) => sum + s.limitMs, 0);
  if (stage.count !== plan.stages.length || !stage.deadline) return -1;
  let left = Math.max(0, stage.deadline - nowMs);
  for (let i = stage.index + 1; i < plan.stages.length; i++) left += plan.stages[i].limitMs;
  return left;
}

/** formatMinutesLeft shows a time left as "8 min" (rounded up) or "under a minute", in the page's language. */
export function formatMinutesLeft(ms) {
  if (ms <= 0) return t('no_time');
  if (ms < 60_000) return t('under_minute');
  return t('minutes_left', { n: Math.ceil(ms / 60_000) });
}
