// 64 concurrent streaming clients on folio-server, a fifth of them disconnecting part way: every
// other stream must carry exactly the text (and finish_reason) its prompt gets alone (greedy), and
// once all are done the engine must hold no KV block and run no request (read from /metrics).
//   node load_test.mjs BASE_URL API_KEY
import assert from 'node:assert/strict';
import OpenAI from 'openai';

const [baseURL, apiKey] = process.argv.slice(2);
const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey, maxRetries: 0, timeout: 120000 });
const N = 64, MAX = 48;
const names = ['Lily', 'Tom', 'Ben', 'Sue', 'Max', 'Anna', 'Tim', 'Mia'];
const things = ['a red ball', 'a big tree', 'a small dog', 'a shiny car', 'a funny hat', 'a blue bird', 'a cake', 'a boat'];
const messagesOf = (i) => [{ role: 'user', content: `${names[i % 8]} saw ${things[Math.floor(i / 8) % 8]}` }];
const params = (i) => ({ messages: messagesOf(i), max_tokens: MAX, temperature: 0 });

async function metrics() {
  const r = await fetch(`${baseURL}/metrics`, { headers: { Authorization: `Bearer ${apiKey}` } });
  assert.equal(r.status, 200);
  const values = {};
  for (const line of (await r.text()).split('\n')) {
    const m = line.match(/^([a-z_:]+)\{([^}]*)\} (\S+)$/);
    if (!m) continue;
    const reason = m[2].match(/finished_reason="(\w+)"/);
    values[m[1] + (reason ? `:${reason[1]}` : '')] = Number(m[3]);
  }
  return values;
}

// Alone, one at a time.
const solo = [];
for (let i = 0; i < N; i++) {
  const r = await client.chat.completions.create(params(i));
  solo.push({ text: r.choices[0].message.content, finish: r.choices[0].finish_reason });
}
const before = await metrics();

// All at once, streaming; every fifth client goes away after a few chunks.
const quitters = new Set([...Array(N).keys()].filter((i) => i % 5 === 0));
const results = await Promise.all([...Array(N).keys()].map(async (i) => {
  const abort = new AbortController();
  const stream = await client.chat.completions.create({ ...params(i), stream: true }, { signal: abort.signal });
  let text = '', finish = null, chunks = 0;
  try {
    for await (const c of stream) {
      text += c.choices[0]?.delta?.content ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
      if (quitters.has(i) && ++chunks === 2 + (i % 7)) { abort.abort(); break; }
    }
  } catch (e) {
    if (!quitters.has(i)) throw e;
  }
  return { text, finish };
}));

let compared = 0;
for (let i = 0; i < N; i++) {
  if (quitters.has(i)) continue;
  assert.equal(results[i].text, solo[i].text, `client ${i}: its text in the batch differs from alone`);
  assert.equal(results[i].finish, solo[i].finish, `client ${i}: finish_reason`);
  compared++;
}

// Nothing left behind: no running or waiting request, no KV block held.
let m;
for (let t = 0; t < 100; t++) {
  m = await metrics();
  if (m['folio:num_requests_running'] === 0 && m['folio:num_requests_waiting'] === 0 && m['folio:kv_cache_blocks_used'] === 0) break;
  await new Promise((r) => setTimeout(r, 100));
}
assert.equal(m['folio:num_requests_running'], 0, 'requests still running');
assert.equal(m['folio:num_requests_waiting'], 0, 'requests still waiting');
assert.equal(m['folio:kv_cache_blocks_used'], 0, 'KV blocks still held after every client is gone');
const aborted = m['folio:request_success_total:abort'] - (before['folio:request_success_total:abort'] ?? 0);
const done = m['folio:request_success_total:stop'] + m['folio:request_success_total:length'] -
  (before['folio:request_success_total:stop'] + before['folio:request_success_total:length']);
assert.ok(aborted >= 1, `disconnects must cancel requests in the engine (aborted: ${aborted})`);
assert.equal(aborted + done, N, `every request ended once (aborted ${aborted}, completed ${done})`);
console.log(`load test: ${N} concurrent streams, ${quitters.size} disconnected (${aborted} cancelled in the engine, the rest had finished), ` +
  `${compared} equal to their solo greedy text (finish_reason stop: ${solo.filter((s) => s.finish === 'stop').length}, length: ` +
  `${solo.filter((s) => s.finish === 'length').length} alone); KV blocks held after: 0 of ${m['folio:kv_cache_blocks_total']}`);
