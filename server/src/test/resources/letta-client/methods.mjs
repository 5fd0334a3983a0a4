// Letta's official TypeScript client (@letta-ai/letta-client 1.12.1), method by method, against an Engram server.
// Environment: ENGRAM_URL, KEY_A (a user's key), KEY_ADMIN (an admin key: MCP servers at 127.0.0.1 are an admin's),
// CONTRACT (Letta's openapi.json), MCP_URL and MCP_TOKEN (a live MCP server on 127.0.0.1 with a tool `add` of numbers
// a and b, wanting `Authorization: Bearer MCP_TOKEN`).
// 1. Walks the client's resource classes and lists every method; 2. calls each once against a recording fetch to learn
// the HTTP method and path it calls, and matches that to the contract (self-hosted: not tagged with one of Letta Cloud's
// tags or _internal_); 3. calls each self-hosted method against the live server with valid arguments (creating what it
// needs first) and checks the answer's JSON against the contract's response schema (required fields and types), and,
// for the methods of VALUES, what it says.
// Prints "pass NAME", "fail NAME: why" and "cloud NAME" lines, then "client methods passing X of M self-hosted".
import Letta, { toFile } from '@letta-ai/letta-client';
import fs from 'node:fs';

const baseURL = process.env.ENGRAM_URL;
const apiKey = process.env.KEY_A;
const contract = JSON.parse(fs.readFileSync(process.env.CONTRACT, 'utf8'));
const CLOUD_TAGS = new Set(['templates', 'projects', 'pipelines', 'feeds', 'clientSideAccessTokens', 'environments',
  'deployments']);

// The contract's operations, each with a pattern of its path (a trailing slash ignored).
const operations = [];
for (const [path, item] of Object.entries(contract.paths)) {
  for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
    const op = item[method];
    if (!op) continue;
    const segments = path.replace(/\/$/, '').split('/');
    const pattern = new RegExp('^' + segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/') + '/?$');
    const literals = segments.filter((s) => !s.startsWith('{')).length;
    const tags = op.tags ?? [];
    operations.push({ method: method.toUpperCase(), path, pattern, literals, op,
      selfHosted: !tags.some((t) => CLOUD_TAGS.has(t) || t.startsWith('_internal_')) });
  }
}

function operationOf(method, pathname) {
  const matching = operations.filter((o) => o.method === method && o.pattern.test(pathname));
  matching.sort((a, b) => b.literals - a.literals);
  return matching[0];
}

// 1. The client's methods: every function of every resource object reachable from the client, and the client's health().
function methodsOf(client) {
  const found = [{ name: 'health', owner: client, fn: client.health }];
  const walk = (resource, prefix) => {
    const proto = Object.getPrototypeOf(resource);
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || name.startsWith('_') || typeof proto[name] !== 'function') continue;
      found.push({ name: prefix + '.' + name, owner: resource, fn: proto[name] });
    }
    for (const [key, value] of Object.entries(resource)) {
      if (key !== '_client' && value && typeof value === 'object' && value._client) walk(value, prefix + '.' + key);
    }
  };
  for (const [key, value] of Object.entries(client)) {
    if (value && typeof value === 'object' && value._client === client) walk(value, key);
  }
  return found;
}

const paramNames = (fn) => fn.toString().slice(fn.toString().indexOf('(') + 1, fn.toString().indexOf(')'))
  .split(',').map((p) => p.split('=')[0].trim()).filter((p) => p && p !== 'options');

// 2. Which operation each method calls: a client whose fetch records the request and fails it.
let recorded = [];
const recorder = new Letta({ apiKey: 'none', baseURL: 'http://127.0.0.1:9', maxRetries: 0,
  fetch: async (url, init) => { recorded.push({ method: (init.method ?? 'GET').toUpperCase(), url: new URL(url) }); throw new Error('recorded'); } });
const dummyFile = await toFile(Buffer.from('Engram stores memory.\n'), 'notes.txt');
const dummyParams = () => ({ agent_id: 'agent-x', archive_id: 'archive-x', folder_id: 'source-x', mcp_server_id: 'x',
  conversation_id: 'conv-x', file: dummyFile, template_version: 'x', messages: [], query: 'x' });
