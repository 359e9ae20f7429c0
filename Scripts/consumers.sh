#!/usr/bin/env bash
# Pay for what you use, checked as a user's package sees it (CI runs this):
#
#   0. Tests/Consumers/PlainLine, a dependency line without `traits:` (the default traits, which
#      are only those that cost no heavy package: Configuration, ServiceLifecycle, Prefs),
#      resolves no web framework (vapor, hummingbird, swift-nio), no PostgreSQL client
#      (postgres-nio) and no swift-syntax. Integrations are opted into by name.
#   1. Tests/Consumers/CoreOnly (`traits: []`, the SQLiteDefaults product) resolves swift-log and
#      swift-metrics and nothing else, builds clean (the time is printed), and runs.
#   2. Tests/Consumers/PinnedSwiftSyntax pins swift-syntax 600.0.1, the lowest end of the macro's
#      range, and builds and runs an @ObservableDefaults model.
#   3. The macro's own tests (expansion, diagnostics, behaviour) at that lowest end: a copy of
#      this repository resolved with swift-syntax 600.0.1, built with the Observable trait only
#      and those test targets alone (Scripts/keep-test-targets.py).
#      The highest end is the main `swift test`, which resolves the newest release in range;
#      this script prints which that is and fails if it is not 603.
#
#   bash Scripts/consumers.sh [plain|core|syntax|all]      (default all)
#
# Each consumer is copied into a temporary folder beside a link named SQLiteDefaults that points
# at this checkout, so its `path: "../SQLiteDefaults"` is the repository as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
which="${1:-all}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
ln -s "$repo" "$work/SQLiteDefaults"

fail() { echo "consumers: $*" >&2; exit 1; }

# The identities a Package.resolved pins, sorted, one per line.
pinned() { python3 -c 'import json,sys; print("\n".join(sorted(p["identity"] for p in json.load(open(sys.argv[1]))["pins"])))' "$1"; }
pinned_version() { python3 -c 'import json,sys; print(next(p["state"].get("version","") for p in json.load(open(sys.argv[1]))["pins"] if p["identity"]==sys.argv[2]))' "$1" "$2"; }

plain() {
    echo "== PlainLine: no traits: line, the default traits"
    cp -R "$repo/Tests/Consumers/PlainLine" "$work/PlainLine"
    (cd "$work/PlainLine" && swift package resolve >/dev/null)
    got="$(pinned "$work/PlainLine/Package.resolved")"
    echo "resolved: $(echo $got)"
    local heavy
    for heavy in vapor hummingbird swift-nio postgres-nio swift-nio-ssl swift-syntax; do
        ! grep -qx "$heavy" <<<"$got" || fail "a plain dependency line resolved $heavy (the default traits must cost no heavy package): $(echo $got)"
    done
    echo "PlainLine: no web framework, PostgreSQL client or swift-syntax"
}

core() {
    echo "== CoreOnly: traits [], the store alone"
    cp -R "$repo/Tests/Consumers/CoreOnly" "$work/CoreOnly"
    (cd "$work/CoreOnly" && swift package resolve >/dev/null)
    got="$(pinned "$work/CoreOnly/Package.resolved" | tr '\n' ' ')"
    echo "resolved: $got"
    [ "$got" = "swift-log swift-metrics " ] || fail "CoreOnly resolved more than swift-log and swift-metrics: $got"
    start=$(date +%s)
    (cd "$work/CoreOnly" && swift build 2>&1 | tail -1)
    echo "CoreOnly: clean debug build in $(( $(date +%s) - start )) s (the contract: under 90 s on two cores)"
    out="$("$work/CoreOnly/.build/debug/CoreOnly" "$work/core.sqlite")"
    [ "$out" = "timeout 30" ] || fail "CoreOnly printed '$out', expected 'timeout 30'"
    echo "CoreOnly: $out"
}

