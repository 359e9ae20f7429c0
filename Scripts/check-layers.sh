#!/usr/bin/env bash
# The layer check: fails (exit 1, one line per finding: file:line: rule) when a folder of the
# library names what the Architecture article says it never names. Bash, grep and awk only.
#
#   bash Scripts/check-layers.sh
#
# Comments are ignored; string literals count only for the SQL rules. The folders, what each
# may name and what it never names: Sources/SQLiteDefaults/SQLiteDefaults.docc/Architecture.md.
set -uo pipefail
cd "$(dirname "$0")/.."
lib=Sources/SQLiteDefaults
found=0

# scan MODE REGEX RULE FILE... — prints FILE:LINE: RULE for each line whose code (MODE "code":
# string literals blanked), strings (MODE "strings") or both ("all") match REGEX (awk ERE).
scan() {
    local mode=$1 regex=$2 rule=$3
    shift 3
    [ $# -gt 0 ] || return 0
    awk -v mode="$mode" -v re="$regex" -v rule="$rule" '
        FNR == 1 { inml = 0 }
        {
            raw = $0; code = ""; strs = ""
            if (inml) {
                p = index(raw, "\"\"\"")
                if (p) { inml = 0; strs = substr(raw, 1, p - 1); code = substr(raw, p + 3) } else { strs = raw }
            } else {
                p = index(raw, "\"\"\"")
                if (p) { code = substr(raw, 1, p - 1); strs = substr(raw, p + 3); inml = 1 } else { code = raw }
            }
            sub(/(^|[ \t])\/\/.*$/, "", code)
            rest = code; code = ""
            while (match(rest, /"([^"\\]|\\.)*"/)) {
                strs = strs " " substr(rest, RSTART + 1, RLENGTH - 2)
                code = code substr(rest, 1, RSTART - 1) "\"\""
                rest = substr(rest, RSTART + RLENGTH)
            }
            code = code rest
            target = mode == "code" ? code : (mode == "strings" ? strs : code " " strs)
            if (target ~ re) { print FILENAME ":" FNR ": " rule; hits++ }
        }
        END { exit hits > 0 ? 1 : 0 }
    ' "$@" || found=1
}

