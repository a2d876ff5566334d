#!/usr/bin/env bash
# Quick start: install what is missing, build (Ninja, Release), then on a
# shipped example module: hlo-opt parses, verifies and prints it back, and
# hlo-run executes it on the CPU with deterministic random inputs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ensure_deps
configure_and_build "$BUILD_DIR" "hlo-opt hlo-run"

EXAMPLE="$ROOT/testdata/examples/mlp_softmax.hlo"
log "hlo-opt ${EXAMPLE#"$ROOT"/}  (parse + verify + print canonical form)"
"$BUILD_DIR/tools/hlo-opt" "$EXAMPLE"
log "hlo-run ${EXAMPLE#"$ROOT"/} --random-inputs  (execute on the CPU)"
"$BUILD_DIR/tools/hlo-run" "$EXAMPLE" --random-inputs
log "ok: binaries in ${BUILD_DIR#"$ROOT"/}/tools (see docs/cli.md and docs/hlo-run.md)"
