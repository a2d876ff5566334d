#!/bin/bash
# check_install.sh BUILD_DIR WORK_DIR [CXXFLAGS]: installs BUILD_DIR into
# WORK_DIR/prefix with `cmake --install`, then builds and runs the consumer
# (testdata/install/consumer) against it twice: as a CMake project with
# find_package(HloToolchain), and with g++ and `pkg-config hlo_toolchain`.
# Both must print the optimized module and the same results: the parsed
# module's and the one the builder (client/) made.
set -euo pipefail
build=$1 work=$2 extra=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for f in bin/hlo-opt bin/hlo-run bin/hlo-bisect include/hlo_toolchain/ir/module.h \
         include/hlo_toolchain/client/ops.h lib/libhlo_client.a lib/libhlo_ir.a lib/cmake/HloToolchain/HloToolchainConfig.cmake lib/pkgconfig/hlo_toolchain.pc; do
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
# The builder's module, as it prints, and its result.
for want in 'broadcast(%constant.2), dimensions={1}' 'ROOT %multiply.7 = f32[2,3]{1,0} multiply(' \
            'f32[2,3]{1,0} { { 22, 44, 66 }, { 28, 50, 72 } }'; do
  grep -qF "$want" "$work/cmake.out" || { echo "missing from the consumer's output: $want"; exit 1; }
done
if [[ -e "$work/prefix/include/hlo_toolchain/client/golden_examples.h" ]]; then
  echo "installed a test-only header: client/golden_examples.h"; exit 1
fi
# Last: ctest passes on the first result in this output (PASS_REGULAR_EXPRESSION).
cat "$work/cmake.out"
