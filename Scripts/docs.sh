#!/usr/bin/env bash
# Builds every DocC catalog (one per product with public API) with warnings as errors.
#
# The symbol graphs come from the build the tests already made (`swift package
# dump-symbol-graph` reuses .build), and the toolchain's `docc` converts each catalog: no
# plugin, no second build of the package. (swift-docc-plugin would build everything again in a
# scratch folder of its own; CI's time budget is the reason this script does not use it.)
#
#   Scripts/docs.sh                   every catalog, warnings as errors (CI runs this)
#   Scripts/docs.sh preview [TARGET]  serves one catalog (default SQLiteDefaults) with `docc preview`
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-build}"
out=".build/docs"
rm -rf "$out"
mkdir -p "$out"
# Every trait (as the README's test command builds): a module behind a trait is empty without it.
swift package --enable-all-traits dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols >"$out/dump.log" 2>&1 \
    || { cat "$out/dump.log" >&2; exit 1; }
graphs="$(sed -n 's/^Files written to //p' "$out/dump.log" | tail -1)"
[ -d "$graphs" ] || { echo "docs: no symbol graphs found (see $out/dump.log)" >&2; exit 1; }
if [ "$mode" = preview ]; then
    target="${2:-SQLiteDefaults}"
    mkdir -p "$out/graphs/$target"
    cp "$graphs/$target.symbols.json" "$out/graphs/$target/"
    cp "$graphs/$target"@*.symbols.json "$out/graphs/$target/" 2>/dev/null || true
    exec docc preview "Sources/$target/$target.docc" --additional-symbol-graph-dir "$out/graphs/$target" \
        --fallback-display-name "$target" --fallback-bundle-identifier "$target" --output-path "$out/$target-preview"
fi
for target in SQLiteDefaults SQLiteDefaultsTesting SQLiteDefaultsObservable SQLiteDefaultsConfiguration SQLiteDefaultsServiceLifecycle SQLiteDefaultsPostgres SQLiteDefaultsConsole SQLiteDefaultsVapor SQLiteDefaultsFlags; do
    echo "== docs: $target"
    # The module's own graph and its extensions of other modules' types (Module@Other).
    mkdir -p "$out/graphs/$target"
    cp "$graphs/$target.symbols.json" "$out/graphs/$target/"
    cp "$graphs/$target"@*.symbols.json "$out/graphs/$target/" 2>/dev/null || true
    docc convert "Sources/$target/$target.docc" \
        --additional-symbol-graph-dir "$out/graphs/$target" \
        --fallback-display-name "$target" --fallback-bundle-identifier "$target" \
        --warnings-as-errors --output-path "$out/$target.doccarchive"
done
