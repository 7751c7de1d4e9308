#!/usr/bin/env bash
# Server CPU of one hit.lua EVALSHA per algorithm (usec_per_call from INFO commandstats), next to
# an empty script called with the same keys and arguments (the floor: what Redis spends on any
# EVALSHA of that size). One private redis-server; redis-benchmark -c 8 -P 16 sends the very
# same EVALSHA every time; every hit is allowed (limit 1e9 per hour; sliding_log 100000 with
# 100000 hits). Each figure is the median of --runs runs, the scripts interleaved per run.
# A script named short:PATH is called in hit.lua's short form (lua/README.md: 3 keys and 5
# arguments instead of 5 and 14); the empty script then runs in that form too. One named
# fcall:PATH is loaded as a Redis 7 function instead (FUNCTION LOAD of a library whose function
# runs the very same text, its parameters named KEYS and ARGV) and called by FCALL in the short
# form, next to an empty function: EVALSHA against FCALL, the same body.
# Each script is called in the KEYS layout of the contract its header names ("Contract: N"):
# from 3 on with the user's overrides hash as KEYS[3] (absent: a user without an override), so
# a script of an earlier contract (e.g. main's, for a before/after figure) runs as its clients
# call it.
# --fifo runs the server under SCHED_FIFO (root): on a shared, busy machine the other processes
# then no longer preempt it in the middle of a call, which usec_per_call would count.
# --callgrind N counts instead the instructions the server runs per EVALSHA (valgrind's callgrind,
# only inside evalShaCommand, N hits per figure): slow, but the same on a busy machine as on an
# idle one, so two scripts compare exactly (one run is enough).
# --refused prints instead, per script and algorithm, what a refusal costs beside an allowed hit,
# one user hammering: allowed (as above), denied by its window (limit 1, already used; nothing
# counted), banned (an action ban in force for 2 h, the window younger) and a shadow hit that
# would be denied (mode shadow, limit 1 already used), each with its ratio to allowed.
# --counted calls the full form with count_denied 1 (denied hits count, as tollgated's translated
# limits do), --calendar with align calendar (the fixed window's 1 h window from :00): the short
# form carries neither, so a short: script runs as the full form then.
#
#   bench/bench_hit_lua.sh [--runs 3] [--port 7493] [--fifo | --callgrind 2000] [--refused]
#                          [--counted] [--calendar] [[short:|fcall:]script.lua ...]
#   (default: the assembled build/lua/hit.lua in both forms; lua/README.md says how to build it)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=3
port=7493
fifo=0
callgrind=0
refused=0
counted=0
align=first_hit
scripts=()
while (($#)); do
    case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --fifo) fifo=1; shift ;;
    --callgrind) callgrind="$2"; shift 2 ;;
    --refused) refused=1; shift ;;
    --counted) counted=1; shift ;;
    --calendar) align=calendar; shift ;;
    *) scripts+=("$1"); shift ;;
    esac
