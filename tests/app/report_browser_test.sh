#!/usr/bin/env bash
# `faultline report` in a real browser: for three runs (a catalogue story
# with the store's schema change, one with crashes and restarts, and a
# check-migrations finding), Debian's chromium loads the page headless, the
# page's script draws it with no console message at all (no error, no
# blocked fetch: its Content-Security-Policy forbids the network), and a
# screenshot of each is kept beside the test's output.
#   report_browser_test.sh FAULTLINE CORPUS_DIR OUT_DIR
set -euo pipefail
faultline=$1
corpus=$2
out=$3
browser=$(command -v chromium || true)
if [ -z "$browser" ]; then
  echo "report_browser_test: chromium is not installed (tools/install-deps.sh installs it)" >&2
  exit 1
fi
rm -rf "$out" && mkdir -p "$out"
chrome() {
  # A fresh profile each time, no sandbox (CI runs as root), nothing but the page.
  "$browser" --headless=new --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --user-data-dir="$out/profile" --enable-logging=stderr --v=0 "$@"
}

"$faultline" check-migrations "$corpus/seed-kuri" --runner golang-migrate --out "$out/check" >/dev/null || true
finding=$(ls "$out"/check/repro/*.toml | head -1)

check_page() {
  local name=$1 source=$2 status=$3
  local page="$out/$name.html"
  set +e
  "$faultline" report "$source" -o "$page" 2>"$out/$name.report.txt"
  local got=$?
  set -e
  [ "$got" -eq "$status" ] || { echo "report $source: exit $got, expected $status" >&2; cat "$out/$name.report.txt" >&2; exit 1; }
  # Self-contained: no link, no external script, style, image or font.
  if grep -Eo '(src|href)="[^"#][^"]*"|<link|@import|url\([^#]' "$page" >/dev/null; then
    echo "$page refers to something outside itself:" >&2
    grep -Eo '(src|href)="[^"#][^"]*"|<link|@import|url\([^#]' "$page" >&2
    exit 1
  fi
  chrome --dump-dom "file://$page" >"$out/$name.dom.html" 2>"$out/$name.console.txt"
  grep -q 'data-rendered="yes"' "$out/$name.dom.html" || {
    echo "$page: the page's script did not finish drawing it" >&2
    grep -A3 'report-error' "$out/$name.dom.html" >&2 || true
    exit 1
  }
  if grep -E 'CONSOLE|Refused to|ERR_' "$out/$name.console.txt"; then
    echo "$page: the browser's console was not silent (above)" >&2
    exit 1
  fi
  # What a learner sees: the diagram is drawn, every step has its row.
  grep -q '<svg' "$out/$name.dom.html" || { echo "$page: no diagram" >&2; exit 1; }
  chrome --window-size=1400,2400 --screenshot="$out/$name.png" "file://$page" 2>/dev/null
  [ -s "$out/$name.png" ] || { echo "$page: no screenshot" >&2; exit 1; }
  echo "report_browser_test: $name: drawn, console silent; screenshot $out/$name.png"
}

check_page stale-schema stale-schema 0
check_page dirty-migration dirty-migration 0
check_page check-migrations-finding "$finding" 1
# The steps' table has a row per step (stale-schema has 15).
test "$(grep -o 'class="step' "$out/stale-schema.dom.html" | wc -l)" -eq 15
