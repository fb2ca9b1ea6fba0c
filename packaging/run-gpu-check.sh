#!/usr/bin/env bash
# Runs the CUDA line on a machine with an NVIDIA GPU, from the archive that
# packaging/pack-gpu-check.sh made here: the engine's tests (CTest, on the GPU wherever a test
# trains with train.device = auto), the tiny demo trained in each precision through
# attnlab-cli, and the GPU benchmark against PyTorch 2.x eager and torch.compile on the same
# card. Everything it prints also goes to OUT_DIR (default $OUT, else gpu-check-out/).
#
#   bash packaging/run-gpu-check.sh [ARCHIVE]        # run as root, from the checkout's root
#
# That machine's python3 must hold torch 2.11 built for CUDA 13.0 (with h5py, numpy, scipy and
# sentencepiece for the cross-check tests). The build recorded two absolute paths, this
# checkout's (/work/main) and its torch environment's (build/torch-venv): the script makes
# both exist there, pointing at that checkout and that python's torch.
# Parts: ATTNLAB_GPU_CHECK_PARTS (default "tests agree demo bench views heads"; also resume: exact resume
# per precision, nccl: 2 processes, and modernbert: bench_gpu --modernbert, issue 43);
# ATTNLAB_GPU_CHECK_TESTS
# (a CTest regex; default every packed test); ATTNLAB_GPU_CHECK_BENCH_ARGS (more bench_gpu
# arguments, e.g. "--profile /tmp/profile"); time limits ATTNLAB_GPU_CHECK_TESTS_S (170) and
# ATTNLAB_GPU_CHECK_BENCH_S (230); each training run at most 120 s.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)
archive=${1:-.gpucheck/gpu-check.tar.xz}
out=${OUT:-$root/gpu-check-out}
mkdir -p "$out"
build=build/cuda-headless
log() { echo "== $(date +%T) $*" | tee -a "$out/summary.txt"; }

log "unpacking $archive"
mkdir -p "$build"
tar -C "$build" -xJf "$archive" 2> /dev/null ||
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
    "$archive" "$build" || exit 1
echo "machine: $(. /etc/os-release && echo "$PRETTY_NAME"), $(ldd --version | head -1), $(nproc) cores" |
  tee -a "$out/summary.txt"
if [ "$root" != /work/main ] && [ ! -e /work/main ]; then
  mkdir -p /work && ln -s "$root" /work/main