const methods = methodsOf(recorder);
for (const m of methods) {
  recorded = [];
  const args = paramNames(m.fn).map((p) => (/^(body|query|params)$/.test(p) ? dummyParams() : 'x-' + p));
  try {
    const result = m.fn.apply(m.owner, args);
    if (result && typeof result.then === 'function') await result;
  } catch (e) { /* the recorder fails every request */ }
  m.request = recorded[0];
  m.operation = m.request ? operationOf(m.request.method, m.request.url.pathname) : undefined;
}

// 3. The live calls. What each method needs, created first; then arguments per method.
const client = new Letta({ apiKey, baseURL, maxRetries: 0, fetch: async (url, init) => {
  const res = await fetch(url, init);
  const entry = { method: (init?.method ?? 'GET').toUpperCase(), url: new URL(url), status: res.status,
    type: res.headers.get('content-type') ?? '' };
  entry.text = entry.type.includes('json') ? await res.clone().text() : '';
  responses.push(entry);
  return res;
} });
let responses = [];
const userMessage = (text) => ({ messages: [{ role: 'user', content: text }] });
const ctx = {};
const attempt = async (what, f) => { try { return await f(); } catch (e) { console.log(`setup ${what} failed: ${e.status ?? ''} ${e.message}`); return undefined; } };
const agent = async (name) => (await client.agents.create({ name, model: 'test:echo', memory_blocks: [
  { label: 'human', value: 'The user is Ana.' }, { label: 'persona', value: 'I am a helpful assistant.' }] })).id;
ctx.agent = await agent('methods-agent');
const turn = await client.agents.messages.create(ctx.agent, userMessage('hello'));
ctx.message = turn.messages?.[0]?.id;
ctx.run = turn.usage?.run_ids?.[0] ?? turn.messages?.find((m) => m.run_id)?.run_id;
ctx.step = (await attempt('step', async () => (await client.steps.list({ agent_id: ctx.agent, limit: 1 })).items?.[0]))?.id ?? 'step-none';
ctx.block = (await attempt('block', () => client.blocks.create({ label: 'project', value: 'Engram' })))?.id;
ctx.customTool = (await attempt('custom tool', () => client.tools.create({ source_code: 'def shout(text: str) -> str:\n    """Shouts.\n\n    Args:\n        text: what to shout\n    """\n    return text.upper()\n' })))?.id;
ctx.tool = (await attempt('tool', async () => (await client.tools.list({ name: 'send_message' })).items?.[0]))?.id ?? 'tool-send_message';
ctx.passage = (await attempt('passage', () => client.agents.passages.create(ctx.agent, { text: 'Ana likes tea.' })))?.[0]?.id;
ctx.archive = (await attempt('archive', () => client.archives.create({ name: 'methods-archive' })))?.id;
ctx.archivePassage = ctx.archive && (await attempt('archive passage', () => client.archives.passages.create(ctx.archive, { text: 'Tea is green.' })))?.id;
ctx.folder = (await attempt('folder', () => client.folders.create({ name: 'methods-folder' })))?.id;
ctx.file = ctx.folder && (await attempt('file', () => client.folders.files.upload(ctx.folder, { file: dummyFile })))?.id;
ctx.conversation = (await attempt('conversation', () => client.conversations.create({ agent_id: ctx.agent })))?.id;
ctx.identity = (await attempt('identity', () => client.identities?.create?.({ identifier_key: 'ana', name: 'Ana', identity_type: 'user' })))?.id ?? 'identity-ana';
ctx.schedule = (await attempt('schedule', () => client.agents.schedule.create(ctx.agent, { messages: [{ role: 'user', content: 'later' }],
  schedule: { type: 'one-time', scheduled_at: Date.now() + 3_600_000 } })))?.id;
