// screen-files.js: the attachments of a message in its bubble: a photo
// inline (its blurred placeholder until the picture is here), opened full
// size in a dialog; a voice message with its player and seek bar; a file
// with its name, size and Save. Each shows its upload or download with
// progress and Cancel, and a failed download says why, with Retry. The
// bytes come from this device's store as blob: URLs, the only kind the
// page's Content-Security-Policy lets images and media come from besides
// its own files.

import * as store from './store.js';
import * as transfer from './transfer.js';
import { sizeText, durationText } from './attach.js';
import { unb64url } from './crypto.js';
import { el, ask } from './dom.js';

// urls keeps one blob: URL per file shown in this tab, the newest last;
// the oldest go beyond URL_CACHE.
const urls = new Map();
const URL_CACHE = 200;

function urlOf(ref, blob) {
  let u = urls.get(ref);
  if (u) {
    urls.delete(ref);
    urls.set(ref, u);
    return u;
  }
  u = URL.createObjectURL(blob);
  urls.set(ref, u);
  while (urls.size > URL_CACHE) {
    const [k, old] = urls.entries().next().value;
    urls.delete(k);
    URL.revokeObjectURL(old);
  }
  return u;
}

/**
 * placeholderURL is the blob: URL of a photo's placeholder, a small JPEG
 * in base64url from its message, or null.
 * @param {string | null} b64
 */
export function placeholderURL(b64) {
  if (!b64) return null;
  try {
    return urlOf('thumb:' + b64, new Blob([unb64url(b64)], { type: 'image/jpeg' }));
  } catch {
    return null;
  }
}

// The progress of this tab's transfers moves the bars shown.
transfer.onProgress((ref, t) => {
  for (const slot of document.querySelectorAll(`.transfer[data-ref="${CSS.escape(ref)}"]`)) showProgress(slot, t);
});

function showProgress(slot, t) {
  const bar = slot.querySelector('progress');
  const words = slot.querySelector('.transfer-text');
  if (!t) {
    slot.hidden = true;
    return;
  }
  slot.hidden = false;
  const pct = t.total ? Math.floor((100 * t.done) / t.total) : 0;
  bar.value = pct;
  words.textContent = `${t.dir === 'up' ? 'Uploading' : 'Downloading'} ${pct} % of ${sizeText(t.total)}`;
}

// transferSlot is the progress of file f: a bar, its words, and Cancel
// (of the download; an upload is cancelled with its message).
function transferSlot(m, f) {
  const slot = el('span', { class: 'transfer', 'data-ref': f.ref, hidden: true },
    el('progress', { max: 100, value: 0, 'aria-label': `Progress of ${f.name}` }),
    el('span', { class: 'transfer-text', 'aria-live': 'off' }),
    m.dir === 'out' && m.status === 'pending' ? null
      : el('button', { type: 'button', class: 'transfer-cancel', onclick: () => transfer.cancel(f.ref) }, 'Cancel'));
  showProgress(slot, transfer.progress(f.ref));
  return slot;
}

// wanted: a file downloads by itself when shown if it is small enough, or
// a photo or a voice message of any size; a large file waits for its
// Download.
function wanted(f) {
  return f.kind !== 'file' || f.size <= transfer.AUTO_MAX;
}

function downloadable(m, f) {
  return !!(f.id && f.digest && f.key) && !(m.dir === 'out' && m.status !== 'sent' && !f.got);
}

/**
 * filesNode shows the files of message m, and fills in, once read from
 * the store, what this device holds of them; one not held yet starts
 * downloading if it is wanted.
 * @param {any} m
 */
export function filesNode(m) {
  const box = el('span', { class: 'files' });
  for (const f of m.files) box.append(fileNode(m, f));
  return box;
}

