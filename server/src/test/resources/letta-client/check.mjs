// Drives an Engram server with Letta's official TypeScript client (@letta-ai/letta-client), as a Letta user would.
// Environment: ENGRAM_URL, KEY_A (user A), KEY_B (user B), optionally AF_FILE (a Letta agent file to import).
// Prints one "ok ..." line per check; the first failed check prints "FAIL ..." and exits with status 1.
import Letta, { toFile } from '@letta-ai/letta-client';
import fs from 'node:fs';

const baseURL = process.env.ENGRAM_URL;
const a = new Letta({ apiKey: process.env.KEY_A, baseURL, maxRetries: 0 });
const b = new Letta({ apiKey: process.env.KEY_B, baseURL, maxRetries: 0 });

function check(condition, what) {
  if (!condition) {
    console.log('FAIL ' + what);
    process.exit(1);
  }
  console.log('ok ' + what);
}

async function status(promise) {
  try {
    await promise;
    return 200;
  } catch (e) {
    return e.status ?? ('no status: ' + e);
  }
}

async function all(pagePromise) {
  const items = [];
  for await (const item of pagePromise) {
    items.push(item);
  }
  return items;
}

const health = await a.health();
check(health.status === 'ok', 'health');

const agent = await a.agents.create({
  name: 'client-agent',
  memory_blocks: [{ label: 'human', value: 'The user is Ana.' }, { label: 'persona', value: 'I help.' }],
  tags: ['npm'],
});
check(agent.id.startsWith('agent-') && agent.memory.blocks.length === 2, 'create an agent with blocks');
check((await a.agents.retrieve(agent.id)).name === 'client-agent', 'retrieve the agent');

const response = await a.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'hello' }] });
check(response.messages.some((m) => m.message_type === 'assistant_message' && m.content === 'You said: hello'),
  'send a message');
check(response.stop_reason.stop_reason === 'end_turn' && response.usage.step_count === 1, 'stop reason and usage');

const stream = await a.agents.messages.stream(agent.id, {
  messages: [{ role: 'user', content: 'streamed' }], stream_tokens: true,
});
let streamed = '';
const kinds = new Set();
for await (const chunk of stream) {
  kinds.add(chunk.message_type);
  if (chunk.message_type === 'assistant_message') {
    streamed += chunk.content;
  }
}
check(streamed === 'You said: streamed', 'stream a message token by token');
check(kinds.has('stop_reason') && kinds.has('usage_statistics'), 'the stream ends with its stop reason and usage');

// Engram's live tool output (include_tool_progress) comes as named events, which the client skips.
const builder = await a.agents.create({ name: 'client-builder', tools: ['build'] });
const live = await a.agents.messages.stream(builder.id, {
  messages: [{ role: 'user', content: 'call {"name": "build", "arguments": {"target": "app"}}' }],
  include_tool_progress: true,
});
const liveKinds = [];
for await (const chunk of live) {
  liveKinds.push(chunk.message_type);
}
check(liveKinds.includes('tool_return_message') && liveKinds.includes('stop_reason')
  && !liveKinds.includes('tool_progress_message'), 'a stream with tool progress reads as a plain stream');

const history = await all(a.agents.messages.list(agent.id, { limit: 2 }));
check(history.filter((m) => m.message_type === 'user_message').length === 2, 'list the messages page by page');

const block = await a.agents.blocks.retrieve('human', { agent_id: agent.id });
check(block.value === 'The user is Ana.', 'read a block');
await a.agents.blocks.update('human', { agent_id: agent.id, value: 'The user is Ana, in Lisbon.' });
check((await a.agents.blocks.retrieve('human', { agent_id: agent.id })).value.endsWith('in Lisbon.'), 'modify a block');

await a.agents.passages.create(agent.id, { text: 'Ana has a cat called Miso.', tags: ['pets'] });
await a.agents.passages.create(agent.id, { text: 'The quarterly report is due in March.' });
check((await a.agents.passages.list(agent.id)).length === 2, 'insert passages');
const found = await a.agents.passages.search(agent.id, { query: 'what pet does Ana have', top_k: 1 });
check(found.count === 1 && found.results[0].content.includes('Miso'), 'search passages');

const exported = await a.agents.exportFile(agent.id);
const file = typeof exported === 'string' ? exported : JSON.stringify(exported);
check(JSON.parse(file).agents[0].name === 'client-agent', 'export the agent as an agent file');
const copy = JSON.parse(file);
copy.agents[0].name = 'client-agent-copy';
const imported = await a.agents.importFile({ file: await toFile(Buffer.from(JSON.stringify(copy)), 'copy.af') });
check(imported.agent_ids.length === 1, 'import the exported file');
const copied = await a.agents.blocks.retrieve('human', { agent_id: imported.agent_ids[0] });
check(copied.value.endsWith('in Lisbon.'), 'the imported agent has the block');
if (process.env.AF_FILE) {
  const letta = await a.agents.importFile({ file: await toFile(fs.readFileSync(process.env.AF_FILE), 'letta.af') });
  check(letta.agent_ids.length >= 1, "import Letta's own agent file");
}

check(await status(b.agents.retrieve(agent.id)) === 404, "a second user's key: the agent is not found");
check(await status(b.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'hi' }] })) === 404,
  "a second user's key: cannot message it");
check(await status(b.agents.messages.list(agent.id)) === 404, "a second user's key: cannot read its messages");
check(await status(b.agents.blocks.retrieve('human', { agent_id: agent.id })) === 404,
  "a second user's key: cannot read its blocks");
check(await status(b.agents.passages.search(agent.id, { query: 'cat' })) === 404,
  "a second user's key: cannot search its passages");
check(await status(b.agents.exportFile(agent.id)) === 404, "a second user's key: cannot export it");
check((await all(b.agents.list())).length === 0, "a second user's key lists no agents");
check((await all(a.agents.list())).length >= 2, "the first user's key lists its agents");

const stranger = new Letta({ apiKey: 'engram_not-a-key', baseURL, maxRetries: 0 });
check(await status(stranger.agents.list()) === 401, 'a wrong key is refused');
console.log('ALL OK');
