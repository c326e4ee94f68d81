// Soft synthesised sounds (SPEC U7): move, capture, check and end. Nothing is downloaded;
// the audio context starts on the first sound after a user gesture.
import { settings } from "./settings.js";

let context = null;

function audio() {
  if (!context) {
    // Before the player's first tap or key the browser would refuse (and log a warning).
    if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return null;
    const AudioContext = window.AudioContext || window.webkitAudioContext;
    if (!AudioContext) return null;
    context = new AudioContext();
  }
  if (context.state === "suspended") context.resume();
  return context;
}

// A short wooden knock: a filtered noise burst over a quickly fading low tone.
function knock(ctx, at, pitch, loudness) {
  const gain = ctx.createGain();
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(loudness, at + 0.005);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.16);
  gain.connect(ctx.destination);
  const tone = ctx.createOscillator();
  tone.type = "sine";
  tone.frequency.setValueAtTime(pitch, at);
  tone.frequency.exponentialRampToValueAtTime(pitch * 0.6, at + 0.15);
  tone.connect(gain);
  tone.start(at);
  tone.stop(at + 0.18);
  const length = Math.floor(ctx.sampleRate * 0.03);
  const buffer = ctx.createBuffer(1, length, ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / length);
  const noise = ctx.createBufferSource();
  noise.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = pitch * 4;
  const noiseGain = ctx.createGain();
  noiseGain.gain.value = loudness * 0.6;
  noise.connect(filter).connect(noiseGain).connect(ctx.destination);
  noise.start(at);
}

function chime(ctx, at, frequency, loudness, length = 0.4) {
  const gain = ctx.createGain();
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(loudness, at + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  gain.connect(ctx.destination);
  const tone = ctx.createOscillator();
  tone.type = "triangle";
  tone.frequency.value = frequency;
  tone.connect(gain);
  tone.start(at);
  tone.stop(at + length + 0.05);
}

/** Play "move", "capture", "check" or "end", unless muted. */
export function playSound(kind) {
  if (settings.muted || settings.volume <= 0) return;
  const ctx = audio();
  if (!ctx) return;
  const loudness = Math.max(0.0002, 0.5 * settings.volume);
  const now = ctx.currentTime + 0.01;
  if (kind === "move") knock(ctx, now, 220, loudness);
  else if (kind === "capture") {
    knock(ctx, now, 200, loudness);
    knock(ctx, now + 0.07, 150, loudness * 0.9);
  } else if (kind === "check") {
    chime(ctx, now, 660, loudness * 0.5, 0.25);
    chime(ctx, now + 0.12, 880, loudness * 0.5, 0.35);
  } else if (kind === "end") {
    [523, 659, 784].forEach((f, i) => chime(ctx, now + i * 0.14, f, loudness * 0.45, 0.6));
  }
}
