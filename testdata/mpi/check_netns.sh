#!/usr/bin/env bash
# hlo-run over MPI across a real network stack (docs/mpi.md, "Across a
# network"): two network namespaces joined by a veth pair stand in for two
# hosts. The launcher runs in the first; its ssh/rsh launcher is pointed
# at a script that starts the remote daemon with `ip netns exec` in the
# second instead of ssh, and the messages between processes are kept on
# TCP over the veth, without shared memory: OpenMPI's mpirun (btl tcp,
# the daemons' wire-up, oob, on the veth too) or MPICH's hydra mpiexec
# (UCX's tcp transport on the veth, for Debian's MPICH over UCX).
# Each namespace also gets its own host name (a UTS namespace), so the
# processes really report two hosts. testdata/mpi/check_mpi.py then runs
# lit modules of testdata/run/collective (all-reduce, all-gather, and
# collective-broadcast with send/recv) and an all-reduce of 4 MB over the
# two "hosts", bit for bit against the threaded run, and the veth's byte
# counters must show that the all-reduce's data crossed it.
#
# Usage: check_netns.sh HLO_RUN COLLECTIVE_DIR [PYTHON [MPIRUN]]
# Skipped (77) when not root, when `ip netns`/veth are not permitted, or
# when MPIRUN is neither OpenMPI's mpirun nor MPICH's mpiexec. Bounded in
# time (timeouts on every run); the namespaces are removed on every exit
# (trap), and those of an earlier run that was killed at the start.
set -euo pipefail

hlo_run=$1
collective=$2
python=${3:-python3}
mpirun=${4:-$(command -v mpirun || true)}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SKIP=77

skip() { echo "SKIP: $*"; exit $SKIP; }
[[ $(id -u) == 0 ]] || skip "needs root for ip netns (network namespaces as hosts)"
command -v ip >/dev/null || skip "no ip (apt-get install iproute2)"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
version=$([[ -n "$mpirun" ]] && "$mpirun" --version 2>/dev/null || true)
if grep -qE 'Open MPI|OpenRTE' <<<"$version"; then
  kind=openmpi
elif grep -q 'HYDRA' <<<"$version"; then
  kind=hydra
else
  skip "needs OpenMPI's mpirun or MPICH's mpiexec (their ssh launchers); got '${mpirun:-none}'"
fi

# OpenMPI's own allocations are not ours to report under LeakSanitizer
# (as in check_mpi.py).
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"

prefix=hlo-netns
ns_a=$prefix-$$-a
ns_b=$prefix-$$-b
addr_a=10.231.0.1
addr_b=10.231.0.2
dev=hlonet  # the veth's end in each namespace (same name in both)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hlo-netns.XXXXXX")

remove_ns() {  # end what still runs in the namespace (only this test's), then remove it
  local ns=$1 pid
  for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
  ip netns del "$ns" 2>/dev/null || true
}
child=
# Runs "$@" in the background and waits for it: a signal then interrupts
# the wait and the trap runs at once (bash runs traps only after a
# foreground command ends).
run() {
  "$@" &
  child=$!
  local status=0
  wait "$child" || status=$?
  child=  # ended: its PID may be reused, the trap must not signal it
  if (( status == 124 )); then echo "FAIL: timed out: $*"; fi
  return $status
}
cleanup() {
  if [[ -n $child ]]; then kill -TERM "$child" 2>/dev/null || true; fi  # timeout passes it on
  remove_ns "$ns_a"
  remove_ns "$ns_b"
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# Namespaces of a run that was killed before its trap ran (its PID is gone).
for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
  if [[ $ns =~ ^$prefix-([0-9]+)-[ab]$ ]] && ! kill -0 "${BASH_REMATCH[1]}" 2>/dev/null; then
    remove_ns "$ns"
  fi
done

ip netns add "$ns_a" 2>/dev/null || skip "ip netns add is not permitted here"
ip netns add "$ns_b"
ip netns exec "$ns_a" unshare --uts true 2>/dev/null ||
  skip "ip netns exec or unshare --uts is not permitted here"
ip link add name $dev netns "$ns_a" type veth peer name $dev netns "$ns_b" 2>/dev/null ||
  skip "cannot create a veth pair here"
ip -n "$ns_a" addr add $addr_a/24 dev $dev
ip -n "$ns_b" addr add $addr_b/24 dev $dev
for ns in "$ns_a" "$ns_b"; do
  ip -n "$ns" link set lo up  # each daemon reaches its own processes over loopback
  ip -n "$ns" link set $dev up
done
# A veth end reports "up" a moment after it is set up; MPI started before
# that finds no usable interface.
for ns in "$ns_a" "$ns_b"; do
  for _ in $(seq 100); do
    [[ $(ip netns exec "$ns" cat /sys/class/net/$dev/operstate) == up ]] && break
    sleep 0.1
  done
  [[ $(ip netns exec "$ns" cat /sys/class/net/$dev/operstate) == up ]] ||
    { echo "FAIL: the veth in $ns is not up after 10 s"; exit 1; }
done

# The ssh stand-in: "AGENT [-x] HOST COMMAND..." runs COMMAND (a shell
# command line, as ssh would) in the namespace that holds HOST, under that
# host's name. (Hydra passes ssh's -x first.)
cat >"$tmp/agent.sh" <<EOF
#!/bin/sh
while [ "\${1#-}" != "\$1" ]; do shift; done
case "\$1" in
  $addr_a) ns=$ns_a ;;
  $addr_b) ns=$ns_b ;;
  *) echo "netns agent: unknown host \$1" >&2; exit 1 ;;
