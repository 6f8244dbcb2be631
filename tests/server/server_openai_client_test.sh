#!/usr/bin/env bash
# folio-server driven by the official openai npm client (installed into the build folder on first run;
# exit 77 = skipped when npm cannot install it), greedy output compared with folio-cli generate's.
#   server_openai_client_test.sh FOLIO_SERVER MODEL_DIR WORK_DIR FOLIO_CLI NODE_DIR
set -euo pipefail
FOLIO_SERVER=$1; model=$2; work=$3; cli=$4; node_dir=$5
here=$(cd "$(dirname "$0")" && pwd)
source "$here/server_lib.sh"
mkdir -p "$work"
install_openai_client "$node_dir" || exit $?
trap 'stop_server >/dev/null 2>&1 || true' EXIT

gen() { "$cli" generate --model "$model" --backend cpu --cpu-activations exact --prompt "Once upon a time" --temperature 0 --json "$@" 2>/dev/null; }
gen --max-tokens 24 >"$work/cli_chat.json"
gen --max-tokens 24 --raw >"$work/cli_raw.json"
gen --max-tokens 400 >"$work/cli_long.json"

start_server "$work" --model "$model" --backend cpu --cpu-activations exact --api-key client-key
cp "$here/openai_client_test.mjs" "$node_dir/"
node "$node_dir/openai_client_test.mjs" "$BASE" client-key "$work/cli_chat.json" "$work/cli_raw.json" "$work/cli_long.json"
stop_server
