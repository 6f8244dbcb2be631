// folio-server through the official OpenAI client library (the `openai` npm package): what an editor
// or script sees. Greedy output must equal folio-cli generate's for the same prompt.
//   node openai_client_test.mjs BASE_URL API_KEY CLI_CHAT.json CLI_RAW.json CLI_LONG.json
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';

const [baseURL, apiKey, chatFile, rawFile, longFile] = process.argv.slice(2);
const cliChat = JSON.parse(readFileSync(chatFile, 'utf8'));  // chat template, 24 tokens
const cliRaw = JSON.parse(readFileSync(rawFile, 'utf8'));    // raw text, 24 tokens
const cliLong = JSON.parse(readFileSync(longFile, 'utf8'));  // chat, up to 400 tokens (EOS or length)
const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey, maxRetries: 0 });
const prompt = 'Once upon a time';
const user = [{ role: 'user', content: prompt }];
let checks = 0;
const check = async (name, fn) => { await fn(); checks++; console.log(`ok ${name}`); };
const cliReason = (r) => (r === 'stop' || r === 'stop_string' ? 'stop' : 'length');

async function streamText(params) {
  const stream = await client.chat.completions.create({ ...params, stream: true });
  let text = '', finish = null, role = null, usage = null, chunks = 0;
  for await (const c of stream) {
    chunks++;
    if (c.usage) usage = c.usage;
    if (!c.choices.length) continue;
    const ch = c.choices[0];
    if (ch.delta.role) role = ch.delta.role;
    text += ch.delta.content ?? '';
    if (ch.finish_reason) { assert.equal(finish, null, 'one finish_reason'); finish = ch.finish_reason; }
  }
  return { text, finish, role, usage, chunks };
}

await check('models.list', async () => {
  const models = await client.models.list();
  assert.equal(models.data.length, 1);
  assert.equal(models.data[0].id, 'stories260K');
});

await check('chat, greedy, equal to folio-cli generate', async () => {
  const r = await client.chat.completions.create({ model: 'stories260K', messages: user, max_tokens: 24, temperature: 0 });
  assert.equal(r.object, 'chat.completion');
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.equal(r.choices[0].message.content, cliChat.text);
  assert.equal(r.choices[0].finish_reason, 'length');
  assert.equal(r.usage.completion_tokens, 24);
  assert.equal(r.usage.prompt_tokens, cliChat.prompt_ids.length);
  assert.equal(r.usage.total_tokens, 24 + cliChat.prompt_ids.length);
});

await check('chat, streaming, include_usage, max_completion_tokens', async () => {
  const s = await streamText({ messages: user, max_completion_tokens: 24, temperature: 0, stream_options: { include_usage: true } });
  assert.equal(s.role, 'assistant');
  assert.equal(s.text, cliChat.text);
  assert.equal(s.finish, 'length');
  assert.equal(s.usage.completion_tokens, 24);
  assert.ok(s.chunks > 3, 'streamed in pieces');
});

await check('finish_reason at the end of the text (EOS or length), both modes', async () => {
  const r = await client.chat.completions.create({ messages: user, max_tokens: 400, temperature: 0 });
  assert.equal(r.choices[0].message.content, cliLong.text);
  assert.equal(r.choices[0].finish_reason, cliReason(cliLong.finish_reason));
  assert.equal(r.usage.completion_tokens, cliLong.ids.length);
  const s = await streamText({ messages: user, max_tokens: 400, temperature: 0 });
  assert.equal(s.text, cliLong.text);
  assert.equal(s.finish, r.choices[0].finish_reason);
});

await check('stop strings end the text before them, finish_reason stop, both modes', async () => {
  // A stop word from the middle of the reference text, and one that never occurs.
  const words = cliChat.text.split(' ').filter((w) => w.length >= 3);
  const stop = words[Math.floor(words.length / 2)];
  const expected = cliChat.text.slice(0, cliChat.text.indexOf(stop));
  const r = await client.chat.completions.create({ messages: user, max_tokens: 24, temperature: 0, stop: [stop, 'zzzz-never'] });
  assert.equal(r.choices[0].message.content, expected);
  assert.equal(r.choices[0].finish_reason, 'stop');
  const s = await streamText({ messages: user, max_tokens: 24, temperature: 0, stop });
  assert.equal(s.text, expected);
  assert.equal(s.finish, 'stop');
});

