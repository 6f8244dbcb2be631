// The load half of server_soak.sh: CLIENTS streaming clients send chat completions back to back for
// MINUTES, with random prompt and reply lengths and about one in five disconnecting part way; the
// server's resident memory is sampled (from /proc) every 5 s meanwhile, and so is what its C allocator
// holds (heap in use and free, from /metrics): resident memory that creeps while the heap in use stays
// flat is allocator slack, not a leak. Prints a table per minute, then checks the server is idle with
// no KV block held, and exits 1 if it is not.
//   node server_soak.mjs BASE_URL SERVER_PID MINUTES CLIENTS
import { readFileSync } from 'node:fs';

const [base, pidText, minutesText, clientsText] = process.argv.slice(2);
const pid = Number(pidText), minutes = Number(minutesText), clients = Number(clientsText);
const endAt = Date.now() + minutes * 60000;
const words = ['Lily', 'Tom', 'saw', 'a', 'big', 'red', 'ball', 'in', 'the', 'park', 'and', 'was', 'happy', 'tree', 'dog', 'sun'];

let seed = 12345;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const prompt = () => Array.from({ length: randInt(3, 60) }, () => words[randInt(0, words.length - 1)]).join(' ');

function rssMiB() {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
}

async function metrics() {
  const values = {};
  for (const line of (await (await fetch(`${base}/metrics`)).text()).split('\n')) {
    const m = line.match(/^([a-z_:]+)(\{[^}]*\})? (\S+)$/);
    if (m) values[m[1]] = (values[m[1]] ?? 0) + Number(m[3]);
  }
  return values;
}

const perMinute = [];  // {done, aborted, failed, tokens, rss: []}
const bucket = () => {
  const i = Math.min(Math.floor((Date.now() - (endAt - minutes * 60000)) / 60000), minutes - 1);
  return (perMinute[i] ??= { done: 0, aborted: 0, failed: 0, chunks: 0, rss: [], heap: [], free: [] });
};

async function oneRequest() {
  const quit = rand() < 0.2 ? randInt(1, 20) : 0;
  const abort = new AbortController();
  const r = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST', signal: abort.signal, headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: prompt() }], max_tokens: randInt(1, 96),
                           temperature: rand() < 0.5 ? 0 : 0.8, seed: randInt(0, 1e6), stream: true }),
  });
  if (r.status !== 200) { bucket().failed++; console.error(`HTTP ${r.status}: ${await r.text()}`); return; }
  const reader = r.body.getReader();
  let chunks = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks += (new TextDecoder().decode(value).match(/^data: \{/gm) ?? []).length;
      if (quit && chunks >= quit) { abort.abort(); bucket().aborted++; bucket().chunks += chunks; return; }
    }
  } catch (e) {
    if (!quit) { bucket().failed++; console.error(`stream failed: ${e}`); return; }
  }
  bucket().done++;
  bucket().chunks += chunks;
}

const sampler = setInterval(async () => {
  const b = bucket();
  b.rss.push(rssMiB());
  const m = await metrics();
  b.heap.push(m['folio:heap_in_use_bytes'] / 1048576);
  b.free.push(m['folio:heap_free_bytes'] / 1048576);
}, 5000);
await Promise.all(Array.from({ length: clients }, async () => { while (Date.now() < endAt) await oneRequest(); }));
clearInterval(sampler);

const fmt = (x) => x.toFixed(1);
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
console.log('| minute | requests done | disconnected | failed | chunks | RSS min MiB | RSS max MiB | heap in use MiB (median) | heap free MiB (median) |');
console.log('|---|---|---|---|---|---|---|---|---|');
perMinute.forEach((b, i) => console.log(`| ${i + 1} | ${b.done} | ${b.aborted} | ${b.failed} | ${b.chunks} | ${fmt(Math.min(...b.rss))} | ` +
                                        `${fmt(Math.max(...b.rss))} | ${fmt(median(b.heap))} | ${fmt(median(b.free))} |`));
const firstMin = perMinute[0], lastMin = perMinute[perMinute.length - 1];
const change = (key, what) => `${what}: median ${fmt(median(firstMin[key]))} MiB in the first minute, ` +
  `${fmt(median(lastMin[key]))} MiB in the last (${fmt(median(lastMin[key]) - median(firstMin[key]))} MiB)`;
console.log(change('rss', 'RSS'));
console.log(change('heap', 'heap in use'));
console.log(change('free', 'heap free'));

let m;
for (let t = 0; t < 100; t++) {
  m = await metrics();
  if (m['folio:num_requests_running'] === 0 && m['folio:num_requests_waiting'] === 0 && m['folio:kv_cache_blocks_used'] === 0) break;
  await new Promise((r) => setTimeout(r, 100));
}
const failed = perMinute.reduce((s, b) => s + b.failed, 0);
console.log(`after the soak: running ${m['folio:num_requests_running']}, waiting ${m['folio:num_requests_waiting']}, ` +
            `KV blocks held ${m['folio:kv_cache_blocks_used']} of ${m['folio:kv_cache_blocks_total']}, failed requests ${failed}`);
process.exit(m['folio:num_requests_running'] === 0 && m['folio:kv_cache_blocks_used'] === 0 && failed === 0 ? 0 : 1);
