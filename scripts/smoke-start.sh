#!/usr/bin/env bash
# Boots the built gateway on the embedded sandbox (as `npm start` does) and checks it answers.
set -euo pipefail
port="${SMOKE_PORT:-4477}"
log="$(mktemp)"
PORT="$port" SHUTDOWN_DELAY_MS=1000 node dist/main.js >"$log" 2>&1 &
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
# The public address is http://localhost:<port> (no PUBLIC_URL); at another host /auth/login first redirects there.
# /auth/login starts the app sign-in at the embedded sandbox identity provider, whose page lists the demo users.
login=$(curl -s -o /dev/null -w '%{redirect_url}' -H "Host: localhost:$port" "http://127.0.0.1:$port/auth/login")
case "$login" in
  http://127.0.0.1:*/auth\?*redirect_uri=http%3A%2F%2Flocalhost%3A"$port"%2Fauth%2Foidc%2Fcallback*) ;;
  *) echo "unexpected sign-in redirect: $login"; cat "$log"; exit 1 ;;
esac
jar="$(mktemp)"
page=$(curl -s -L -c "$jar" -b "$jar" "$login")
rm -f "$jar"
case "$page" in *"aroha@demo.example"*) echo "smoke: gateway up on the embedded sandbox, sign-in goes to its identity provider" ;;
  *) echo "the identity provider's sign-in page does not show the demo users"; cat "$log"; exit 1 ;;
esac
# The consumer information page needs a signed-in user: anyone else is sent to sign in first.
info=$(curl -s -o /dev/null -w '%{redirect_url}' -H "Host: localhost:$port" "http://127.0.0.1:$port/auth/consumer-info")
case "$info" in */auth/login\?returnTo=*) ;; *) echo "unexpected consumer information redirect: $info"; exit 1 ;; esac
# The start-up banner tells a newcomer where the sandbox is.
grep -q "Sandbox core API: http://127.0.0.1:" "$log" || { echo "the banner does not show the sandbox URL"; cat "$log"; exit 1; }
console_url=$(grep -o "Sandbox console: http://127.0.0.1:[0-9]*/console" "$log" | cut -d' ' -f3)
[ -n "$console_url" ] || { echo "the banner does not link the sandbox console"; cat "$log"; exit 1; }
[ "$(curl -s -o /dev/null -w '%{http_code}' "$console_url")" = "200" ] || { echo "the sandbox console does not answer"; exit 1; }
ready=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")
[ "$ready" = "200" ] || { echo "expected /readyz 200, got $ready"; cat "$log"; exit 1; }
# SIGTERM drains: readiness fails first, then the process exits 0 on its own.
kill -TERM "$pid"
sleep 0.3
draining=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")
[ "$draining" = "503" ] || { echo "expected /readyz 503 while draining, got $draining"; cat "$log"; exit 1; }
if wait "$pid"; then echo "smoke: SIGTERM drained and exited 0"; else echo "gateway exited $? on SIGTERM"; cat "$log"; exit 1; fi
