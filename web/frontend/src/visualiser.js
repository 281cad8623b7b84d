// The interviewer's voice, drawn: a Web Audio AnalyserNode on the agent's
// audio track feeds bars on a canvas, coloured by the interviewer's state
// (listening, thinking, speaking). The canvas's data-level (0–100) says
// how loud the voice is, for assistive tests and styling; the state text
// beside it carries the meaning for screen readers.

import { levelFromRms } from './format.js';

/** BAR_COUNT is how many bars are drawn. */
const BAR_COUNT = 24;
/** LEVEL_UPDATE_MS limits how often data-level changes. */
const LEVEL_UPDATE_MS = 100;

/** SPEECH_BAND is the share of the analyser's bins the bars show: up to
 * about 8 kHz at 48 kHz, where a voice's energy is. */
const SPEECH_BAND = 0.35;

/**
 * barHeights turns analyser frequency bytes (0–255) into n bar heights in
 * [0, 1], spreading the speech band over the bars, lowest first.
 */
export function barHeights(freq, n = BAR_COUNT) {
  const out = new Array(n).fill(0);
  const usable = Math.min(freq.length, Math.max(n, Math.floor(freq.length * SPEECH_BAND)));
  const per = usable / n;
  for (let i = 0; i < n; i++) {
    let sum = 0;
    let k = 0;
    for (let j = Math.floor(i * per); j < Math.floor((i + 1) * per) && j < freq.length; j++, k++) sum += freq[j];
    out[i] = k ? sum / k / 255 : 0;
  }
  return out;
}

export class Visualiser {
  /** @param {HTMLCanvasElement} canvas */
  constructor(canvas) {
    this.canvas = canvas;
    this.g = canvas.getContext('2d');
    this.analyser = null;
    this.source = null;
    this.frame = 0;
    this.state = 'connecting';
    this.lastLevel = 0;
    this.heights = new Array(BAR_COUNT).fill(0);
    this.reducedMotion = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  }

  /** setState colours the bars: connecting, listening, thinking, speaking or left. */
  setState(state) {
    this.state = state;
    this.canvas.dataset.state = state;
    if (!this.frame) this.draw(performance.now());
  }

  /**
   * attach analyses track (the interviewer's remote audio
   * MediaStreamTrack) with ctx; the track keeps playing through its own
   * audio element.
   */
  attach(ctx, track) {
    this.detach();
    this.source = ctx.createMediaStreamSource(new MediaStream([track]));
    this.analyser = ctx.createAnalyser();
    this.analyser.fftSize = 256;
    this.analyser.smoothingTimeConstant = 0.6;
    this.source.connect(this.analyser);
    this.start();
  }

  /** detach stops analysing the track; the bars rest. */
  detach() {
    if (this.source) this.source.disconnect();
    this.source = null;
    this.analyser = null;
  }

  /** start runs the drawing loop. */
  start() {
    if (this.frame) return;
    const tick = (now) => {
      this.draw(now);
      this.frame = requestAnimationFrame(tick);
    };
    this.frame = requestAnimationFrame(tick);
  }

  /** stop ends the drawing loop and the analysis. */
  stop() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.detach();
  }

  draw(now) {
    const { canvas, g } = this;
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
    const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
    let target = new Array(BAR_COUNT).fill(0);
    let level = 0;
    if (this.analyser) {
      const freq = new Uint8Array(this.analyser.frequencyBinCount);
      this.analyser.getByteFrequencyData(freq);
      // Lowest frequencies in the middle, mirrored outwards.
      const half = barHeights(freq, BAR_COUNT / 2);
      target = [...half.slice().reverse(), ...half];
      const samples = new Float32Array(this.analyser.fftSize);
      this.analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (let i = 0; i < samples.length; i++) sum += samples[i] * samples[i];
      level = levelFromRms(Math.sqrt(sum / samples.length));
    }
    // At rest, a gentle wave says the interviewer is there: slow while
    // listening, quicker while thinking.
    const idle = this.state === 'thinking' ? 0.25 : this.state === 'listening' ? 0.12 : 0.06;
    const speed = this.state === 'thinking' ? 0.006 : 0.002;
    for (let i = 0; i < BAR_COUNT; i++) {
      const wave = this.reducedMotion ? idle : idle * (0.6 + 0.4 * Math.sin(now * speed + i * 0.5));
      const want = Math.max(target[i], wave);
      this.heights[i] += (want - this.heights[i]) * 0.35;
    }
    const style = getComputedStyle(canvas);
    const color = style.getPropertyValue(`--viz-${this.state}`).trim() || style.color;
    g.clearRect(0, 0, w, h);
    g.fillStyle = color;
    const gap = w / BAR_COUNT;
    const barW = gap * 0.6;
    for (let i = 0; i < BAR_COUNT; i++) {
      const bh = Math.max(2 * dpr, this.heights[i] * h * 0.95);
      const x = i * gap + (gap - barW) / 2;
      g.fillRect(x, (h - bh) / 2, barW, bh);
    }
    if (now - this.lastLevel >= LEVEL_UPDATE_MS) {
      this.lastLevel = now;
      canvas.dataset.level = String(level);
    }
  }
}
