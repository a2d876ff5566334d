#!/usr/bin/env bash
# Quick start: install what is missing, build (Ninja, Release), and run
# hlo-opt on a shipped example module: parse, verify, print it back.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ensure_deps
configure_and_build "$BUILD_DIR" "hlo-opt"

EXAMPLE="$ROOT/testdata/examples/mlp_softmax.hlo"
log "hlo-opt ${EXAMPLE#"$ROOT"/}  (parse + verify + print canonical form)"
"$BUILD_DIR/tools/hlo-opt" "$EXAMPLE"
log "ok: module verified; binary at ${BUILD_DIR#"$ROOT"/}/tools/hlo-opt (see docs/cli.md)"
