// Attention statistics speed and memory: entropy and adjacent-layer JSD of a 12-layer 12-head
// model's attention streamed through AttentionStatistics. A benchmark, not a test: it prints
// figures (run_analysis_bench.sh compares them with numpy/scipy).
//
//   bench_analysis --write-pool DIR   writes DIR/attention_pool.npy [K, L, H, T, T] float32
//                                     and DIR/lengths.npy [K] int32 (deterministic)
//   bench_analysis --pool DIR --sequences N [--threads N] [--pairwise N]
//                                     streams sequence i = pool[i % K], N of them
#include "analysis/attention/attention_statistics.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace attnlab::analysis;

namespace {

struct Shape {
  int pool = 16, layers = 12, heads = 12, T = 128, paddedLength = 100;
};

// Peak resident memory of this process so far (VmHWM), in MiB.
double peakRssMb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  }
  return -1.0;
}

// splitmix64: the same stream everywhere (std's distributions are not portable).
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  double normal() {
    return std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * 3.141592653589793 * uniform());
  }
};

// ---- .npy (version 1.0), written and read by hand ---------------------------------------------

void writeNpy(const std::string& path, const char* dtype, const std::vector<std::int64_t>& shape,
              const void* data, std::size_t bytes) {
  std::string dims;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    dims += std::to_string(shape[k]) + (shape.size() == 1 || k + 1 < shape.size() ? "," : "");
    if (k + 1 < shape.size()) dims += " ";
  }
  std::string header =
      "{'descr': '" + std::string(dtype) + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const std::size_t unpadded = 10 + header.size() + 1;  // magic+version+len, header, '\n'
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const auto len = static_cast<std::uint16_t>(header.size());
  const char lenBytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(lenBytes, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) throw std::runtime_error("could not write " + path);
}

template <class T>
std::vector<T> readNpy(const std::string& path, const char* dtype,
                       std::vector<std::int64_t>& shape) {
  std::ifstream in(path, std::ios::binary);
  char magic[10];
  if (!in.read(magic, 10) || std::memcmp(magic, "\x93NUMPY\x01\x00", 8) != 0) {
    throw std::runtime_error(path + ": not a version 1.0 .npy file");
  }
  const std::size_t len = static_cast<unsigned char>(magic[8]) |
                          (static_cast<std::size_t>(static_cast<unsigned char>(magic[9])) << 8);
  std::string header(len, ' ');
  in.read(header.data(), static_cast<std::streamsize>(len));
  if (header.find(std::string("'descr': '") + dtype + "'") == std::string::npos ||
      header.find("'fortran_order': False") == std::string::npos) {
    throw std::runtime_error(path + ": expected " + dtype + " in C order, header " + header);
  }
  const auto open = header.find('(', header.find("'shape'"));
  std::stringstream dims(header.substr(open + 1, header.find(')', open) - open - 1));
  shape.clear();
  std::size_t count = 1;
  for (std::string d; std::getline(dims, d, ',');) {
    if (d.find_first_not_of(' ') == std::string::npos) continue;
    shape.push_back(std::stoll(d));
    count *= static_cast<std::size_t>(shape.back());
  }
  std::vector<T> data(count);
  if (!in.read(reinterpret_cast<char*>(data.data()),
               static_cast<std::streamsize>(count * sizeof(T)))) {
    throw std::runtime_error(path + ": truncated");
  }
  return data;
}

// ---- the synthetic pool -----------------------------------------------------------------------

