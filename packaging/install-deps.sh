#!/usr/bin/env bash
# Installs every Debian package AttnLab needs to build, test and run.
# Idempotent: packages already installed are skipped; safe to run repeatedly.
# Works as root or through sudo. Fails with a clear message when apt is missing.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build ccache pkg-config git clang-format
  # Qt 6 and plotting
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libgl-dev
  # engine
  libtorch-dev
  # c10d's ProcessGroupGloo.hpp includes <gloo/...> headers that libtorch-dev does not pull in
  libgloo-dev
  # an optimised BLAS: the reference BLAS runs matrix products ~33x slower
  libopenblas0-pthread libopenblas0-openmp
  # storage and tokenizer
  libhdf5-dev hdf5-tools libsentencepiece-dev sentencepiece
  # header libraries
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev
  # tests: network namespaces for the two-machine rehearsal (ip netns, veth)
  iproute2
  # tests, screenshots, cross-checks from Python
  xvfb xauth python3 python3-h5py python3-numpy python3-sentencepiece python3-torch python3-scipy
  # exported PDF figures rendered back to images (pdftoppm)
  poppler-utils
  # offline English corpus for the demo
  wordnet-base
  # the Debian package (cpack -G DEB, dpkg-shlibdeps, file), its man pages, icons and checks
  # (packaging/test-package.sh: lintian, desktop-file-validate, appstreamcli)
  dpkg-dev file help2man librsvg2-bin lintian desktop-file-utils appstream
  # the fuzz step (tests/fuzz/run_fuzzers.sh): clang and libFuzzer's runtime, which
  # --no-install-recommends would otherwise leave out
  clang libclang-rt-14-dev
)

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps: apt-get/dpkg-query not found. This installer supports Debian 12 (bookworm) or a derivative;" >&2
  echo "install-deps: install these packages by other means: ${PACKAGES[*]}" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-deps: not root and sudo is not available; run as root: $0" >&2
    exit 1
  fi
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
else
  echo "install-deps: installing ${#missing[@]} missing package(s): ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "install-deps: done"
fi

# Make sure the BLAS alternative points at OpenBLAS (it does after a plain install,
# but a machine that had another BLAS selected by hand keeps that choice).
blas_target=$(readlink -f /etc/alternatives/libblas.so.3-"$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)" 2>/dev/null || true)
case "$blas_target" in
  *openblas*) ;;
  *) echo "install-deps: warning: libblas.so.3 resolves to '${blas_target:-unknown}', not OpenBLAS; matrix products will be slow" >&2 ;;
esac
