#!/usr/bin/env bash
# Compares hlo-run with XLA:CPU (jaxlib) on every module of the standard
# suite (or the files/flags given) and regenerates the table of
# docs/xla-comparison.md. Builds hlo-opt/hlo-run (build/) and sets up the
# peer environment (scripts/peer-setup.sh) first if needed.
#
#   scripts/xla-peer.sh                      # the documented run: --suite,
#                                            # threads 1 and 2, -O and --no-opt
#   scripts/xla-peer.sh model.hlo --threads=2 --runs=10
#
# Arguments are passed to tools/xla_peer.py (see its --help). Knobs: JOBS,
# BUILD_DIR, HLO_SKIP_DEPS=1, HLO_PEER_VENV.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
VENV="${HLO_PEER_VENV:-$ROOT/.venv-peer}"

ensure_deps
if [[ ! -x "$BUILD_DIR/tools/hlo-run" || ! -x "$BUILD_DIR/tools/hlo-opt" ]]; then
  configure_and_build "$BUILD_DIR" "hlo-opt hlo-run"
else
  ninja -C "$BUILD_DIR" -j"$JOBS" hlo-opt hlo-run </dev/null >/dev/null
fi
bash "$ROOT/scripts/peer-setup.sh"

args=("$@")
if [[ ${#args[@]} -eq 0 ]]; then
  args=(--suite --threads=1,2 --no-opt --expect "$ROOT/testdata/xla_peer/expected.tsv"
        --markdown "$ROOT/docs/xla-comparison.md" --models-markdown "$ROOT/docs/performance.md")
fi
exec "$VENV/bin/python" "$ROOT/tools/xla_peer.py" --python "$VENV/bin/python" \
  --hlo-run "$BUILD_DIR/tools/hlo-run" --hlo-opt "$BUILD_DIR/tools/hlo-opt" "${args[@]}"
