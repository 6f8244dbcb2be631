#!/usr/bin/env bash
# 64 concurrent streaming clients (the openai npm client), a fifth disconnecting: see load_test.mjs.
#   server_load_test.sh FOLIO_SERVER MODEL_DIR WORK_DIR NODE_DIR
set -euo pipefail
FOLIO_SERVER=$1; model=$2; work=$3; node_dir=$4
here=$(cd "$(dirname "$0")" && pwd)
source "$here/server_lib.sh"
mkdir -p "$work"
install_openai_client "$node_dir" || exit $?
trap 'stop_server >/dev/null 2>&1 || true' EXIT
start_server "$work" --model "$model" --backend cpu --cpu-activations exact --api-key load-key --max-num-seqs 64
cp "$here/load_test.mjs" "$node_dir/"
node "$node_dir/load_test.mjs" "$BASE" load-key
[[ $(curl -s -o /dev/null -w '%{http_code}' "$BASE/health") == 200 ]] || { echo "FAIL: not healthy after the load"; exit 1; }
stop_server
