#!/usr/bin/env bash
# Runs the tests that exercise the classic lowering's `unsafe` (locals kept in place in a
# pinned state machine, dropped at every suspension) under valgrind's memcheck, and fails on
# any memory error. Installs valgrind (Debian's package) when it is missing.
#
#   bash scripts/memcheck.sh                 # the default tests below
#   bash scripts/memcheck.sh tasks operands  # other test targets of lowering-tests
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        echo "memcheck: installing valgrind (apt-get)" >&2
        apt-get update -qq && apt-get install -y -qq valgrind >/dev/null
    else
        echo "memcheck: valgrind is not installed, and apt-get as root is not available to install it" >&2
        exit 2
    fi
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(borrows_across_awaits everyday drops_and_patterns scopes_and_assignments fuzz_regressions
        select_and_pin match_guards real_code captures tasks send leaving_paths macros_and_closures
        consumed_receivers operands escaping_captures hints moved_then_named_again guarded_matches
        callees_in_awaited_arguments borrowed_where_made stored_borrows matched_in_place temporaries_held
        declared_locals awaiting_expansions declared_callables matched_through_references extended_temporaries
        block_items)
fi

args=()
for target in "${targets[@]}"; do
    args+=(--test "$target")
done
# The test executables, as cargo reports them.
executables=$(cargo test -p lowering-tests "${args[@]}" --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact" and message.get("executable"):
        print(message["executable"])')

status=0
for executable in $executables; do
    echo "memcheck: $(basename "$executable")" >&2
    # Leaks are not errors here: a test leaks the connection its future borrows on purpose.
    if ! valgrind --quiet --error-exitcode=99 --errors-for-leak-kinds=none \
        "$executable" --test-threads=1 -q >/dev/null; then
        echo "memcheck: errors in $(basename "$executable")" >&2
        status=1
    fi
done
[ $status = 0 ] && echo "memcheck: 0 errors in ${#targets[@]} test targets" >&2
exit $status
