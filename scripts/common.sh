# Shared helpers of scripts/quickstart.sh and scripts/test.sh (sourced).
# Environment knobs:
#   JOBS=N            parallel build/test jobs (default 2)
#   HLO_SKIP_DEPS=1   do not check/install Debian packages
#   BUILD_DIR=DIR     Release build directory (default: build)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-2}"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"

# Everything a fresh Debian 12 needs to build and test (no torch; numpy
# and pytest for the Python module's tests).
HLO_PACKAGES=(
  g++ cmake ninja-build pkg-config ccache
  libabsl-dev libre2-dev libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev libopenblas-pthread-dev libfftw3-dev libdnnl-dev libmimalloc-dev
  llvm-14-tools clang-14 libclang-rt-14-dev python3
  graphviz  # hlo-opt --emit=html renders its SVG with `dot -Tsvg`
  libopenmpi-dev openmpi-bin
  iproute2  # ip netns: the MPI test across a network stack (testdata/mpi/check_netns.sh)
  libprotobuf-dev protobuf-compiler  # XLA's HloModuleProto / HloSnapshot (proto/)
  python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pytest
)

log() { printf '\n==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Installs the packages that are missing (apt-get update + install only if
# something is missing; checked with dpkg).
ensure_deps() {
  if [[ "${HLO_SKIP_DEPS:-0}" == 1 ]]; then return 0; fi
  local missing=() p
  for p in "${HLO_PACKAGES[@]}"; do
    if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
      missing+=("$p")
    fi
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    log "all ${#HLO_PACKAGES[@]} Debian packages present"
    return 0
  fi
  log "installing missing packages: ${missing[*]}"
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || die "not root and no sudo: install ${missing[*]}"
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update </dev/null
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
}

# configure_and_build DIR [TARGET|""] [extra cmake args...]
configure_and_build() {
  local dir="$1" target="$2"
  shift 2
  log "configure $dir ($*)"
  local launcher=()
  if command -v ccache >/dev/null; then
    # The cache lives outside the clone (~/.cache/ccache); paths below ROOT
    # are hashed relative to it, so a fresh clone elsewhere still hits.
    export CCACHE_BASEDIR="$ROOT"
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" </dev/null
  log "build $dir${target:+ (target $target)}"
  if [[ -n "$target" ]]; then
    ninja -C "$dir" -j"$JOBS" $target </dev/null  # $target may name several targets
  else
    ninja -C "$dir" -j"$JOBS" </dev/null
  fi
}
