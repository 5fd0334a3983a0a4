#!/usr/bin/env node
// Summarises the request logs of a run.sh run: per session, its exit status and every route Letta Code called,
// with its status, how often, the request body's fields, and (for errors) the answer's detail.
//
//   node summary.mjs OUT_DIR
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node summary.mjs OUT_DIR');
  process.exit(2);
}

// Ids in paths become their kind, so that calls of one route group together.
function route(p) {
  const [pathOnly, query] = p.split('?');
  const shape = pathOnly
    .replace(/\/(agent|conv|message|tool|block|run|identity|passage)-[A-Za-z0-9_-]+/g, '/{$1-id}');
  const params = query ? '?' + query.split('&').map((kv) => kv.split('=')[0]).join('&') : '';
  return shape + params;
}

function detail(response) {
  if (response && typeof response === 'object' && !Array.isArray(response)) {
    return String(response.detail ?? response.message ?? response.error ?? '').slice(0, 160);
  }
  return typeof response === 'string' ? response.slice(0, 160).replace(/\s+/g, ' ') : '';
}

function fields(request) {
  return request && typeof request === 'object' && !Array.isArray(request) ? Object.keys(request).join(',') : '';
}

const logs = fs.readdirSync(dir).filter((f) => f.endsWith('.requests.jsonl')).sort();
for (const log of logs) {
  const name = log.replace('.requests.jsonl', '');
  const exitFile = path.join(dir, name + '.exit');
  const exit = fs.existsSync(exitFile) ? fs.readFileSync(exitFile, 'utf8').trim() : '?';
  console.log(`${name} (letta exit ${exit})`);
  const seen = new Map();
  for (const line of fs.readFileSync(path.join(dir, log), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const e = JSON.parse(line);
    const standIn = e.stand_in ? ` (stand-in: ${e.stand_in.split('?')[0].replace(/(agent|conv)-[A-Za-z0-9_-]+/g, '{$1-id}')})` : '';
    const key = `${e.method} ${route(e.path)} -> ${e.status ?? 'proxy error: ' + e.error}${standIn}`;
    const entry = seen.get(key) ?? { count: 0, fields: new Set(), detail: '' };
    entry.count++;
    if (fields(e.request)) entry.fields.add(fields(e.request));
    if (e.status >= 400 && !entry.detail) entry.detail = detail(e.response);
    seen.set(key, entry);
  }
  for (const [key, e] of seen) {
    const body = e.fields.size ? `  body {${[...e.fields].join(' | ')}}` : '';
    const why = e.detail ? `  "${e.detail}"` : '';
    console.log(`  ${e.count}x ${key}${body}${why}`);
  }
}
