#!/usr/bin/env bash
# Boots the built gateway on the embedded sandbox (as `npm start` does) and checks it answers.
set -euo pipefail
port="${SMOKE_PORT:-4477}"
log="$(mktemp)"
PORT="$port" node dist/main.js >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 50); do
  if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then break; fi
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/healthz"
echo
status=$(curl -s -o /dev/null -w '%{http_code}' -H 'content-type: application/json' -d '{"query":"{ me { id } }"}' "http://127.0.0.1:$port/graphql")
[ "$status" = "401" ] || { echo "expected 401 without a session, got $status"; cat "$log"; exit 1; }
login=$(curl -s -o /dev/null -w '%{redirect_url}' "http://127.0.0.1:$port/auth/login")
case "$login" in
  http://127.0.0.1:*/oauth/authorize\?*) echo "smoke: gateway up on the embedded sandbox, sign-in redirects to $login" | sed 's/state=[^&]*/state=…/' ;;
  *) echo "unexpected login redirect: $login"; cat "$log"; exit 1 ;;
esac