await check('completions: raw text and the same prompt as token ids', async () => {
  const r = await client.completions.create({ model: 'stories260K', prompt, max_tokens: 24, temperature: 0 });
  assert.equal(r.object, 'text_completion');
  assert.equal(r.choices[0].text, cliRaw.text);
  assert.equal(r.choices[0].finish_reason, 'length');
  const ids = await client.completions.create({ prompt: cliRaw.prompt_ids, max_tokens: 24, temperature: 0 });
  assert.equal(ids.choices[0].text, cliRaw.text);
  const stream = await client.completions.create({ prompt, max_tokens: 24, temperature: 0, stream: true });
  let text = '';
  for await (const c of stream) text += c.choices[0]?.text ?? '';
  assert.equal(text, cliRaw.text);
});

await check('prefix cache hits are reported as cached prompt tokens', async () => {
  const long = [{ role: 'user', content: 'Once upon a time there was a little girl named Lily. She loved to play outside in the park with her friends every day.' }];
  await client.chat.completions.create({ messages: long, max_tokens: 2, temperature: 0 });
  const again = await client.chat.completions.create({ messages: long, max_tokens: 2, temperature: 0 });
  assert.ok(again.usage.prompt_tokens_details.cached_tokens > 0, JSON.stringify(again.usage));
});

await check('sampling with a seed is reproducible', async () => {
  const p = { messages: user, max_tokens: 16, temperature: 0.9, top_p: 0.95, top_k: 40, seed: 7 };
  const a = await client.chat.completions.create(p);
  const b = await client.chat.completions.create(p);
  assert.equal(a.choices[0].message.content, b.choices[0].message.content);
});

await check('n choices, whole and streamed', async () => {
  const g = await client.chat.completions.create({ messages: user, max_tokens: 24, temperature: 0, n: 3 });
  assert.deepEqual(g.choices.map((c) => c.index), [0, 1, 2]);
  for (const c of g.choices) { assert.equal(c.message.content, cliChat.text); assert.equal(c.finish_reason, 'length'); }
  assert.equal(g.usage.completion_tokens, 72);
  assert.equal(g.usage.prompt_tokens, cliChat.prompt_ids.length);
  const p = { messages: user, max_tokens: 16, temperature: 1.0, seed: 11, n: 4 };
  const whole = await client.chat.completions.create(p);
  const stream = await client.chat.completions.create({ ...p, stream: true, stream_options: { include_usage: true } });
  const texts = ['', '', '', ''], finishes = [null, null, null, null];
  let usage = null;
  for await (const c of stream) {
    if (c.usage) usage = c.usage;
    for (const ch of c.choices) {
      texts[ch.index] += ch.delta.content ?? '';
      if (ch.finish_reason) { assert.equal(finishes[ch.index], null); finishes[ch.index] = ch.finish_reason; }
    }
  }
  assert.deepEqual(texts, whole.choices.map((c) => c.message.content), 'seeded choices are reproducible, choice by choice');
  assert.deepEqual(finishes, whole.choices.map((c) => c.finish_reason));
  assert.equal(usage.completion_tokens, whole.usage.completion_tokens);
  assert.ok(new Set(texts).size > 1, `sampled choices should differ: ${JSON.stringify(texts)}`);
});

await check('n choices are one prompt sampled n ways: equal to separate requests with seed + i', async () => {
  const p = { messages: user, max_tokens: 12, temperature: 1.0 };
  const together = await client.chat.completions.create({ ...p, seed: 40, n: 3 });
  for (let i = 0; i < 3; i++) {
    const alone = await client.chat.completions.create({ ...p, seed: 40 + i });
    assert.equal(together.choices[i].message.content, alone.choices[0].message.content, `choice ${i}`);
  }
});

