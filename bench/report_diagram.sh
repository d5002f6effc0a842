#!/bin/sh
# How the report's message diagram's cost grows with the messages a run
# holds, in Debian's chromium: for a two-node cluster left running for
# longer and longer (its health probes and store traffic pile up), the page
# is made, loaded headless at 1400 px with tests/app/report_geometry.js,
# and the times the page itself measures are printed: the first draw as
# opened, then a new layout with every kind of traffic shown and its first
# screen drawn (what a reader waits for on a click), and everything drawn
# at once (what the geometry check needs; a reader never waits for it).
#   bench/report_diagram.sh FAULTLINE [WAITS...]   (default: 1m 4m 16m 40m)
set -eu
faultline=$1
shift
waits=${*:-1m 4m 16m 40m}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-6s %9s %9s  %s\n' wait "page KiB" messages "times in the page (ms)"
for wait in $waits; do
  printf '%s\n' 'name = "idle"' 'title = "a cluster left running"' '[[step]]' 'do = "up"' \
    '[[step]]' 'do = "wait"' "for = \"$wait\"" >"$work/idle.toml"
  "$faultline" report "$work/idle.toml" -o "$work/page.html" >/dev/null 2>&1
  { sed '/<\/body>/,$d' "$work/page.html"; printf '<script>\n'; cat "$here/tests/app/report_geometry.js"
    printf '</script>\n</body>\n</html>\n'; } >"$work/measured.html"
  chromium --headless=new --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/profile" \
    --window-size=1400,1000 --dump-dom "file://$work/measured.html" 2>/dev/null >"$work/dom.html"
  messages=$(grep -o 'all traffic: [^;]*;[^;]*; arrow labels [0-9]* of [0-9]*' "$work/dom.html" | grep -o '[0-9]*$')
  opened=$(grep -o 'as opened: .*drawn in [0-9]* ms' "$work/dom.html" | grep -o '[0-9]* ms$')
  relaid=$(grep -o 'first screen drawn in [0-9]* ms' "$work/dom.html" | grep -o '[0-9]* ms$')
  whole=$(grep -o 'all traffic: .*drawn in [0-9]* ms' "$work/dom.html" | head -1 | grep -o '[0-9]* ms$')
  printf '%-6s %9s %9s  opened: %s; all traffic laid out and first screen: %s; all of it drawn: %s\n' \
    "$wait" $(($(wc -c <"$work/page.html") / 1024)) "$messages" "$opened" "$relaid" "$whole"
done
