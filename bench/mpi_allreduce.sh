#!/bin/sh
# docs/mpi.md's all-reduce figures: hlo-run's all-reduce of 64 MB (f32,
# one device per process) over 2 and 4 processes against MPI_Allreduce of
# the same size in the same run (bench/mpi_allreduce.cc, the limit of the
# engine hlo-run rides on). hlo-run runs one thread per process, as
# MPI_Allreduce does. Usage: bench/mpi_allreduce.sh [BUILD_DIR]
set -eu
build=${1:-build}
mpirun_flags="--oversubscribe"
[ "$(id -u)" = 0 ] && mpirun_flags="$mpirun_flags --allow-run-as-root"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# One line per computation: HLO text does not care about line breaks.
printf '%s\n' 'HloModule allreduce_64mb' \
  'sum { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }' \
  'ENTRY main { x = f32[16777216] parameter(0)  ROOT r = f32[16777216] all-reduce(x), replica_groups={}, to_apply=sum }' \
  > "$dir/allreduce.hlo"
for np in 2 4; do
  # shellcheck disable=SC2086
  mpirun $mpirun_flags -np $np "$build/bench/mpi_allreduce" 16777216 5
  # shellcheck disable=SC2086
  mpirun $mpirun_flags -np $np "$build/tools/hlo-run" "$dir/allreduce.hlo" --replicas=$np \
    --random-inputs --iterations=5 --threads=1 --output-dir="$dir/out" 2>&1 | grep 'runs:' |
    sed "s/^/hlo-run all-reduce 64 MB over $np processes: /"
done
