// api.js: the relay's HTTP API (docs/protocol.md) for the browser. The
// session cookie travels by itself; the device id goes in X-Device.

export class ApiError extends Error {
  constructor(status, code, message, extra = {}) {
    super(message);
    this.status = status;
    this.code = code;
    /** @type {number | undefined} seconds to wait, from Retry-After */
    this.retryAfter = undefined;
    /** @type {number | undefined} the relay's clock, from its Date */
    this.serverTime = undefined;
    Object.assign(this, extra);
  }
}

// transient says whether a failed call may work later: the network, or
// the relay failing for a while (5xx). Anything else is an answer.
export function transient(e) {
  return !!e && (e.code === 'network' || e.status >= 500);
}

let deviceId = null;
let deviceForbidden = () => {};

export function setDevice(id) {
  deviceId = id;
}

// onDeviceForbidden names who hears that the relay refused the X-Device
// sent (403 device_forbidden): the device was revoked.
export function onDeviceForbidden(fn) {
  deviceForbidden = fn;
}

// request makes one call and returns its answer when it is a success; a
// refusal throws an ApiError with the relay's code and what came with it.
// opts: json (a body to send as JSON), raw (bytes to send as they are),
// headers, signal, keepalive.
async function request(method, path, opts = {}) {
  /** @type {Record<string, string>} */
  const headers = { ...(opts.headers || {}) };
  let body;
  if (opts.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.raw !== undefined) {
    headers['Content-Type'] = 'application/octet-stream';
    body = opts.raw;
  }
  if (deviceId) headers['X-Device'] = deviceId;
  let resp;
  try {
    resp = await fetch(path, { method, headers, credentials: 'same-origin', cache: 'no-store', keepalive: !!opts.keepalive, body, signal: opts.signal });
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiError(0, 'network', 'The relay could not be reached. Check your connection.');
  }
  if (resp.ok) return resp;
  let data = null;
  try { data = await resp.json(); } catch { /* not JSON */ }
  const extra = {};
  if (resp.headers.get('Retry-After')) extra.retryAfter = Number(resp.headers.get('Retry-After'));
  for (const k of ['serverTime', 'currentEpoch', 'missing', 'used', 'quota', 'username']) {
    if (data && data[k] !== undefined) extra[k] = data[k];
  }
  const code = (data && data.error) || 'http_error';
  if (code === 'device_forbidden' && headers['X-Device']) deviceForbidden();
  throw new ApiError(resp.status, code, (data && data.message) || resp.statusText, extra);
}

async function call(method, path, body, keepalive = false) {
  const resp = await request(method, path, { json: body, keepalive });
  if (resp.status === 204) return null;
  try {
    return await resp.json();
  } catch {
    return null;
  }
}

// Attachments (docs/protocol.md, "Attachments"): an upload in parts,
// what it holds, its finish with the accounts it goes to, a download
// (whole, or from byte `from` on), its deletion.
export const startAttachment = (size) => call('POST', '/api/attachments', { size });
export const attachmentParts = (id) => call('GET', '/api/attachments/' + id + '/parts');
export const putAttachmentPart = (id, n, bytes, signal) => request('PUT', '/api/attachments/' + id + '/parts/' + n, { raw: bytes, signal });
export const finishAttachment = (id, to) => call('POST', '/api/attachments/' + id + '/finish', { to });
export const finishAttachmentFor = (id, device) => call('POST', '/api/attachments/' + id + '/finish', { device });
export const deleteAttachment = (id) => call('DELETE', '/api/attachments/' + id);
export const attachmentReceived = (id) => call('POST', '/api/attachments/' + id + '/received');
export const downloadAttachment = (id, from, signal) =>
  request('GET', '/api/attachments/' + id, { headers: from > 0 ? { Range: 'bytes=' + from + '-' } : {}, signal });

// register creates the account; invite is the code a relay whose
// registration is by invite asks for (docs/protocol.md), left out when "".
export const register = (username, password, publicKey, invite = '') =>
  call('POST', '/api/accounts', invite ? { username, password, publicKey, invite } : { username, password, publicKey });
// registration says who may create an account here: {mode: 'open' | 'invite' | 'closed'}.
export const registration = () => call('GET', '/api/registration');
export const login = (username, password) => call('POST', '/api/sessions', { username, password });
export const logout = () => call('DELETE', '/api/sessions');
// lookup asks the key directory; fresh, it reads past the relay's memory
// (docs/protocol.md), for a key that may have been replaced a moment ago.
export const lookup = (username, fresh = false) => call('GET', '/api/accounts/' + encodeURIComponent(username) + (fresh ? '?fresh=1' : ''));
export const addDevice = (name, publicKey) => call('POST', '/api/devices', { name, publicKey });
export const devices = () => call('GET', '/api/devices');
export const updateDevice = (id, fields) => call('PATCH', '/api/devices/' + encodeURIComponent(id), fields);
export const deleteAccount = (password) => call('DELETE', '/api/account', { password });
export const replaceAccountKey = (publicKey, revoke, password) => call('PUT', '/api/account/key', { publicKey, revoke, password });
export const revoke = (id) => call('DELETE', '/api/devices/' + encodeURIComponent(id));
export const send = (id, to, body) => call('POST', '/api/messages', { id, to, body });
// sendReceipt posts a receipt: the relay counts it in a rate-limit bucket
// of its own (docs/protocol.md, "Rate limit").
export const sendReceipt = (id, to, body) => call('POST', '/api/messages', { id, to, body, kind: 'receipt' });
// A report to the operator (docs/protocol.md, "Reports").
export const report = (r) => call('POST', '/api/reports', r);
// ack confirms everything up to upTo. keepalive lets it outlive the page,
// for the ACK sent as the page is hidden or closed (ADR 0074).
export const ack = (upTo, epoch, keepalive = false) =>
  call('POST', '/api/ack', epoch ? { upTo, epoch } : { upTo }, keepalive);
export const putRecovery = (blob) => call('PUT', '/api/recovery', { blob });
export const getRecovery = () => call('GET', '/api/recovery');
export const reportLinked = (id) => call('PATCH', '/api/devices/' + encodeURIComponent(id), { linked: true });
export const pushKey = () => call('GET', '/api/push/key');
export const getPush = () => call('GET', '/api/push');
export const putPush = (endpoint, p256dh, auth) => call('PUT', '/api/push', { endpoint, p256dh, auth });
export const deletePush = () => call('DELETE', '/api/push');
export const publishKeyPackages = (oneTime, lastResort) => call('POST', '/api/keypackages', lastResort ? { oneTime, lastResort } : { oneTime });
export const keyPackages = () => call('GET', '/api/keypackages');
export const claimKeyPackages = (username) => call('POST', '/api/keypackages/claim', { username });
export const putGroupInfo = (group, epoch, info) => call('PUT', '/api/groups/' + group + '/info', { epoch, info });
export const getGroupInfo = (group) => call('GET', '/api/groups/' + group + '/info');
export const accountDevices = (username) => call('GET', '/api/accounts/' + encodeURIComponent(username) + '/devices');
// sendCommit sends an MLS commit: a 409 stale_epoch says another commit
// took its epoch first (its currentEpoch names the group's).
export const sendCommit = (id, to, body) => call('POST', '/api/messages', { id, to, body, kind: 'commit' });
// sendWelcome sends an MLS Welcome. Commits and welcomes, the upkeep of a
// chat's group, spend a rate-limit bucket of their own, so that it never
// holds up a message (docs/protocol.md, "Rate limit").
export const sendWelcome = (id, to, body) => call('POST', '/api/messages', { id, to, body, kind: 'welcome' });
