#!/usr/bin/env bash
# Runs the Go client's tests offline: the module (standard library only) and the redigo
# adapter's module with redigo from Debian. Arguments go to both `go test` runs (e.g. -run Hit).
# The assembled scripts come from build/lua, or $TOLLGATE_LUA_DIR.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$here/copy-lua.sh"
export GOPROXY=off GOFLAGS=-mod=mod GOWORK=off
(cd "$here" && go vet ./... && go test -count=1 "$@" ./...)
(cd "$here/redigo" && go vet ./... && go test -count=1 "$@" ./...)