ctx.group = (await attempt('group', () => client.groups?.create?.({ agent_ids: [ctx.agent], description: 'methods' })))?.id ?? 'group-x';
const admin = new Letta({ apiKey: process.env.KEY_ADMIN, baseURL, maxRetries: 0, fetch: client.fetch });
ctx.mcpServer = (await attempt('MCP server', () => admin.mcpServers.create({ server_name: 'methods-mcp',
  config: { mcp_server_type: 'streamable_http', server_url: process.env.MCP_URL, auth_token: process.env.MCP_TOKEN } })))?.id ?? 'mcp-x';
ctx.mcpTool = (await attempt('MCP tool', async () => {
  const tools = await admin.mcpServers.tools.list(ctx.mcpServer);
  return (tools.items ?? tools).find((t) => t.name.endsWith('add'));
}))?.id ?? 'tool-add';
// A background run, whose stream can be resumed.
ctx.backgroundRun = await attempt('background run', async () => {
  let run;
  for await (const event of await client.agents.messages.stream(ctx.agent, { ...userMessage('in the background'), background: true })) {
    run = run ?? event.run_id;
  }
  return run;
});
// A conversation long enough to compact.
for (const text of ['one', 'two', 'three']) {
  await attempt('conversation message', () => client.conversations.messages.create(ctx.conversation, { ...userMessage(text), streaming: false }));
}

// Arguments by parameter name, for methods the table below does not name.
const byName = { agentID: () => ctx.agent, blockID: () => ctx.block, blockLabel: () => 'human', toolID: () => ctx.tool,
  toolName: () => 'send_message', archiveID: () => ctx.archive, passageID: () => ctx.archivePassage,
  memoryID: () => ctx.passage, folderID: () => ctx.folder, fileID: () => ctx.file, identityID: () => ctx.identity,
  conversationID: () => ctx.conversation, runID: () => ctx.run, stepID: () => ctx.step, messageID: () => ctx.message,
  mcpServerID: () => ctx.mcpServer, scheduledMessageID: () => ctx.schedule, groupID: () => ctx.group,
  query: () => ({}), body: () => ({}), params: () => ({ agent_id: ctx.agent, archive_id: ctx.archive,
    folder_id: ctx.folder, mcp_server_id: ctx.mcpServer }) };
/**
 * A conversation with a turn running in the background (the scripted model sleeps first); its id, once the server lists
 * the turn's run as active. Each on an agent of its own: an agent runs one turn at a time. The request is not awaited:
 * its stream sends nothing before the model's first answer, which comes after the sleep.
 */
