#!/usr/bin/env bash
# Packs a headless CUDA build (packaging/setup-cuda.sh with ATTNLAB_CUDA_GUI=OFF) for a machine
# that has an NVIDIA GPU and torch 2.11 (CUDA 13.0) in its python3, but neither Debian's
# libraries nor this build: the stripped executables, their CTest files, every shared library
# they need that is neither LibTorch's (that machine's wheel provides those) nor the C and C++
# runtime's, and WordNet's data files (the tiny demo's corpus). One archive, because the
# machine that gets it is reached through a size-limited copy of the working tree.
# packaging/run-gpu-check.sh unpacks and runs it there (docs/gpu.md, "Checking on a GPU").
#
#   bash packaging/pack-gpu-check.sh [BUILD_DIR] [ARCHIVE]
#
# BUILD_DIR defaults to build/cuda-headless, ARCHIVE to .gpucheck/gpu-check.tar.xz.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/cuda-headless}
archive=${2:-.gpucheck/gpu-check.tar.xz}
[ -x "$build_dir/bin/attnlab-cli" ] || {
  echo "pack-gpu-check: $build_dir/bin/attnlab-cli not found: build the CUDA line first" >&2
  exit 1
}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/.lib" "$stage/.wordnet"
find "$build_dir/bin" -maxdepth 1 -type f -executable -exec cp {} "$stage/bin/" \;
# The SentencePiece bridge and its host process, loaded at run time from lib/<arch>/attnlab.
(cd "$build_dir" && find lib -path '*attnlab/*' -type f) | while read -r f; do
  mkdir -p "$stage/$(dirname "$f")"
  cp "$build_dir/$f" "$stage/$f"
done
strip --strip-unneeded "$stage"/bin/* $(find "$stage/lib" -type f 2> /dev/null)
(cd "$build_dir" && find . -name CTestTestfile.cmake) | while read -r f; do
  mkdir -p "$stage/$(dirname "$f")"
  cp "$build_dir/$f" "$stage/$f"
done

# The C library, the C++ runtime and the dynamic loader come from that machine; LibTorch and
# CUDA's libraries from its torch wheel (their paths here lie in the wheel's folder).
runtime='/(libc|libm|libpthread|libdl|librt|libutil|libresolv|libgcc_s|libstdc\+\+|ld-linux-x86-64)\.so'
ldd "$stage"/bin/* $(find "$stage/lib" -type f) 2> /dev/null | awk '/=> \// {print $3}' | sort -u |
  grep -v -e torch-venv -e '/nvidia/' | grep -Ev "$runtime" |
  while read -r lib; do cp -L "$lib" "$stage/.lib/"; done
cp /usr/share/wordnet/data.* "$stage/.wordnet/"

mkdir -p "$(dirname "$archive")"
tar -C "$stage" -cJf "$archive" .
echo "pack-gpu-check: $(du -h "$archive" | cut -f1) in $archive" \
  "($(ls "$stage/bin" | wc -l) executables, $(ls "$stage/.lib" | wc -l) libraries)"
