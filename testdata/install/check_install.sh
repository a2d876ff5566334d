#!/bin/bash
# check_install.sh BUILD_DIR WORK_DIR [CXXFLAGS]: installs BUILD_DIR into
# WORK_DIR/prefix with `cmake --install`, then builds and runs the consumer
# (testdata/install/consumer) against it twice: as a CMake project with
# find_package(HloToolchain), and with g++ and `pkg-config hlo_toolchain`.
# Both must print the optimized module and the same result.
set -euo pipefail
build=$1 work=$2 extra=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for f in bin/hlo-opt bin/hlo-run bin/hlo-bisect include/hlo_toolchain/ir/module.h \
         lib/libhlo_ir.a lib/cmake/HloToolchain/HloToolchainConfig.cmake lib/pkgconfig/hlo_toolchain.pc; do
  [[ -e "$work/prefix/$f" ]] || { echo "not installed: $f"; exit 1; }
done
"$work/prefix/bin/hlo-opt" --help > /dev/null

# 1. find_package
cmake -S "$here/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" > "$work/configure.log"
cmake --build "$work/cmake-build" > "$work/build.log"
"$work/cmake-build/consumer" > "$work/cmake.out"

# 2. pkg-config
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --exists hlo_toolchain
# shellcheck disable=SC2046
g++ $extra -O1 "$here/consumer/main.cc" -o "$work/pc-consumer" \
  $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs hlo_toolchain)
"$work/pc-consumer" > "$work/pc.out"

cmp "$work/cmake.out" "$work/pc.out"
cat "$work/cmake.out"
