// Issue #28's agent behaviours through Letta's official TypeScript client (@letta-ai/letta-client), as a Letta user
// would use them: create and modify fields, agent types, shared names, imports with their form fields, schedules and
// the v1 loop. Environment: ENGRAM_URL, KEY_A, optionally AF_FILE (a Letta agent file to import).
// Prints one "ok ..." line per check; the first failed check prints "FAIL ..." and exits with status 1.
import Letta, { toFile } from '@letta-ai/letta-client';
import fs from 'node:fs';

const a = new Letta({ apiKey: process.env.KEY_A, baseURL: process.env.ENGRAM_URL, maxRetries: 0 });

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

// Create with Letta's fields; retrieve returns them; modify changes them.
const planner = await a.agents.create({
  name: 'planner',
  description: 'Plans trips',
  metadata: { team: 'travel', priority: 2 },
  timezone: 'Europe/Lisbon',
  agent_type: 'memgpt_v2_agent',
  model_settings: { provider_type: 'openai', temperature: 0.3, max_output_tokens: 1024 },
});
const read = await a.agents.retrieve(planner.id);
check(read.description === 'Plans trips', 'create with a description: retrieve returns it');
check(read.metadata?.team === 'travel' && read.metadata?.priority === 2, 'create with metadata: retrieve returns it');
check(read.timezone === 'Europe/Lisbon', 'create with a timezone: retrieve returns it');
check(read.agent_type === 'memgpt_v2_agent', 'create with an agent_type: retrieve returns it');
check(read.model_settings?.temperature === 0.3 && read.model_settings?.max_output_tokens === 1024,
  'create with model_settings: retrieve returns temperature and max_output_tokens');
await a.agents.update(planner.id, { description: 'Plans everything' });
const modified = await a.agents.retrieve(planner.id);
check(modified.description === 'Plans everything' && modified.timezone === 'Europe/Lisbon',
  'modify changes the description and keeps the rest');

const plain = await a.agents.create({ name: 'plain' });
check(plain.agent_type === 'letta_v1_agent' && (await a.agents.retrieve(plain.id)).agent_type === 'letta_v1_agent',
  'an agent created without agent_type is a letta_v1_agent');

const before = (await all(a.agents.list())).length;
const refused = await status(a.agents.create({
  name: 'seeded', initial_message_sequence: [{ role: 'user', content: 'hi' }],
}));
check(refused === 422 || refused === 400, 'an unsupported field (initial_message_sequence) is refused with a 4xx: ' + refused);
check((await all(a.agents.list())).length === before, 'the refused create creates nothing');

// Names as in Letta: two agents may share one.
const one = await a.agents.create({ name: 'helper' });
const two = await a.agents.create({ name: 'helper' });
check(one.id !== two.id && one.name === 'helper' && two.name === 'helper',
  'two agents created with the same name both exist with different ids');
check((await all(a.agents.list({ name: 'helper' }))).length === 2, 'listing by the name finds both');

// Imports: the same file twice gives two agents; override_name is applied.
if (process.env.AF_FILE) {
  const bytes = fs.readFileSync(process.env.AF_FILE);
  const first = await a.agents.importFile({ file: await toFile(bytes, 'customer_service.af') });
  const second = await a.agents.importFile({ file: await toFile(bytes, 'customer_service.af') });
  check(first.agent_ids.length === 1 && second.agent_ids.length === 1 && first.agent_ids[0] !== second.agent_ids[0],
    'importing one Letta file twice gives two agents');
  check(first.agent_ids[0].startsWith('agent-'), 'an imported agent gets a new agent- id');
  const named = await a.agents.importFile({ file: await toFile(bytes, 'customer_service.af'), override_name: 'support-desk' });
  check((await a.agents.retrieve(named.agent_ids[0])).name === 'support-desk', 'import with override_name names the agent');
} else {
  console.log('skipped: no AF_FILE, the import checks did not run');
}

// Letta's schedule endpoints.
const at = Date.now() + 3 * 3600 * 1000;
const once = await a.agents.schedule.create(plain.id, {
  messages: [{ role: 'user', content: 'Remind me to stretch' }], schedule: { type: 'one-time', scheduled_at: at },
});
check(once.id && Date.parse(once.next_scheduled_at) === at, 'schedule a one-time message');
const daily = await a.agents.schedule.create(plain.id, {
  messages: [{ role: 'user', content: 'Check the news' }], schedule: { type: 'recurring', cron_expression: '0 9 * * 1-5' },
});
check(daily.id && daily.id !== once.id, 'schedule a recurring message');
const listed = await a.agents.schedule.list(plain.id);
check(listed.scheduled_messages.map((s) => s.id).sort().join() === [once.id, daily.id].sort().join(),
  'list the scheduled messages');
const got = await a.agents.schedule.retrieve(once.id, { agent_id: plain.id });
check(got.schedule.type === 'one-time' && got.schedule.scheduled_at === at && got.agent_id === plain.id,
  'retrieve a scheduled message');
check(got.message.messages[0].content === 'Remind me to stretch'
  || got.message.messages[0].content?.[0]?.text === 'Remind me to stretch', 'the scheduled message keeps its text');
await a.agents.schedule.delete(once.id, { agent_id: plain.id });
check(await status(a.agents.schedule.retrieve(once.id, { agent_id: plain.id })) === 404,
  'a deleted scheduled message is not found');
check((await a.agents.schedule.list(plain.id)).scheduled_messages.length === 1, 'the list no longer has it');
check(await status(a.agents.schedule.create(plain.id, {
  messages: [{ role: 'user', content: 'x' }], schedule: { type: 'recurring', cron_expression: 'not a cron' },
})) === 422, 'a malformed cron expression is a 422');
check((await a.agents.schedule.list(plain.id)).scheduled_messages.length === 1, 'and schedules nothing');

// The v1 loop: a tool call without a heartbeat, then the answer.
const looper = await a.agents.create({
  name: 'looper', memory_blocks: [{ label: 'human', value: 'The user is Ana.' }, { label: 'persona', value: 'I help.' }],
});
const quiet = 'quiet {"name": "block", "arguments": {"operation": "view", "label": "human"}}';
const turn = await a.agents.messages.create(looper.id, { messages: [{ role: 'user', content: quiet }] });
const types = turn.messages.map((m) => m.message_type);
check(types.join() === 'user_message,tool_call_message,tool_return_message,assistant_message',
  'a v1 agent calls a tool without a heartbeat and goes on: ' + types.join());
check(turn.messages[3].content.startsWith('done: ') && turn.stop_reason.stop_reason === 'end_turn',
  'the v1 agent answers and the turn ends with end_turn');
console.log('ALL OK');