fi
python=$(command -v python3)
site=$("$python" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
mkdir -p build/torch-venv/bin build/torch-venv/lib/python3.11
ln -sfn "$site" build/torch-venv/lib/python3.11/site-packages
printf '#!/bin/sh\nexec %s "$@"\n' "$python" > build/torch-venv/bin/python
chmod +x build/torch-venv/bin/python
[ -e /usr/share/wordnet/data.noun ] || { mkdir -p /usr/share/wordnet && cp "$build"/.wordnet/* /usr/share/wordnet/; }

# Only the libraries that machine lacks, so that none of its own is shadowed.
libs=/tmp/attnlab-libs
mkdir -p "$libs"
for _ in 1 2 3 4 5 6; do
  missing=$(LD_LIBRARY_PATH=$libs ldd "$build"/bin/* $(find "$build/lib" -type f 2> /dev/null) 2> /dev/null | awk '/not found/ {print $1}' | sort -u)
  [ -z "$missing" ] && break
  for m in $missing; do [ -e "$build/.lib/$m" ] && ln -sf "$root/$build/.lib/$m" "$libs/$m"; done
done
export LD_LIBRARY_PATH=$libs
log "carried libraries used: $(ls "$libs" | wc -l); still missing: ${missing:-none}"

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$out/summary.txt"
"$build/bin/attnlab-cli" --version 2>&1 | tee -a "$out/summary.txt"

run_tests() {
  log "tests (CTest, -j8)"
  # The tests whose executables were packed (a partial build packs some), or those asked for.
  local built
  built=${ATTNLAB_GPU_CHECK_TESTS:-$(ls "$build/bin" | grep '_test_' | paste -sd'|')}
  timeout "${ATTNLAB_GPU_CHECK_TESTS_S:-170}" ctest --test-dir "$build" -j8 --timeout 160 \
    -R "^(${built})\$" --output-on-failure > "$out/ctest.log" 2>&1
  echo "ctest exit $?" | tee -a "$out/summary.txt"
  grep -E "tests passed|\*\*\*|Failed|Timeout|Not Run" "$out/ctest.log" | tee -a "$out/summary.txt"
}

# train NAME DEVICE PRECISION STEPS [--set ...]: the tiny preset, output appended to demo.log.
train() {
  local name=$1 device=$2 precision=$3 steps=$4
  shift 4
  echo "==== $name" >> "$out/demo.log"
  timeout 120 "$build/bin/attnlab-cli" train --config resources/configs/tiny.toml \
    --run-dir "/tmp/runs/$name" --set train.device="$device" --set train.precision="$precision" \
    --set schedule.steps="$steps" "$@" --plain > "/tmp/$name.log" 2>&1
  local status=$?
  cat "/tmp/$name.log" >> "$out/demo.log"
  echo "$name: exit $status; $(grep -E 'tok/s|validation' "/tmp/$name.log" | tail -2 | tr '\n' ' ')" |
    tee -a "$out/summary.txt"
}

run_demo() {
  log "tiny demo on the GPU in each precision and on the CPU (600 steps)"
  for p in float32 tf32 bf16 fp16; do train "tiny-$p" cuda "$p" 600; done
  train tiny-cpu cpu float32 600
  "$build/bin/attnlab-cli" analyze /tmp/runs/tiny-bf16 >> "$out/demo.log" 2>&1
  echo "analyze the bf16 run: exit $?" | tee -a "$out/summary.txt"
  cp /tmp/runs/tiny-bf16/run.h5 "$out/tiny-bf16-run.h5" 2> /dev/null
}

# The same 60 steps without dropout (the masking is drawn on the host either way) on the GPU
# and on the CPU, float32: the loss must agree at every step to float32 rounding.
run_agree() {
  log "GPU and CPU agree (60 steps, no dropout, float32)"
  local same=(--set model.dropout=0 --set model.attention_dropout=0 --set train.log_every=1
    --set schedule.warmup_steps=10)
  train agree-cuda cuda float32 60 "${same[@]}"
  train agree-cpu cpu float32 60 "${same[@]}"
  python3 - /tmp/runs/agree-cuda/run.h5 /tmp/runs/agree-cpu/run.h5 << 'PY' | tee -a "$out/summary.txt"
import hashlib, sys
import h5py, numpy as np
runs = [h5py.File(p, "r") for p in sys.argv[1:]]
gpu, cpu = (f["scalars/train/loss/value"][:] for f in runs)
rel = np.abs(gpu - cpu) / np.abs(cpu)
print(f"agree: {len(gpu)} steps; step 1 loss {gpu[0]:.6f} (GPU) {cpu[0]:.6f} (CPU); "
      f"largest relative difference {rel.max():.2e} at step {rel.argmax() + 1}; "
      f"at step 10 {rel[9]:.2e}; at the last {rel[-1]:.2e}")
for f in runs:
    pieces = "\n".join(x.decode() if isinstance(x, bytes) else str(x) for x in f["tokenizer/pieces"][()])
    print("tokenizer pieces md5", hashlib.md5(pieces.encode()).hexdigest())
PY
  md5sum /tmp/runs/agree-cpu/cache/corpus.txt /tmp/runs/agree-cpu/tokenizer.vocab \
    /usr/share/wordnet/data.noun | tee -a "$out/summary.txt"
  cp /tmp/runs/agree-cpu/tokenizer.vocab "$out/" 2> /dev/null
}

# Exact resume on the GPU, per precision: 40 steps uninterrupted against 20, stopped with a
# checkpoint, then resumed by the same command; every checkpoint tensor compared.
run_resume() {
  log "resume on the GPU: 40 steps against 20 + 20 (float32, fp16)"
  local p
  for p in float32 fp16; do
    train "resume-$p-a" cuda "$p" 40 --set schedule.warmup_steps=10 --set train.checkpoint_every=20
    train "resume-$p-b" cuda "$p" 40 --set schedule.warmup_steps=10 --set train.checkpoint_every=20 \
      --stop-after-step 20
    train "resume-$p-b" cuda "$p" 40 --set schedule.warmup_steps=10 --set train.checkpoint_every=20
    python3 - "/tmp/runs/resume-$p-a/checkpoints/step-0000040.h5" \
      "/tmp/runs/resume-$p-b/checkpoints/step-0000040.h5" "$p" << 'PY' | tee -a "$out/summary.txt"
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
keys = []
a["tensors"].visit(lambda k: keys.append(k) if isinstance(a["tensors"][k], h5py.Dataset) else None)
same = sum(np.array_equal(a["tensors"][k][()], b["tensors"][k][()]) for k in keys)
print(f"resume {sys.argv[3]}: {len(keys)} checkpoint tensors, {same} bitwise equal; "
      f"train/loss_scale {a['tensors/train/loss_scale'][()].tolist()}")
PY
  done
}

# Two processes on this machine (c10d: NCCL for CUDA tensors), whatever the number of GPUs.
run_nccl() {
  log "2 processes, train.device = cuda (NCCL)"
  train nccl-2 cuda float32 60 --nproc-per-node 2 --set schedule.warmup_steps=10
  grep -iE "error|nccl|rank" /tmp/nccl-2.log | head -5 | tee -a "$out/summary.txt"
}

# The views beyond the weights (attnlab-cli inspect) on the demo's GPU-trained bf16 checkpoint
# (after the demo part): every dataset written, rollout rows summing to 1.
run_views() {
  log "inspect weights, rollout, norms and lens of the bf16 demo run"
  "$build/bin/attnlab-cli" inspect /tmp/runs/tiny-bf16 --text "a plant or animal that is atypically small." \
    --out "$out/inspect-bf16.h5" --view weights,rollout,norms,lens --mask 3 2>&1 | tee -a "$out/summary.txt"
  python3 - "$out/inspect-bf16.h5" << 'PY' 2>&1 | tee -a "$out/summary.txt"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
names = []
f.visit(lambda k: names.append(k) if isinstance(f[k], h5py.Dataset) else None)
r = f["rollout"][()]
print(f"views: {len(names)} datasets ({', '.join(sorted(names))}); rollout {r.shape}, "
      f"largest |row sum - 1| {np.abs(r.sum(-1) - 1).max():.1e}")
PY
}

# The heads' analyses on the demo's GPU-trained runs (after the demo part): importance,
# ablation and pruning of the bf16 run; its heads matched with the float32 run's (the same
# seed and data: how far the precision moved them); a query-key map.
run_heads() {
  log "heads: analyze --heads, compare float32 vs bf16, qk-map (demo runs)"
  "$build/bin/attnlab-cli" analyze /tmp/runs/tiny-bf16 --heads --no-snapshots --plain \
    --out "$out/heads-bf16" 2>&1 | grep -E "heads|pruning|wrote" | tee -a "$out/summary.txt"
  "$build/bin/attnlab-cli" compare /tmp/runs/tiny-float32 /tmp/runs/tiny-bf16 --heads --plain \
    --out "$out/compare-float32-bf16" 2>&1 | tail -n 6 | tee -a "$out/summary.txt"
  "$build/bin/attnlab-cli" qk-map /tmp/runs/tiny-bf16 --layer 1 --all-heads --plain \
    --out "$out/qk-bf16.h5" 2>&1 | tail -n 2 | tee -a "$out/summary.txt"
}

for part in ${ATTNLAB_GPU_CHECK_PARTS:-tests agree demo bench views heads}; do
  case $part in
    nccl) run_nccl ;;
    resume) run_resume ;;
    tests) run_tests ;;
    views) run_views ;;
    heads) run_heads ;;
    agree) run_agree ;;
    demo) run_demo ;;
    bench)
      log "GPU benchmark"
      PYTHONUNBUFFERED=1 timeout "${ATTNLAB_GPU_CHECK_BENCH_S:-230}" "$build/bin/bench_gpu" \
        --python "$python" ${ATTNLAB_GPU_CHECK_BENCH_ARGS:-} 2>&1 | tee "$out/bench_gpu.txt"
      ;;
    modernbert)
      log "GPU benchmark, ModernBERT-base against transformers' ModernBertForMaskedLM"
      PYTHONUNBUFFERED=1 timeout "${ATTNLAB_GPU_CHECK_BENCH_S:-230}" "$build/bin/bench_gpu" \
        --modernbert --python "$python" 2>&1 | tee "$out/bench_gpu_modernbert.txt"
      ;;
  esac
done
log "done"