// Softmax of Gaussian logits. Each head has its own temperature (0.05 to ~8, so entropies go
// from near ln T down to near 0) and some heads a positional bias (previous token, first
// token); layer l's logits keep a head-dependent share of layer l-1's, so adjacent-layer
// JSDs spread over [0, 1] bits. Every fourth sequence has padding (length 100 of 128): its
// padding keys keep a little mass (dropped by renormalisation), its padding rows are as
// random as the rest.
void writePool(const std::string& dir, const Shape& s) {
  const std::size_t square = static_cast<std::size_t>(s.T) * s.T;
  std::vector<float> pool(static_cast<std::size_t>(s.pool) * s.layers * s.heads * square);
  std::vector<std::int32_t> lengths(static_cast<std::size_t>(s.pool));
  std::vector<double> noise(square), below(square), x(square);
  for (int k = 0; k < s.pool; ++k) {
    const int length = k % 4 == 3 ? s.paddedLength : s.T;
    lengths[static_cast<std::size_t>(k)] = length;
    for (int h = 0; h < s.heads; ++h) {
      Rng rng{0x5eedull * 1000003ull + static_cast<std::uint64_t>(k) * 7919ull +
              static_cast<std::uint64_t>(h)};
      for (int l = 0; l < s.layers; ++l) {
        const double temperature = 0.05 * std::pow(160.0, ((h * 5 + l * 7) % 12) / 11.0);
        const double keep = 0.97 * std::abs(std::sin(0.7 * (l + 1) + 1.3 * h));  // share kept
        const double fresh = std::sqrt(1.0 - keep * keep);
        const int bias = (h + l) % 4;  // 0: none, 1: previous token, 2: first token, 3: none
        float* block =
            pool.data() + ((static_cast<std::size_t>(k) * s.layers + l) * s.heads + h) * square;
        for (int i = 0; i < s.T; ++i) {
          double* row = x.data() + static_cast<std::size_t>(i) * s.T;
          double max = -1e300;
          for (int j = 0; j < s.T; ++j) {
            const std::size_t at = static_cast<std::size_t>(i) * s.T + j;
            noise[at] = l == 0 ? rng.normal() : keep * below[at] + fresh * rng.normal();
            row[j] = temperature * noise[at];
            if (bias == 1 && j == i - 1) row[j] += 4.0;
            if (bias == 2 && j == 0) row[j] += 4.0;
            if (j >= length) row[j] -= 4.0;
            max = std::max(max, row[j]);
          }
          double sum = 0.0;
          for (int j = 0; j < s.T; ++j) sum += row[j] = std::exp(row[j] - max);
          for (int j = 0; j < s.T; ++j) block[i * s.T + j] = static_cast<float>(row[j] / sum);
        }
        std::swap(noise, below);  // the next layer starts from this layer's noise
      }
    }
  }
  writeNpy(dir + "/attention_pool.npy", "<f4", {s.pool, s.layers, s.heads, s.T, s.T}, pool.data(),
           pool.size() * sizeof(float));
  writeNpy(dir + "/lengths.npy", "<i4", {s.pool}, lengths.data(),
           lengths.size() * sizeof(std::int32_t));
  std::printf(
      "wrote %s/attention_pool.npy: %d sequences x %d layers x %d heads x %d x %d float32 "
      "(%.0f MiB), lengths %d or %d\n",
      dir.c_str(), s.pool, s.layers, s.heads, s.T, s.T, pool.size() * sizeof(float) / 1048576.0,
      s.T, s.paddedLength);
}

