// The console's client of Engram's Letta-compatible API. The key lives in sessionStorage (this tab only) and is
// sent as 'Authorization: Bearer KEY'; the server decides what the key may see.

const KEY = 'engram.key';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function key() {
  return sessionStorage.getItem(KEY);
}

export function signIn(value) {
  sessionStorage.setItem(KEY, value.trim());
}

export function signOut() {
  sessionStorage.removeItem(KEY);
}

function headers(extra = {}) {
  return {Authorization: `Bearer ${key() || ''}`, ...extra};
}

async function failure(res) {
  let text = `${res.status} ${res.statusText}`;
  try {
    const body = await res.json();
    if (typeof body.detail === 'string') text = body.detail;
    else if (Array.isArray(body.detail)) text = body.detail.map(d => `${(d.loc || []).join('.')}: ${d.msg}`).join('; ');
  } catch (e) { /* not JSON: keep the status */ }
  if (res.status === 401) signOut();
  return new ApiError(res.status, text);
}

/** One JSON call; throws ApiError with the server's sentence. */
export async function call(method, path, body) {
  const init = {method, headers: headers(body === undefined ? {} : {'Content-Type': 'application/json'})};
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(path, init);
  if (!res.ok) throw await failure(res);
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

export const get = path => call('GET', path);
export const post = (path, body) => call('POST', path, body ?? {});
export const patch = (path, body) => call('PATCH', path, body ?? {});
export const del = path => call('DELETE', path);

/** A multipart upload (an agent file). */
export async function upload(path, file) {
  const form = new FormData();
  form.append('file', file, file.name);
  const res = await fetch(path, {method: 'POST', headers: headers(), body: form});
  if (!res.ok) throw await failure(res);
  return res.json();
}

/**
 * A streamed turn: POSTs body and calls onMessage(message) for each Server-Sent Event's JSON data until [DONE].
 * An 'error' event throws its detail.
 */
export async function stream(path, body, onMessage) {
  const res = await fetch(path, {method: 'POST', headers: headers({'Content-Type': 'application/json',
    Accept: 'text/event-stream'}), body: JSON.stringify(body)});
  if (!res.ok) throw await failure(res);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const chunk = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = 'message';
      const data = [];
      for (const line of chunk.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      const text = data.join('\n');
      if (!text || text === '[DONE]') continue;
      const json = JSON.parse(text);
      if (event === 'error') throw new ApiError(500, json.detail || json.message || text);
      onMessage(json);
    }
  }
}

export const enc = encodeURIComponent;
