// The Node reference for tests/bench/tokenizer_bench.sh: @huggingface/tokenizers (the Hugging Face
// JavaScript implementation) encoding the same text, one encode() call over all of it.
//   node tokenizer_bench.mjs MODEL_DIR TEXT_FILE ROUNDS [IDS_OUT]
// Prints one JSON line like folio-tokenizer-bench's (process CPU time stands in for thread CPU time).
import fs from "node:fs";
import { Tokenizer } from "@huggingface/tokenizers";

const [dir, textFile, roundsArg, idsOut] = process.argv.slice(2);
const rounds = Math.max(2, Number(roundsArg || 2));
const t0 = performance.now();
const config = fs.existsSync(`${dir}/tokenizer_config.json`) ? JSON.parse(fs.readFileSync(`${dir}/tokenizer_config.json`, "utf8")) : {};
const tok = new Tokenizer(JSON.parse(fs.readFileSync(`${dir}/tokenizer.json`, "utf8")), config);
const load = (performance.now() - t0) / 1000;
const text = fs.readFileSync(textFile, "utf8");
const bytes = Buffer.byteLength(text, "utf8");
const wall = [], cpu = [];
let ids = [];
for (let r = 0; r < rounds; r++) {
  const w = performance.now(), c = process.cpuUsage();
  ids = tok.encode(text, { add_special_tokens: false }).ids;
  const used = process.cpuUsage(c);
  cpu.push((used.user + used.system) / 1e6);
  wall.push((performance.now() - w) / 1000);
}
if (idsOut) fs.writeFileSync(idsOut, ids.join("\n") + (ids.length ? "\n" : ""));
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const mb = bytes / 1e6;
console.log(JSON.stringify({
  impl: "@huggingface/tokenizers", bytes, tokens: ids.length, load_s: load,
  cold_mbps: mb / wall[0], warm_mbps: mb / median(wall.slice(1)),
  cold_cpu_mbps: mb / cpu[0], warm_cpu_mbps: mb / median(cpu.slice(1)),
}));
