// Issue 45, "real corpora at scale": data preparation of a plain-text corpus as a new user
// runs it (corpus.source = "text", an existing tokenizer.model, the tiny preset otherwise),
// at 0.25, 0.5 and 1 GB (and 4 GB with --sizes-mb 256,512,1024,4096 where the disk allows).
//
// The corpora are generated from WordNet's glosses (one gloss per line, sometimes two
// joined, drawn by a seeded std::mt19937_64, so the same bytes every time) and kept in the
// work folder; the tokenizer is trained once on the glosses with tiny.toml's settings and
// kept there too. Every measured preparation then runs core::prepareMlmData on a fresh,
// empty data.cache_dir, so nothing is reused.
//
// Why child processes: peak resident memory (VmHWM) is a per-process high-water mark that
// never goes down, and the parent has held glosses, generated corpora and a tokenizer
// trainer. Each preparation therefore runs in a fresh process (fork + exec of this program
// with the hidden --child mode), which reports its own VmHWM and the wall time of
// prepareMlmData alone; the parent also takes wait4()'s per-child ru_maxrss as a check.
// A benchmark, not a test: run it on an idle machine (it warns when the load is not low).
//
//   bench_data [--sizes-mb 256,512,1024] [--speedup-mb 256] [--threads N] [--work DIR]
// One line per size: size_mb= threads= seconds= mb_s= peak_mb= (and phases), then
// prep_speedup_2v1=<t1/t2> at --speedup-mb with 1 and 2 threads. Last line:
//   prep_mb_s=<n> prep_peak_mb=<size>:<mb>,... prep_mb_per_gb=<slope> prep_speedup_2v1=<r>
// (targets: prep_mb_per_gb <= 50, prep_speedup_2v1 >= 1.7 on 2 cores).
#include "core/config/config_loader.h"
#include "core/data/hashing.h"
#include "core/data/mlm_data.h"
#include "core/data/tokenizer_provider.h"
#include "core/data/wordnet_corpus.h"

#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace attnlab;

namespace {

constexpr std::uint64_t kCorpusSeed = 0x45da7a5eedULL;
constexpr std::uint64_t kMiB = 1024 * 1024;
const char* kTinyConfig = ATTNLAB_SOURCE_DIR "/resources/configs/tiny.toml";

struct Options {
  std::vector<int> sizesMb = {256, 512, 1024};
  int speedupMb = 256;
  int threads = 0;  // 0 = all cores
  fs::path work = "/tmp/attnlab-bench-data";
  // --child mode: one preparation, measured in this process.
  bool child = false;
  fs::path corpus, model, cache, run;
};

std::vector<int> parseSizes(const std::string& text) {
  std::vector<int> sizes;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) sizes.push_back(std::atoi(item.c_str()));
  }
  return sizes;
}

bool parseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool hasValue = i + 1 < argc;
    if (arg == "--child") {
      o->child = true;
    } else if (!hasValue) {
      return false;
    } else if (arg == "--sizes-mb") {
      o->sizesMb = parseSizes(argv[++i]);
    } else if (arg == "--speedup-mb") {
      o->speedupMb = std::atoi(argv[++i]);
    } else if (arg == "--threads") {
      o->threads = std::atoi(argv[++i]);
    } else if (arg == "--work") {
      o->work = argv[++i];
    } else if (arg == "--corpus") {
      o->corpus = argv[++i];
    } else if (arg == "--model") {
      o->model = argv[++i];
    } else if (arg == "--cache") {
      o->cache = argv[++i];
    } else if (arg == "--run") {
      o->run = argv[++i];
    } else {
      return false;
    }
  }
  const bool sizesOk = !o->sizesMb.empty() && std::all_of(o->sizesMb.begin(), o->sizesMb.end(),
                                                          [](int s) { return s > 0; });
  return sizesOk && o->speedupMb > 0 && o->threads >= 0;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// A "VmHWM:"-style field of /proc/self/status in MB (the file gives kB), or -1.
double procStatusMb(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::atof(line.c_str() + field.size() + 1) / 1024;
  }
  return -1;
}

// ---- the child: one preparation ----------------------------------------------------------

