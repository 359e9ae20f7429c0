#!/usr/bin/env bash
# Builds every DocC catalog (one per product with public API) with warnings as errors.
# The DocC plugin is added to the package only when SQLITEDEFAULTS_GENERATE_DOCS is set (so
# users never resolve it), in a scratch folder of its own so the test build is not disturbed.
set -euo pipefail
cd "$(dirname "$0")/.."
export SQLITEDEFAULTS_GENERATE_DOCS=1
scratch=".build-docs"
mkdir -p "$scratch/docs"
for target in SQLiteDefaults SQLiteDefaultsObservable SQLiteDefaultsConfiguration SQLiteDefaultsServiceLifecycle SQLiteDefaultsPostgres SQLiteDefaultsConsole; do
    echo "== docs: $target"
    swift package --scratch-path "$scratch" --disable-sandbox generate-documentation \
        --target "$target" --warnings-as-errors --output-path "$scratch/docs/$target"
done
