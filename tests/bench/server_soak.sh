#!/usr/bin/env bash
# A memory soak of folio-server (a benchmark, not a test): CLIENTS streaming clients for MINUTES with
# random lengths and random disconnects; prints the server's resident memory per minute and checks
# that the server ends idle with no KV block held (server_soak.mjs). Needs node 18+ (fetch).
#   tests/bench/server_soak.sh BUILD_DIR [MODEL (tests/fixtures/models/stories260K)] [MINUTES (10)] [CLIENTS (16)]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$1
model=${2:-$root/tests/fixtures/models/stories260K}
minutes=${3:-10}
clients=${4:-16}
FOLIO_SERVER=$build/app/server/folio-server
source "$root/tests/server/server_lib.sh"
work=$(mktemp -d)
trap 'stop_server >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
start_server "$work" --model "$model" --backend cpu --max-num-seqs "$clients"
echo "folio-server (pid $SERVER_PID) on $model, $clients clients for $minutes min, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs"
node "$root/tests/bench/server_soak.mjs" "$BASE" "$SERVER_PID" "$minutes" "$clients"
stop_server
