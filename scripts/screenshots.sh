#!/usr/bin/env bash
# Takes the screenshots from the real application under Xvfb: builds (scripts/build.sh installs
# what is missing), then runs the tour `tollgate --demo --screenshots DIR` (every page, the user
# detail, the dashboard over 1 h and 24 h, the policy history) at each size the console must fit,
# 1024x700, 1280x800 and 1366x768, light and dark, on two servers:
#   demo      the demo as a new user sees it;
#   large     the demo on top of 200,000 seeded subjects (`--subjects`); each page is taken
#             once it has loaded.
# into docs/screenshots/<demo|large>/<size>-<palette>/<page>.png, optimized with optipng. The
# README shows docs/screenshots/demo/1280x800-light/. The screen is the window's size: what a
# user with that screen sees. Then the tour on `tollgate --demo --cluster` (a private
# three-primary cluster): its Cluster page and dashboard become docs/cluster-page.png and
# docs/cluster-demo.png; then scripts/sentinel-screenshot.sh (the Topology page through Redis
# Sentinel). About 20 minutes on two cores.
#
#   bash scripts/screenshots.sh                 everything, into docs/
#   bash scripts/screenshots.sh --set demo DIR  one set only (demo or large), into DIR/<size>-<palette>/
#   bash scripts/screenshots.sh --check DIR     the same as --set demo DIR (checking layouts)
#
# SCREENSHOTS_SUBJECTS (default 200000) sizes the large set; SCREENSHOTS_CLUSTER=0 and
# SCREENSHOTS_SENTINEL=0 skip those tours; SCREENSHOTS_OPTIMIZE=0 keeps the PNGs as grabbed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# No keychain prompts or message boxes in a headless run; the default style, not the host's.
export TOLLGATE_NO_DIALOGS=1
unset QT_QPA_PLATFORM QT_STYLE_OVERRIDE

sizes=(1024x700 1280x800 1366x768)
palettes=(light dark)
subjects="${SCREENSHOTS_SUBJECTS:-200000}"

# tour <dir> <size> <palette> [tollgate arguments...]: one tour, tried twice (a lost Xvfb
# display, a tour that did not finish), at most 15 minutes each.
tour() {
    local dir=$1 size=$2 palette=$3
    shift 3
    mkdir -p "$dir"
    for attempt in 1 2; do
        if TOLLGATE_SCREENSHOT_SIZE="$size" TOLLGATE_PALETTE="$palette" \
            xvfb-run -a -s "-screen 0 ${size}x24" \
            timeout --kill-after=10 900 build/app/tollgate --demo --screenshots "$dir" "$@"; then
            return 0
        fi
        echo "screenshots.sh: the tour into $dir failed (attempt $attempt)" >&2
    done
    return 1
}

# take_set <demo|large> <dir>: every size and palette, one folder each.
take_set() {
    local set=$1 dir=$2 extra=()
    case "$set" in
    demo) ;;
    large) extra=(--subjects "$subjects") ;;
    *)
        echo "screenshots.sh: no set \"$set\" (demo or large)" >&2
        exit 2
        ;;
    esac
    local started=$SECONDS
    for size in "${sizes[@]}"; do
        for palette in "${palettes[@]}"; do
            rm -rf "${dir:?}/$size-$palette" # no picture of a page that is gone stays behind
            tour "$dir/$size-$palette" "$size" "$palette" "${extra[@]}"
        done
    done
    echo "screenshots.sh: the $set set, $(find "$dir" -name '*.png' | wc -l) pictures in" \
        "$((SECONDS - started)) s: $dir"
}

optimize() { # dir: lossless
    if [[ "${SCREENSHOTS_OPTIMIZE:-1}" == "0" ]]; then return 0; fi
    find "$1" -name '*.png' -print0 | xargs -0 -r -n 8 -P 2 optipng -quiet -o2 -strip all
}

if [[ "${1:-}" == "--check" || "${1:-}" == "--set" ]]; then
    if [[ "$1" == "--check" ]]; then
        set_name=demo
        dir="${2:?--check needs a directory}"
    else
        set_name="${2:?--set needs demo or large}"
        dir="${3:?--set needs a directory}"
    fi
    bash scripts/build.sh tollgate
    take_set "$set_name" "$dir"
    exit 0
fi
if [[ $# -gt 0 ]]; then
    echo "usage: screenshots.sh [--set demo|large DIR | --check DIR]" >&2
    exit 2
fi

started=$SECONDS
bash scripts/setup.sh optipng # only this script optimizes pictures
bash scripts/build.sh tollgate
for set_name in demo large; do
    take_set "$set_name" "docs/screenshots/$set_name"
done

if [[ "${SCREENSHOTS_CLUSTER:-1}" != "0" ]]; then
    cluster_out="$(mktemp -d)" # two of its pictures go into the repository
    xvfb-run -a -s "-screen 0 1920x1080x24" \
        build/app/tollgate --demo --cluster --screenshots "$cluster_out"
    cp "$cluster_out/cluster.png" docs/cluster-page.png
    cp "$cluster_out/dashboard.png" docs/cluster-demo.png
    echo "screenshots.sh: the --demo --cluster tour is in $cluster_out"
fi

# The Topology page through Redis Sentinel.
if [[ "${SCREENSHOTS_SENTINEL:-1}" != "0" ]]; then
    bash scripts/build.sh tollgatectl
    bash scripts/sentinel-screenshot.sh docs/screenshots
fi

optimize docs
echo "screenshots.sh: $(find docs/screenshots -name '*.png' | wc -l) pictures," \
    "$(du -sh docs/screenshots | cut -f1) in docs/screenshots, in $((SECONDS - started)) s"
