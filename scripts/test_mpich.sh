#!/usr/bin/env bash
# hlo-run built against MPICH and run under MPICH's launcher (docs/mpi.md,
# "MPICH"): the MPI tests of testdata/mpi/check_mpi.py (the collective lit
# modules over 2 and 4 processes, the fault cases, the traffic table, the
# corpus models with partitions) bit for bit against the threaded run, and
# OpenMPI's mpirun (when installed) refused with a clear error.
#
# Opt-in: it needs Debian's mpich and libmpich-dev beside OpenMPI and a
# second build tree, so it runs only with HLO_TEST_MPICH=1 (ctest
# mpi/mpich). Otherwise, or without MPICH, it reports itself skipped (77).
#
# Usage: scripts/test_mpich.sh [BUILD_DIR]  (default: build-mpich in the
# checkout). Knobs: CMAKE_BUILD_PARALLEL_LEVEL (the build's jobs),
# HLO_SHARED_DIR (the shared corpus, default ../shared beside the checkout).
set -euo pipefail

if [[ "${HLO_TEST_MPICH:-0}" != 1 ]]; then
  echo "MPICH test skipped: set HLO_TEST_MPICH=1 to run it (needs mpich + libmpich-dev and a second build)"
  exit 77
fi
mpicxx=/usr/bin/mpicxx.mpich
mpiexec=/usr/bin/mpiexec.mpich
if [[ ! -x "$mpicxx" || ! -x "$mpiexec" ]]; then
  echo "MPICH test skipped: $mpicxx or $mpiexec is missing (apt-get install mpich libmpich-dev)"
  exit 77
fi

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$src/build-mpich}"
shared="${HLO_SHARED_DIR:-$src/../shared}"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi

# FindMPI asks the MPICH compiler wrapper for its flags; its default
# launcher would be /usr/bin/mpiexec, OpenMPI's when both are installed, so
# the launcher is named too.
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
  -DHLO_WITH_MPI=ON -DMPI_CXX_COMPILER="$mpicxx" -DMPIEXEC_EXECUTABLE="$mpiexec" >/dev/null
cmake --build "$build" --target hlo-run
hlo_run="$build/tools/hlo-run"

# FindMPI silently takes another MPI when the wrapper does not answer: make
# sure this is the MPICH build.
if ! ldd "$hlo_run" | grep -q 'libmpich\.so'; then
  echo "FAIL: $hlo_run is not linked with libmpich:"; ldd "$hlo_run" | grep -i mpi || true
  exit 1
fi

check=(python3 "$src/testdata/mpi/check_mpi.py" --hlo-run "$hlo_run" --mpirun "$mpiexec")
lit=("$src"/testdata/run/collective/*.hlo)
"${check[@]}" --np 2 --lit "${lit[@]}"
"${check[@]}" --np 4 --lit "${lit[@]}"
foreign=()
if [[ -x /usr/bin/mpirun.openmpi ]]; then foreign=(--foreign-launcher /usr/bin/mpirun.openmpi); fi
"${check[@]}" --traffic --faults "$src/testdata/run/collective" "${foreign[@]}"
models="$shared/corpus/models"
if [[ -d "$models" ]]; then
  for np in 2 4; do
    "${check[@]}" --np "$np" --module "$models/jax_fft3d_ifft_c64_spmd8.hlo" -- --random-inputs
  done
  "${check[@]}" --np 2 --module "$models/resnet34_residual_block_tf_bf16.hlo" -- \
    --random-inputs --partitions=4
else
  echo "note: $models is absent: the corpus models were not run"
fi
echo "OK: hlo-run built with $("$mpiexec" --version | sed -n 's/ *Version: *//p' | head -1 |
  sed 's/^/MPICH /') passed the MPI tests under $mpiexec"