# The types (top level, not private) each folder declares; the top-level files (DefaultsError)
# are the folder ".".
types_of() {
    local folder=$1 files
    if [ "$folder" = . ]; then files=$(ls $lib/*.swift); else files=$(ls $lib/$folder/*.swift 2>/dev/null); fi
    [ -n "$files" ] || return 0
    grep -hoE '^(public |package |internal )?(final )?(struct|class|enum|protocol|typealias|actor) [A-Za-z_][A-Za-z0-9_]*' $files \
        | awk '{ print $NF }' | grep -vx 'Mutex' | sort -u
}

# words REGEX of the types of FOLDER..., minus the names given after --except.
words() {
    local names=() except=() in_except=0
    for argument in "$@"; do
        if [ "$argument" = --except ]; then in_except=1; continue; fi
        if [ $in_except = 1 ]; then except+=("$argument"); else names+=($(types_of "$argument")); fi
    done
    local kept=()
    for name in "${names[@]}"; do
        local skip=0
        for excepted in "${except[@]}"; do [ "$name" = "$excepted" ] && skip=1; done
        [ $skip = 0 ] && kept+=("$name")
    done
    [ ${#kept[@]} -gt 0 ] || { echo '^$NEVER'; return; }
    local joined
    joined=$(IFS='|'; echo "${kept[*]}")
    echo "(^|[^A-Za-z0-9_])($joined)([^A-Za-z0-9_]|$)"
}

# The public face: Store/ and every DefaultsStore+X / DefaultsKey+X file of a feature folder,
# and ReplicaTransaction (the package face of Replication/). It follows Store/'s rules.
public_face=$(ls $lib/Store/*.swift $lib/*/DefaultsStore+*.swift $lib/*/DefaultsKey+*.swift $lib/Replication/ReplicaTransaction.swift | sort -u)
# A folder's files without the public face's (those are checked as the public face).
inner() { for file in $lib/$1/*.swift; do grep -qxF "$file" <<<"$public_face" || echo "$file"; done; }

# 1. SQLite's C API only in Connection/ (and the C shim itself).
scan code '(^|[^A-Za-z0-9_])(sqlite3_[a-z0-9_]+|SQLITE_[A-Z0-9_]+)' \
    "SQLite's C API (sqlite3_*, SQLITE_*) outside Connection/" \
    $(find Sources -name '*.swift' -not -path "$lib/Connection/*" -not -path 'Sources/CSQLiteDefaults/*')
scan code '^[ \t]*import CSQLiteDefaults' \
    'import CSQLiteDefaults outside Connection/ (Monitoring/ may, for its eventfd and poll shims)' \
    $(find Sources -name '*.swift' -not -path "$lib/Connection/*" -not -path "$lib/Monitoring/*")

# 2. What each folder never names (types of the folders listed).
all_folders="Support Connection Coding Migration Monitoring ChangeTracking Delivery Engine Declarations History Replication Store ."
for layer in \
    "Support|Connection Coding Migration Monitoring ChangeTracking Delivery Engine Declarations History Replication Store .|anything of the library" \
    "Connection|Coding Migration Monitoring ChangeTracking Delivery Engine Declarations History Replication Store . --except SQLiteValue|a layer above it: it reports SQLite's codes (SQLiteFailure), never a DefaultsError, a key, a log, an observer or a declaration" \
    "Coding|Connection Migration Monitoring ChangeTracking Delivery Engine Declarations History Replication Store|I/O or a layer that does it (a connection, the engine, a store)" \
    "Migration|Monitoring ChangeTracking Delivery Engine Declarations History Replication Store|the engine, keys or observers" \
    "Monitoring|Connection Coding Migration ChangeTracking Delivery Engine Declarations History Replication Store|a connection, or whatever a file's change means" \
    "ChangeTracking|Monitoring Delivery Engine Declarations History Replication Store|who hears what (Delivery/), the engine or a feature" \
    "Delivery|Connection Migration Monitoring Engine Declarations History Replication Store|a connection or the engine" \
    "Engine|Declarations History Replication|a feature folder (features sit on the engine)" \
    "Declarations|Replication|the replication feature" \
    "History|Declarations Replication|another feature"
do
    IFS='|' read -r folder forbidden why <<<"$layer"
    regex=$(words $forbidden)
    scan code "$regex" "$folder/ names $why" $(inner "$folder")
done

# 3. The public face drives the engine through its methods: no SQL, no connection, no log.
scan code "$(words Connection Migration) | StoreConnection|ChangeLog|HistoryLog|ChangeRecorder|WriterIdentity|StoreOpener|ValueCache" \
    'the public face names a connection, a migration or the change log (use a StoreEngine method)' $public_face
scan code '(^|[^A-Za-z0-9_])(core[?]?[.](transaction|withConnection)[ (]*[{][ ]*[a-z]+ in|core[?]?[.](withConnection|registry))|[.](database|recorder|replicaWriters|connection)([^A-Za-z0-9_]|$)|(^|[^A-Za-z0-9_])(execute|rows|statement)[(]' \
    'the public face drives the connection (core.transaction { connection in }, core.withConnection, core.registry, execute/rows/statement)' $public_face
# SQLite's result codes by number outside Connection/: a failure's kind is
# `DefaultsError.sqliteResult` (a package-level SQLiteResultKind), never `code & 0xFF == 19`.
scan code '(sqliteCode|[Cc]ode)[^=]*(& *(0x[Ff][Ff]|255)|[!=]= *[0-9]+([^0-9.]|$))' \
    'a SQLite result code compared as a number (use sqliteResult / SQLiteResultKind)' \
    $(find Sources -name '*.swift' -not -path "$lib/Connection/*")
scan strings '(^|[^A-Za-z0-9_])(SELECT|INSERT INTO|UPDATE [a-z_]+ SET|DELETE FROM|CREATE (TABLE|INDEX|VIEW|TRIGGER)|DROP|ALTER TABLE|PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT)([^A-Za-z0-9_]|$)' \
    'SQL text in the public face' $public_face

# 4. Other modules: the library's public and package API only, and no SQL sent to the store.
scan code '^[ \t]*@testable[ \t]+import' '@testable import in a product module' $(find Sources -name '*.swift')
scan code '^[ \t]*package[ \t].*func[ \t].*[(_ ]sql[:)]' \
    'package API that takes SQL text (another module must not send SQL to the store)' $(find $lib -name '*.swift')
scan code '(^|[^A-Za-z0-9_])(replicaTransaction|replicaRead|ReplicaTransaction)([^A-Za-z0-9_]|$)' \
    'the replication API outside the library and the fleet module' \
    $(find Sources -name '*.swift' -not -path "$lib/*" -not -path 'Sources/SQLiteDefaultsPostgres/*')

if [ $found != 0 ]; then
    echo "check-layers: the sources cross the layers above (see SQLiteDefaults.docc/Architecture.md)" >&2
    exit 1
fi
echo "check-layers: every folder keeps to its layer"
