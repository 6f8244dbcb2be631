#!/usr/bin/env bash
# folio-server over raw HTTP with curl: SSE framing byte for byte, and malformed requests, each a
# clear 4xx in OpenAI's error shape, with the server still serving afterwards.
#   server_http_test.sh FOLIO_SERVER MODEL_DIR WORK_DIR
set -euo pipefail
FOLIO_SERVER=$1; model=$2; work=$3
source "$(dirname "$0")/server_lib.sh"
mkdir -p "$work"; rm -f "$work"/*.body
trap 'stop_server >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# --- the command line: --help/--version exit 0, bad usage exits 2 ---
"$FOLIO_SERVER" --help | grep -q "usage: folio-server" || fail "--help"
"$FOLIO_SERVER" --version | grep -q "^folio-server " || fail "--version"
rc=0; "$FOLIO_SERVER" --model "$model" --bogus 2>"$work/usage.err" || rc=$?
[[ $rc -eq 2 ]] && grep -q "unknown option --bogus" "$work/usage.err" || fail "an unknown option: exit $rc"
rc=0; "$FOLIO_SERVER" --model "$model" --host 0.0.0.0 2>"$work/usage.err" || rc=$?
[[ $rc -eq 2 ]] && grep -q -- "--api-key" "$work/usage.err" || fail "a public address without a key must be refused (exit $rc)"
rc=0; "$FOLIO_SERVER" --model "$work/no-such-model" --port 0 >/dev/null 2>"$work/load.err" || rc=$?
[[ $rc -eq 1 ]] && grep -q "no-such-model" "$work/load.err" || fail "a missing model: exit $rc, $(cat "$work/load.err")"

start_server "$work" --model "$model" --backend cpu --cpu-activations exact --api-key test-key --max-body-bytes 65536
auth=(-H "Authorization: Bearer test-key")

# --- SSE framing: headers, one 'data: {json}' per event, blank-line separated, [DONE] last ---
curl -sN -D "$work/sse.headers" "${auth[@]}" "$BASE/v1/chat/completions" -H 'Content-Type: application/json' \
  -d '{"messages":[{"role":"user","content":"Once upon a time"}],"max_tokens":8,"temperature":0,"stream":true,"stream_options":{"include_usage":true}}' \
  >"$work/sse.body"
grep -qi '^content-type: text/event-stream' "$work/sse.headers" || fail "stream content type: $(cat "$work/sse.headers")"
grep -qi '^transfer-encoding: chunked' "$work/sse.headers" || fail "stream not chunked"
python3 - "$work/sse.body" <<'PY' || fail "SSE framing"
import json, sys
raw = open(sys.argv[1], 'rb').read().decode()
assert raw.endswith('data: [DONE]\n\n'), repr(raw[-40:])
events = raw.split('\n\n')[:-1]
assert all(e.startswith('data: ') and '\n' not in e for e in events), events
chunks = [json.loads(e[6:]) for e in events[:-1]]
assert chunks[0]['choices'][0]['delta'].get('role') == 'assistant', chunks[0]
assert all(c['object'] == 'chat.completion.chunk' and c['id'] == chunks[0]['id'] for c in chunks)
finals = [c for c in chunks if c['choices'] and c['choices'][0]['finish_reason']]
assert len(finals) == 1 and finals[0]['choices'][0]['finish_reason'] == 'length', finals
assert all(c['usage'] is None for c in chunks[:-1]), 'usage must be null on choice chunks with include_usage'
assert chunks[-1]['choices'] == [] and chunks[-1]['usage']['completion_tokens'] == 8, chunks[-1]
PY

# --- malformed requests: status, and the error object names what is wrong ---
check() {  # name expected_status expected_text curl-args...
  local name=$1 want=$2 text=$3; shift 3
  local got
  got=$(curl -s -o "$work/$name.body" -w '%{http_code}' "$@")
  [[ $got == "$want" ]] || fail "$name: status $got, want $want: $(head -c 300 "$work/$name.body")"
  local b; b=$(cat "$work/$name.body")
  # OpenAI's shape, keys in order, and the expected words (grep, not a Python per check: seconds on a busy machine)
  [[ $b =~ ^\{\"error\":\{\"message\":\".*\",\"type\":\"[a-z_]+\",\"param\":(null|\".*\"),\"code\":(null|\".*\")\}\}$ ]] \
    || fail "$name: not an OpenAI error body: $(head -c 300 <<<"$b")"
  grep -qF -- "$text" <<<"$b" || fail "$name: '$text' not in $(head -c 300 <<<"$b")"
}
chat=("$BASE/v1/chat/completions" -H 'Content-Type: application/json')
check no_key 401 invalid_api_key "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}]}'
check wrong_key 401 "incorrect API key" -H "Authorization: Bearer nope" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}]}'
check bad_json 400 "not valid JSON" "${auth[@]}" "${chat[@]}" -d '{"messages": [ '
check not_object 400 "must be a JSON object" "${auth[@]}" "${chat[@]}" -d '[1,2]'
check no_messages 400 '"param":"messages"' "${auth[@]}" "${chat[@]}" -d '{}'
check empty_messages 400 "messages is empty" "${auth[@]}" "${chat[@]}" -d '{"messages":[]}'
check messages_type 400 "messages must be an array" "${auth[@]}" "${chat[@]}" -d '{"messages":"hi"}'
check unknown_role 400 '"param":"messages[0].role"' "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"wizard","content":"hi"}]}'
check content_type 400 "messages[0].content" "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":42}]}'
check image_part 400 "image_url" "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}'
check temp_type 400 '"param":"temperature"' "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"temperature":"hot"}'
check temp_range 400 '"param":"temperature"' "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"temperature":-1}'
check huge_max_tokens 400 '"param":"max_tokens"' "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"max_tokens":99999999999999999999}'
check fractional_max_tokens 400 '"param":"max_tokens"' "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"max_tokens":2.5}'
check overflow_number 400 "number overflow" "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"top_p":1e400}'
check top_p_zero 400 '"param":"top_p"' "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"top_p":0}'
check stop_type 400 '"param":"stop"' "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"stop":[1]}'
check stop_empty 400 "empty string" "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"stop":""}'
check n_too_many 400 '"param":"n"' "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"n":100}'
check top_logprobs_alone 400 '"param":"top_logprobs"' "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"top_logprobs":3}'
check top_logprobs_range 400 '"param":"top_logprobs"' "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"logprobs":true,"top_logprobs":21}'
check logprobs_type 400 '"param":"logprobs"' "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"logprobs":1}'
check completion_logprobs_range 400 '"param":"logprobs"' "${auth[@]}" "$BASE/v1/completions" -d '{"prompt":"hi","logprobs":50}'
check stream_options 400 '"param":"stream_options"' "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"stream_options":{"include_usage":true}}'
check unknown_model 404 model_not_found "${auth[@]}" "${chat[@]}" -d '{"model":"gpt-9","messages":[{"role":"user","content":"hi"}]}'
check context 400 context_length_exceeded "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"hi"}],"max_tokens":100000}'
printf '{"messages":[{"role":"user","content":"\xff\xfe"}]}' >"$work/bad_utf8.json"
check invalid_utf8 400 "UTF-8" "${auth[@]}" "${chat[@]}" --data-binary @"$work/bad_utf8.json"
head -c 100000 /dev/zero | tr '\0' ' ' >"$work/big.json"
check oversized 413 "max-body-bytes" "${auth[@]}" "${chat[@]}" --data-binary @"$work/big.json"
check prompt_empty 400 "prompt is empty" "${auth[@]}" "$BASE/v1/completions" -d '{"prompt":""}'
check prompt_ids_range 400 "vocabulary" "${auth[@]}" "$BASE/v1/completions" -d '{"prompt":[1, 99999]}'
check prompt_ids_negative 400 '"param":"prompt"' "${auth[@]}" "$BASE/v1/completions" -d '{"prompt":[1, -5]}'
check prompt_batch 400 "more than one prompt" "${auth[@]}" "$BASE/v1/completions" -d '{"prompt":["a","b"]}'
check no_route 404 "no route" "${auth[@]}" "$BASE/v1/embeddings" -d '{}'
check detok_range 400 '"param":"tokens"' "${auth[@]}" "$BASE/detokenize" -d '{"tokens":[1,100000]}'

# A client that sends headers and then nothing: dropped after the read timeout, nothing else held up.
# (Not waited for here: the timeout is 30 s; the server answering meanwhile is what matters.)
exec 3<>/dev/tcp/127.0.0.1/$PORT
printf 'POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"pro' >&3

# --- still serving, and every request it answered is accounted for ---
[[ $(curl -s -o /dev/null -w '%{http_code}' "$BASE/health") == 200 ]] || fail "health after malformed input"
out=$(curl -s "${auth[@]}" "$BASE/v1/completions" -d '{"prompt":"Once upon a time","max_tokens":4,"temperature":0}')
python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert r["choices"][0]["finish_reason"]=="length" and r["usage"]["completion_tokens"]==4, r' "$out" \
  || fail "a completion after malformed input: $out"
curl -s "${auth[@]}" "$BASE/tokenize" -d '{"prompt":"Once upon a time"}' | grep -q '"count":' || fail "/tokenize"
# Logprobs on the wire: the legacy completions shape (logprobs: N), and chat's per delta in a raw SSE stream.
out=$(curl -s "${auth[@]}" "$BASE/v1/completions" -d '{"prompt":"Once upon a time","max_tokens":6,"temperature":0,"logprobs":3}')
python3 -c '
import json, sys
r = json.loads(sys.argv[1]); c = r["choices"][0]; lp = c["logprobs"]
assert len(lp["tokens"]) == len(lp["token_logprobs"]) == len(lp["top_logprobs"]) == len(lp["text_offset"]) == 6, lp
joined = "".join(lp["tokens"])
assert c["text"] in (joined, joined[1:]), (lp["tokens"], c["text"])  # [1:]: the leading-space rule
off = 0
for t, l, top, o in zip(lp["tokens"], lp["token_logprobs"], lp["top_logprobs"], lp["text_offset"]):
    assert o == off and l <= 0 and len(top) == 3, (t, l, top, o)
    assert abs(max(top.values()) - l) < 1e-6, "greedy: the token is the best alternative"
    off += len(t.encode())
' "$out" || fail "completions logprobs: $out"
curl -sN "${auth[@]}" "${chat[@]}" -d '{"messages":[{"role":"user","content":"Once upon a time"}],"max_tokens":8,"temperature":0,"stream":true,"logprobs":true,"top_logprobs":2}' >"$work/lp_stream.txt"
python3 -c '
import json, sys
events = [l[6:] for l in open(sys.argv[1]).read().split("\n") if l.startswith("data: ")]
assert events[-1] == "[DONE]", events[-1]
text, entries = "", []
for e in events[:-1]:
    ch = json.loads(e)["choices"][0]
    text += ch["delta"].get("content", "")
    if ch["logprobs"] is not None:
        for x in ch["logprobs"]["content"]:
            assert set(x) == {"token", "logprob", "bytes", "top_logprobs"} and len(x["top_logprobs"]) == 2, x
            assert "\ufffd" in x["token"] or x["bytes"] == list(x["token"].encode()), x
            entries.append(x)
assert len(entries) == 8, len(entries)
joined = "".join(x["token"] for x in entries)
assert text in (joined, joined[1:]), (joined, text)
' "$work/lp_stream.txt" || fail "chat logprobs stream: $(head -c 600 "$work/lp_stream.txt")"
# n = 3 is one engine request: its prompt is computed and counted once, its tokens three times.
metric() { curl -s "${auth[@]}" "$BASE/metrics" | sed -n "s/^$1{model_name=\"stories260K\"} \([0-9.e+]*\)$/\1/p"; }
p0=$(metric folio:prompt_tokens_total); c0=$(metric folio:engine_prompt_tokens_computed_total); g0=$(metric folio:generation_tokens_total)
out=$(curl -s "${auth[@]}" "$BASE/v1/completions" -d '{"prompt":[1,50,60,70,80,90,100],"max_tokens":4,"temperature":0,"n":3,"ignore_eos":true}')
p1=$(metric folio:prompt_tokens_total); c1=$(metric folio:engine_prompt_tokens_computed_total); g1=$(metric folio:generation_tokens_total)
python3 -c '
import json, sys
r = json.loads(sys.argv[1]); p0, c0, g0, p1, c1, g1 = map(float, sys.argv[2:])
assert [c["index"] for c in r["choices"]] == [0, 1, 2] and len({c["text"] for c in r["choices"]}) == 1, r
assert r["usage"]["prompt_tokens"] == 7 and r["usage"]["completion_tokens"] == 12, r["usage"]
assert p1 - p0 == 7 and g1 - g0 == 12 and c1 - c0 == 7, (p1 - p0, g1 - g0, c1 - c0)
' "$out" "$p0" "$c0" "$g0" "$p1" "$c1" "$g1" || fail "n = 3 counted as one prompt: $out $p0 $c0 $g0 $p1 $c1 $g1"
curl -s "${auth[@]}" "$BASE/metrics" >"$work/metrics.txt"
grep -q '^folio:http_errors_total{model_name="stories260K",status="400"}' "$work/metrics.txt" || fail "metrics count 400s"
grep -q '^folio:time_to_first_token_seconds_count{model_name="stories260K"} [1-9]' "$work/metrics.txt" || fail "TTFT histogram"
grep -q '^process_resident_memory_bytes [1-9]' "$work/metrics.txt" || fail "resident memory gauge"
grep -q '^folio:heap_in_use_bytes [1-9]' "$work/metrics.txt" || fail "heap gauge"
exec 3>&-
stop_server
echo "server_http_test: all checks passed"
