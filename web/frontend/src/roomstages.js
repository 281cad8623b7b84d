// The room page's stages: the stepper, the stage's countdown and the time
// left in the whole interview. Methods of RoomPage (room.js), kept apart by
// job.

import { formatMinutesLeft, skippedBetween, stepperStages, totalLeftMs } from './plan.js';
import { formatCountdown, stageLabel } from './format.js';
import { t } from './text.js';

export const stageMethods = {
  setStage(stage) {
    // The plan's title is in the interview's language; the agent's is the
    // design's own.
    const planned = this.plan.stages.find((st) => st.name === stage.name);
    if (planned && planned.title) stage = { ...stage, title: planned.title };
    const prev = this.stage;
    this.stage = stage;
    for (const i of skippedBetween(prev, stage)) this.skippedStages.add(i);
    this.el.stage.textContent = stageLabel(stage);
    if (!prev || prev.name !== stage.name) this.el.stage.dataset.stage = stage.name;
    if (!prev || prev.index !== stage.index || prev.count !== stage.count) this.renderStepper();
    if (stage.deadline > 0) {
      this.el.countdownWrap.hidden = false;
      this.tickCountdown();
      if (!this.countdownTimer) this.countdownTimer = setInterval(() => this.tickCountdown(), 500);
    } else {
      this.el.countdownWrap.hidden = true;
      this.tickCountdown();
    }
  },

  /** renderStepper shows every stage: the done, skipped and current ones. */
  renderStepper() {
    const items = stepperStages(this.plan, this.stage, this.skippedStages);
    const list = this.el.stepper;
    list.replaceChildren(
      ...items.map((it, i) => {
        const li = document.createElement('li');
        li.className = 'room-step';
        li.dataset.state = it.state;
        if (it.state === 'current') li.setAttribute('aria-current', 'step');
        const n = document.createElement('span');
        n.className = 'room-step-n';
        n.setAttribute('aria-hidden', 'true');
        n.textContent = it.state === 'done' ? '✓' : String(i + 1);
        const title = document.createElement('span');
        title.className = 'room-step-title';
        title.textContent = it.title;
        const sr = document.createElement('span');
        sr.className = 'visually-hidden';
        sr.textContent = it.state === 'done' ? ` (${t('step_done')})` : it.state === 'current' ? ` (${t('step_now')})` : '';
        li.append(n, title, sr);
        if (it.state === 'skipped') {
          const note = document.createElement('span');
          note.className = 'room-step-note';
          note.textContent = t('skipped');
          li.append(note);
        }
        return li;
      }),
    );
    list.hidden = items.length === 0;
    this.tickTotal();
  },

  tickCountdown() {
    this.tickTotal();
    if (!this.stage || !this.stage.deadline) return;
    const left = this.stage.deadline - Date.now();
    this.el.countdown.textContent = formatCountdown(this.stage.deadline, Date.now());
    this.el.countdownWrap.dataset.urgent = left < 30_000 ? 'true' : 'false';
  },

  /** tickTotal shows the time left in the whole interview, when known. */
  tickTotal() {
    const left = totalLeftMs(this.plan, this.stage, Date.now());
    this.el.totalWrap.hidden = left < 0;
    if (left >= 0) {
      this.el.totalLeft.textContent = formatMinutesLeft(left);
      this.el.totalLeft.dataset.ms = String(left);
    }
  },
};