async function backgroundTurn(ms) {
  const conversation = (await client.conversations.create({ agent_id: await throwaway() })).id;
  const started = client.conversations.messages.create(conversation, { ...userMessage(`sleep ${ms} busy`), streaming: true, background: true });
  started.catch(() => {});
  for (let i = 0; i < 100; i++) {
    const runs = await client.runs.list({ conversation_id: conversation, active: true });
    if ((runs.items ?? runs).length > 0) return conversation;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no active run in conversation ${conversation}`);
}
const throwaway = async () => agent('throwaway-' + Math.random().toString(36).slice(2, 8));
const ARGS = {
  'agents.create': () => [{ name: 'created', model: 'test:echo' }],
  'agents.update': () => [ctx.agent, { description: undefined, tags: ['methods'] }],
  'agents.delete': async () => [await throwaway()],
  'agents.importFile': async () => [{ file: await toFile(Buffer.from(JSON.stringify(await client.agents.exportFile(ctx.agent))), 'agent.af') }],
  'agents.blocks.update': () => ['human', { agent_id: ctx.agent, value: 'The user is Ana, who likes tea.' }],
  'agents.blocks.attach': () => [ctx.block, { agent_id: ctx.agent }],
  'agents.blocks.detach': () => [ctx.block, { agent_id: ctx.agent }],
  'agents.messages.create': () => [ctx.agent, userMessage('hello again')],
  'agents.messages.createAsync': () => [ctx.agent, userMessage('hello async')],
  'agents.messages.stream': () => [ctx.agent, userMessage('hello stream')],
  'agents.messages.reset': () => [ctx.agent, {}],
  'agents.messages.compact': () => [ctx.agent, {}],
  'agents.passages.create': () => [ctx.agent, { text: 'Ana has a cat.' }],
  'agents.passages.search': () => [ctx.agent, { query: 'tea' }],
  'agents.passages.delete': async () => [(await client.agents.passages.create(ctx.agent, { text: 'to delete' }))[0].id, { agent_id: ctx.agent }],
  'agents.schedule.create': () => [ctx.agent, { messages: [{ role: 'user', content: 'later' }], schedule: { type: 'one-time', scheduled_at: Date.now() + 3_600_000 } }],
  'agents.schedule.delete': async () => [(await client.agents.schedule.create(ctx.agent, { messages: [{ role: 'user', content: 'x' }], schedule: { type: 'one-time', scheduled_at: Date.now() + 3_600_000 } })).id, { agent_id: ctx.agent }],
  'agents.tools.attach': () => [ctx.tool, { agent_id: ctx.agent }],
  'agents.tools.detach': () => [ctx.tool, { agent_id: ctx.agent }],
  'agents.tools.run': () => ['send_message', { agent_id: ctx.agent, args: { message: 'hi' } }],
  'agents.tools.updateApproval': () => ['send_message', { agent_id: ctx.agent, body_requires_approval: false, requires_approval: false }],
  'agents.archives.attach': () => [ctx.archive, { agent_id: ctx.agent }],
  'agents.archives.detach': () => [ctx.archive, { agent_id: ctx.agent }],
  'agents.identities.attach': () => [ctx.identity, { agent_id: ctx.agent }],
  'agents.identities.detach': () => [ctx.identity, { agent_id: ctx.agent }],
  'agents.folders.attach': () => [ctx.folder, { agent_id: ctx.agent }],
  'agents.folders.detach': () => [ctx.folder, { agent_id: ctx.agent }],
  'agents.files.open': () => [ctx.file, { agent_id: ctx.agent }],
  'agents.files.close': () => [ctx.file, { agent_id: ctx.agent }],
  'blocks.create': () => [{ label: 'notes', value: 'created' }],
  'blocks.update': () => [ctx.block, { value: 'Engram, a memory framework' }],
  'blocks.delete': async () => [(await client.blocks.create({ label: 'scratch', value: 'x' })).id],
  'tools.create': () => [{ source_code: 'def roll(sides: int) -> int:\n    """Rolls a die.\n\n    Args:\n        sides: how many sides\n    """\n    return 4\n' }],
  'tools.upsert': () => [{ source_code: 'def flip() -> str:\n    """Flips a coin."""\n    return "heads"\n' }],
  'tools.update': () => [ctx.customTool, { description: 'Shouts loudly.' }],
  'tools.delete': () => [ctx.customTool],
  'tools.search': () => [{ query: 'message' }],
  'archives.create': () => [{ name: 'another-archive' }],
  'archives.update': () => [ctx.archive, { description: 'tea facts' }],
  'archives.delete': async () => [(await client.archives.create({ name: 'doomed' })).id],
  'archives.passages.create': () => [ctx.archive, { text: 'Tea grows in Assam.' }],
  'archives.passages.createMany': () => [ctx.archive, { passages: [{ text: 'One.' }, { text: 'Two.' }] }],
  'archives.passages.delete': async () => [(await client.archives.passages.create(ctx.archive, { text: 'gone' })).id, { archive_id: ctx.archive }],
  'folders.create': () => [{ name: 'another-folder' }],
  'folders.update': () => [ctx.folder, { description: 'notes' }],
  'folders.delete': async () => [(await client.folders.create({ name: 'doomed-folder' })).id],
  // Another name: replacing the setup's file would give it a new id, which agents.files.close then misses.
  'folders.files.upload': async () => [ctx.folder, { file: await toFile(Buffer.from('more notes'), 'more.txt'), duplicate_handling: 'replace' }],
  'folders.files.retrieve': () => [ctx.file, { folder_id: ctx.folder }],
  'folders.files.delete': async () => [(await client.folders.files.upload(ctx.folder, { file: await toFile(Buffer.from('bye'), 'bye.txt') })).id, { folder_id: ctx.folder }],
  'conversations.create': () => [{ agent_id: ctx.agent }],
  'conversations.update': () => [ctx.conversation, { summary: 'tea talk' }],
  'conversations.delete': async () => [(await client.conversations.create({ agent_id: ctx.agent })).id],
  'conversations.messages.create': () => [ctx.conversation, { ...userMessage('hi there'), streaming: false }],
  'conversations.messages.stream': async () => [await backgroundTurn(3000), {}],
  'conversations.cancel': async () => [await backgroundTurn(5000), {}],
  'mcpServers.create': () => [{ server_name: 'methods-mcp-2', config: { mcp_server_type: 'streamable_http', server_url: 'http://127.0.0.1:9/other' } }],
  'mcpServers.update': () => [ctx.mcpServer, { server_name: 'methods-mcp' }],
  'mcpServers.tools.retrieve': () => [ctx.mcpTool, { mcp_server_id: ctx.mcpServer }],
  'mcpServers.tools.run': () => [ctx.mcpTool, { mcp_server_id: ctx.mcpServer, args: { a: 2, b: 3 } }],
  'mcpServers.delete': async () => [(await admin.mcpServers.create({ server_name: 'doomed-mcp', config: { mcp_server_type: 'streamable_http', server_url: 'http://127.0.0.1:9/gone' } })).id],
  'messages.search': () => [{ query: 'hello' }],
  'passages.search': () => [{ query: 'tea' }],
  'steps.feedback.create': () => [ctx.step, { feedback: 'positive' }],
  'runs.messages.stream': () => [ctx.backgroundRun, { starting_after: 0 }],
  'groups.create': () => [{ agent_ids: [ctx.agent], description: 'methods' }],
};
// Where the contract's response schema is not what Letta's own server answers, the check of the schema is left out.
const SCHEMA_AS_LETTA_ANSWERS = {
  // The contract declares a string; Letta's server answers the agent file itself, a JSON object, as Engram does.
  'agents.exportFile': true,
};
// What some answers must say, beyond their shape: a problem, or null. The MCP server's tool is its `add`.
const mcpAdd = (tool) => (tool && tool.name?.endsWith('add') && tool.id === ctx.mcpTool
  && tool.json_schema?.parameters?.properties?.a?.type === 'number' ? null : `not the MCP server's tool add: ${JSON.stringify(tool)?.slice(0, 200)}`);
const VALUES = {
  'mcpServers.tools.list': (tools) => mcpAdd(tools.find?.((t) => t.id === ctx.mcpTool)),
  'mcpServers.tools.retrieve': mcpAdd,
  'mcpServers.tools.run': (r) => (r.status === 'success' && String(r.func_return).includes('5') ? null
    : `add(2, 3) answered ${JSON.stringify(r).slice(0, 200)}`),
  'mcpServers.refresh': (r) => (Array.isArray(r.tools) && r.tools.some((t) => String(t).endsWith('add')) ? null
    : `the refresh lists no tool add: ${JSON.stringify(r).slice(0, 200)}`),
};
// Methods that remove or stop what others use run last; closing a file first, while its folder is still attached.
const LAST = /\.(delete|detach|cancel|reset|closeAll|close)$/;
const CLOSING = /\.(closeAll|close)$/;

function typeOk(type, value) {
  switch (type) {
    case 'string': return typeof value === 'string';
    case 'integer': return Number.isInteger(value);
    case 'number': return typeof value === 'number';
    case 'boolean': return typeof value === 'boolean';
    case 'null': return value === null;
    case 'array': return Array.isArray(value);
    case 'object': return value !== null && typeof value === 'object' && !Array.isArray(value);
    default: return true;
  }
}

/** Problems of a value against a schema of the contract: required fields present, types right (4 levels deep). */
function problems(schema, value, where, depth = 0) {
  if (!schema || depth > 4) return [];
  if (schema.$ref) return problems(contract.components.schemas[schema.$ref.split('/').pop()], value, where, depth);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) {
    const each = union.map((s) => problems(s, value, where, depth));
    return each.some((p) => p.length === 0) ? [] : each.sort((a, b) => a.length - b.length)[0];
  }
  if (schema.allOf) return schema.allOf.flatMap((s) => problems(s, value, where, depth));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length && !types.some((t) => typeOk(t, value))) return [`${where} is ${JSON.stringify(value)?.slice(0, 60)}, not ${types.join('|')}`];
  if (Array.isArray(value)) return value.slice(0, 3).flatMap((v, i) => problems(schema.items, v, `${where}[${i}]`, depth + 1));
  if (value && typeof value === 'object') {
    const out = (schema.required ?? []).filter((r) => !(r in value)).map((r) => `${where}.${r} is missing`);
    for (const [k, s] of Object.entries(schema.properties ?? {})) {
      if (k in value && value[k] !== undefined) out.push(...problems(s, value[k], `${where}.${k}`, depth + 1));
    }
    return out;
  }
  return [];
}

