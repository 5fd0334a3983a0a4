// Issue #31's archives through Letta's official TypeScript client (@letta-ai/letta-client), as a Letta user would use
// them: an archive of user A shared by two of A's agents, searched through each agent's archival search, detached from
// one, and user B, who sees and changes none of it. Environment: ENGRAM_URL, KEY_A, KEY_B.
// Prints one "ok ..." line per check; the first failed check prints "FAIL ..." and exits with status 1.
import Letta from '@letta-ai/letta-client';

const a = new Letta({ apiKey: process.env.KEY_A, baseURL: process.env.ENGRAM_URL, maxRetries: 0 });
const b = new Letta({ apiKey: process.env.KEY_B, baseURL: process.env.ENGRAM_URL, maxRetries: 0 });

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

const blocks = [{ label: 'human', value: 'The user is Ana.' }, { label: 'persona', value: 'I help.' }];
const helper = await a.agents.create({ name: 'helper', memory_blocks: blocks });
const coach = await a.agents.create({ name: 'coach', memory_blocks: blocks });

const archive = await a.archives.create({ name: 'handbook', description: 'Company policies' });
check(archive.id.startsWith('archive-') && archive.name === 'handbook', 'an archive is created: ' + archive.id);
check((await a.archives.retrieve(archive.id)).description === 'Company policies', 'and retrieved');
const renamed = await a.archives.update(archive.id, { name: 'staff handbook' });
check(renamed.name === 'staff handbook' && renamed.description === 'Company policies', 'and renamed, keeping its description');
check((await all(a.archives.list({ name: 'staff handbook' }))).map((x) => x.id).join() === archive.id,
  'the list filters by name');

const one = await a.archives.passages.create(archive.id, { text: 'Holiday allowance is 25 days a year', tags: ['hr'] });
check(one.archive_id === archive.id && one.text.startsWith('Holiday'), 'a passage is added to the archive');
const many = await a.archives.passages.createMany(archive.id, {
  passages: [{ text: 'Expenses are filed within 30 days' }, { text: 'The office opens at nine' }],
});
check(many.length === 2, 'a batch of passages is added');

await a.agents.archives.attach(archive.id, { agent_id: helper.id });
await a.agents.archives.attach(archive.id, { agent_id: coach.id });
check((await all(a.archives.list({ agent_id: coach.id }))).map((x) => x.id).join() === archive.id,
  'the archive is listed for an agent it is attached to');
await a.agents.passages.create(helper.id, { text: 'Ana takes her holiday in May' });

const found = await a.agents.passages.search(helper.id, { query: 'holiday' });
const texts = found.results.map((r) => r.content);
check(texts.includes('Holiday allowance is 25 days a year') && texts.includes('Ana takes her holiday in May'),
  "an agent's archival search covers its own passages and the attached archive: " + texts.join(' | '));
check(found.results.find((r) => r.content.startsWith('Holiday')).archive_id === archive.id,
  'a hit from the archive names it');
const coachFound = (await a.agents.passages.search(coach.id, { query: 'holiday' })).results.map((r) => r.content);
check(coachFound.includes('Holiday allowance is 25 days a year') && !coachFound.includes('Ana takes her holiday in May'),
  'the second agent finds the shared passage and not the first agent\'s own');

await a.agents.archives.detach(archive.id, { agent_id: helper.id });
const afterDetach = (await a.agents.passages.search(helper.id, { query: 'holiday' })).results.map((r) => r.content);
check(!afterDetach.includes('Holiday allowance is 25 days a year') && afterDetach.includes('Ana takes her holiday in May'),
  'a detached archive leaves the agent\'s search at once');

// Another user sees and changes nothing.
const bens = await b.agents.create({ name: 'bens', memory_blocks: blocks });
check(await status(b.archives.retrieve(archive.id)) === 404, "another user's key cannot retrieve the archive");
check((await all(b.archives.list())).length === 0, 'nor list it');
check(await status(b.archives.update(archive.id, { name: 'mine' })) === 404, 'nor rename it');
check(await status(b.archives.passages.create(archive.id, { text: 'ben was here' })) === 404, 'nor add to it');
check(await status(b.agents.archives.attach(archive.id, { agent_id: bens.id })) === 404, 'nor attach it to their agent');
check(await status(b.archives.passages.delete(one.id, { archive_id: archive.id })) === 404, 'nor delete its passages');
check(await status(b.archives.delete(archive.id)) === 404, 'nor delete it');
check((await a.archives.retrieve(archive.id)).name === 'staff handbook', 'and the archive is unchanged');

await a.archives.passages.delete(one.id, { archive_id: archive.id });
const left = (await a.agents.passages.search(coach.id, { query: 'holiday allowance' })).results.map((r) => r.content);
check(!left.includes('Holiday allowance is 25 days a year'), 'a deleted passage is no longer found');
await a.archives.delete(archive.id);
check(await status(a.archives.retrieve(archive.id)) === 404, 'a deleted archive is gone');
console.log('ALL OK');
