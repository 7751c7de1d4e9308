#!/usr/bin/env bash
# Takes the README's screenshots from the real application: builds (scripts/build.sh installs
# what is missing), then runs `tollgate --demo --screenshots` under Xvfb at 1280x800. The demo
# runs ~8 s first so every page has live data. Output: docs/screenshots/*.png (or $1).
# Then the same tour on `tollgate --demo --cluster` (a private three-primary cluster) into
# <out>/cluster-demo/; by default its Cluster page and dashboard become docs/cluster-page.png and
# docs/cluster-demo.png, and the other pictures stay in a temporary directory, to look at.
# Other sizes and the dark palette, for checking layouts by eye:
#   TOLLGATE_SCREENSHOT_SIZE=1024x700 TOLLGATE_PALETTE=dark bash scripts/screenshots.sh /tmp/shots
# SCREENSHOTS_CLUSTER=0 skips the cluster tour. Then scripts/sentinel-screenshot.sh: the Topology
# page through Redis Sentinel (SCREENSHOTS_SENTINEL=0 skips it).
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

if [[ "${SCREENSHOTS_CLUSTER:-1}" != "0" ]]; then
    cluster_out="$out/cluster-demo"
    if [[ -z "${1:-}" ]]; then
        cluster_out="$(mktemp -d)" # two of its pictures go into the repository
    fi
    mkdir -p "$cluster_out"
    xvfb-run -a -s "-screen 0 1920x1080x24" \
        build/app/tollgate --demo --cluster --screenshots "$cluster_out"
    if [[ -z "${1:-}" ]]; then
        cp "$cluster_out/cluster.png" docs/cluster-page.png
        cp "$cluster_out/dashboard.png" docs/cluster-demo.png
    fi
    echo "screenshots.sh: the --demo --cluster tour is in $cluster_out"
fi

# The Topology page through Redis Sentinel (SCREENSHOTS_SENTINEL=0 skips it).
if [[ "${SCREENSHOTS_SENTINEL:-1}" != "0" ]]; then
    bash scripts/sentinel-screenshot.sh "$out"
fi

echo "screenshots.sh: wrote $(find "$out" -name '*.png' | wc -l) pictures to $out:"
find "$out" -name '*.png' | sort
