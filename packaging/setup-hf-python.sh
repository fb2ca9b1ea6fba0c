#!/usr/bin/env bash
# The Python that core_test_hf_tokenizers compares AttnLab's WordPiece and byte-level BPE
# with (docs/pretrained.md, "Tokenizers"): a virtual environment in build/hf-venv with the
# pinned Hugging Face `tokenizers` wheel. It sees the system's site-packages (Debian's numpy,
# h5py) and never touches the system Python. Idempotent: quick when the pin is installed.
# The test finds it through the CMake cache variable ATTNLAB_HF_PYTHON (default
# build/hf-venv/bin/python) and is skipped, saying to run this script, when it is absent.
#
#   bash packaging/setup-hf-python.sh
#
# Environment: ATTNLAB_HF_VENV (default build/hf-venv), ATTNLAB_TOKENIZERS_VERSION (0.23.3).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${ATTNLAB_HF_VENV:-build/hf-venv}
version=${ATTNLAB_TOKENIZERS_VERSION:-0.23.3}

installed=$("$venv/bin/python" -c 'import tokenizers; print(tokenizers.__version__)' 2> /dev/null || true)
if [ "$installed" = "$version" ]; then
  echo "setup-hf-python: tokenizers ${version} already in ${venv}"
  exit 0
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "setup-hf-python: creating ${venv} (/usr/bin/python3 -m venv --system-site-packages)"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
echo "setup-hf-python: installing tokenizers==${version} into ${venv}${installed:+ (had ${installed})}"
"$venv/bin/pip" install --disable-pip-version-check -q "tokenizers==${version}"
echo "setup-hf-python: $("$venv/bin/python" -c 'import tokenizers; print("tokenizers", tokenizers.__version__)') in ${venv}"
