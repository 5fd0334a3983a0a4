// The MCP TypeScript SDK as a client of `engram mcp --http`: ENGRAM_MCP_URL, KEY_A and KEY_B (two users' keys).
// Prints "ok <check>" for each check that passes and "ALL OK" at the end; exits 1 at the first failure.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = new URL(process.env.ENGRAM_MCP_URL);

function check(condition, what, detail) {
  if (!condition) {
    console.log(`FAIL ${what}${detail === undefined ? '' : ': ' + JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok ${what}`);
}

async function connect(key) {
  const client = new Client({ name: 'engram-ts-check', version: '1.0.0' });
  const headers = key === undefined ? {} : { Authorization: `Bearer ${key}` };
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
}

const text = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

const a = await connect(process.env.KEY_A);
check(typeof a.transport.sessionId === 'string' && a.transport.sessionId.length > 0, 'the server gives a session id');
check(a.client.getServerVersion()?.name === 'engram', 'the server is engram', a.client.getServerVersion());
const tools = (await a.client.listTools()).tools;
const names = tools.map((t) => t.name);
for (const name of ['memory_save', 'memory_search', 'search', 'block', 'recall']) {
  check(names.includes(name), `tools/list has ${name}`, names);
}
const search = tools.find((t) => t.name === 'search');
check(search.annotations?.readOnlyHint === true, 'search is read-only by its hint', search.annotations);

const saved = await a.client.callTool({ name: 'memory_save', arguments: { content: 'The lighthouse key is under the blue stone.' } });
check(!saved.isError && text(saved).includes('note-'), 'memory_save stores a note', saved);
const found = await a.client.callTool({ name: 'memory_search', arguments: { query: 'where is the lighthouse key' } });
check(!found.isError && text(found).includes('blue stone'), 'memory_search finds it for the same user', found);
const bad = await a.client.callTool({ name: 'block', arguments: { operation: 'append' } });
check(bad.isError === true && text(bad).includes('arguments invalid'), 'bad arguments are a tool error', bad);

const b = await connect(process.env.KEY_B);
check(b.transport.sessionId !== a.transport.sessionId, 'another key gets its own session');
const other = await b.client.callTool({ name: 'memory_search', arguments: { query: 'where is the lighthouse key' } });
check(!other.isError && !text(other).includes('blue stone'), "another key's user sees nothing of the first's memory", other);
const searched = await b.client.callTool({ name: 'search', arguments: { query: 'lighthouse key blue stone' } });
check(!searched.isError && !text(searched).includes('blue stone'), "nor through the agent's search", searched);

let refused;
try {
  await connect(undefined);
} catch (e) {
  refused = e;
}
check(refused?.code === 401 && String(refused).includes('API key is needed'), 'without a key the client is refused with 401',
  { code: refused?.code, message: String(refused) });
let wrong;
try {
  await connect('engram_notAKey');
} catch (e) {
  wrong = e;
}
check(wrong?.code === 401 && String(wrong).includes('not valid'), 'a wrong key is refused with 401',
  { code: wrong?.code, message: String(wrong) });

await a.transport.terminateSession();
check(a.transport.sessionId === undefined, 'the session is ended with DELETE');
await a.client.close();
await b.client.close();
console.log('ALL OK');
