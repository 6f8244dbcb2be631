# Shared by the folio-server tests (sourced): start a server on a free loopback port, stop it.
#   start_server LOGDIR ARGS...   sets SERVER_PID, PORT, BASE (http://127.0.0.1:PORT); waits for /health
#   stop_server                   SIGTERM, then checks the server exited cleanly (0)
start_server() {
  local logdir=$1; shift
  "$FOLIO_SERVER" --port 0 "$@" >"$logdir/server.out" 2>"$logdir/server.err" &
  SERVER_PID=$!
  PORT=
  for _ in $(seq 1 200); do
    PORT=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$logdir/server.out")
    [[ -n $PORT ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "folio-server exited at start:"; cat "$logdir/server.err"; return 1; }
    sleep 0.05
  done
  [[ -n $PORT ]] || { echo "folio-server printed no port"; return 1; }
  BASE=http://127.0.0.1:$PORT
  for _ in $(seq 1 400); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "$BASE/health") == 200 ]] && return 0
    sleep 0.05
  done
  echo "folio-server never became healthy:"; cat "$logdir/server.err"; return 1
}

stop_server() {
  [[ -n ${SERVER_PID:-} ]] || return 0
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  local rc=0
  wait "$SERVER_PID" || rc=$?
  SERVER_PID=
  if [[ $rc -ne 0 ]]; then echo "folio-server exited with $rc after SIGTERM"; return 1; fi
}

# The official openai npm package, pinned, installed into the build folder once. Returns 77 (ctest:
# skipped) with the reason when npm cannot install it (no registry on this machine).
OPENAI_NPM_VERSION=4.95.0
install_openai_client() {
  local dir=$1
  if [[ -f $dir/node_modules/openai/package.json ]] && grep -q "\"version\": \"$OPENAI_NPM_VERSION\"" "$dir/node_modules/openai/package.json"; then
    return 0
  fi
  command -v node >/dev/null && command -v npm >/dev/null || { echo "SKIPPED: node and npm are needed (apt-get install nodejs npm)"; return 77; }
  mkdir -p "$dir"
  (cd "$dir" && { [[ -f package.json ]] || npm init -y >/dev/null; } && npm install --no-audit --no-fund "openai@$OPENAI_NPM_VERSION" >npm.log 2>&1) || {
    echo "SKIPPED: npm could not install openai@$OPENAI_NPM_VERSION (see $dir/npm.log)"; return 77; }
}
