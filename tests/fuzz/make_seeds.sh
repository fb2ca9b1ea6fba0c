#!/usr/bin/env bash
# Rebuilds tests/fuzz/seeds/ (docs/hardening.md, "Fuzzing"): the seed corpus of every harness,
# from the test fixtures, the shipped configs, a real tiny run made with attnlab-cli (run log,
# checkpoint, token store, analysis.json, coref.json and coref_examples.json of three datasets)
# and the small files attnlab_fuzz_make_seeds writes with the project's own writers; then the
# dictionaries (make_dicts.py).
#
# Usage: tests/fuzz/make_seeds.sh [ATTNLAB_CLI] [FUZZ_BUILD_DIR]
#   ATTNLAB_CLI      a working attnlab-cli (default build/release/bin/attnlab-cli: the GCC
#                    build, which can load the SentencePiece bridge)
#   FUZZ_BUILD_DIR   the fuzz build holding bin/attnlab_fuzz_make_seeds (default build/fuzz)
# Needs Debian's wordnet-base (the run's corpus) and python3-h5py (the JSON configs the run
# log holds). Takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
cli=$(realpath "${1:-build/release/bin/attnlab-cli}")
fuzz_build=$(realpath "${2:-build/fuzz}")
seeds=$root/tests/fuzz/seeds
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rm -rf "$seeds"
mkdir -p "$seeds"
for h in fuzz_config_toml fuzz_config_json fuzz_config_set fuzz_corpus fuzz_token_store \
         fuzz_conll fuzz_lin_reflexives fuzz_analysis_json fuzz_coref_json \
         fuzz_coref_examples_json fuzz_run_log fuzz_checkpoint fuzz_safetensors; do
  mkdir -p "$seeds/$h"
done

# A real run: 2 layers of 8 units, vocabulary 300, 4 steps, 400 WordNet glosses (about 5 s).
cat > "$work/small.toml" <<'TOML'
[run]
name = "fuzz-seed"
seed = 7
[corpus]
source = "wordnet"
max_lines = 400
[tokenizer]
vocab_size = 300
[data]
sequence_length = 64
validation_fraction = 0.1
[model]
layers = 2
hidden_size = 8
heads = 2
ffn_size = 16
max_positions = 64
[schedule]
steps = 4
warmup_steps = 1
[train]
batch_size = 2
eval_every = 2
eval_batches = 1
checkpoint_every = 2
keep_last = 1
log_every = 1
threads = 1
[log]
flush_seconds = 0.2
snapshot_sequences = 1
snapshot_sentences = ["the cat sat on the mat"]
TOML
# quiet <log name> <command...>: runs the command, showing its output only when it fails.
quiet() {
  local log=$work/$1.log
  shift
  "$@" > "$log" 2>&1 || { cat "$log"; echo "make_seeds: failed: $*" >&2; exit 1; }
}
run=$work/run
fixtures=$root/tests/fixtures/coref
quiet train "$cli" train --config "$work/small.toml" --run-dir "$run" --plain
quiet train-asa "$cli" train --config "$work/small.toml" --run-dir "$work/run-asa" --plain \
  --set run.name=fuzz-seed-asa --set attention.asa.enabled=true --set log.snapshot_scores=false \
  --set log.snapshot_log_spaced=false --set log.snapshot_every=4
quiet analyze "$cli" analyze "$run" --out "$work/analysis" --pairwise 2 --plain
quiet analyze-asa "$cli" analyze "$work/run-asa" --out "$work/analysis-asa" --plain
quiet coref-synthetic "$cli" probe coref "$run" --size 12 --distractor \
  --out "$work/coref-synthetic" --plain
quiet coref-lin "$cli" probe coref "$run" --dataset "lin:$fixtures/lin_reflexives.tsv" \
  --out "$work/coref-lin" --plain
quiet coref-conll "$cli" probe coref "$run" --dataset "conll:$fixtures/sample.conll" \
  --argmax exclude-self-special --out "$work/coref-conll" --plain

