#!/usr/bin/env bash
# ctest driver of the xla-peer label: run_peer_test.sh VENV xla_peer.py ARGS...
# Exit 77 (ctest: skipped) with the set-up command when the peer
# environment does not exist.
set -uo pipefail
venv="$1" script="$2"
shift 2
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import jax' 2>/dev/null; then
  echo "SKIPPED: the XLA:CPU peer environment $venv is not set up;"
  echo "         run scripts/peer-setup.sh (pip installs the pinned jax/jaxlib), then rerun."
  exit 77
fi
exec "$venv/bin/python" "$script" --python "$venv/bin/python" "$@"
