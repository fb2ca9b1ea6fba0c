#!/usr/bin/env bash
# The second LibTorch line (docs/building.md, "The CUDA line"): installs the pinned `torch`
# wheel from Python's package index into a private virtual environment (never into the
# system Python, where Debian's python3-torch 1.13 lives), configures the `cuda` preset
# against the CUDA LibTorch inside that wheel with the machine's nvcc, and builds it.
#
#   bash packaging/setup-cuda.sh [BUILD_DIR]          # default build/cuda
#   bash packaging/setup-cuda.sh --headless-check [BUILD_DIR]
#
# --headless-check (CI's CUDA step): first packaging/check-headless.sh on this line (the
# headless targets built with Qt's GUI packages hidden, their tests run on the CPU); then,
# with ATTNLAB_CUDA_GUI=ON (the default), the same folder reconfigured with the GUI and every
# remaining target built, the benchmarks included. CI sets ATTNLAB_CUDA_GUI=OFF and stops
# after the headless check: the GUI targets' second build cost it about 16 minutes of its 90
# (docs/building.md, "What CI runs").
#
# Environment:
#   ATTNLAB_TORCH_VERSION  the wheel's version (default 2.11.0: the GPU machine's torch,
#                          built for CUDA 13.0 like this machine's nvcc)
#   ATTNLAB_TORCH_VENV     where the environment goes (default build/torch-venv)
#   ATTNLAB_CUDA_GUI       ON (default) builds every target, the desktop app and the
#                          benchmarks included; OFF builds the headless targets only (with
#                          --headless-check: the check's build and nothing more)
#   ATTNLAB_TEST_SCOPE     all (default) or engine: only the tests labelled `engine` (the
#                          model, the golden test, training, exact resume, c10d) are built
#                          and run; CI's CUDA step uses engine
#   TORCH_CUDA_ARCH_LIST   GPU architectures for TorchConfig (default "8.0;9.0": A100, H100;
#                          the project has no CUDA sources of its own, so this only silences
#                          TorchConfig's probe for a GPU that this machine does not have)
# A build made here runs on a machine whose Python holds the same torch wheel: its
# executables find libtorch through the RUNPATH of this environment, so that machine either
# gets this environment too (same path) or builds there with the same script.
set -euo pipefail
cd "$(dirname "$0")/.."
headless_check=0
if [ "${1:-}" = "--headless-check" ]; then
  headless_check=1
  shift
fi
build_dir=${1:-build/cuda}
torch_version=${ATTNLAB_TORCH_VERSION:-2.11.0}
venv=${ATTNLAB_TORCH_VENV:-build/torch-venv}
gui=${ATTNLAB_CUDA_GUI:-ON}

bash packaging/install-deps.sh test

if ! command -v nvcc > /dev/null 2>&1; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
  else
    echo "setup-cuda: nvcc not found (install the CUDA toolkit 13.x, or put its bin/ on PATH)" >&2
    exit 1
  fi
fi

# The environment sees the system's site-packages (Debian's h5py, numpy, sentencepiece and
# scipy, which the cross-check tests use) while its own torch shadows Debian's 1.13. numpy is
# deliberately not installed into it: a numpy 2 there would break Debian's h5py.
installed=$("$venv/bin/python" -c 'import torch; print(torch.__version__.split("+")[0])' 2> /dev/null || true)
if [ "$installed" != "$torch_version" ]; then
  echo "setup-cuda: installing torch ${torch_version} into ${venv} (about 3 GB with its CUDA libraries)"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install --disable-pip-version-check -q "torch==${torch_version}"
fi
# Hugging Face's libraries in the same environment, for core_test_hf_tokenizers and the
# export checks (ATTNLAB_HF_PYTHON below).
hf_installed=$("$venv/bin/python" -c 'import tokenizers, transformers, safetensors; print(tokenizers.__version__, transformers.__version__)' 2> /dev/null || true)
if [ "$hf_installed" != "0.23.3 5.24.0" ]; then
  echo "setup-cuda: installing tokenizers 0.23.3, transformers 5.24.0 and safetensors into ${venv}"
  "$venv/bin/pip" install --disable-pip-version-check -q "tokenizers==0.23.3" "transformers==5.24.0" safetensors
fi
torch_prefix=$("$venv/bin/python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
echo "setup-cuda: torch $("$venv/bin/python" -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda)'), CMake package in ${torch_prefix}"

export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-8.0;9.0}
# The wheel's TorchConfig searches its own folder only after the system's, where Debian's
# libtorch-dev also installs a TorchConfig: the prefix path puts the wheel's first.
torch_root=$(dirname "$(dirname "$torch_prefix")")
torch_defs=(-DATTNLAB_CUDA=ON -DCMAKE_PREFIX_PATH="${torch_root};${torch_prefix}"
  -DTorch_DIR="${torch_prefix}/Torch" -DCaffe2_DIR="${torch_prefix}/Caffe2"
  -DATTNLAB_PYTHON="$(cd "$venv" && pwd)/bin/python"
  -DATTNLAB_HF_PYTHON="$(cd "$venv" && pwd)/bin/python"
  -DATTNLAB_TEST_SCOPE="${ATTNLAB_TEST_SCOPE:-all}")
if [ "$headless_check" = 1 ]; then
  bash packaging/check-headless.sh "$build_dir" "${torch_defs[@]}" -- \
    -LE gui --output-on-failure -j2 --timeout 900
  if [ "$gui" != ON ]; then
    echo "setup-cuda: headless check passed; ATTNLAB_CUDA_GUI=${gui}: no GUI build"
    exit 0
  fi
fi
cmake --preset cuda -B "$build_dir" "${torch_defs[@]}" -DATTNLAB_GUI="$gui"
# `benchmarks`: the benchmarks, the soak and the widget gallery, which the default build leaves
# out; CI builds them here so they keep compiling (bench_gpu is the GPU check's benchmark).
cmake --build "$build_dir" --target all benchmarks
echo "setup-cuda: built ${build_dir}; run its tests with: ctest --test-dir ${build_dir}"