function fileNode(m, f) {
  const failed = f.state && f.state !== 'cancelled' && !transfer.progress(f.ref);
  const retry = el('button', { type: 'button', class: 'retry', onclick: () => transfer.download(m, f) }, 'Retry');
  const failure = failed ? el('span', { class: 'error file-error', role: 'alert' }, transfer.failureText(f.state), ' ', f.state === 'gone' ? null : retry) : null;
  const slot = transferSlot(m, f);
  const getBtn = el('button', { type: 'button', class: 'file-get', hidden: true, onclick: () => transfer.download(m, f) }, `Download (${sizeText(f.size)})`);
  let node;
  if (f.kind === 'photo') {
    const thumb = placeholderURL(f.thumb);
    const tall = f.width && f.height && f.height > f.width;
    const img = el('img', { class: 'photo-img' + (tall ? ' tall' : '') + (thumb ? ' placeholder' : ''), alt: `Photo: ${f.name}`, width: f.width || null, height: f.height || null, src: thumb });
    const open = el('button', { type: 'button', class: 'photo', 'aria-label': `Open photo ${f.name} full size`, disabled: true }, img);
    node = el('span', { class: 'file-box photo-box', 'data-ref': f.ref }, open, slot, getBtn, failure);
    fill(m, f, (blob) => {
      img.src = urlOf(f.ref, blob);
      img.classList.remove('placeholder');
      open.disabled = false;
      open.addEventListener('click', () => viewPhoto(f, blob));
    }, getBtn);
  } else if (f.kind === 'voice') {
    const player = el('span', { class: 'voice-player' }, el('span', { 'aria-hidden': 'true' }, '🎤 '), `Voice message${f.duration !== null && f.duration !== undefined ? ', ' + durationText(f.duration) : ''}`);
    node = el('span', { class: 'file-box voice-box', 'data-ref': f.ref }, player, slot, getBtn, failure);
    fill(m, f, (blob) => {
      // Tabbable once the focus is in its message, as its buttons are.
      const audio = el('audio', { controls: true, preload: 'metadata', src: urlOf(f.ref, blob), tabindex: '-1', 'aria-label': `Voice message from ${m.dir === 'out' ? 'you' : m.from}` });
      player.after(audio);
    }, getBtn);
  } else {
    const save = el('a', { class: 'button file-save', hidden: true, download: f.name, tabindex: '-1' }, 'Save');
    node = el('span', { class: 'file-box doc-box', 'data-ref': f.ref },
      el('span', { class: 'file-name' }, el('span', { 'aria-hidden': 'true' }, '📄 '), f.name), ' ',
      el('span', { class: 'file-size muted' }, sizeText(f.size)), ' ', save, slot, getBtn, failure);
    fill(m, f, (blob) => {
      save.href = urlOf(f.ref, blob);
      save.hidden = false;
      save.setAttribute('aria-label', `Save ${f.name}`);
    }, getBtn);
  }
  return node;
}

// fill shows file f once its bytes are read from the store (show), or,
// not held, starts its download if wanted, else offers Download.
async function fill(m, f, show, getBtn) {
  const blob = await store.getFile(f.ref).catch(() => null);
  if (blob) {
    if (f.id && !f.confirmed && !transfer.progress(f.ref)) transfer.confirm(m, f);
    return show(blob);
  }
  if (!downloadable(m, f) || transfer.progress(f.ref)) return;
  if (!f.state && wanted(f)) transfer.download(m, f);
  else if (!f.state || f.state === 'cancelled') getBtn.hidden = false;
}

// viewPhoto opens a photo full size, with Save.
function viewPhoto(f, blob) {
  const url = urlOf(f.ref, blob);
  ask({
    id: 'photo-view', title: f.name, cancelId: 'photo-close', cancelLabel: 'Close', actions: [],
    body: [
      el('img', { class: 'photo-full', src: url, alt: `Photo: ${f.name}` }),
      el('p', {}, el('a', { class: 'button', id: 'photo-save', href: url, download: f.name }, 'Save')),
    ],
  });
}

/**
 * filesSig is what a message's files show, for the row's signature: a
 * change in it redraws the row.
 * @param {any} m
 */
export function filesSig(m) {
  return m.files ? m.files.map((f) => [f.ref, f.id, f.digest, f.got, f.state]) : null;
}
