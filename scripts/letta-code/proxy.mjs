#!/usr/bin/env node
// A logging reverse proxy for watching Letta Code talk to `engram serve`.
//
//   node proxy.mjs LISTEN_PORT TARGET_URL LOG_FILE [--stand-in MODEL_HANDLE]
//
// Forwards every request to TARGET_URL unchanged (streams included, chunk by chunk) and appends one JSON line
// per exchange to LOG_FILE: method, path with query, request body, status, and the response body (SSE streams
// as their text). Keys are never written: the Authorization header is left out and any "engram_..." or
// "sk-..." token in a body is replaced by "<redacted>". Bodies longer than 400,000 characters are cut.
// Needs only Node's standard library (any Node >= 18).
//
// --stand-in MODEL_HANDLE: where Engram answers 501 to a route that Letta Code needs, the proxy answers in its place,
// so that a run shows how far Letta Code gets and what it sends later: GET /v1/models/ lists one model
// (MODEL_HANDLE); POST /v1/conversations/?agent_id=A makes up a conversation "conv-standin-A"; GET of such a
// conversation answers its id and agent; a conversation's messages (list, send, cancel), for "default" with an
// agent_id too, go to the agent's own /v1/agents/A/messages routes with the query and body unchanged. A 400 of
// agent create for tools Engram does not have is reworded as Letta's "Tools not found by name: [...]", which Letta
// Code's recovery (create again without them) looks for. Such exchanges are logged with "stand_in": what stood
// in. Only a 501 (or that 400) is stood in for, never an answer of a route Engram implements. A diagnostic aid
// while the conversation and model routes are being built, not a way to run Letta Code.
import http from 'node:http';
import fs from 'node:fs';

const [port, target, logFile, flag, standInModel] = process.argv.slice(2);
if (!port || !target || !logFile || (flag !== undefined && (flag !== '--stand-in' || !standInModel))) {
  console.error('usage: node proxy.mjs LISTEN_PORT TARGET_URL LOG_FILE [--stand-in MODEL_HANDLE]');
  process.exit(2);
}
const upstream = new URL(target);
// The provider type of the stood-in model ($ENGRAM_LC_STAND_IN_PROVIDER): Letta Code offers its Codex-style tools
// (exec_command, ApplyPatch, no Bash) for "openai" and its Claude-style ones (Bash, Read, Edit, ...) for any other;
// the default, "anthropic", gets the Bash that run.sh's bash session calls.
const standInProvider = process.env.ENGRAM_LC_STAND_IN_PROVIDER || 'anthropic';
const LIMIT = 400_000;

function redact(text) {
  return text.replace(/\b(engram_[A-Za-z0-9_-]+|sk-[A-Za-z0-9_-]{8,})/g, '<redacted>');
}

function cut(text) {
  return text.length > LIMIT ? text.slice(0, LIMIT) + `... (${text.length - LIMIT} more characters)` : text;
}

function asJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const STAND_IN_CONV = 'conv-standin-';

/** What stands in for a 501 of this request: a local answer ({status, body}) or another upstream path ({path}). */
function standIn(method, url, body) {
  if (!standInModel) return null;
  const u = new URL(url, 'http://proxy');
  const p = u.pathname.replace(/\/+$/, '');
  if (method === 'GET' && p === '/v1/models') {
    const [provider, ...rest] = standInModel.split('/');
    return { status: 200, body: [{
      handle: standInModel, name: rest.join('/') || standInModel, display_name: standInModel,
      provider_type: standInProvider, provider_name: provider, model: rest.join('/') || standInModel,
      model_endpoint_type: standInProvider, model_type: 'llm', context_window: 128000, max_tokens: 8192,
      max_context_window: 128000, put_inner_thoughts_in_kwargs: false, enable_reasoner: false,
    }] };
  }
  if (method === 'POST' && p === '/v1/conversations') {
    const agent = u.searchParams.get('agent_id') ?? body?.agent_id;
    return agent ? { status: 200, body: conversation(STAND_IN_CONV + agent, agent) } : null;
  }
  const m = p.match(/^\/v1\/conversations\/([^/]+)(\/messages|\/cancel)?$/);
  if (!m) return null;
  const conv = decodeURIComponent(m[1]);
  const agent = conv === 'default' ? (u.searchParams.get('agent_id') ?? body?.agent_id)
    : conv.startsWith(STAND_IN_CONV) ? conv.slice(STAND_IN_CONV.length) : null;
  if (!agent) return null;
  if (method === 'GET' && !m[2]) return { status: 200, body: conversation(conv, agent) };
  if (method === 'POST' && m[2] === '/messages') return { path: `/v1/agents/${agent}/messages` };
  if (method === 'GET' && m[2] === '/messages') return { path: `/v1/agents/${agent}/messages${u.search}` };
  if (method === 'POST' && m[2] === '/cancel') return { path: `/v1/agents/${agent}/messages/cancel` };
  return null;
}