esac
shift
exec ip netns exec "\$ns" unshare --uts sh -c 'hostname "\$0" && eval "\$1"' "\$ns" "\$*"
EOF
# The launcher check_mpi.py calls: mpirun inside the first "host", with the
# switches above; it adds -np (and OpenMPI's root/oversubscribe switches).
if [[ $kind == openmpi ]]; then
  printf '%s slots=1\n%s slots=1\n' $addr_a $addr_b >"$tmp/hosts"
  # The sanitizer options go to the remote process too (mpirun forwards
  # only what -x names to a daemon started through the agent).
  switches="--hostfile $tmp/hosts --mca plm_rsh_agent $tmp/agent.sh --mca btl tcp,self \\
  --mca btl_tcp_if_include $dev --mca oob_tcp_if_include $dev \\
  \${ASAN_OPTIONS+-x ASAN_OPTIONS} \${UBSAN_OPTIONS+-x UBSAN_OPTIONS}"
  np2=(--allow-run-as-root --oversubscribe -np 2)
else
  # Hydra passes the whole environment on; -iface is its own wire-up.
  switches="-launcher ssh -launcher-exec $tmp/agent.sh -hosts $addr_a,$addr_b -iface $dev \\
  -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES $dev"
  np2=(-np 2)
fi
cat >"$tmp/mpirun.sh" <<EOF
#!/bin/sh
exec ip netns exec $ns_a unshare --uts sh -c 'hostname "\$0" && exec "\$@"' $ns_a \\
  $mpirun $switches "\$@"
EOF
chmod +x "$tmp/agent.sh" "$tmp/mpirun.sh"

# An all-reduce of 4 MB with one device per process: each process sends
# half of its operand to be reduced by the other and the reduced half back
# (docs/distributed.md), 4 MB out of each "host" per run.
cat >"$tmp/allreduce_4mb.hlo" <<'EOF'
HloModule allreduce_4mb, replica_count=2
sum { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main {
  x = f32[1048576] parameter(0)
  ROOT r = f32[1048576] all-reduce(x), replica_groups={}, to_apply=sum
}
EOF

bytes() { ip netns exec "$ns_a" cat "/sys/class/net/$dev/statistics/$1_bytes"; }
# check_mpi.py's own temporary files go into ours, which the trap removes.
check=(env TMPDIR="$tmp" timeout -k 10 120 "$python" "$here/check_mpi.py" --hlo-run "$hlo_run"
  --mpirun "$tmp/mpirun.sh" --np 2)

run "${check[@]}" --lit "$collective/all_reduce.hlo" "$collective/all_gather.hlo" \
  "$collective/broadcast_send_recv.hlo" >"$tmp/lit.out" || { cat "$tmp/lit.out"; exit 1; }
cat "$tmp/lit.out"
grep -q '^OK: 3 runs compared' "$tmp/lit.out" || { echo "FAIL: expected 3 runs compared"; exit 1; }

tx0=$(bytes tx); rx0=$(bytes rx)
# check_mpi.py launches the module twice (stdout, then every device's .npy).
run "${check[@]}" --module "$tmp/allreduce_4mb.hlo" -- --random-inputs
tx=$(( $(bytes tx) - tx0 )); rx=$(( $(bytes rx) - rx0 ))
need=$(( 2 * 4 * 1048576 ))
echo "veth $dev of $ns_a during the 4 MB all-reduce runs: sent $tx bytes, received $rx bytes (at least $need each way expected)"
if (( tx < need || rx < need )); then
  echo "FAIL: the all-reduce's data did not cross the veth"
  exit 1
fi

# The processes ran on the two "hosts": the run's notes name them.
run timeout -k 10 60 "$tmp/mpirun.sh" "${np2[@]}" "$hlo_run" \
  "$collective/all_reduce.hlo" --replicas=4 --random-inputs >/dev/null 2>"$tmp/notes" ||
  { cat "$tmp/notes"; exit 1; }
for line in "process 0 of 2 (host $ns_a) runs devices 0-1" "process 1 of 2 (host $ns_b) runs devices 2-3"; do
  grep -qF "$line" "$tmp/notes" || { echo "FAIL: no note '$line' in:"; cat "$tmp/notes"; exit 1; }
done
echo "OK ($kind): hlo-run over TCP between network namespaces $ns_a and $ns_b agrees bit for bit with the threaded run"
