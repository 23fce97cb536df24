// screen-attach.js: attachments in the composer. Files come from the
// Attach button's picker, from a drop on the chat, or from a paste; each
// shows in the tray above the composer with its size, while a photo is
// prepared (re-encoded without its metadata, which the tray says), and
// can be removed before sending. A file that cannot go says why at once.
// The microphone button records a voice message: its length runs, and
// Cancel or Send ends it.

import * as attach from './attach.js';
import { el } from './dom.js';

let nextKey = 0;

/**
 * attachParts builds the attachment controls of the composer of a chat.
 * say(text) shows a note under the composer (null hides it);
 * sendVoice(file) sends a recorded voice message at once.
 * @param {(text: string | null) => void} say
 * @param {(file: any) => Promise<void>} sendVoice
 */
export function attachParts(say, sendVoice) {
  /** @type {{key: number, name: string, size: number, ready: Promise<any>, result: any}[]} */
  let items = [];
  const input = el('input', { type: 'file', multiple: true, id: 'attach-input', class: 'sr-only', tabindex: '-1', 'aria-hidden': 'true' });
  const list = el('ul', { class: 'plain tray-list', 'aria-label': 'Files to send' });
  const privacy = el('p', { class: 'tray-note muted', hidden: true }, 'Photos are re-encoded before they are sent, so the place they were taken and the camera stay on this device.');
  const tray = el('div', { class: 'tray', id: 'attach-tray', hidden: true }, list, privacy);

  const render = () => {
    list.replaceChildren(...items.map((it) => el('li', { class: 'tray-item', 'data-key': String(it.key) },
      el('span', { class: 'tray-name' }, it.name),
      el('span', { class: 'tray-size muted' }, it.result ? attach.sizeText(it.result.blob.size) : 'preparing…'),
      el('button', { type: 'button', class: 'tray-remove', 'aria-label': `Remove ${it.name}`, onclick: () => remove(it.key) }, '✕'))));
    tray.hidden = !items.length;
    privacy.hidden = !items.some((it) => it.result && it.result.reencoded);
  };
  const remove = (key) => {
    items = items.filter((it) => it.key !== key);
    render();
  };

  // add takes files chosen, dropped or pasted.
  const add = (files) => {
    const errors = [];
    for (const file of files) {
      if (items.length >= attach.MAX_FILES) {
        errors.push(`A message holds at most ${attach.MAX_FILES} files: ${attach.fileName(file.name)} was not added. Send these first.`);
        continue;
      }
      const it = { key: ++nextKey, name: attach.fileName(file.name), size: file.size, ready: null, result: null };
      it.ready = attach.prepare(file).then((r) => {
        if (r.error) {
          say(r.error);
          remove(it.key);
          return null;
        }
        it.result = r;
        it.name = r.name;
        render();
        return r;
      });
      items.push(it);
    }
    say(errors.length ? errors.join(' ') : null);
    render();
  };

  input.addEventListener('change', () => {
    add([...input.files]);
    input.value = '';
  });
  const attachBtn = el('button', { type: 'button', id: 'attach-btn', class: 'icon-btn', 'aria-label': 'Attach photos or files', title: 'Attach photos or files', 'aria-controls': 'attach-tray', onclick: () => input.click() }, '📎');

  // The voice recorder: the microphone button starts it; while it runs the
  // bar says how long, and Cancel or Send ends it.
  const clock = el('span', { class: 'rec-clock', role: 'timer', 'aria-live': 'off' }, '0:00');
  const recCancel = el('button', { type: 'button', id: 'rec-cancel' }, 'Cancel');
  const recSend = el('button', { type: 'button', id: 'rec-send', class: 'primary' }, 'Send');
  const recBar = el('div', { class: 'rec-bar', id: 'rec-bar', hidden: true, role: 'group', 'aria-label': 'Recording a voice message' },
    el('span', { class: 'rec-dot', 'aria-hidden': 'true' }), el('span', {}, 'Recording '), clock, recCancel, recSend);
  let recorder = null;
  let timer = null;
  const endRecording = () => {
    clearInterval(timer);
    timer = null;
    recorder = null;
    recBar.hidden = true;
    micBtn.hidden = false;
    micBtn.focus();
  };
  // start starts recording, once.
  let starting = null;
  const start = () => {
    if (recorder || starting) return starting;
    starting = (async () => {
      try {
        recorder = await attach.record();
      } catch (e) {
        say(e.message);
        return;
      } finally {
        starting = null;
      }
      say(null);
      micBtn.hidden = true;
      recBar.hidden = false;
      clock.textContent = '0:00';
      timer = setInterval(() => { if (recorder) clock.textContent = attach.durationText(recorder.elapsed()); }, 250);
      recSend.focus();
    })();
    return starting;
  };
  const micBtn = el('button', {
    type: 'button', id: 'mic-btn', class: 'icon-btn', 'aria-label': 'Record a voice message', title: 'Record a voice message',
    onclick: () => start(),
  }, '🎤');
  recCancel.addEventListener('click', () => {
    if (recorder) recorder.cancel();
    endRecording();
  });
  recSend.addEventListener('click', async () => {
    const r = recorder;
    if (!r) return;
    endRecording();
    try {
      await sendVoice(await r.stop());
    } catch (e) {
      say(e.message);
    }
  });

  return {
    input, attachBtn, micBtn, recBar, tray, add,
    has: () => items.length > 0,
    // take empties the tray and gives what is ready to send, once every
    // file is prepared.
    async take() {
      const taken = items;
      items = [];
      render();
      return (await Promise.all(taken.map((it) => it.ready))).filter(Boolean);
    },
  };
}

/**
 * acceptDrops lets files be dropped on target (the open chat) and pasted
 * into text, handing them to add.
 * @param {HTMLElement} target
 * @param {HTMLTextAreaElement} text
 * @param {(files: File[]) => void} add
 */
export function acceptDrops(target, text, add) {
  const hasFiles = (e) => e.dataTransfer && [...e.dataTransfer.types].includes('Files');
  target.addEventListener('dragover', (e) => {
    if (!hasFiles(e) || text.disabled) return;
    e.preventDefault();
    target.classList.add('dropping');
  });
  target.addEventListener('dragleave', (e) => {
    if (!target.contains(/** @type {Node} */ (e.relatedTarget))) target.classList.remove('dropping');
  });
  target.addEventListener('drop', (e) => {
    target.classList.remove('dropping');
    if (!hasFiles(e) || text.disabled) return;
    e.preventDefault();
    add([...e.dataTransfer.files]);
  });
  text.addEventListener('paste', (e) => {
    const files = e.clipboardData ? [...e.clipboardData.files] : [];
    if (!files.length) return;
    // Pasted files are attached; text pasted with them is pasted too.
    if (!e.clipboardData.getData('text/plain')) e.preventDefault();
    add(files);
  });
}
