#!/usr/bin/env bash
# Installs what Tollgate needs to build, test and run its demo on Debian 12 / Ubuntu 23.04+.
# Idempotent: silent and without apt-get calls when everything is already installed.
#
# The tests and `tollgate --demo` start their own redis-server on a free port, so the system
# service that the redis-server package may start (or fail to start, without systemd) is never
# used and never required.
#
#   setup.sh [--demo] [extra packages...]
#
# --demo installs only what building the console and running `tollgate --demo` need (what
# scripts/demo.sh asks for): a fresh machine then waits for a third of the downloads.
set -euo pipefail

demo_only=false
if [[ "${1:-}" == "--demo" ]]; then
    demo_only=true
    shift
fi

# Building the console and running its demo.
demo_packages=(
    build-essential cmake ninja-build pkg-config
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev
    # Qt6ChartsConfig.cmake requires Qt6OpenGL, which qt6-base-dev does not pull in on Debian 12;
    # Qt6GuiConfig.cmake requires OpenGL headers (WrapOpenGL). XKB is optional there: no
    # libxkbcommon-dev needed.
    libqt6opengl6-dev libgl-dev
    libhiredis-dev qtkeychain-qt6-dev
    redis-server redis-tools openssl
    # tollgatectl's policy files (policy export / apply); CMake configures every target
    libyaml-cpp-dev
    # tollgated, the rate limit service the demo runs too: gRPC for Envoy's RLS
    libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
    # `tollgate --demo --twemproxy`: Redis behind Twemproxy (also tests/support/Twemproxy)
    nutcracker
)
# Building and running everything else: the CLI, the tests and the benchmarks.
packages=(
    "${demo_packages[@]}"
    # Sentinel tests (tests/support/RedisSentinelGroup) start their own sentinels
    redis-sentinel
    # tests: the second-language client (tests/python), IANA zones for QTimeZone
    python3 tzdata
    # tollgated's tests: a gRPC client that is not ours (Python; protoc and grpc_python_plugin
    # from protobuf-compiler-grpc generate its stubs from proto/), curl for the HTTP endpoint
    python3-grpcio python3-protobuf curl
    # metrics: the exporter's tests run a private prometheus and promtool
    prometheus
    # SSH tunnels: the client runs them (core/ssh); the tests start a private sshd of their own
    openssh-client openssh-server
    # Headless runs: the offscreen platform needs fonts to lay out text; xvfb-run needs xauth.
    xvfb xauth fonts-dejavu-core
    # Debian packages (scripts/package.sh, integration.Packages): dpkg-shlibdeps, file for
    # CPack's stripping, lintian for the check.
    dpkg-dev file lintian
    # The faster linker for the test executables (CMakeLists.txt falls back to gold without it).
    lld
    # The Python client (clients/python): redis-py, its wheel built offline, pytest, the
    # frameworks its middleware serves, limits for its benchmark
    python3-redis python3-setuptools python3-wheel python3-pip python3-venv python3-pytest
    python3-fastapi python3-starlette python3-flask python3-httpx python3-limits
    # The PHP client (clients/php): PHP 8.2 with phpredis and Predis, its tests, its archive
    php-cli php-redis php-predis phpunit composer unzip
    # The conformance suite's tollgatectl and tollgated runners (conformance/runners), and the
    # Java example against tollgated's HTTP endpoint (examples/java, java.net.http)
    python3-redis default-jdk-headless
    # The Go client (clients/go, ctest clients.go): Go 1.19 and redigo, offline from Debian.
    golang-go golang-github-gomodule-redigo-dev
)
if [[ $demo_only == true ]]; then
    packages=("${demo_packages[@]}")
fi
# The Node client's tests (clients/node, ctest clients.node): node and npm, which fetches the
# test dependencies from the npm registry. NodeSource's nodejs brings its own npm.
if [[ $demo_only == false ]]; then
    packages+=(nodejs)
    command -v npm >/dev/null 2>&1 || packages+=(npm)
fi
# Extra packages a caller needs besides these (scripts/prometheus-screenshot.sh: chromium).
packages+=("$@")

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "setup.sh: not a Debian/Ubuntu system; install the equivalents of:" >&2
    echo "  ${packages[*]}" >&2
    exit 0
fi

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$package")
    fi
done
if ((${#missing[@]} == 0)); then
    exit 0
fi

as_root=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        as_root=(sudo)
    else
        echo "setup.sh: missing packages: ${missing[*]}" >&2
        echo "setup.sh: not root and no sudo: install them as root, then run this again." >&2
        exit 1
    fi
fi

echo "setup.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Daemons that packages would start (prometheus on :9090) are never used: the tests start their
# own on free ports. policy-rc.d exit 101 tells the maintainer scripts not to start them.
policy_rc=/usr/sbin/policy-rc.d
made_policy_rc=false
if [[ ! -e $policy_rc ]]; then
    "${as_root[@]}" sh -c "printf '#!/bin/sh\\nexit 101\\n' > $policy_rc && chmod 755 $policy_rc"
    made_policy_rc=true
    trap '[[ $made_policy_rc == true ]] && "${as_root[@]}" rm -f "$policy_rc"' EXIT
fi
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
# ... nor at the next boot. The machine's own sshd only when this run installed it: one that was
# there before is someone's way in and stays as it was.
for service in prometheus redis-sentinel; do
    if [[ -d /run/systemd/system ]] && systemctl is-enabled --quiet "$service" 2>/dev/null; then
        "${as_root[@]}" systemctl disable --now "$service"
    fi
done
if [[ " ${missing[*]} " == *" openssh-server "* ]]; then
    if [[ -d /run/systemd/system ]]; then
        "${as_root[@]}" systemctl disable --now ssh.service ssh.socket >/dev/null 2>&1 || true
    elif command -v systemctl >/dev/null 2>&1; then
        # Not booted with systemd (a container): the unit links and the init script's alike.
        "${as_root[@]}" systemctl disable ssh.service ssh.socket >/dev/null 2>&1 || true
    fi
    if command -v update-rc.d >/dev/null 2>&1; then
        "${as_root[@]}" update-rc.d ssh disable >/dev/null 2>&1 || true
    fi
fi
