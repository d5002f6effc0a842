#!/bin/sh
# The docs' TOML that is a whole story runs as written (issue #30): every
# ```toml block in docs/*.md that begins with `name =` (or a comment before
# it) is read and played: exit 0 or 1, never a file error (exit 2). Blocks
# that are fragments (a [crash], a [[step]] to put in a story) are read by
# the tests that follow their page (cli.tutorial_own_story_runs).
# Usage: docs_toml_runs.sh faultline source_dir dir
set -u
faultline=$1
source=$2
dir=$3
fail() { echo "docs_toml_runs: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
whole=0
for doc in "$source"/docs/*.md; do
  awk -v out="$dir/$(basename "$doc" .md)" '
    /^```toml/ { inside = 1; n++; file = out "-" n ".toml"; printf "" > file; next }
    /^```/ { inside = 0; next }
    inside { print >> file }' "$doc"
done
for block in "$dir"/*.toml; do
  [ -e "$block" ] || continue
  grep -v '^#' "$block" | grep -v '^ *$' | head -1 | grep -q '^name = ' || continue
  whole=$((whole + 1))
  "$faultline" run "$block" >"$block.out" 2>&1
  status=$?
  [ $status -le 1 ] || fail "$(basename "$block") does not run as written: $(head -3 "$block.out")"
done
[ $whole -gt 0 ] || fail "no whole story among the docs' TOML blocks: nothing was checked"
exit 0