function conversation(id, agent) {
  const now = new Date().toISOString();
  return { id, agent_id: agent, summary: null, created_at: now, updated_at: now, in_context_message_ids: [] };
}

let sequence = 0;

function log(entry) {
  fs.appendFileSync(logFile, JSON.stringify(entry) + '\n');
}

const server = http.createServer((req, res) => {
  const n = ++sequence;
  const started = Date.now();
  const requestChunks = [];
  req.on('data', (c) => requestChunks.push(c));
  req.on('end', () => {
    const requestBody = Buffer.concat(requestChunks);
    const requestText = requestBody.toString('utf8');
    const entry = {
      n, at: new Date(started).toISOString(), method: req.method, path: req.url, user_agent: req.headers['user-agent'],
      request: requestBody.length ? asJson(cut(redact(requestText))) : undefined,
    };
    const forward = (path, standing) => {
      const headers = { ...req.headers, host: upstream.host };
      const out = http.request({
        host: upstream.hostname, port: upstream.port, method: req.method, path, headers,
      }, (up) => {
        const alternative = up.statusCode === 501 && !standing ? standIn(req.method, req.url, asJson(requestText)) : null;
        if (standInModel && !standing && up.statusCode === 400 && req.method === 'POST'
            && /^\/v1\/agents\/?(\?|$)/.test(req.url)) {
          const chunks = [];
          up.on('data', (c) => chunks.push(c));
          up.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const missing = text.match(/names tools this runtime does not have: (\[[^\]]*\])/);
            const body = missing ? JSON.stringify({ detail: `Tools not found by name: ${missing[1]}` }) : text;
            res.writeHead(400, { 'content-type': 'application/json' });
            res.end(body);
            log({ ...entry, ms: Date.now() - started, status: 400,
              stand_in: missing ? "Letta's wording for missing tools" : undefined,
              content_type: 'application/json', response: asJson(redact(body)), engram_response: missing ? asJson(text) : undefined });
          });
          return;
        }
        if (alternative) {
          up.resume();
          if (alternative.path) {
            forward(alternative.path, `${req.method} ${alternative.path}`);
          } else {
            const text = JSON.stringify(alternative.body);
            res.writeHead(alternative.status, { 'content-type': 'application/json' });
            res.end(text);
            log({ ...entry, ms: Date.now() - started, status: alternative.status, stand_in: 'answered by the proxy',
              content_type: 'application/json', response: alternative.body });
          }
          return;
        }
        res.writeHead(up.statusCode, up.headers);
        const responseChunks = [];
        up.on('data', (c) => {
          responseChunks.push(c);
          res.write(c);
        });
        up.on('end', () => {
          res.end();
          const responseText = Buffer.concat(responseChunks).toString('utf8');
          log({ ...entry, ms: Date.now() - started, status: up.statusCode, stand_in: standing,
            content_type: up.headers['content-type'],
            response: responseText.length ? asJson(cut(redact(responseText))) : undefined });
        });
      });
      out.on('error', (e) => {
        log({ ...entry, error: e.message });
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end('proxy: ' + e.message);
      });
      out.end(requestBody);
    };
    forward(req.url, undefined);
  });
});

server.listen(Number(port), '127.0.0.1', () => {
  console.error(`proxy: 127.0.0.1:${port} -> ${target}, log ${logFile}`);
});