int runChild(const Options& o) {
  core::RunConfig config = core::loadRunConfig(kTinyConfig);
  config.corpus.source = core::CorpusSource::Text;
  config.corpus.paths = {o.corpus.string()};
  config.tokenizer.model = o.model.string();
  config.data.cacheDir = o.cache.string();
  core::validateRunConfig(config);

  const double baseMb = procStatusMb("VmRSS");
  // Each phase's start by our clock: the callback is told at each phase's start (and within
  // it), so a phase lasts until the next one starts, the last until prepareMlmData returns.
  using Clock = std::chrono::steady_clock;
  std::vector<std::pair<std::string, Clock::time_point>> phaseStarts;
  auto onProgress = [&](const core::DataProgress& p) {
    if (phaseStarts.empty() || phaseStarts.back().first != p.phase)
      phaseStarts.emplace_back(p.phase, Clock::now());
    return true;
  };
  const auto start = Clock::now();
  core::MlmData data = core::prepareMlmData(config, o.run, o.threads, onProgress);
  const auto end = Clock::now();
  const double seconds = std::chrono::duration<double>(end - start).count();
  std::string phases;
  for (std::size_t i = 0; i < phaseStarts.size(); ++i) {
    const Clock::time_point until = i + 1 < phaseStarts.size() ? phaseStarts[i + 1].second : end;
    char part[96];
    std::snprintf(part, sizeof part, "%s%s:%.2f", phases.empty() ? "" : ",",
                  phaseStarts[i].first.c_str(),
                  std::chrono::duration<double>(until - phaseStarts[i].second).count());
    phases += part;
  }
  for (char& c : phases) {
    if (c == ' ') c = '_';  // "token store" -> "token_store": one field
  }
  std::printf("child_result seconds=%.3f peak_mb=%.1f base_mb=%.1f blocks=%lld phases=%s\n",
              seconds, procStatusMb("VmHWM"), baseMb,
              static_cast<long long>(data.train.blocksPerEpoch()), phases.c_str());
  std::fflush(stdout);
  return 0;
}

// ---- the parent: corpora, tokenizer, children ---------------------------------------------

fs::path glossesFile(const fs::path& work) {
  const fs::path path = work / "wordnet-glosses.txt";
  if (!fs::exists(path)) core::writeWordNetGlosses(core::kDefaultWordNetDir, path);
  return path;
}

std::vector<std::string> readLines(const fs::path& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(std::move(line));
  }
  return lines;
}

