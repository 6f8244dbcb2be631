#!/usr/bin/env bash
# folio-cli generate --backend remote against folio-server on loopback: the same text and finish reason
# as folio-cli's in-process engine (chat, raw, a stop string); local-model flags refused by name; a
# wrong key and an unreachable endpoint each exit 1 with a message naming what to fix; chat streams.
#   server_remote_cli_test.sh FOLIO_SERVER MODEL_DIR WORK_DIR FOLIO_CLI
set -euo pipefail
FOLIO_SERVER=$1; model=$2; work=$3; cli=$4
here=$(cd "$(dirname "$0")" && pwd)
source "$here/server_lib.sh"
mkdir -p "$work"
trap 'stop_server >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*"; exit 1; }
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

start_server "$work" --model "$model" --backend cpu --cpu-activations exact --api-key cli-key
local_gen() { "$cli" generate --model "$model" --backend cpu --cpu-activations exact --temperature 0 --json "$@" 2>/dev/null; }
remote_gen() { "$cli" generate --backend remote --endpoint "$BASE" --api-key cli-key --temperature 0 --json "$@"; }
for args in "--prompt Once --max-tokens 32" "--prompt Once --max-tokens 32 --raw" "--prompt Lily --max-tokens 300"; do
  local_gen $args >"$work/local.json"; remote_gen $args >"$work/remote.json"
  [[ $(field "$work/local.json" text) == "$(field "$work/remote.json" text)" ]] || fail "text differs for '$args'"
  [[ $(field "$work/local.json" finish_reason) == "$(field "$work/remote.json" finish_reason)" ]] || fail "finish differs for '$args'"
done
stop=$(field "$work/local.json" text | cut -c10-13)
local_gen --prompt Lily --max-tokens 300 --stop "$stop" >"$work/local.json"
remote_gen --prompt Lily --max-tokens 300 --stop "$stop" >"$work/remote.json"
[[ $(field "$work/local.json" text) == "$(field "$work/remote.json" text)" ]] || fail "text differs with --stop '$stop'"

out=$("$cli" generate --backend remote --endpoint "$BASE" --model "$model" --prompt x 2>&1) && fail "--model accepted with remote"
grep -q -- "--model sets up a local model" <<<"$out" || fail "--model with remote: $out"
out=$("$cli" generate --backend cpu --model "$model" --endpoint "$BASE" --prompt x 2>&1) && fail "--endpoint accepted with cpu"
grep -q -- "--endpoint is for --backend remote" <<<"$out" || fail "--endpoint with cpu: $out"
rc=0; out=$("$cli" generate --backend remote --endpoint "$BASE" --api-key wrong-cli-key --prompt x 2>&1) || rc=$?
[[ $rc -eq 1 ]] && grep -q "HTTP 401" <<<"$out" && grep -q "check --api-key" <<<"$out" || fail "wrong key ($rc): $out"
grep -q "wrong-cli-key" <<<"$out" && fail "the key was printed: $out"
rc=0; out=$("$cli" generate --backend remote --endpoint http://127.0.0.1:1 --remote-model m --prompt x 2>&1) || rc=$?
[[ $rc -eq 1 ]] && grep -q "cannot reach the server at http://127.0.0.1:1/v1" <<<"$out" || fail "unreachable ($rc): $out"
printf 'Once\n/exit\n' | "$cli" chat --backend remote --endpoint "$BASE" --api-key cli-key --temperature 0 --max-tokens 16 \
  >"$work/chat.out" 2>"$work/chat.err" || fail "chat: $(cat "$work/chat.err")"
local_gen --prompt Once --max-tokens 16 >"$work/local.json"
[[ $(cat "$work/chat.out") == "$(field "$work/local.json" text)" ]] || fail "chat reply differs: $(cat "$work/chat.out")"
grep -q "remote stories260K at $BASE/v1" "$work/chat.err" || fail "chat banner: $(cat "$work/chat.err")"
stop_server
echo "server_remote_cli_test: ok"