done
((${#scripts[@]})) || scripts=("$root/build/lua/hit.lua" "short:$root/build/lua/hit.lua")
# each entry's form and file; the empty script runs in every form used
forms=() files=() empty_forms=(full)
for s in "${scripts[@]}"; do
    case "$s" in
    short:* | fcall:*) forms+=("${s%%:*}") files+=("${s#*:}") ;;
    *) forms+=(full) files+=("$s") ;;
    esac
    [[ -f "${files[-1]}" ]] || { echo "${files[-1]}: no such script (cmake --build build --target tollgate_lua_scripts)" >&2; exit 1; }
done
for f in short fcall; do [[ " ${forms[*]} " != *" $f "* ]] || empty_forms+=("$f"); done

dir="$(mktemp -d)"
under=()
((callgrind == 0)) || under=(valgrind --tool=callgrind --toggle-collect=evalShaCommand --toggle-collect=fcallCommand
    --callgrind-out-file="$dir/cg.%p")
"${under[@]}" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize no \
    >"$dir/log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$dir"' EXIT
cli() { redis-cli -p "$port" "$@"; }
for _ in $(seq 300); do cli PING >/dev/null 2>&1 && break; sleep 0.1; done
((fifo == 0)) || chrt -f -p 10 "$server"

# a script's SHA1, or for the fcall form the name of the function running it: file form index
load() {
    [[ "$2" == fcall ]] || { cli SCRIPT LOAD "$(cat "$1")"; return; }
    { printf '#!lua name=bench%s\nlocal function run(KEYS, ARGV)\n' "$3"; cat "$1"
      printf '\nend\nredis.register_function("hit%s", run)\n' "$3"; } | cli -x FUNCTION LOAD >/dev/null
    echo "hit$3"
}
shas=() contracts=()
for i in "${!files[@]}"; do
    shas+=("$(load "${files[$i]}" "${forms[$i]}" "$i")")
    contracts+=("$(sed -n 's/^Contract: \([0-9]*\).*/\1/p' "${files[$i]}" | head -1)")
done
empty="$(cli SCRIPT LOAD 'return 0')"
cli FUNCTION LOAD "$(printf '#!lua name=empty\nredis.register_function("empty", function() return 0 end)')" >/dev/null
declare -A empties=([full]="$empty" [short]="$empty" [fcall]=empty)

# usec_per_call (or instructions per call) of one redis-benchmark run: sha alg code limit window
# hits form contract [scenario: allowed | window | ban | shadow]
one() {
    local hits="$6" scenario="${9:-allowed}" mode=hit limit="$4"
    ((callgrind == 0)) || hits="$callgrind"
    [[ "$scenario" == shadow ]] && mode=shadow
    [[ "$scenario" == window || "$scenario" == shadow ]] && limit=1
    cli FLUSHALL >/dev/null
    local overrides=()
    (("${8:-3}" < 3)) || overrides=('tg:{u}:overrides')
    local call=($((5 + ${#overrides[@]})) 'tg:{u}:ban' 'tg:{u}:a:ban' "${overrides[@]}" 'tg:{u}:audit' 'tg:audit'
        "tg:{u}:a:$3:$5" "$mode" "$2" 1 "$counted" 0 0 '' 0 u a '' "$align" "$limit" "$5")
    [[ "$7" == full || $counted == 1 || $align == calendar ]] || call=($((3 + ${#overrides[@]})) 'tg:{u}:ban' 'tg:{u}:a:ban' "${overrides[@]}" "tg:{u}:a:$3:$5"
        "$mode" "$2" 1 "$limit" "$5")
    local command=evalsha
    [[ "$7" != fcall ]] || command=fcall
    if [[ "$scenario" != allowed ]]; then
        # the one hit that uses the window up (in hit mode), then the ban when there is one
        local first=("${call[@]}")
        first[first[0] + 1]=hit                 # (the mode follows the keys in both forms)
        cli "${command^^}" "$1" "${first[@]}" >/dev/null
        if [[ "$scenario" == ban ]]; then
            cli HSET 'tg:{u}:a:ban' reason bench actor bench created_ms 0 until_ms 0 scope action action a \
                source manual >/dev/null
            cli PEXPIRE 'tg:{u}:a:ban' 7200000 >/dev/null
        fi
    fi
    cli CONFIG RESETSTAT >/dev/null
    ((callgrind == 0)) || callgrind_control -z "$server" >/dev/null 2>&1
    redis-benchmark -p "$port" -n "$hits" -c 8 -P 16 -q "${command^^}" "$1" "${call[@]}" >/dev/null
    if ((callgrind == 0)); then
        cli INFO commandstats | sed -n "s/^cmdstat_$command:.*usec_per_call=\([0-9.]*\).*/\1/p"
    else
        callgrind_control -d "$server" >/dev/null 2>&1
        # shellcheck disable=SC2012 # the newest dump: names are cg.<pid>.<n>
        sed -n 's/^totals: //p' "$(ls -t "$dir"/cg.*.* | head -1)" | awk -v n="$hits" '{printf "%.0f\n", $1 / n}'
    fi
}
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

specs=("fixed_window fw 1000000000 3600000 200000" "token_bucket tb 1000000000 3600000 200000"
    "sliding_window sw 1000000000 3600000 200000" "sliding_log sl 100000 3600000 100000")
[[ $align != calendar ]] || specs=("${specs[0]}")           # (calendar windows are the fixed window's)

if ((refused)); then
    unit="$( ((callgrind == 0)) && echo usec_per_call || echo instructions per call)"
    for i in "${!files[@]}"; do
        label="$(basename "$(dirname "${files[$i]}")")/$(basename "${files[$i]}")"
        [[ "${forms[$i]}" == full ]] || label="${forms[$i]} $label"
        printf '%s: refusals against an allowed hit (%s, median of %d)\n' "$label" "$unit" "$runs"
        printf '%-15s %9s %9s %9s %9s   %6s %6s %6s\n' algorithm allowed window ban shadow window ban shadow
        for spec in "${specs[@]}"; do
            read -r alg code limit window hits <<<"$spec"
            declare -A got=()
            for _ in $(seq "$runs"); do
                for scenario in allowed window ban shadow; do
                    got[$scenario]+=" $(one "${shas[$i]}" "$alg" "$code" "$limit" "$window" "$hits" "${forms[$i]}" \
                        "${contracts[$i]}" "$scenario")"
                done
            done
            declare -A m=()
            # shellcheck disable=SC2086 # the runs are a space-separated list
            for scenario in allowed window ban shadow; do m[$scenario]="$(median ${got[$scenario]})"; done
            printf '%-15s %9s %9s %9s %9s   %6.2f %6.2f %6.2f\n' "$alg" "${m[allowed]}" "${m[window]}" "${m[ban]}" \
                "${m[shadow]}" "$(echo "${m[window]} / ${m[allowed]}" | bc -l)" \
                "$(echo "${m[ban]} / ${m[allowed]}" | bc -l)" "$(echo "${m[shadow]} / ${m[allowed]}" | bc -l)"
            unset got m
        done
    done
    exit 0
fi

printf '%-15s' algorithm
for i in "${!files[@]}"; do
    label="$(basename "$(dirname "${files[$i]}")")/$(basename "${files[$i]}")"
    [[ "${forms[$i]}" == full ]] || label="${forms[$i]} $label"
    printf ' %24s' "$label"
done
for f in "${empty_forms[@]}"; do printf ' %11s' "empty $f"; done
printf '   (%s, median of %d)\n' "$( ((callgrind == 0)) && echo usec_per_call || echo instructions per call)" "$runs"
for spec in "${specs[@]}"; do
    read -r alg code limit window hits <<<"$spec"
    declare -A got=()
    for _ in $(seq "$runs"); do
        for i in "${!shas[@]}"; do
            got[$i]+=" $(one "${shas[$i]}" "$alg" "$code" "$limit" "$window" "$hits" "${forms[$i]}" "${contracts[$i]}")"
        done
        for f in "${empty_forms[@]}"; do
            got[empty_$f]+=" $(one "${empties[$f]}" "$alg" "$code" "$limit" "$window" "$hits" "$f")"
        done
    done
    printf '%-15s' "$alg"
    # shellcheck disable=SC2086 # the runs are a space-separated list
    for i in "${!shas[@]}"; do printf ' %24s' "$(median ${got[$i]})"; done
    # shellcheck disable=SC2086
    for f in "${empty_forms[@]}"; do printf ' %11s' "$(median ${got[empty_$f]})"; done
    printf '   [%s ]\n' "$(for i in "${!shas[@]}"; do printf '%s;' "${got[$i]}"; done)"
    unset got
done
