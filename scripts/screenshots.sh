#!/usr/bin/env bash
# Takes the README's screenshots from the real application: builds (scripts/build.sh installs
# what is missing), then runs `tollgate --demo --screenshots` under Xvfb at 1280x800. The demo
# runs ~8 s first so every page has live data. Output: docs/screenshots/*.png (or $1).
# Other sizes and the dark palette, for checking layouts by eye:
#   TOLLGATE_SCREENSHOT_SIZE=1024x700 TOLLGATE_PALETTE=dark bash scripts/screenshots.sh /tmp/shots
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

out="${1:-docs/screenshots}"
bash scripts/build.sh
mkdir -p "$out"

# No keychain prompts or message boxes in a headless run; the default style, not the host's.
export TOLLGATE_NO_DIALOGS=1
unset QT_QPA_PLATFORM QT_STYLE_OVERRIDE
xvfb-run -a -s "-screen 0 1920x1080x24" build/app/tollgate --demo --screenshots "$out"

echo "screenshots.sh: wrote $(ls "$out"/*.png | wc -l) pictures to $out:"
ls -1 "$out"/*.png