// Roles the benchmark uses: a separator at the last real token, a period every 16 tokens.
SequenceRoles rolesFor(int length) {
  SequenceRoles r;
  r.length = length;
  r.separator.assign(static_cast<std::size_t>(length), 0);
  r.period.assign(static_cast<std::size_t>(length), 0);
  if (length > 0) r.separator[static_cast<std::size_t>(length - 1)] = 1;
  for (int j = 15; j < length; j += 16) r.period[static_cast<std::size_t>(j)] = 1;
  return r;
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s --write-pool DIR\n"
               "       %s --pool DIR --sequences N [--threads N] [--pairwise N]\n",
               argv0, argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string writeDir, poolDir;
  std::int64_t sequences = 1024;
  StatisticsOptions options;
  options.pairwiseSequences = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool hasValue = i + 1 < argc;
    if (arg == "--write-pool" && hasValue)
      writeDir = argv[++i];
    else if (arg == "--pool" && hasValue)
      poolDir = argv[++i];
    else if (arg == "--sequences" && hasValue)
      sequences = std::atoll(argv[++i]);
    else if (arg == "--threads" && hasValue)
      options.threads = std::atoi(argv[++i]);
    else if (arg == "--pairwise" && hasValue)
      options.pairwiseSequences = std::atoll(argv[++i]);
    else
      return usage(argv[0]);
  }
  try {
    if (!writeDir.empty()) {
      writePool(writeDir, Shape{});
      return 0;
    }
    if (poolDir.empty()) return usage(argv[0]);

    std::vector<std::int64_t> shape, lengthShape;
    const auto pool = readNpy<float>(poolDir + "/attention_pool.npy", "<f4", shape);
    const auto lengths = readNpy<std::int32_t>(poolDir + "/lengths.npy", "<i4", lengthShape);
    if (shape.size() != 5 || shape[3] != shape[4] || lengthShape.size() != 1 ||
        lengthShape[0] != shape[0]) {
      throw std::runtime_error("pool and lengths do not fit together");
    }
    const int K = static_cast<int>(shape[0]), L = static_cast<int>(shape[1]);
    const int H = static_cast<int>(shape[2]), T = static_cast<int>(shape[3]);
    std::vector<SequenceRoles> roles;
    for (const auto n : lengths) roles.push_back(rolesFor(n));
    const std::size_t perSequence = static_cast<std::size_t>(L) * H * T * T;

    AttentionStatistics stats(L, H, T, options);
    const auto start = std::chrono::steady_clock::now();
    // The stream: sequence i is pool[i % K]; whole passes over the pool go in as one batch.
    for (std::int64_t done = 0; done < sequences;) {
      const auto first = static_cast<int>(done % K);
      const int count = static_cast<int>(std::min<std::int64_t>(K - first, sequences - done));
      stats.addBatch(pool.data() + static_cast<std::size_t>(first) * perSequence, count, T,
                     std::span(roles).subspan(static_cast<std::size_t>(first),
                                              static_cast<std::size_t>(count)),
                     false);
      done += count;
    }
    const auto streamed = std::chrono::steady_clock::now();
    const auto result = stats.result();
    const auto end = std::chrono::steady_clock::now();
    const double streamSeconds = std::chrono::duration<double>(streamed - start).count();
    const double resultSeconds = std::chrono::duration<double>(end - streamed).count();
    const double seconds = streamSeconds + resultSeconds;

    std::printf(
        "config: %d layers x %d heads, T=%d, pool of %d sequences cycled, %s JSD, "
        "pairwise %s, threads=%d\n",
        L, H, T, K, options.jsdBase == LogBase::Bits ? "bits" : "nats",
        options.pairwiseSequences > 0 ? "on" : "off", stats.threads());
    std::printf(
        "sequences=%lld rows=%lld seconds=%.3f stream_seconds=%.3f result_seconds=%.3f "
        "sequences_per_second=%.1f\n",
        static_cast<long long>(result.sequences), static_cast<long long>(result.rows), seconds,
        streamSeconds, resultSeconds, result.sequences / seconds);
    std::printf("peak_mb=%.1f pool_mb=%.1f accumulator_mb=%.2f\n", peakRssMb(),
                pool.size() * sizeof(float) / 1048576.0, stats.memoryBytes() / 1048576.0);
    std::printf("resolution_entropy=%.9g resolution_jsd=%.9g\n", result.entropy[0].resolution,
                result.adjacentJsd.empty() ? 0.0 : result.adjacentJsd[0].resolution);
    const int picks[][2] = {{0, 0}, {1, 3}, {5, 7}, {8, 2}, {L - 1, H - 1}};
    for (const auto& p : picks) {
      const int l = std::min(p[0], L - 1), h = std::min(p[1], H - 1);
      std::printf("median_entropy %d %d %.9g\n", l, h,
                  result.entropy[static_cast<std::size_t>(l * H + h)].median);
      if (l > 0) {
        std::printf("median_jsd %d %d %.9g\n", l, h,
                    result.adjacentJsd[static_cast<std::size_t>((l - 1) * H + h)].median);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_analysis: %s\n", e.what());
    return 1;
  }
  return 0;
}