cp "$run/run.h5" "$seeds/fuzz_run_log/cli-run.h5"
cp "$run"/checkpoints/step-*.h5 "$seeds/fuzz_checkpoint/cli-checkpoint.h5"
cp "$work"/run-asa/checkpoints/step-*.h5 "$seeds/fuzz_checkpoint/cli-checkpoint-asa.h5"
cp "$run/cache/tokens/train-00000.bin" "$seeds/fuzz_token_store/cli-tokens.bin"  # one shard (docs/data.md)
# Written by Hugging Face's safetensors library (tests/fixtures/safetensors/make_fixture.py).
cp "$root/tests/fixtures/safetensors/small.safetensors" "$seeds/fuzz_safetensors/hf-small.safetensors"
cp "$work/analysis/analysis.json" "$seeds/fuzz_analysis_json/cli-analysis.json"
cp "$work/analysis-asa/analysis.json" "$seeds/fuzz_analysis_json/cli-analysis-asa.json"
for d in synthetic lin conll; do
  cp "$work/coref-$d/coref.json" "$seeds/fuzz_coref_json/cli-coref-$d.json"
  cp "$work/coref-$d/coref_examples.json" "$seeds/fuzz_coref_examples_json/cli-coref-examples-$d.json"
done
head -n 40 "$run/cache/corpus.txt" > "$seeds/fuzz_corpus/cli-corpus-head.txt"
cp "$run/config.toml" "$seeds/fuzz_config_toml/cli-run-config.toml"
for r in run run-asa; do
  /usr/bin/python3 - "$work/$r/run.h5" "$seeds/fuzz_config_json/cli-$r-config.json" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    text = f["config_json"][()]
open(sys.argv[2], "wb").write(text if isinstance(text, bytes) else text.encode())
PY
done

# The project's writers (run log, checkpoint of every dtype, token stores, JSON configs).
quiet build-make-seeds cmake --build "$fuzz_build" --target attnlab_fuzz_make_seeds -j 2
"$fuzz_build/bin/attnlab_fuzz_make_seeds" "$seeds" resources/configs

# Fixtures and the shipped configs.
cp resources/configs/*.toml "$seeds/fuzz_config_toml/"
cp "$fixtures"/*.conll "$seeds/fuzz_conll/"
cp "$fixtures/lin_reflexives.tsv" "$seeds/fuzz_lin_reflexives/"
for f in tests/app/fixtures/wordnet_mini/data.*; do
  cp "$f" "$seeds/fuzz_corpus/wordnet_mini-$(basename "$f")"
done
# --set: every key of each shipped config as one override per line, as `--set` spells them.
/usr/bin/python3 - "$seeds/fuzz_config_set" resources/configs/*.toml <<'PY'
import json, os, sys, tomllib
out = sys.argv[1]
def value(v):
    if isinstance(v, bool): return "true" if v else "false"
    if isinstance(v, str): return v
    if isinstance(v, list): return json.dumps(v)
    return repr(v)
def flatten(table, prefix=""):
    for k, v in table.items():
        if isinstance(v, dict): yield from flatten(v, prefix + k + ".")
        else: yield prefix + k + "=" + value(v)
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        lines = list(flatten(tomllib.load(f)))
    name = os.path.basename(path).replace(".toml", ".set")
    open(os.path.join(out, name), "w").write("\n".join(lines) + "\n")
PY
printf 'model.layers=6\nrun.name=baseline\n' > "$seeds/fuzz_config_set/readme-example.set"
printf 'train.gradient_accumulation=2\nschedule.steps=400\ntrain.checkpoint_every=20\n' \
  > "$seeds/fuzz_config_set/distributed-test.set"
printf 'attention.guidance.heads=[0, 1]\ncorpus.paths=["a.txt", "b"]\ntokenizer.character_coverage=1.0\n' \
  > "$seeds/fuzz_config_set/lists.set"
# Hand-made text corpora: CRLF, a BOM, tabs and runs of spaces, Latin-1, control characters.
printf '\xEF\xBB\xBFfirst line\r\nsecond\tline  with   spaces\r\n\r\n' > "$seeds/fuzz_corpus/bom-crlf.txt"
printf 'caf\xE9 au lait\nna\xEFve\nok line\n' > "$seeds/fuzz_corpus/latin1.txt"
printf 'bell \x07 here\nfine\n\xF0\x9F\x98\x80 emoji \xE2\x82\xAC\n\xC0\xAF overlong\n' > "$seeds/fuzz_corpus/mixed.txt"
printf '00001740 03 n 01 entity 0 001 @ 00001930 n 0000 | that which is perceived\n' \
  > "$seeds/fuzz_corpus/wordnet-line.txt"
# The dictionaries take the report seeds' member names.
/usr/bin/python3 tests/fuzz/make_dicts.py
du -sh "$seeds"
find "$seeds" -type f | wc -l
