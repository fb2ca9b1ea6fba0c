#!/usr/bin/env bash
# Runs every libFuzzer harness (docs/hardening.md, "Fuzzing") for a bounded time, one after
# the other, and fails on any finding.
#
# Usage: tests/fuzz/run_fuzzers.sh [SECONDS_EACH] [BUILD_DIR]
#   SECONDS_EACH  how long each harness fuzzes (default 60)
#   BUILD_DIR     the fuzz build (default build/fuzz); configured with the `fuzz` preset when
#                 it has no CMakeCache.txt, and brought up to date (target attnlab_fuzzers)
# Environment:
#   FUZZERS           space-separated subset of harnesses to run (default: all of them)
#   FUZZ_JOBS         build jobs (default 2)
#   FUZZ_OUT          where logs, corpora and crash files go (default: a new /tmp folder)
#   FUZZ_STRICT_HDF5  when set, a crash inside libhdf5 is a finding too (see below)
#
# Each harness first replays its committed regression inputs (tests/fuzz/regressions/<name>/)
# and then fuzzes a copy of its seeds (tests/fuzz/seeds/<name>/), with its dictionary when
# tests/fuzz/dicts/<name>.dict exists. Limits: 2048 MB resident, 256 MB in one allocation
# (so a huge allocation is reported with its stack; the regressions' replay too), 30 s per
# input. Printed per harness:
# executions (libFuzzer's stat::number_of_executed_units), inputs added for new coverage
# (stat::new_units_added), the final coverage, and the path of any crash file. Exit status 1
# on any finding, 2 when the build fails.
#
# Debian's HDF5 1.10.8 itself crashes on some damaged files (docs/hardening.md, "Fuzzing"):
# such a crash, where the first frame outside the sanitizer runtime and libc is in libhdf5, is
# listed with its file but does not fail the run (the project cannot fix it), and fuzzing of
# that harness resumes for the rest of its time (at most 20 of them per harness; after a leak
# inside libhdf5, without leak detection). A timeout spent sleeping in HDF5 always counts. A
# stop for resident memory that its input does not reproduce alone is listed the same way
# (rss_not_reproducible below); one that it does reproduce is put down to HDF5 when the
# replay's own report (one allocation over the limit, with its stack) is HDF5's.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-60}
build=${2:-$root/build/fuzz}
jobs=${FUZZ_JOBS:-2}
out=${FUZZ_OUT:-$(mktemp -d /tmp/attnlab-fuzz.XXXXXX)}
mkdir -p "$out"
here=$root/tests/fuzz

# Stack traces for UndefinedBehaviorSanitizer reports too (the build stops at the first one).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

cd "$root"
build_start=$(date +%s)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake --preset fuzz -B "$build" > "$out/configure.log" 2>&1 ||
    { cat "$out/configure.log"; echo "fuzz: configuring $build failed" >&2; exit 2; }
fi
if ! cmake --build "$build" --target attnlab_fuzzers -j "$jobs" > "$out/build.log" 2>&1; then
  tail -n 60 "$out/build.log"
  echo "fuzz: building the harnesses failed (log: $out/build.log)" >&2
  exit 2
fi
echo "fuzz: build up to date in $(( $(date +%s) - build_start )) s ($build)"

# third_party_crash LOG: true when the report's first stack frame outside the sanitizer and
# libFuzzer runtimes and the C library lies in libhdf5, i.e. HDF5 itself crashed (or hung) on
# the file; the project's code is not on top of the stack. The first frame after the last
# "ERROR:" line decides. A timeout that HDF5 spends sleeping is not put down to HDF5: the
# project sets how long it may wait (kSwmrMetadataReadAttempts in core/hdf5/hdf5_objects.cpp);
# one spent computing inside libhdf5 (a loop over a damaged heap) is.
third_party_crash() {
  awk '/ERROR: (AddressSanitizer|libFuzzer|UndefinedBehaviorSanitizer|LeakSanitizer)/ {inreport = 1; decided = 0}
       /ERROR: libFuzzer: timeout/ {timeout = 1}
       inreport && /in H5_nanosleep/ {sleeping = 1}
       inreport && !decided && /^ *#[0-9]+ 0x[0-9a-f]+ / {
         line = $0
         if (line ~ / in (__asan|__interceptor_|__sanitizer|__ubsan|__lsan|fuzzer::|__libc_|__pthread_kill|raise|abort|clock_nanosleep|__nanosleep|nanosleep|free|malloc|calloc|realloc|memcpy|memmove|memset)/) next
         if (line ~ /\/libc\.so/) next
         decided = 1; hdf5 = (line ~ /libhdf5/) ? 1 : 0
       }
       END {exit (decided && hdf5 && !(timeout && sleeping)) ? 0 : 1}' "$1"
}