// Logprobs: the raw model's (before temperature), so greedy picks the best and each list is sorted.
function checkContent(content, k, greedy) {
  for (const e of content) {
    assert.equal(typeof e.token, 'string');
    assert.ok(e.logprob <= 0, JSON.stringify(e));
    assert.ok(Array.isArray(e.bytes));
    assert.equal(e.top_logprobs.length, k);
    for (let j = 1; j < k; j++) assert.ok(e.top_logprobs[j - 1].logprob >= e.top_logprobs[j].logprob, 'sorted best first');
    if (greedy) { assert.equal(e.top_logprobs[0].token, e.token); assert.equal(e.top_logprobs[0].logprob, e.logprob); }
    else if (e.top_logprobs.some((t) => t.token === e.token)) assert.ok(e.logprob >= e.top_logprobs[k - 1].logprob);
  }
}

await check('chat logprobs and top_logprobs, whole and streamed alike', async () => {
  const p = { messages: user, max_tokens: 24, temperature: 0, logprobs: true, top_logprobs: 3 };
  const r = await client.chat.completions.create(p);
  const content = r.choices[0].logprobs.content;
  assert.equal(content.length, 24);
  checkContent(content, 3, true);
  assert.equal(r.choices[0].message.content, cliChat.text);
  const stream = await client.chat.completions.create({ ...p, stream: true });
  const streamed = [];
  for await (const c of stream) for (const ch of c.choices) if (ch.logprobs) streamed.push(...ch.logprobs.content);
  assert.deepEqual(streamed, content);
  const plain = await client.chat.completions.create({ messages: user, max_tokens: 4, temperature: 0 });
  assert.equal(plain.choices[0].logprobs, null, 'none unless asked');
  const hot = await client.chat.completions.create({ messages: user, max_tokens: 16, temperature: 1.5, seed: 3, logprobs: true, top_logprobs: 20, n: 2 });
  for (const c of hot.choices) checkContent(c.logprobs.content, 20, false);
  assert.equal(hot.choices[0].logprobs.content.length + hot.choices[1].logprobs.content.length, hot.usage.completion_tokens);
});

await check('completions logprobs: N alternatives per token', async () => {
  const r = await client.completions.create({ prompt, max_tokens: 10, temperature: 0, logprobs: 2 });
  const lp = r.choices[0].logprobs;
  assert.equal(lp.tokens.length, 10);
  assert.equal(lp.token_logprobs.length, 10);
  assert.equal(lp.text_offset[0], 0);
  for (let i = 0; i < 10; i++) {
    const alts = Object.values(lp.top_logprobs[i]);
    assert.ok(alts.length >= 1 && alts.length <= 2);
    assert.equal(Math.max(...alts), lp.token_logprobs[i], 'greedy: the token is the best');
  }
  assert.equal(r.choices[0].text, cliRaw.text.slice(0, r.choices[0].text.length));
});

await check('errors arrive as the client library\'s error types', async () => {
  await assert.rejects(client.chat.completions.create({ messages: [{ role: 'wizard', content: 'x' }] }),
    (e) => e instanceof OpenAI.BadRequestError && e.param === 'messages[0].role');
  await assert.rejects(client.chat.completions.create({ messages: user, top_logprobs: 2 }),
    (e) => e instanceof OpenAI.BadRequestError && e.param === 'top_logprobs' && /logprobs: true/.test(e.message));
  await assert.rejects(client.chat.completions.create({ messages: user, logprobs: true, top_logprobs: 21 }),
    (e) => e instanceof OpenAI.BadRequestError && e.param === 'top_logprobs');
  await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: user }),
    (e) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found');
  await assert.rejects(client.chat.completions.create({ messages: user, max_tokens: 5000 }),
    (e) => e instanceof OpenAI.BadRequestError && e.code === 'context_length_exceeded');
  const wrong = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: 'wrong', maxRetries: 0 });
  await assert.rejects(wrong.models.list(), (e) => e instanceof OpenAI.AuthenticationError);
});

console.log(`openai client test: ${checks} checks passed`);
