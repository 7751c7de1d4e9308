#!/usr/bin/env bash
# The console connected through an SSH tunnel, for docs/screenshots/ssh-tunnel.png (or $1): a
# private redis-server and a private sshd on loopback (this user, generated host and user keys,
# a temporary directory; the machine's sshd and ~/.ssh are never touched), demo traffic sent
# through the tunnel (`tollgatectl simulate --ssh`), then the real console given the same
# `--ssh` under Xvfb taking its screenshot tour. Needs a build (scripts/build.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${1:-docs/screenshots/ssh-tunnel.png}"
ctl=build/app/tollgatectl
console=build/app/tollgate
[[ -x $ctl && -x $console ]] || { echo "ssh-screenshot.sh: build first (scripts/build.sh)" >&2; exit 1; }

dir="$(mktemp -d /tmp/tollgate-ssh-shot-XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
redis_port=$(free_port)
ssh_port=$(free_port)
user=$(id -un)

ssh-keygen -q -t ed25519 -N '' -C tollgate-shot -f "$dir/host_key"
ssh-keygen -q -t ed25519 -N '' -C tollgate-shot -f "$dir/user_key"
cp "$dir/user_key.pub" "$dir/authorized_keys"
cat >"$dir/sshd_config" <<CONF
Port $ssh_port
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
AllowTcpForwarding yes
CONF
echo "[127.0.0.1]:$ssh_port $(cut -d' ' -f1,2 "$dir/host_key.pub")" >"$dir/known_hosts"
cat >"$dir/ssh_config" <<CONF
Host bastion
  HostName 127.0.0.1
  Port $ssh_port
  User $user
  IdentityFile $dir/user_key
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile $dir/known_hosts
  GlobalKnownHostsFile /dev/null
CONF

redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
    --daemonize no >"$dir/redis.log" 2>&1 &
pids+=($!)
[[ $(id -u) -ne 0 ]] || mkdir -p /run/sshd # privilege separation, as root
/usr/sbin/sshd -D -f "$dir/sshd_config" -E "$dir/sshd.log" &
pids+=($!)
for _ in $(seq 100); do
    grep -q "Server listening" "$dir/sshd.log" 2>/dev/null && redis-cli -p "$redis_port" PING >/dev/null 2>&1 && break
    sleep 0.1
done

url="redis://127.0.0.1:$redis_port"
ssh=(--ssh bastion --ssh-config "$dir/ssh_config")
"$ctl" --url "$url" "${ssh[@]}" simulate --seconds 60 >/dev/null &
pids+=($!)
sleep 3

export TOLLGATE_NO_DIALOGS=1
unset QT_QPA_PLATFORM QT_STYLE_OVERRIDE
xvfb-run -a -s "-screen 0 1920x1080x24" \
    "$console" --url "$url" "${ssh[@]}" --screenshots "$dir/shots"
mkdir -p "$(dirname "$out")"
cp "$dir/shots/dashboard.png" "$out"
echo "ssh-screenshot.sh: wrote $out"