function responseSchema(op) {
  for (const code of ['200', '201', '202']) {
    const content = op.op.responses?.[code]?.content;
    if (content) return content['application/json']?.schema ?? null;
  }
  return null;
}

async function callLive(m) {
  const path = m.name.split('.');
  let owner = path[0] === 'mcpServers' ? admin : client;
  for (const p of path.slice(0, -1)) owner = owner[p];
  const fn = owner[path.at(-1)];
  const args = ARGS[m.name] ? await ARGS[m.name]() : paramNames(fn).map((p) => (byName[p] ?? (() => undefined))());
  responses = [];
  let result = fn.apply(owner, args);
  result = await result;
  if (result && result.controller instanceof AbortController) {
    for await (const _ of result) { /* read the stream to its end */ }
  }
  const mine = responses.filter((r) => r.method === m.request.method && m.operation.pattern.test(r.url.pathname));
  const res = mine.at(-1);
  if (!res) return 'no request reached the server';
  if (res.status >= 300) return `answered ${res.status}: ${res.text.slice(0, 200)}`;
  const schema = responseSchema(m.operation);
  const value = VALUES[m.name] && VALUES[m.name](res.type.includes('json') ? JSON.parse(res.text) : {});
  if (value) return value;
  if (!schema || !res.type.includes('json') || SCHEMA_AS_LETTA_ANSWERS[m.name]) return null;
  const found = problems(schema, JSON.parse(res.text), 'response');
  return found.length ? found.slice(0, 3).join('; ') : null;
}

