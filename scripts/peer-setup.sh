#!/usr/bin/env bash
# Creates the XLA:CPU peer environment: a virtual environment (ignored by
# git) with the pinned jax/jaxlib of scripts/peer-requirements.txt, used by
# tools/xla_peer.py and the `xla-peer` ctest label. Idempotent: quiet and
# quick when the environment already matches the requirements.
#
# Knobs: HLO_PEER_VENV (default: .venv-peer in the checkout),
#        HLO_SKIP_DEPS=1 (do not apt-get install python3-venv).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${HLO_PEER_VENV:-$ROOT/.venv-peer}"
REQS="$ROOT/scripts/peer-requirements.txt"
STAMP="$VENV/.hlo-peer-requirements"

if [[ -x "$VENV/bin/python" && -f "$STAMP" ]] && cmp -s "$REQS" "$STAMP"; then
  exit 0
fi

# Debian's python3 needs python3-venv (ensurepip) to create environments.
if ! /usr/bin/python3 -c 'import ensurepip' 2>/dev/null; then
  if [[ "${HLO_SKIP_DEPS:-0}" == 1 ]]; then
    echo "error: python3-venv is missing (apt-get install python3-venv)" >&2
    exit 1
  fi
  echo "peer-setup: installing python3-venv" >&2
  sudo=()
  [[ $(id -u) -ne 0 ]] && sudo=(sudo)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends python3-venv </dev/null
fi

echo "peer-setup: creating $VENV (jax/jaxlib from PyPI, about 600 MB)" >&2
rm -f "$STAMP"
/usr/bin/python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQS" </dev/null
"$VENV/bin/python" -c 'import jax, jaxlib, ml_dtypes; jax.devices("cpu")' >/dev/null 2>&1 ||
  { echo "error: jax does not import in $VENV" >&2; exit 1; }
cp "$REQS" "$STAMP"
echo "peer-setup: ready ($("$VENV/bin/python" -c 'import jax; print("jax", jax.__version__)'))" >&2