syntax() {
    echo "== PinnedSwiftSyntax: an app that pins swift-syntax 600.0.1"
    cp -R "$repo/Tests/Consumers/PinnedSwiftSyntax" "$work/PinnedSwiftSyntax"
    (cd "$work/PinnedSwiftSyntax" && swift package resolve >/dev/null)
    version="$(pinned_version "$work/PinnedSwiftSyntax/Package.resolved" swift-syntax)"
    [ "$version" = "600.0.1" ] || fail "PinnedSwiftSyntax resolved swift-syntax $version"
    (cd "$work/PinnedSwiftSyntax" && swift build 2>&1 | tail -1)
    out="$("$work/PinnedSwiftSyntax/.build/debug/PinnedSwiftSyntax" "$work/syntax.sqlite")"
    [ "$out" = "volume 7" ] || fail "PinnedSwiftSyntax printed '$out', expected 'volume 7'"
    echo "PinnedSwiftSyntax: $out"

    echo "== the macro's tests at swift-syntax 600.0.1"
    mkdir -p "$work/lowest"
    git ls-files -z | xargs -0 tar cf - | tar xf - -C "$work/lowest"
    # The copy keeps only the three test targets run below: `swift build --build-tests` builds
    # every test target, and the others (the engine's, the CLI's, the fault suites...) are the
    # README's test command's to run.
    python3 Scripts/keep-test-targets.py "$work/lowest/Package.swift" \
        SQLiteDefaultsMacrosTests SQLiteDefaultsObservableTests SQLiteDefaultsObservableMainActorTests
    (
        cd "$work/lowest"
        # The consumer's build folder: swift-syntax 600.0.1 is compiled once for both.
        scratch=(--scratch-path "$work/PinnedSwiftSyntax/.build")
        # The default traits no longer include Observable, so a resolve without it leaves
        # swift-syntax out of the graph (and `resolve swift-syntax` finds no such dependency).
        traits=(--disable-default-traits --traits Observable)
        swift package "${scratch[@]}" "${traits[@]}" resolve >/dev/null
        swift package "${scratch[@]}" "${traits[@]}" resolve swift-syntax --version 600.0.1 >/dev/null
        version="$(pinned_version Package.resolved swift-syntax)"
        [ "$version" = "600.0.1" ] || fail "the copy resolved swift-syntax $version"
        swift build "${scratch[@]}" --build-tests "${traits[@]}" 2>&1 | tail -1
        bash "$repo/Scripts/test-bundle.sh" "$(swift build "${scratch[@]}" "${traits[@]}" --show-bin-path)" \
            --filter "SQLiteDefaultsMacrosTests|SQLiteDefaultsObservableTests|SQLiteDefaultsObservableMainActorTests"
    )

    echo "== the highest end: what the README's test command built"
    # The checkout the root's .build holds (every trait, as `swift test --enable-all-traits`
    # resolved it). Not Package.resolved: a command run there without the traits rewrites it
    # with the default traits' pins, and a later `resolve --enable-all-traits` keeps those.
    # CONSUMERS_WORKSPACE_STATE names a copy of that file (CI runs this script in the
    # background, while the examples may rewrite .build's workspace state for their own graphs).
    state="${CONSUMERS_WORKSPACE_STATE:-.build/workspace-state.json}"
    version="$(python3 -c 'import json,sys; print(next((d["state"].get("checkoutState",{}).get("version","") for d in json.load(open(sys.argv[1]))["object"]["dependencies"] if d["packageRef"]["identity"]=="swift-syntax"), ""))' "$state")"
    echo "swift test --enable-all-traits runs the macro's tests with swift-syntax $version"
    case "$version" in 603.*) ;; *) fail "the repository resolved swift-syntax '$version', not the newest 603" ;; esac
}

case "$which" in
    plain) plain ;;
    core) core ;;
    syntax) syntax ;;
    all) plain; core; syntax ;;
    *) echo "usage: $0 [plain|core|syntax|all]" >&2; exit 2 ;;
esac