const selfHosted = methods.filter((m) => m.operation?.selfHosted);
const cloud = methods.filter((m) => m.operation && !m.operation.selfHosted);
const unknown = methods.filter((m) => !m.operation);
for (const m of unknown) console.log(`unmatched ${m.name}: ${m.request ? m.request.method + ' ' + m.request.url.pathname : 'made no request'}`);
for (const m of cloud) console.log(`cloud ${m.name}: ${m.request.method} ${m.operation.path}`);
const ordered = [...selfHosted.filter((m) => !LAST.test(m.name)), ...selfHosted.filter((m) => CLOSING.test(m.name)),
  ...selfHosted.filter((m) => LAST.test(m.name) && !CLOSING.test(m.name))];
let passing = 0;
for (const m of ordered) {
  let failure;
  try {
    failure = await callLive(m);
  } catch (e) {
    failure = `threw ${e.status ?? ''} ${String(e.message).slice(0, 200)}`;
  }
  const label = `${m.name} (${m.request.method} ${m.operation.path})`;
  if (failure) {
    console.log(`fail ${label}: ${failure}`);
  } else {
    passing++;
    console.log(`pass ${label}`);
  }
}
console.log(`client methods passing ${passing} of ${selfHosted.length} self-hosted (${methods.length} methods, ${cloud.length} Letta Cloud's, ${unknown.length} unmatched)`);