/// Writes exactly `bytes` bytes of lines sampled from `glosses` (a quarter of them two
/// glosses joined); the last line is cut at a space so it stays valid UTF-8, and padded
/// with ASCII words to the exact size.
void writeCorpus(const fs::path& path, std::uint64_t bytes,
                 const std::vector<std::string>& glosses) {
  std::mt19937_64 rng(kCorpusSeed);
  std::uniform_int_distribution<std::size_t> pick(0, glosses.size() - 1);
  std::bernoulli_distribution joined(0.25);
  std::vector<char> buffer(1 << 20);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.rdbuf()->pubsetbuf(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  std::uint64_t written = 0;
  std::string line;
  while (written < bytes) {
    line = glosses[pick(rng)];
    if (joined(rng)) line += " " + glosses[pick(rng)];
    line += '\n';
    const std::uint64_t left = bytes - written;
    if (line.size() > left) {
      // The last line: ASCII filler of the exact length, so the file stays valid text.
      line.assign(left, 'a');
      for (std::size_t i = 4; i + 1 < line.size(); i += 5) line[i] = ' ';
      line.back() = '\n';
    }
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    written += line.size();
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

fs::path corpusFile(const fs::path& work, int sizeMb) {
  return work / ("corpus-" + std::to_string(sizeMb) + "mb.txt");
}

/// The generated corpus of `sizeMb` MiB, written unless a file of that exact size is there.
fs::path ensureCorpus(const fs::path& work, int sizeMb, const std::vector<std::string>& glosses) {
  const fs::path path = corpusFile(work, sizeMb);
  const std::uint64_t bytes = static_cast<std::uint64_t>(sizeMb) * kMiB;
  std::error_code ec;
  if (fs::file_size(path, ec) == bytes && !ec) return path;
  const auto start = std::chrono::steady_clock::now();
  const fs::path partial = path.string() + ".partial";
  writeCorpus(partial, bytes, glosses);
  fs::rename(partial, path);
  std::printf("generated %s (%.1f s)\n", path.c_str(), secondsSince(start));
  std::fflush(stdout);
  return path;
}

/// tokenizer.model trained on the glosses with tiny.toml's tokenizer settings, once: the
/// provider reuses the model in the folder while glosses and settings are unchanged.
fs::path ensureTokenizer(const fs::path& work, const fs::path& glosses) {
  const core::RunConfig config = core::loadRunConfig(kTinyConfig);
  std::ifstream in(glosses, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto start = std::chrono::steady_clock::now();
  const core::ProvidedTokenizer provided = core::provideTokenizer(
      config.tokenizer, glosses, core::fnv1a64(text), work / "tokenizer", config.run.seed);
  std::printf("tokenizer: %s (%s, vocab %d, %.1f s)\n", provided.modelPath.c_str(),
              provided.trained ? "trained" : "reused", config.tokenizer.vocabSize,
              secondsSince(start));
  return provided.modelPath;
}

struct Measured {
  bool ok = false;
  double seconds = 0, peakMb = 0, baseMb = 0, maxrssMb = 0;
  std::string phases;
};

/// Reads `key=<number>` out of the child's result line.
double field(const std::string& line, const std::string& key) {
  const auto at = line.find(" " + key + "=");
  return at == std::string::npos ? -1 : std::atof(line.c_str() + at + key.size() + 2);
}

void parseChildLine(const std::string& line, Measured* m) {
  m->seconds = field(line, "seconds");
  m->peakMb = field(line, "peak_mb");
  m->baseMb = field(line, "base_mb");
  const auto at = line.find(" phases=");
  if (at != std::string::npos) m->phases = line.substr(at + 8);
  while (!m->phases.empty() && m->phases.back() == '\n') m->phases.pop_back();
}

/// One preparation of `corpus` in a fresh process (fork + exec of this program, --child)
/// with a fresh cache and run folder, removed again afterwards.
Measured prepareInChild(const Options& o, const fs::path& corpus, const fs::path& model,
                        int threads) {
  const fs::path cache = o.work / "prep-cache", run = o.work / "prep-run";
  fs::remove_all(cache);
  fs::remove_all(run);
  fs::create_directories(run);
  // Built before fork(): the child only calls async-signal-safe functions until exec.
  const std::vector<std::string> args = {"bench_data",    "--child",      "--corpus",
                                         corpus.string(), "--model",      model.string(),
                                         "--cache",       cache.string(), "--run",
                                         run.string(),    "--threads",    std::to_string(threads)};
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int pipeFds[2];
  if (pipe(pipeFds) != 0) return {};
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipeFds[1], STDOUT_FILENO);
    close(pipeFds[0]);
    close(pipeFds[1]);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  close(pipeFds[1]);
  if (pid < 0) {
    close(pipeFds[0]);
    std::fprintf(stderr, "fork failed\n");
    return {};
  }
  std::string output;
  char chunk[4096];
  for (ssize_t n; (n = read(pipeFds[0], chunk, sizeof chunk)) > 0;) output.append(chunk, n);
  close(pipeFds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  Measured m;
  const auto at = output.find("child_result ");
  m.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && at != std::string::npos;
  if (m.ok)
    parseChildLine(output.substr(at), &m);
  else
    std::fprintf(stderr, "child failed (status %d): %s\n", status, output.c_str());
  m.maxrssMb = usage.ru_maxrss / 1024.0;  // kB on Linux
  fs::remove_all(cache);
  fs::remove_all(run);
  return m;
}

/// Whether the disk under `work` holds what preparing `sizeMb` needs: the corpus when it
/// is not generated yet, the cache's corpus.txt copy and the token store (estimated at the
/// corpus size), plus 256 MiB. Prints the reason when it does not.
bool roomFor(const fs::path& work, int sizeMb) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(sizeMb) * kMiB;
  std::error_code ec;
  const bool generated = fs::file_size(corpusFile(work, sizeMb), ec) == bytes && !ec;
  const std::uint64_t need = (generated ? 0 : bytes) + 2 * bytes + 256 * kMiB;
  const std::uint64_t available = fs::space(work).available;
  if (available >= need) return true;
  std::printf("size_mb=%d skipped: needs %.1f GB free under %s, %.1f GB available\n", sizeMb,
              double(need) / (1024.0 * kMiB), work.c_str(), double(available) / (1024.0 * kMiB));
  return false;
}

void printMeasured(int sizeMb, int threads, const Measured& m) {
  std::printf(
      "size_mb=%d threads=%d seconds=%.2f mb_s=%.1f peak_mb=%.0f base_mb=%.0f "
      "wait4_maxrss_mb=%.0f phases=%s\n",
      sizeMb, threads, m.seconds, m.seconds > 0 ? sizeMb / m.seconds : 0.0, m.peakMb, m.baseMb,
      m.maxrssMb, m.phases.c_str());
  std::fflush(stdout);
}

/// Least-squares slope of y against x (0 with fewer than two distinct x).
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double d = n * sxx - sx * sx;
  return d > 0 ? (n * sxy - sx * sy) / d : 0.0;
}

void printHeader(const Options& o, int cores, int threads) {
  double load1 = 0;
  std::ifstream("/proc/loadavg") >> load1;
  std::printf("cores=%d threads=%d work=%s config=%s\n", cores, threads, o.work.c_str(),
              kTinyConfig);
  std::printf("load_1min=%.2f\n", load1);
  if (load1 > 0.5) {
    std::printf(
        "WARNING: 1-minute load average %.2f > 0.5: the machine is not idle, figures below "
        "are not representative (run on an idle machine)\n",
        load1);
  }
  std::fflush(stdout);
}

/// t(1 thread) / t(2 threads) at `sizeMb`, each in a fresh child on a fresh cache.
double measureSpeedup(const Options& o, int sizeMb, const fs::path& corpus, const fs::path& model) {
  const Measured one = prepareInChild(o, corpus, model, 1);
  if (one.ok) printMeasured(sizeMb, 1, one);
  const Measured two = prepareInChild(o, corpus, model, 2);
  if (two.ok) printMeasured(sizeMb, 2, two);
  const double speedup = one.ok && two.ok && two.seconds > 0 ? one.seconds / two.seconds : 0.0;
  std::printf("prep_speedup_2v1=%.2f (size_mb=%d, target >= 1.7 on 2 cores)\n", speedup, sizeMb);
  return speedup;
}

int runParent(const Options& o) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = o.threads > 0 ? o.threads : cores;
  fs::create_directories(o.work);
  printHeader(o, cores, threads);
  const fs::path glosses = glossesFile(o.work);
  const std::vector<std::string> lines = readLines(glosses);
  const fs::path model = ensureTokenizer(o.work, glosses);

  std::vector<double> sizesGb, peaks;
  std::string peakList;
  double largestMbS = 0;
  int largestMb = 0;
  for (const int sizeMb : o.sizesMb) {
    if (!roomFor(o.work, sizeMb)) continue;
    const fs::path corpus = ensureCorpus(o.work, sizeMb, lines);
    const Measured m = prepareInChild(o, corpus, model, threads);
    if (!m.ok) return 1;
    printMeasured(sizeMb, threads, m);
    sizesGb.push_back(sizeMb / 1024.0);
    peaks.push_back(m.peakMb);
    peakList += (peakList.empty() ? "" : ",") + std::to_string(sizeMb) + ":" +
                std::to_string(static_cast<long long>(m.peakMb + 0.5));
    if (sizeMb > largestMb) {
      largestMb = sizeMb;
      largestMbS = sizeMb / m.seconds;
    }
  }
  double speedup = 0;
  if (roomFor(o.work, o.speedupMb)) {
    const fs::path corpus = ensureCorpus(o.work, o.speedupMb, lines);
    speedup = measureSpeedup(o, o.speedupMb, corpus, model);
  }
  const double perGb = slope(sizesGb, peaks);
  std::printf("prep_mb_per_gb target <= 50: %s\n", perGb <= 50 ? "met" : "not met");
  std::printf("prep_mb_s=%.1f prep_peak_mb=%s prep_mb_per_gb=%.1f prep_speedup_2v1=%.2f\n",
              largestMbS, peakList.c_str(), perGb, speedup);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parseArgs(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: %s [--sizes-mb 256,512,1024] [--speedup-mb MB] [--threads N] "
                 "[--work DIR]\n",
                 argv[0]);
    return 2;
  }
  try {
    return o.child ? runChild(o) : runParent(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_data%s: %s\n", o.child ? " (child)" : "", e.what());
    return 1;
  }
}
