#!/usr/bin/env bash
# The console's API, fuzzed: schemathesis (PyPI, CLI `st`) against a live `prefs serve`, driven
# by the OpenAPI document the console itself serves at /api/openapi.json.
#
#   pip install -r Scripts/schemathesis-requirements.txt  # the pinned schemathesis
#   swift build && bash Scripts/schemathesis.sh          # about 50 s on two cores, 2,500 requests
#   SCHEMATHESIS_EXAMPLES=200 SCHEMATHESIS_SEED=1 bash Scripts/schemathesis.sh
#
# It runs only the schemathesis version Scripts/schemathesis-requirements.txt pins (and says
# how to install it otherwise): a new release reads the document its own way, and CI must not
# change with it unasked.
#
# Builds nothing: it runs the prefs of the last `swift build` (`swift build --show-bin-path`).
# In a temporary directory it seeds a store (declared keys: an int with a default, a string with
# allowed values, a secret; plain keys; each under the prefix `fuzz.` and again under `guard.`),
# adds two tokens to a tokens file — `fuzzer-fuzz`, role write, prefix `fuzz.`; `fuzzer`, role
# admin (writes and secret reveals, so every route is reached) — starts
# `prefs serve --tokens FILE --port 0`, waits for the document (20 s deadline), and runs
# `st run` once with each token (the writer first, while every seeded key is there), a bounded
# number of examples per operation, and these checks: no 5xx (not_a_server_error); every
# status, content type, header and body as the document says (status_code_conformance,
# content_type_conformance, response_headers_conformance, response_schema_conformance); a
# request without the token is refused (ignored_auth). `GET /api/events` is left out of those
# runs: it is a stream that ends only when the client goes, so schemathesis reads each answer
# until its request timeout. A third, short run fuzzes it alone (a few examples, 3 s each; its
# `Last-Event-ID` header is fuzzed) and checks each event it read against the document
# (schemathesis 4.32 reads an event stream as events of `event`, `data`, `id`, `retry`).
#
# After each run, "nothing written outside the keys it targets", from schemathesis's own record
# of every request it sent (its HAR report): each key a PUT or DELETE named (in the path,
# `?key=` or `?keyHex=`, whatever the answer) is a target; every change the file's history
# records since the run started must be of a target, and every key that was not a target must
# hold exactly the value it held before (`prefs export --include-secrets`, before and after).
# For the writer, a target must also start with `fuzz.`: the `guard.` keys are in every list it
# reads, and schemathesis follows them into PUT and DELETE (its stateful phase), yet none of
# them may change.
#
# The server is stopped on any exit (trap). Bounded: 20 s for the server to answer, then each
# `st run` under `timeout` (50 s, 100 s and 90 s): under 5 minutes however slow the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

pinned=$(sed -n 's/^schemathesis==\([0-9.]*\)$/\1/p' Scripts/schemathesis-requirements.txt)
[ -n "$pinned" ] || { echo "schemathesis.sh: Scripts/schemathesis-requirements.txt pins no schemathesis==VERSION" >&2; exit 1; }
command -v st >/dev/null 2>&1 || { echo "schemathesis.sh: st not found: pip install -r Scripts/schemathesis-requirements.txt" >&2; exit 1; }
installed=$(st --version 2>/dev/null | sed -n 's/.*version \([0-9.]*\).*/\1/p')
if [ "$installed" != "$pinned" ]; then
    echo "schemathesis.sh: schemathesis ${installed:-(unknown version)} is installed, $pinned is pinned: pip install -r Scripts/schemathesis-requirements.txt" >&2
    exit 1
fi
# With every trait, as the README's test command built it: a plain `swift build` here would
# re-resolve the package with the default traits only (and rewrite Package.resolved so).
prefs="$(swift build --enable-all-traits --show-bin-path)/prefs"
[ -x "$prefs" ] || { echo "schemathesis.sh: $prefs not found: run swift build first" >&2; exit 1; }

