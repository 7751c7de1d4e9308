#!/usr/bin/env bash
# The Go client's own cost per decision beside a bare EVALSHA loop of the same hit.lua, in one
# run against one private redis-server: decisions per second and the client process' CPU per
# decision of each, the same goroutines and random users, every hit allowed (how the figures
# are taken: bench/clients/go/main.go). Offline: Go and redigo from Debian (scripts/setup.sh), the scripts from build/lua.
#
#   bench/clients/go_bench.sh [--goroutines 8] [--slice 1] [--turn 0.1] [--rounds 15] [--users 1000]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
args=()
while (($#)); do
    case "$1" in
    --goroutines | --slice | --turn | --rounds | --users) args+=("-${1#--}" "$2"); shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
bash "$root/clients/go/copy-lua.sh"
cd "$root/bench/clients/go"
GOPROXY=off GOFLAGS=-mod=mod GOWORK=off go run . "${args[@]}"
