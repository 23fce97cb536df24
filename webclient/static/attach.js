// attach.js: what a file becomes before it is sent. A photo is drawn
// again into a canvas and encoded anew, so that what its file held
// besides the picture (EXIF: the place it was taken, the camera, the
// time) never leaves the device, and gets a small placeholder shown
// while the full picture loads. A voice message is recorded from the
// microphone. Nothing here talks to the relay.

import { b64url } from './crypto.js';
import { MAX_NAME, MAX_TYPE, MAX_FILES } from './records.js';

export { MAX_FILES };

// MAX_FILE is the largest file this client sends: 100 MiB, which the
// relay's default limit (128 MiB as sealed) takes with its padding. A
// relay set lower refuses it at the upload, and the message says so.
export const MAX_FILE = 100 * 1024 * 1024;

// A photo is sent at most PHOTO_SIDE pixels on its longer side, as
// JPEG of PHOTO_QUALITY (PNG stays PNG, for its transparency); its
// placeholder is THUMB_SIDE pixels, enough for a blurred preview in
// about a kilobyte.
const PHOTO_SIDE = 2048;
const PHOTO_QUALITY = 0.85;
const THUMB_SIDE = 32;

// Types drawn again as photos; a GIF keeps its animation and is sent
// as it is (it holds no EXIF), and anything else is a file.
const REENCODED = ['image/jpeg', 'image/png', 'image/webp', 'image/bmp', 'image/avif'];

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** mediaType is t without parameters, lower case, or a type for any bytes. */
export function mediaType(t) {
  const s = String(t || '').split(';')[0].trim().toLowerCase();
  return s.length <= MAX_TYPE && MEDIA_TYPE.test(s) ? s : 'application/octet-stream';
}

/** fileName is a name a files record takes: no control characters, 1 to 255 long. */
export function fileName(name, fallback = 'file') {
  const s = String(name || '').replace(CONTROL, '').trim();
  if (!s) return fallback;
  if (s.length <= MAX_NAME) return s;
  // Cut in the middle, keeping the extension.
  const dot = s.lastIndexOf('.');
  const ext = dot > 0 && s.length - dot <= 16 ? s.slice(dot) : '';
  return s.slice(0, MAX_NAME - ext.length - 1) + '…' + ext;
}

/** sizeText is a size in bytes as people read it: 512 B, 3.4 MB. */
export function sizeText(n) {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB'];
  let v = n / 1000;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/** durationText is a length in milliseconds as 0:07 or 12:30. */
export function durationText(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function fit(w, h, side) {
  const k = Math.min(1, side / Math.max(w, h));
  return [Math.max(1, Math.round(w * k)), Math.max(1, Math.round(h * k))];
}

async function draw(bitmap, w, h, type, quality) {
  const canvas = new OffscreenCanvas(w, h);
  const ctx = canvas.getContext('2d');
  if (type === 'image/jpeg') {
    // JPEG has no transparency: what was transparent becomes white.
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, w, h);
  }
  ctx.drawImage(bitmap, 0, 0, w, h);
  return canvas.convertToBlob({ type, quality });
}

/**
 * thumbOf is the placeholder of a picture: a JPEG of at most 32 pixels
 * a side, in base64url.
 * @param {ImageBitmap} bitmap
 */
async function thumbOf(bitmap) {
  const [w, h] = fit(bitmap.width, bitmap.height, THUMB_SIDE);
  const blob = await draw(bitmap, w, h, 'image/jpeg', 0.6);
  return b64url(new Uint8Array(await blob.arrayBuffer()));
}

/**
 * prepare turns a file the person chose into what is sent:
 * {blob, name, type, kind, width, height, thumb}, or {error} saying why
 * it cannot go. A photo is re-encoded (reencoded: true), without its
 * metadata; a picture this browser cannot read goes as a file.
 * @param {File} file
 */
export async function prepare(file) {
  const name = fileName(file.name);
  if (file.size === 0) return { name, error: `${name} is empty.` };
  if (file.size > MAX_FILE) return { name, error: `${name} is ${sizeText(file.size)}: the largest file you can send is ${sizeText(MAX_FILE)}.` };
  const type = mediaType(file.type);
  if (type.startsWith('image/') && (REENCODED.includes(type) || type === 'image/gif')) {
    let bitmap = null;
    try {
      bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
    } catch {
      bitmap = null;
    }
    if (bitmap) {
      try {
        const thumb = await thumbOf(bitmap);
        if (type === 'image/gif') return { blob: file, name, type, kind: 'photo', width: bitmap.width, height: bitmap.height, thumb };
        const out = type === 'image/png' ? 'image/png' : 'image/jpeg';
        const [w, h] = fit(bitmap.width, bitmap.height, PHOTO_SIDE);
        const blob = await draw(bitmap, w, h, out, PHOTO_QUALITY);
        const renamed = out === 'image/jpeg' ? fileName(name.replace(/\.[^.]*$/, '') + '.jpg') : name;
        return { blob, name: renamed, type: out, kind: 'photo', width: w, height: h, thumb, reencoded: true };
      } finally {
        bitmap.close();
      }
    }
  }
  return { blob: file, name, type, kind: 'file' };
}

/**
 * record starts a voice message from the microphone. It returns
 * {elapsed(), stop(), cancel()}: stop resolves to what is sent
 * ({blob, name, type, kind: 'voice', duration}), cancel drops it. It
 * throws an Error saying why when there is no microphone or the person
 * refused it.
 */
export async function record() {
  if (!navigator.mediaDevices || typeof MediaRecorder === 'undefined') throw new Error('This browser cannot record sound.');
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (e) {
    throw new Error(e && e.name === 'NotAllowedError'
      ? 'The microphone is blocked for this site. Allow it in the browser\u2019s site settings, then try again.'
      : 'No microphone could be used. Check that one is connected.');
  }
  const mime = MediaRecorder.isTypeSupported('audio/webm;codecs=opus') ? 'audio/webm;codecs=opus' : '';
  const rec = new MediaRecorder(stream, mime ? { mimeType: mime } : {});
  /** @type {Blob[]} */
  const parts = [];
  rec.ondataavailable = (e) => { if (e.data && e.data.size) parts.push(e.data); };
  const started = performance.now();
  const ended = new Promise((resolve) => { rec.onstop = resolve; });
  rec.start(250);
  const release = () => stream.getTracks().forEach((t) => t.stop());
  return {
    elapsed: () => performance.now() - started,
    async stop() {
      const duration = Math.round(performance.now() - started);
      rec.stop();
      await ended;
      release();
      const type = mediaType(rec.mimeType || 'audio/webm');
      const blob = new Blob(parts, { type });
      if (!blob.size) throw new Error('Nothing was recorded.');
      const ext = type.split('/')[1].replace(/[^a-z0-9]/g, '') || 'webm';
      return { blob, name: `Voice message.${ext}`, type, kind: 'voice', duration };
    },
    cancel() {
      if (rec.state !== 'inactive') rec.stop();
      release();
    },
  };
}