work=$(mktemp -d)
server=""
cleanup() {
    if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

db="$work/defaults.sqlite"
p() { "$prefs" --db "$db" "$@" >/dev/null; }
for prefix in fuzz. guard.; do
    p declare "${prefix}count" --type int --default 3 --summary "a counter"
    p write "${prefix}count" 7
    p declare "${prefix}mode" --type string --allowed light,dark --default light
    p declare "${prefix}secret" --type string --secret
    p write "${prefix}secret" "s3cret-$prefix"
    p write "${prefix}note" "hello"
    p write "${prefix}ratio" 0.5 --type double
    p write "${prefix}flags" '{"a": [1, 2]}' --type json
done

"$prefs" token add fuzzer --role admin --tokens "$work/tokens" 2>/dev/null | tail -n 1 >"$work/admin.token"
"$prefs" token add fuzzer-fuzz --role write --prefix fuzz. --tokens "$work/tokens" 2>/dev/null | tail -n 1 >"$work/writer.token"
token=$(cat "$work/admin.token")

"$prefs" --db "$db" serve --port 0 --tokens "$work/tokens" >"$work/serve.out" 2>"$work/serve.err" &
server=$!

# Ready when the document answers; the port is on the first line of standard output.
deadline=$((SECONDS + 20))
url=""
while :; do
    if [ -z "$url" ]; then
        url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$work/serve.out" 2>/dev/null | head -n 1 || true)
    fi
    if [ -n "$url" ] && curl -fsS -o /dev/null -H "Authorization: Bearer $token" "${url}api/openapi.json" 2>/dev/null; then
        break
    fi
    if ! kill -0 "$server" 2>/dev/null; then
        echo "schemathesis.sh: prefs serve exited:" >&2
        cat "$work/serve.err" >&2
        exit 1
    fi
    if [ $SECONDS -ge $deadline ]; then
        echo "schemathesis.sh: prefs serve did not answer within 20 s" >&2
        exit 1
    fi
    sleep 0.2
done
echo "schemathesis.sh: fuzzing ${url}api/openapi.json"

seed=()
[ -n "${SCHEMATHESIS_SEED:-}" ] && seed=(--seed "$SCHEMATHESIS_SEED")
status=0

# fuzz NAME TOKEN EXAMPLES SECONDS [PREFIX]: one `st run` with TOKEN, at most SECONDS, then the
# writes check; with PREFIX (the token's only prefix), also: no change outside PREFIX at all.
fuzz() {
    local name=$1 bearer=$2 examples=$3 limit=$4 prefix=${5:-} started=$SECONDS result=0 first requests
    "$prefs" --db "$db" export --include-secrets "$work/$name.before.json" 2>/dev/null
    first=$("$prefs" --db "$db" history --json --limit 1 | python3 -c 'import json, sys; e = json.load(sys.stdin); print(e[0]["seq"] if e else 0)')
    # --output-sanitize false: the HAR must keep the real `key` query values (schemathesis
    # masks parameters named like secrets); it lives in the temporary directory and goes with it.
    # Run from there too: st keeps its state (.schemathesis/) in the current directory. One
    # worker: with two, CPython 3.11.7 failed inside schemathesis now and then ("AST constructor
    # recursion depth mismatch", threads compiling at once), and two were no faster here.
    (cd "$work" && timeout --kill-after=5 "$limit" st run "${url}api/openapi.json" \
        --header "Authorization: Bearer $bearer" \
        --exclude-path /api/events \
        --max-examples "$examples" \
        --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,ignored_auth \
        --request-timeout 10 \
        --workers 1 \
        --report har --report-har-path "$work/$name.har" --output-sanitize false \
        --no-color "${seed[@]}") || result=$?
    requests=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["log"]["entries"]))' "$work/$name.har" 2>/dev/null || echo "?")
    echo "schemathesis.sh: $name: st run exit $result, $requests requests in $((SECONDS - started)) s"
    "$prefs" --db "$db" export --include-secrets "$work/$name.after.json" 2>/dev/null
    "$prefs" --db "$db" history --json --limit 100000 >"$work/$name.history.json"
    python3 - "$work/$name.har" "$work/$name.before.json" "$work/$name.after.json" "$work/$name.history.json" "$first" "$prefix" <<'PY' || result=1
import json, sys
from urllib.parse import unquote, urlsplit

har, before, after, history, start, prefix = sys.argv[1:7]
targets = set()

def decoded(text):
    # As the console reads it: percent-decoded as UTF-8, else kept as sent; both count.
    return {text, unquote(text, errors="replace")}

for entry in json.load(open(har))["log"]["entries"]:
    request = entry["request"]
    if request["method"] not in ("PUT", "DELETE"):
        continue
    parts = urlsplit(request["url"])
    segments = parts.path.split("/")
    if "keys" in segments and segments.index("keys") + 1 < len(segments):
        targets |= decoded(segments[segments.index("keys") + 1])
    for item in parts.query.split("&"):
        name, _, value = item.partition("=")
        if name == "key":
            targets |= decoded(value)
        elif name == "keyHex":
            try:
                targets.add(bytes.fromhex(unquote(value)).decode("utf-8", errors="replace"))
            except ValueError:
                pass

# A key may be written only when a request named it, and with a prefix token only under it.
writable = lambda key: key in targets and key.startswith(prefix)
failures = []
changed = set()
for change in json.load(open(history)):
    if change["seq"] > int(start):
        changed.add(change["key"])
        if not writable(change["key"]):
            failures.append(f"history #{change['seq']}: {change['key']!r} changed")
old, new = json.load(open(before)), json.load(open(after))
kept = [key for key in set(old) | set(new) if not writable(key)]
for key in sorted(kept):
    if old.get(key) != new.get(key):
        failures.append(f"{key!r}: {old.get(key)!r} became {new.get(key)!r}")
for failure in failures:
    print("schemathesis.sh: written outside the keys it may target: " + failure, file=sys.stderr)
print(f"schemathesis.sh: {len(targets)} keys named by writes, {len(changed)} changed; "
      f"{len(kept)} stored keys it could not write{' (outside ' + repr(prefix) + ')' if prefix else ''} kept their values")
sys.exit(1 if failures else 0)
PY
    return $result
}

# First, while every seeded key is there: a writer limited to `fuzz.`: the `guard.` keys are in every list it reads (and schemathesis
# follows them into PUT and DELETE), yet none may change.
fuzz writer "$(cat "$work/writer.token")" "${SCHEMATHESIS_WRITER_EXAMPLES:-25}" 50 fuzz. || status=1
# An admin: every route reached, writes and reveals allowed.
fuzz admin "$(cat "$work/admin.token")" "${SCHEMATHESIS_EXAMPLES:-60}" 100 || status=1

# The event stream alone: each answer read for 3 s, its events checked against the document.
started=$SECONDS
events=0
(cd "$work" && timeout --kill-after=5 90 st run "${url}api/openapi.json" \
    --header "Authorization: Bearer $token" \
    --include-path /api/events \
    --max-examples "${SCHEMATHESIS_EVENT_EXAMPLES:-3}" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
    --request-timeout 3 \
    --workers 1 \
    --no-color "${seed[@]}") || events=$?
echo "schemathesis.sh: events: st run exit $events in $((SECONDS - started)) s"
[ $events -eq 0 ] || status=1

if [ $status -ne 0 ]; then
    echo "schemathesis.sh: the server's standard error (last lines):" >&2
    tail -n 20 "$work/serve.err" >&2
fi
exit $status
