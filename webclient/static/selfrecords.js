// selfrecords.js: records from this account to its own devices (read
// positions, readstate.js; blocks, block.js). The store keeps each until
// the relay accepts it; the stream owner sends them, one pass at a time,
// each under a fresh id (a record sent twice changes nothing), with a
// backoff while the relay cannot be reached.

import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { isOwner } from './election.js';
import { ulid } from './ulid.js';
import * as mlschat from './mlschat.js';

/**
 * selfSender makes the flush of one kind of record to self.
 * @param {string} what what the log calls it ('read record')
 * @param {() => Promise<any[]>} pending what is left to send
 * @param {(rec: any) => object} recordOf the record to send for one
 * @param {(rec: any) => Promise<void>} done keeps one as sent: accepted, or refused for good
 * @returns {() => Promise<void>}
 */
export function selfSender(what, pending, recordOf, done) {
  let busy = false; // a pass is running
  let again = false; // asked again during the pass: run once more
  let timer = null;
  let delay = 3000;
  const later = (ms) => {
    clearTimeout(timer);
    timer = setTimeout(flush, ms);
  };

  // one returns false when the pass must stop: the relay cannot be
  // reached, asks to wait, or no longer takes this device.
  async function one(rec) {
    try {
      const me = account.me();
      const id = ulid();
      const record = JSON.stringify(recordOf(rec));
      let body = await mlschat.sealNow(me, id, record);
      if (!body) {
        const { key } = await account.convKey(me);
        body = await c.seal(key, c.randomIV(), id, me, me, record);
      }
      await api.send(id, me, c.b64encode(body));
      await done(rec);
      delay = 3000;
      return true;
    } catch (e) {
      if (!(e instanceof api.ApiError)) {
        console.warn(`sync: could not seal a ${what}`, e && e.name);
        return false;
      }
      if (api.transient(e)) {
        later(delay);
        delay = Math.min(delay * 2, 60000);
        return false;
      }
      if (e.code === 'rate_limited') {
        later((e.retryAfter || 60) * 1000);
        return false;
      }
      if (e.code === 'unauthenticated' || e.code === 'device_forbidden') return false; // kept: the screens say what happened
      // Any other refusal would refuse it again: kept as sent.
      console.warn(`sync: a ${what} was refused`, e.code);
      await done(rec);
      return true;
    }
  }

  async function flush() {
    if (!isOwner() || !account.isLinked()) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        for (const rec of await pending()) {
          if (!(await one(rec))) return;
        }
      } while (again);
    } finally {
      busy = false;
    }
  }
  return flush;
}
