// Microphone and speaker choice, and the test sound: the parts of the
// pre-join check and the in-room device menu that talk to the browser.

import { t } from './text.js';

/** TEST_TONE_HZ and TEST_TONE_MS shape the "Play a test sound" tone. */
const TEST_TONE_HZ = 660;
const TEST_TONE_MS = 800;

/** canChooseSpeaker says whether audio output can be chosen (setSinkId). */
export function canChooseSpeaker() {
  return typeof HTMLMediaElement !== 'undefined' && 'setSinkId' in HTMLMediaElement.prototype;
}

/**
 * listDevices returns the devices of kind ("audioinput" or "audiooutput");
 * labels are empty until the microphone permission is granted.
 */
export async function listDevices(kind) {
  if (!navigator.mediaDevices || !navigator.mediaDevices.enumerateDevices) return [];
  try {
    const all = await navigator.mediaDevices.enumerateDevices();
    return all.filter((d) => d.kind === kind && d.deviceId);
  } catch {
    return [];
  }
}

/**
 * fillSelect replaces the options of select with devices, keeping the
 * first "default" option and selecting chosen when listed. A device
 * without a label is called by the text name ("Microphone {n}").
 */
export function fillSelect(select, devices, chosen, name) {
  const first = select.options[0];
  select.replaceChildren(first);
  devices.forEach((d, i) => {
    if (d.deviceId === 'default') return;
    const opt = document.createElement('option');
    opt.value = d.deviceId;
    opt.textContent = d.label || t(name, { n: i + 1 });
    select.append(opt);
  });
  select.value = [...select.options].some((o) => o.value === chosen) ? chosen : '';
}

/**
 * playTestTone plays a short, soft tone through ctx (on sinkId when the
 * browser can choose the output), so the candidate can check they hear the
 * interviewer. It resolves when the tone has ended.
 */
export async function playTestTone(ctx, sinkId) {
  if (sinkId && typeof ctx.setSinkId === 'function') {
    try {
      await ctx.setSinkId(sinkId);
    } catch {
      // The default output plays instead.
    }
  }
  if (ctx.state === 'suspended') await ctx.resume();
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  const t0 = ctx.currentTime;
  const end = t0 + TEST_TONE_MS / 1000;
  osc.frequency.value = TEST_TONE_HZ;
  gain.gain.setValueAtTime(0, t0);
  gain.gain.linearRampToValueAtTime(0.2, t0 + 0.05);
  gain.gain.setValueAtTime(0.2, end - 0.1);
  gain.gain.linearRampToValueAtTime(0, end);
  osc.connect(gain).connect(ctx.destination);
  osc.start(t0);
  osc.stop(end);
  await new Promise((resolve) => osc.addEventListener('ended', resolve, { once: true }));
  osc.disconnect();
  gain.disconnect();
}
