#!/usr/bin/env bash
# `faultline report` in a real browser: for three runs (a catalogue story
# with the store's schema change, one with crashes and restarts, and a
# check-migrations finding), Debian's chromium loads the page headless, the
# page's script draws it with no console message at all (no error, no
# blocked fetch: its Content-Security-Policy forbids the network), and a
# screenshot of each is kept beside the test's output.
# Then the message diagram's geometry, as Chromium lays it out at 1400 px
# (report_geometry.js, added to a copy of the page), on stories with
# restarts, a power loss, close steps and sixteen nodes in a restart loop:
# one lane per host, every lane's name on screen with no sideways
# scrolling, arrows labelled, no two texts overlapping, with the store's
# traffic hidden and shown and zoomed in; a screenshot of each diagram.
#   report_browser_test.sh pages FAULTLINE CORPUS_DIR OUT_DIR
#   report_browser_test.sh diagrams FAULTLINE STORIES_DIR OUT_DIR
set -euo pipefail
mode=$1
faultline=$2
inputs=$3
out=$4
here=$(dirname "$0")
browser=$(command -v chromium || true)
if [ -z "$browser" ]; then
  echo "report_browser_test: chromium is not installed (tools/install-deps.sh installs it)" >&2
  exit 1
fi
rm -rf "$out" && mkdir -p "$out"
chrome() {
  # A fresh profile each time, no sandbox (CI runs as root), nothing but the
  # page; scrollbars as a reader has them (they take width).
  "$browser" --headless=new --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$out/profile" --enable-logging=stderr --v=0 "$@"
}

# Loads PAGE headless at 1400 px into PAGE's .dom.html, saying (and
# failing) unless it rendered with the body attribute ATTR="ok-value" and a
# silent console.
load_page() {
  local page=$1 attr=$2 dom="${1%.html}.dom.html" console="${1%.html}.console.txt"
  chrome --window-size=1400,1000 --dump-dom "file://$page" >"$dom" 2>"$console"
  grep -q "$attr" "$dom" || {
    echo "$page: not drawn as expected ($attr):" >&2
    sed -n '/<pre id="geometry">/,/<\/pre>/p' "$dom" >&2
    grep -A3 'report-error' "$dom" >&2 || true
    exit 1
  }
  if grep -E 'CONSOLE|Refused to|ERR_' "$console"; then
    echo "$page: the browser's console was not silent (above)" >&2
    exit 1
  fi
}

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
  load_page "$page" 'data-rendered="yes"'
  # What a learner sees: the diagram is drawn, every step has its row.
  grep -q '<svg' "$out/$name.dom.html" || { echo "$page: no diagram" >&2; exit 1; }
  chrome --window-size=1400,2400 --screenshot="$out/$name.png" "file://$page" 2>/dev/null
  [ -s "$out/$name.png" ] || { echo "$page: no screenshot" >&2; exit 1; }
  echo "report_browser_test: $name: drawn, console silent; screenshot $out/$name.png"
}


check_diagram() {
  local name=$1 source=$2
  "$faultline" report "$source" -o "$out/$name.html" >/dev/null
  # The page as shipped, with the measuring script after its own.
  { sed '/<\/body>/,$d' "$out/$name.html"; printf '<script>\n'; cat "$here/report_geometry.js"
    printf '</script>\n</body>\n</html>\n'; } >"$out/$name.measured.html"
  load_page "$out/$name.measured.html" 'data-geometry="ok"'
  sed -n '/<pre id="geometry">/,/<\/pre>/p' "$out/$name.measured.dom.html" >"$out/$name.geometry.txt"
  chrome --window-size=1400,1400 --screenshot="$out/$name.diagram.png" "file://$out/$name.measured.html" 2>/dev/null
  [ -s "$out/$name.diagram.png" ] || { echo "$name: no screenshot" >&2; exit 1; }
  echo "report_browser_test: $name: diagram measured ($out/$name.geometry.txt); screenshot $out/$name.diagram.png"
}

case "$mode" in
  pages)
    "$faultline" check-migrations "$inputs/seed-kuri" --runner golang-migrate --out "$out/check" >/dev/null || true
    finding=$(ls "$out"/check/repro/*.toml | head -1)
    check_page stale-schema stale-schema 0
    check_page dirty-migration dirty-migration 0
    check_page check-migrations-finding "$finding" 1
    # The steps' table has a row per step (stale-schema has 15).
    test "$(grep -oE 'class="step( chosen)?"' "$out/stale-schema.dom.html" | wc -l)" -eq 15
    ;;
  diagrams)
    check_diagram proxy-misses-restart proxy-misses-restart
    check_diagram ack-before-fsync ack-before-fsync
    check_diagram sixteen-nodes-restart-loop "$inputs/sixteen-nodes-restart-loop.toml"
    check_diagram dirty-migration dirty-migration
    ;;
  *) echo "usage: $0 pages|diagrams FAULTLINE INPUTS OUT_DIR" >&2; exit 2 ;;
esac
