// The level meter of the candidate's own microphone: a Web Audio
// AnalyserNode read on every animation frame, drawn as a bar whose width is
// a CSS custom property (no inline style attribute, so the page's CSP holds),
// with role="meter" and aria-valuenow for assistive technology.

import { levelFromRms } from './format.js';

/** ARIA_UPDATE_MS limits how often aria-valuenow changes (screen readers). */
const ARIA_UPDATE_MS = 250;

export class LevelMeter {
  /**
   * @param {HTMLElement} el the role="meter" element; its --level custom
   *   property (0–1) sizes the bar.
   */
  constructor(el) {
    this.el = el;
    this.ctx = null;
    this.source = null;
    this.analyser = null;
    this.frame = 0;
    this.lastAria = 0;
    this.level = 0;
  }

  /**
   * start measures track with ctx, an AudioContext created during the
   * user's click (browsers start audio contexts only after a gesture).
   */
  start(ctx, track) {
    this.stop();
    this.ctx = ctx;
    this.source = ctx.createMediaStreamSource(new MediaStream([track]));
    this.analyser = ctx.createAnalyser();
    this.analyser.fftSize = 1024;
    this.analyser.smoothingTimeConstant = 0.2;
    this.source.connect(this.analyser);
    const samples = new Float32Array(this.analyser.fftSize);
    const tick = (now) => {
      this.analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (let i = 0; i < samples.length; i++) sum += samples[i] * samples[i];
      const level = levelFromRms(Math.sqrt(sum / samples.length));
      // Fall back slowly so short syllables stay visible.
      this.level = Math.max(level, this.level - 4);
      this.el.style.setProperty('--level', String(this.level / 100));
      this.el.dataset.active = this.level > 15 ? 'true' : 'false';
      if (now - this.lastAria >= ARIA_UPDATE_MS) {
        this.lastAria = now;
        this.el.setAttribute('aria-valuenow', String(this.level));
      }
      this.frame = requestAnimationFrame(tick);
    };
    this.frame = requestAnimationFrame(tick);
    this.el.hidden = false;
  }

  /** stop ends the measurement and empties the bar. */
  stop() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (this.source) this.source.disconnect();
    this.source = null;
    this.analyser = null;
    this.level = 0;
    this.el.style.setProperty('--level', '0');
    this.el.setAttribute('aria-valuenow', '0');
    this.el.dataset.active = 'false';
  }
}
