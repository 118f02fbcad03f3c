#!/usr/bin/env bash
# Opens an HTML run report in headless Chromium (Debian's `chromium`: apt-get install -y chromium; this script installs
# nothing), fails when the page logs anything to the console (the report has no script, so any console message is a
# fault) or tries the network (every host name is mapped to nowhere), and writes a full-page screenshot.
#
#   scripts/check-report-in-browser.sh samples/topics.report.html [screenshot.png] [width]
#
# Exit 0: rendered, no console message, screenshot written. Exit 1: a console message or no screenshot. Exit 2: usage,
# or chromium missing.
set -euo pipefail
report="${1:?usage: $0 report.html [screenshot.png] [width]}"
shot="${2:-${report%.html}.png}"
width="${3:-1100}"
browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
  echo "chromium is not installed (Debian: apt-get install -y chromium)" >&2
  exit 2
fi
[ -f "$report" ] || { echo "$report: no such file" >&2; exit 2; }
url="file://$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
rm -f "$shot"
# A tall window: headless --screenshot captures the window, so it is sized to the page (about 4,500 px per run).
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --host-resolver-rules='MAP * ~NOTFOUND' --enable-logging=stderr --v=0 \
  --window-size="${width},${HEIGHT:-6000}" --screenshot="$shot" "$url" >"$log" 2>&1 || true
if grep -E 'CONSOLE|Failed to load resource|net::ERR_' "$log" >&2; then
  echo "FAIL: $report logged the lines above in Chromium" >&2
  exit 1
fi
if [ ! -s "$shot" ]; then
  cat "$log" >&2
  echo "FAIL: no screenshot written" >&2
  exit 1
fi
echo "ok: $report rendered in $("$browser" --version 2>/dev/null | head -1) without console messages; screenshot $shot"