# rss_not_reproducible LOG INPUT: true when LOG reports libFuzzer's resident-memory limit (not
# one allocation over -malloc_limit_mb, which has its own stack) and INPUT, run alone three
# times in a fresh process under the same limits, stays within them. The resident size of a
# long-lived fuzzing process also holds what earlier inputs left behind (libhdf5's free lists
# and the heap it corrupts on damaged files, the sanitizer's quarantine); a stop that its input
# does not reproduce is listed, and fuzzing resumes (at most 5 times per harness).
rss_not_reproducible() {
  grep -q 'ERROR: libFuzzer: out-of-memory (used:' "$1" || return 1
  ASAN_OPTIONS=detect_leaks=0 "$bin" -rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=30 -runs=3 "$2" \
    > "$1.replay" 2>&1
}

all=$(sed -n 's/^attnlab_fuzzer(\(fuzz_[a-z0-9_]*\) .*/\1/p' "$here/CMakeLists.txt")
fuzzers=${FUZZERS:-$all}
findings=0
printf '%-26s %12s %9s %9s  %s\n' harness executions new_units coverage result
for name in $fuzzers; do
  bin=$build/bin/$name
  if [ ! -x "$bin" ]; then
    echo "fuzz: $name: no binary at $bin" >&2
    findings=$((findings + 1))
    continue
  fi
  artifacts=$out/$name/artifacts
  corpus=$out/$name/corpus
  mkdir -p "$artifacts" "$corpus"
  cp -r "$here/seeds/$name/." "$corpus/" 2> /dev/null || true
  dict=()
  [ -f "$here/dicts/$name.dict" ] && dict=(-dict="$here/dicts/$name.dict")
  result=ok failed=0

  # The committed regressions must pass (each file is run once).
  if [ -d "$here/regressions/$name" ] && [ -n "$(ls -A "$here/regressions/$name")" ]; then
    if ! "$bin" -rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=60 "$here/regressions/$name"/* \
        > "$out/$name/regressions.log" 2>&1; then
      result="REGRESSION FAILED (log: $out/$name/regressions.log)" failed=1
    fi
  fi

  # Fuzz until the time is spent. A crash inside libhdf5 (third_party_crash) is recorded and
  # fuzzing goes on for the rest of the time; any other crash ends the harness's run.
  execs=0 added=0 cov='?' third_party=() unreproduced=() run=0 leaks=()
  deadline=$(( $(date +%s) + seconds ))
  while :; do
    left=$(( deadline - $(date +%s) ))
    [ "$left" -gt 0 ] || break
    run=$((run + 1))
    log=$out/$name/fuzz-$run.log
    before=$(ls "$artifacts" | wc -l)
    rm -f "$log.replay"  # a replay of an earlier invocation in the same FUZZ_OUT must not decide
    "$bin" "$corpus" "${dict[@]}" "${leaks[@]}" -max_total_time="$left" -rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=30 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" > "$log" 2>&1
    status=$?
    execs=$(( execs + $(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1 | grep . || echo 0) ))
    added=$(( added + $(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -n 1 | grep . || echo 0) ))
    c=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: //')
    [ -z "$c" ] || cov=$c
    crash=$(ls -t "$artifacts" | head -n 1)
    if [ "$(ls "$artifacts" | wc -l)" -gt "$before" ]; then
      if third_party_crash "$log" && [ -z "${FUZZ_STRICT_HDF5:-}" ]; then
        third_party+=("$artifacts/$crash")
        # HDF5's own leak stays in the corpus and would end every later run at its start.
        grep -q 'ERROR: LeakSanitizer' "$log" && leaks=(-detect_leaks=0)
        [ "${#third_party[@]}" -lt 20 ] && continue
        break
      fi
      if rss_not_reproducible "$log" "$artifacts/$crash"; then
        unreproduced+=("$artifacts/$crash")
        [ "${#unreproduced[@]}" -lt 5 ] && continue
      elif [ -f "$log.replay" ] && grep -q 'out-of-memory (malloc(' "$log.replay" &&
           third_party_crash "$log.replay" && [ -z "${FUZZ_STRICT_HDF5:-}" ]; then
        # The resident-memory report lists the heap, not who allocated last; a replay alone
        # that stops at one allocation over -malloc_limit_mb has its stack, and that decides.
        third_party+=("$artifacts/$crash")
        [ "${#third_party[@]}" -lt 20 ] && continue
        break
      fi
      result="FINDING $artifacts/$crash (log: $log)" failed=1
      break
    elif [ "$status" -ne 0 ]; then
      result="FAILED, status $status (log: $log)" failed=1
      break
    fi
    break
  done
  if [ "${#unreproduced[@]}" -gt 0 ]; then
    result="$result; ${#unreproduced[@]} out-of-memory stop(s) its input does not reproduce alone: ${unreproduced[*]}"
  fi
  if [ "${#third_party[@]}" -gt 0 ]; then
    result="$result; ${#third_party[@]} crash(es) inside libhdf5 (third party, not counted): ${third_party[*]}"
  fi
  findings=$((findings + failed))
  printf '%-26s %12s %9s %9s  %s\n' "$name" "${execs:-?}" "${added:-?}" "${cov:-?}" "$result"
done
echo "fuzz: logs, corpora and crash files in $out"
if [ "$findings" -ne 0 ]; then
  echo "fuzz: FAIL ($findings harness(es) with findings)"
  exit 1
fi
echo "fuzz: PASS"
