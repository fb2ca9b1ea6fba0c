#!/usr/bin/env bash
# Installs the Debian packages AttnLab needs, by what they are for, so that the demo does not
# wait for the test and packaging tools:
#
#   bash packaging/install-deps.sh [GROUP...]      # default: all
#
#   demo     build the app, attnlab-cli and the tokenizer bridge, and train the demo
#   test     demo + what the test suite uses (Python cross-checks, Xvfb, network
#            namespaces, hdf5-tools, PDF rendering, clang-format, man pages)
#   package  the Debian package and its checks (packaging/test-package.sh)
#   fuzz     clang and libFuzzer's runtime (tests/fuzz/run_fuzzers.sh)
#   all      every group
#
# Idempotent: packages already installed are skipped; safe to run repeatedly.
# Works as root or through sudo. Fails with a clear message when apt is missing.
set -euo pipefail

DEMO=(
  # toolchain
  build-essential cmake ninja-build ccache pkg-config git
  # Qt 6 and plotting
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libgl-dev
  # engine
  libtorch-dev
  # c10d's ProcessGroupGloo.hpp includes <gloo/...> headers that libtorch-dev does not pull in
  libgloo-dev
  # an optimised BLAS: the reference BLAS runs matrix products ~33x slower
  libopenblas0-pthread libopenblas0-openmp
  # CBLAS header and link library: the attention rollout's products (analysis/attention)
  libblas-dev
  # storage and tokenizer
  libhdf5-dev libsentencepiece-dev
  # Unicode categories, NFD and lowercase for the Hugging Face tokenizers (core/tokenizer/unicode_text)
  libicu-dev
  # compressed corpora: .gz and .zst text and JSON lines (core/data/compressed_reader)
  zlib1g-dev libzstd-dev
  # header libraries
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev
  # offline English corpus for the demo
  wordnet-base
)
TEST=(
  clang-format hdf5-tools sentencepiece
  # function lengths (tests/style/function_lengths.py)
  universal-ctags
  # network namespaces for the two-machine rehearsal (ip netns, veth)
  iproute2
  # screenshots, cross-checks from Python
  xvfb xauth python3 python3-h5py python3-numpy python3-sentencepiece python3-torch python3-scipy
  # a private environment for Hugging Face's tokenizers (packaging/setup-hf-python.sh)
  python3-venv
  # exported PDF figures rendered back to images (pdftoppm)
  poppler-utils
  # man pages from --help (built when help2man is present) and the PNG icons
  help2man librsvg2-bin
)
PACKAGE=(
  # cpack -G DEB, dpkg-shlibdeps, file; lintian, desktop-file-validate, appstreamcli
  dpkg-dev file help2man librsvg2-bin lintian desktop-file-utils appstream
)
FUZZ=(
  # --no-install-recommends would otherwise leave out libFuzzer's runtime
  clang libclang-rt-14-dev
)

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(all)
PACKAGES=()
for g in "${groups[@]}"; do
  case "$g" in
    demo) PACKAGES+=("${DEMO[@]}") ;;
    test) PACKAGES+=("${DEMO[@]}" "${TEST[@]}") ;;
    package) PACKAGES+=("${PACKAGE[@]}") ;;
    fuzz) PACKAGES+=("${FUZZ[@]}") ;;
    all) PACKAGES+=("${DEMO[@]}" "${TEST[@]}" "${PACKAGE[@]}" "${FUZZ[@]}") ;;
    *)
      echo "install-deps: unknown group '$g' (demo, test, package, fuzz, all)" >&2
      exit 2
      ;;
  esac
done
mapfile -t PACKAGES < <(printf '%s\n' "${PACKAGES[@]}" | awk '!seen[$0]++')

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
