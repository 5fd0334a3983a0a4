#!/usr/bin/env node
// A logging reverse proxy for watching Letta Code talk to `engram serve`.
//
//   node proxy.mjs LISTEN_PORT TARGET_URL LOG_FILE
//
// Forwards every request to TARGET_URL unchanged (streams included, chunk by chunk) and appends one JSON line
// per exchange to LOG_FILE: method, path with query, request body, status, and the response body (SSE streams
// as their text). Keys are never written: the Authorization header is left out and any "engram_..." or
// "sk-..." token in a body is replaced by "<redacted>". Bodies longer than 20,000 characters are cut.
// Needs only Node's standard library (any Node >= 18).
import http from 'node:http';
import fs from 'node:fs';

const [port, target, logFile] = process.argv.slice(2);
if (!port || !target || !logFile) {
  console.error('usage: node proxy.mjs LISTEN_PORT TARGET_URL LOG_FILE');
  process.exit(2);
}
const upstream = new URL(target);
const LIMIT = 20_000;

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

let sequence = 0;

const server = http.createServer((req, res) => {
  const n = ++sequence;
  const started = Date.now();
  const requestChunks = [];
  req.on('data', (c) => requestChunks.push(c));
  req.on('end', () => {
    const requestBody = Buffer.concat(requestChunks);
    const headers = { ...req.headers, host: upstream.host };
    const out = http.request({
      host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers,
    }, (up) => {
      res.writeHead(up.statusCode, up.headers);
      const responseChunks = [];
      up.on('data', (c) => {
        responseChunks.push(c);
        res.write(c);
      });
      up.on('end', () => {
        res.end();
        const responseText = Buffer.concat(responseChunks).toString('utf8');
        const entry = {
          n, at: new Date(started).toISOString(), ms: Date.now() - started,
          method: req.method, path: req.url,
          user_agent: req.headers['user-agent'],
          request: requestBody.length ? asJson(cut(redact(requestBody.toString('utf8')))) : undefined,
          status: up.statusCode,
          content_type: up.headers['content-type'],
          response: responseText.length ? asJson(cut(redact(responseText))) : undefined,
        };
        fs.appendFileSync(logFile, JSON.stringify(entry) + '\n');
      });
    });
    out.on('error', (e) => {
      fs.appendFileSync(logFile, JSON.stringify({ n, method: req.method, path: req.url, error: e.message }) + '\n');
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('proxy: ' + e.message);
    });
    out.end(requestBody);
  });
});

server.listen(Number(port), '127.0.0.1', () => {
  console.error(`proxy: 127.0.0.1:${port} -> ${target}, log ${logFile}`);
});
