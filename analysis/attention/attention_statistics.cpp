#include "analysis/attention/attention_statistics.h"
#include "analysis/attention/row_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attnlab::analysis {

void AttentionStatistics::HeadSums::add(const HeadSums& o) {
  first += o.first;
  separator += o.separator;
  period += o.period;
  previous += o.previous;
  next += o.next;
  self += o.self;
  rows += o.rows;
  previousRows += o.previousRows;
  nextRows += o.nextRows;
  skipped += o.skipped;
  for (std::size_t k = 0; k < tvd.size(); ++k) {
    tvd[k] += o.tvd[k];
    tvdRows[k] += o.tvdRows[k];
    squaredError[k] += o.squaredError[k];
  }
  cells += o.cells;
}

namespace {

using namespace kernels;

constexpr double kLn2 = std::numbers::ln2;

// ---- one head of one sequence, all layers ----------------------------------------------------

struct HeadTask {
  const float* sequence = nullptr;  // layer 0, head 0, row 0
  std::int64_t layerStride = 0;     // floats from one layer to the next
  int T = 0, n = 0, layers = 0, heads = 0, head = 0, maxLength = 0;
  bool smoothing = false;
  double jsdScale = 1.0;  // nats -> jsdBase
  const int* separators = nullptr;
  int separatorCount = 0;
  const int* periods = nullptr;
  int periodCount = 0;
  // Slot scratch, indexed [(layer * heads + head) * maxLength + row].
  double* entropy = nullptr;
  double* jsdEntropy = nullptr;  // entropy of the row as it enters JSD (smoothed or not)
  double* inverse = nullptr;     // 1 / real mass, 0 for a skipped row
  double* jsd = nullptr;         // [((layer - 1) * heads + head) * maxLength + row]
  AttentionStatistics::HeadSums* sums = nullptr;  // [layer * heads + head]
};

struct IndexSet {
  double mass = 0.0;      // attention on the set
  double distance = 0.0;  // sum over the set of |p_j - 1/|set||
};

ATTNLAB_INLINE IndexSet onSet(const float* a, double inv, const int* idx, int count) {
  IndexSet r;
  if (count == 0) return r;
  const double uniform = 1.0 / count;
  for (int k = 0; k < count; ++k) {
    const double p = a[idx[k]] * inv;
    r.mass += p;
    r.distance += std::abs(p - uniform);
  }
  return r;
}

// Head summary and guidance conformity of row i (of n) of the renormalised p = a / s:
// `inv` = 1 / s, `squares` = sum of p^2.
ATTNLAB_INLINE void addRowSums(AttentionStatistics::HeadSums& sums, const HeadTask& t,
                               const float* a, double inv, double squares, int i, int n) {
  const double first = a[0] * inv;
  const double self = a[i] * inv;
  const double previous = i >= 1 ? a[i - 1] * inv : 0.0;
  const double next = i + 1 < n ? a[i + 1] * inv : 0.0;
  const IndexSet sep = onSet(a, inv, t.separators, t.separatorCount);
  const IndexSet per = onSet(a, inv, t.periods, t.periodCount);
  sums.rows += 1;
  sums.cells += n;
  sums.first += first;
  sums.self += self;
  sums.separator += sep.mass;
  sums.period += per.mass;
  // Patterns in kGuidancePatterns order: next, prev, first, separator, period.
  if (i + 1 < n) {
    sums.next += next;
    ++sums.nextRows;
    sums.tvd[0] += 1.0 - next;
    ++sums.tvdRows[0];
    sums.squaredError[0] += squares - 2.0 * next + 1.0;
  } else {
    sums.squaredError[0] += squares;
  }
  if (i >= 1) {
    sums.previous += previous;
    ++sums.previousRows;
    sums.tvd[1] += 1.0 - previous;
    ++sums.tvdRows[1];
    sums.squaredError[1] += squares - 2.0 * previous + 1.0;
  } else {
    sums.squaredError[1] += squares;
  }
  sums.tvd[2] += 1.0 - first;
  ++sums.tvdRows[2];
  sums.squaredError[2] += squares - 2.0 * first + 1.0;
  if (t.separatorCount > 0) {
    sums.tvd[3] += 0.5 * (sep.distance + std::max(0.0, 1.0 - sep.mass));
    ++sums.tvdRows[3];
  }
  sums.squaredError[3] += squares - 2.0 * sep.mass + t.separatorCount;
  if (t.periodCount > 0) {
    sums.tvd[4] += 0.5 * (per.distance + std::max(0.0, 1.0 - per.mass));
    ++sums.tvdRows[4];
  }
  sums.squaredError[4] += squares - 2.0 * per.mass + t.periodCount;
}

// JSD of row a against row b of the same head one layer down: H(m) - (H(p) + H(q)) / 2, in
// the task's base. `hA`, `hB`: the rows' entropies as they enter JSD (smoothed or not).
ATTNLAB_INLINE double adjacentRowJsd(const HeadTask& t, const float* a, const float* b, double keep,
                                     double inv, double invBelow, float floorMass, double hA,
                                     double hB) {
  const double hm = -mixtureXLogX(a, b, t.n, static_cast<float>(0.5 * keep * inv),
                                  static_cast<float>(0.5 * keep * invBelow), floorMass);
  const double value = hm - 0.5 * (hA + hB);
  return std::clamp(value, 0.0, kLn2) * t.jsdScale;
}

ATTNLAB_HOT void processHead(const HeadTask& t) {
  const int n = t.n;
  const auto T = static_cast<std::int64_t>(t.T);
  // Smoothed rows p' = eps/n + (1 - eps) p; eps = 0 without smoothing.
  const double eps = t.smoothing ? kClarkSmoothing : 0.0;
  const double keep = 1.0 - eps;
  const float floorMass = static_cast<float>(eps / n);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const float* previousBlock = nullptr;
  for (int l = 0; l < t.layers; ++l) {
    const float* block = t.sequence + l * t.layerStride + t.head * T * T;
    const std::int64_t at = (static_cast<std::int64_t>(l) * t.heads + t.head) * t.maxLength;
    const std::int64_t below = at - static_cast<std::int64_t>(t.heads) * t.maxLength;
    double* entropy = t.entropy + at;
    double* jsdEntropy = t.jsdEntropy + at;
    double* inverse = t.inverse + at;
    double* jsd = l > 0 ? t.jsd + below : nullptr;
    AttentionStatistics::HeadSums& sums = t.sums[l * t.heads + t.head];
    for (int i = 0; i < n; ++i) {
      const float* a = block + i * T;
      const RowSums r = rowSums(a, n);
      if (!(r.mass > 0.0) || !std::isfinite(r.mass) || !std::isfinite(r.xLogX)) {
        entropy[i] = jsdEntropy[i] = nan;
        inverse[i] = 0.0;
        if (jsd) jsd[i] = nan;
        ++sums.skipped;
        continue;
      }
      const double inv = 1.0 / r.mass;
      // H(a / s) = ln s - (sum a ln a) / s.
      const double h = std::max(0.0, std::log(r.mass) - r.xLogX * inv);
      const double hJsd =
          t.smoothing ? std::max(0.0, -affineXLogX(a, n, static_cast<float>(keep * inv), floorMass))
                      : h;
      entropy[i] = h;
      jsdEntropy[i] = hJsd;
      inverse[i] = inv;
      addRowSums(sums, t, a, inv, r.squares * inv * inv, i, n);
      if (jsd) {
        const double invBelow = t.inverse[below + i];
        jsd[i] = invBelow > 0.0 ? adjacentRowJsd(t, a, previousBlock + i * T, keep, inv, invBelow,
                                                 floorMass, hJsd, t.jsdEntropy[below + i])
                                : nan;
      }
    }
    previousBlock = block;
  }
}

// Sum over rows of JSD between two heads of one sequence, and the rows used.
struct PairTask {
  const float* a = nullptr;  // row 0 of each head
  const float* b = nullptr;
  const double* inverseA = nullptr;
  const double* inverseB = nullptr;
  const double* entropyA = nullptr;  // jsdEntropy
  const double* entropyB = nullptr;
  int T = 0, n = 0;
  bool smoothing = false;
};

ATTNLAB_HOT double pairJsdSum(const PairTask& t, std::int64_t* rows) {
  const double keep = 1.0 - kClarkSmoothing;
  const float floorMass = t.smoothing ? static_cast<float>(kClarkSmoothing / t.n) : 0.0f;
  const double scale = t.smoothing ? keep : 1.0;
  double sum = 0.0;
  std::int64_t used = 0;
  for (int i = 0; i < t.n; ++i) {
    if (!(t.inverseA[i] > 0.0) || !(t.inverseB[i] > 0.0)) continue;
    const std::int64_t offset = static_cast<std::int64_t>(i) * t.T;
    const double hm = -mixtureXLogX(t.a + offset, t.b + offset, t.n,
                                    static_cast<float>(0.5 * scale * t.inverseA[i]),
                                    static_cast<float>(0.5 * scale * t.inverseB[i]), floorMass);
    sum += std::clamp(hm - 0.5 * (t.entropyA[i] + t.entropyB[i]), 0.0, kLn2);
    ++used;
  }
  *rows = used;
  return sum;
}

template <class Body>
void parallelFor(int count, int threads, const Body& body) {
#ifdef _OPENMP
  const int team = std::max(1, std::min(threads, count));
#pragma omp parallel for schedule(dynamic) num_threads(team)
  for (int k = 0; k < count; ++k) body(k);
#else
  (void)threads;
  for (int k = 0; k < count; ++k) body(k);
#endif
}

void checkRoles(const SequenceRoles& roles, int T, int maxLength, const std::string& where) {
  if (roles.length < 0 || roles.length > T || roles.length > maxLength) {
    throw std::invalid_argument(where + ": length " + std::to_string(roles.length) +
                                " is outside [0, min(T = " + std::to_string(T) +
                                ", maxLength = " + std::to_string(maxLength) + ")]");
  }
  const auto length = static_cast<std::size_t>(roles.length);
  if (!roles.separator.empty() && roles.separator.size() < length) {
    throw std::invalid_argument(where + ": separator flags cover " +
                                std::to_string(roles.separator.size()) +
                                " positions, fewer than length " + std::to_string(length));
  }
  if (!roles.period.empty() && roles.period.size() < length) {
    throw std::invalid_argument(where + ": period flags cover " +
                                std::to_string(roles.period.size()) +
                                " positions, fewer than length " + std::to_string(length));
  }
}

double meanOrNan(double sum, std::int64_t count) {
  return count > 0 ? sum / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN();
}

// ---- one chunk of sequences -----------------------------------------------------------------

// Positions of separators and periods, per sequence of a chunk.
struct RolePositions {
  std::vector<std::vector<int>> separators, periods;
};

RolePositions rolePositions(const SequenceRoles* roles, int count) {
  RolePositions p;
  p.separators.resize(static_cast<std::size_t>(count));
  p.periods.resize(static_cast<std::size_t>(count));
  for (int b = 0; b < count; ++b) {
    const SequenceRoles& r = roles[b];
    for (int j = 0; j < r.length; ++j) {
      const auto uj = static_cast<std::size_t>(j);
      if (!r.separator.empty() && r.separator[uj])
        p.separators[static_cast<std::size_t>(b)].push_back(j);
      if (!r.period.empty() && r.period[uj]) p.periods[static_cast<std::size_t>(b)].push_back(j);
    }
  }
  return p;
}

// A chunk as its phases see it: the input, the options, and the accumulator's slot scratch
// (slot b's rows at b * perSlot, then (layer, head) k's at k * maxLength).
struct Chunk {
  const float* const* bases = nullptr;
  std::int64_t layerStride = 0;
  int T = 0;
  const SequenceRoles* roles = nullptr;
  const RolePositions* positions = nullptr;
  int layers = 0, heads = 0, maxLength = 0, threads = 1;
  bool smoothing = false;
  double jsdScale = 1.0;
  std::size_t perSlot = 0, jsdPerSlot = 0;
  double* entropy = nullptr;
  double* jsdEntropy = nullptr;
  double* inverse = nullptr;
  double* jsd = nullptr;
  AttentionStatistics::HeadSums* sums = nullptr;
};

// Task `task` of phase 1: sequence task / heads, head task % heads.
HeadTask headTask(const Chunk& c, int task) {
  const int b = task / c.heads;
  const auto slot = static_cast<std::size_t>(b);
  HeadTask t;
  t.sequence = c.bases[b];
  t.layerStride = c.layerStride;
  t.T = c.T;
  t.n = c.roles[b].length;
  t.layers = c.layers;
  t.heads = c.heads;
  t.head = task % c.heads;
  t.maxLength = c.maxLength;
  t.smoothing = c.smoothing;
  t.jsdScale = c.jsdScale;
  t.separators = c.positions->separators[slot].data();
  t.separatorCount = static_cast<int>(c.positions->separators[slot].size());
  t.periods = c.positions->periods[slot].data();
  t.periodCount = static_cast<int>(c.positions->periods[slot].size());
  t.entropy = c.entropy + slot * c.perSlot;
  t.jsdEntropy = c.jsdEntropy + slot * c.perSlot;
  t.inverse = c.inverse + slot * c.perSlot;
  t.jsd = c.jsd + slot * c.jsdPerSlot;
  t.sums = c.sums + slot * static_cast<std::size_t>(c.layers * c.heads);
  return t;
}

// Phase 2 for (layer, head) k: its rows of the chunk's `count` sequences into its
// distributions (`jsdDist` null for layer 0) and its sums into `total`.
void foldHead(const Chunk& c, int count, int k, StreamingDistribution& entropyDist,
              StreamingDistribution* jsdDist, AttentionStatistics::HeadSums& total) {
  const auto lh = static_cast<std::size_t>(c.layers * c.heads);
  for (int b = 0; b < count; ++b) {
    const auto slot = static_cast<std::size_t>(b);
    const int n = c.roles[b].length;
    const double* entropy =
        c.entropy + slot * c.perSlot + static_cast<std::size_t>(k) * c.maxLength;
    for (int i = 0; i < n; ++i) {
      if (!std::isnan(entropy[i])) entropyDist.add(entropy[i]);
    }
    if (jsdDist) {
      const double* jsd =
          c.jsd + slot * c.jsdPerSlot + static_cast<std::size_t>(k - c.heads) * c.maxLength;
      for (int i = 0; i < n; ++i) {
        if (!std::isnan(jsd[i])) jsdDist->add(jsd[i]);
      }
    }
    total.add(c.sums[slot * lh + static_cast<std::size_t>(k)]);
  }
}

// JSD between every pair of heads of sequence b, summed into the upper triangle of
// `pairSum` / `pairRows` ([(L*H)^2]).
void addPairwiseJsd(const Chunk& c, int b, double* pairSum, std::int64_t* pairRows) {
  const int H = c.heads, lh = c.layers * c.heads;
  const auto slot = static_cast<std::size_t>(b);
  const int n = c.roles[b].length;
  const std::int64_t square = static_cast<std::int64_t>(c.T) * c.T;
  auto headRows = [&](int k) { return c.bases[b] + (k / H) * c.layerStride + (k % H) * square; };
  const double* inverse = c.inverse + slot * c.perSlot;
  const double* jsdEntropy = c.jsdEntropy + slot * c.perSlot;
  parallelFor(lh - 1, c.threads, [&](int a) {
    PairTask t;
    t.T = c.T;
    t.n = n;
    t.smoothing = c.smoothing;
    t.a = headRows(a);
    t.inverseA = inverse + static_cast<std::size_t>(a) * c.maxLength;
    t.entropyA = jsdEntropy + static_cast<std::size_t>(a) * c.maxLength;
    for (int k = a + 1; k < lh; ++k) {
      t.b = headRows(k);
      t.inverseB = inverse + static_cast<std::size_t>(k) * c.maxLength;
      t.entropyB = jsdEntropy + static_cast<std::size_t>(k) * c.maxLength;
      std::int64_t rows = 0;
      const double sum = pairJsdSum(t, &rows);
      const std::size_t at = static_cast<std::size_t>(a) * lh + static_cast<std::size_t>(k);
      pairSum[at] += sum * c.jsdScale;
      pairRows[at] += rows;
    }
  });
}

}  // namespace

// ---- AttentionStatistics ---------------------------------------------------------------------

AttentionStatistics::AttentionStatistics(int layers, int heads, int maxLength,
                                         StatisticsOptions options)
    : m_layers(layers), m_heads(heads), m_maxLength(maxLength), m_options(options) {
  if (layers < 1 || heads < 1 || maxLength < 1) {
    throw std::invalid_argument(
        "AttentionStatistics: layers, heads and maxLength must be >= 1 "
        "(got " +
        std::to_string(layers) + ", " + std::to_string(heads) + ", " + std::to_string(maxLength) +
        ")");
  }
  if (options.pairwiseSequences < 0 || options.threads < 0) {
    throw std::invalid_argument("AttentionStatistics: pairwiseSequences and threads must be >= 0");
  }
  const int lh = layers * heads;
  // Entropy of a row over n <= maxLength keys lies in [0, ln maxLength].
  const double entropyHi = std::log(static_cast<double>(std::max(maxLength, 2)));
  const double jsdHi = options.jsdBase == LogBase::Bits ? 1.0 : kLn2;
  m_entropy.assign(static_cast<std::size_t>(lh), StreamingDistribution(0.0, entropyHi));
  m_adjacentJsd.assign(static_cast<std::size_t>((layers - 1) * heads),
                       StreamingDistribution(0.0, jsdHi));
  m_sums.assign(static_cast<std::size_t>(lh), HeadSums{});
  if (options.pairwiseSequences > 0) {
    m_pairSum.assign(static_cast<std::size_t>(lh) * lh, 0.0);
    m_pairRows.assign(static_cast<std::size_t>(lh) * lh, 0);
  }
  // Enough sequences per chunk for every thread to find a (sequence, head) task.
  m_chunk = std::clamp(2 * threadCount(), 4, 32);
  const std::size_t perSlot = static_cast<std::size_t>(lh) * maxLength;
  m_rowEntropy.assign(perSlot * m_chunk, 0.0);
  m_rowJsdEntropy.assign(perSlot * m_chunk, 0.0);
  m_rowInverse.assign(perSlot * m_chunk, 0.0);
  m_rowJsd.assign(static_cast<std::size_t>((layers - 1) * heads) * maxLength * m_chunk, 0.0);
  m_slotSums.assign(static_cast<std::size_t>(lh) * m_chunk, HeadSums{});
}

int AttentionStatistics::threadCount() const {
  if (m_options.threads > 0) return m_options.threads;
#ifdef _OPENMP
  return std::max(1, omp_get_max_threads());
#else
  return 1;
#endif
}

void AttentionStatistics::addSequence(const float* probabilities, int T,
                                      const SequenceRoles& roles) {
  addBatch(probabilities, 1, T, std::span<const SequenceRoles>(&roles, 1), false);
}

void AttentionStatistics::addBatch(const float* probabilities, int batch, int T,
                                   std::span<const SequenceRoles> roles, bool layerMajor) {
  const std::string where = "AttentionStatistics::addBatch";
  if (batch < 0) throw std::invalid_argument(where + ": batch " + std::to_string(batch) + " < 0");
  if (batch == 0) return;
  if (T < 1) throw std::invalid_argument(where + ": T = " + std::to_string(T) + " < 1");
  if (probabilities == nullptr) throw std::invalid_argument(where + ": null probabilities");
  if (roles.size() != static_cast<std::size_t>(batch)) {
    throw std::invalid_argument(where + ": " + std::to_string(roles.size()) +
                                " roles for a batch of " + std::to_string(batch));
  }
  for (int b = 0; b < batch; ++b) {
    checkRoles(roles[static_cast<std::size_t>(b)], T, m_maxLength,
               where + " (sequence " + std::to_string(b) + ")");
  }
  const std::int64_t square = static_cast<std::int64_t>(T) * T;
  const std::int64_t perLayer = static_cast<std::int64_t>(m_heads) * square;
  const std::int64_t sequenceStride = layerMajor ? perLayer : m_layers * perLayer;
  const std::int64_t layerStride = layerMajor ? batch * perLayer : perLayer;
  std::vector<const float*> bases(static_cast<std::size_t>(m_chunk));
  for (int start = 0; start < batch; start += m_chunk) {
    const int count = std::min(m_chunk, batch - start);
    for (int b = 0; b < count; ++b) {
      bases[static_cast<std::size_t>(b)] = probabilities + (start + b) * sequenceStride;
    }
    processChunk(bases.data(), layerStride, count, T, roles.data() + start);
  }
}

void AttentionStatistics::processChunk(const float* const* bases, std::int64_t layerStride,
                                       int count, int T, const SequenceRoles* roles) {
  const int L = m_layers, H = m_heads, lh = L * H;
  const int threads = threadCount();
  const RolePositions positions = rolePositions(roles, count);
  std::fill(m_slotSums.begin(), m_slotSums.begin() + static_cast<std::ptrdiff_t>(count * lh),
            HeadSums{});
  Chunk c;
  c.bases = bases;
  c.layerStride = layerStride;
  c.T = T;
  c.roles = roles;
  c.positions = &positions;
  c.layers = L;
  c.heads = H;
  c.maxLength = m_maxLength;
  c.smoothing = m_options.clarkSmoothing;
  c.jsdScale = m_options.jsdBase == LogBase::Bits ? 1.0 / kLn2 : 1.0;
  c.threads = threads;
  c.perSlot = static_cast<std::size_t>(lh) * m_maxLength;
  c.jsdPerSlot = static_cast<std::size_t>((L - 1) * H) * m_maxLength;
  c.entropy = m_rowEntropy.data();
  c.jsdEntropy = m_rowJsdEntropy.data();
  c.inverse = m_rowInverse.data();
  c.jsd = m_rowJsd.data();
  c.sums = m_slotSums.data();

  // Phase 1: every (sequence, head) walks its layers once; results go to the slot scratch.
  parallelFor(count * H, threads, [&](int task) { processHead(headTask(c, task)); });

  // Phase 2: every (layer, head) takes its rows in sequence order, so the result does not
  // depend on threads or chunking.
  parallelFor(lh, threads, [&](int k) {
    const auto uk = static_cast<std::size_t>(k);
    foldHead(c, count, k, m_entropy[uk],
             k >= H ? &m_adjacentJsd[static_cast<std::size_t>(k - H)] : nullptr, m_sums[uk]);
  });

  // Pairwise head JSD, for the first pairwiseSequences sequences.
  for (int b = 0; b < count; ++b) {
    if (m_sequences + b >= m_options.pairwiseSequences) break;
    addPairwiseJsd(c, b, m_pairSum.data(), m_pairRows.data());
    ++m_pairwiseSequencesUsed;
  }

  for (int b = 0; b < count; ++b) m_rows += roles[b].length;
  m_sequences += count;
}

void AttentionStatistics::merge(const AttentionStatistics& other) {
  if (other.m_layers != m_layers || other.m_heads != m_heads || other.m_maxLength != m_maxLength) {
    throw std::invalid_argument(
        "AttentionStatistics::merge: shapes differ (" + std::to_string(m_layers) + " layers x " +
        std::to_string(m_heads) + " heads, max length " + std::to_string(m_maxLength) + " vs " +
        std::to_string(other.m_layers) + " x " + std::to_string(other.m_heads) + ", " +
        std::to_string(other.m_maxLength) + ")");
  }
  if (other.m_options.jsdBase != m_options.jsdBase ||
      other.m_options.clarkSmoothing != m_options.clarkSmoothing) {
    throw std::invalid_argument(
        "AttentionStatistics::merge: the JSD base or Clark smoothing differs");
  }
  for (std::size_t k = 0; k < m_entropy.size(); ++k) m_entropy[k].merge(other.m_entropy[k]);
  for (std::size_t k = 0; k < m_adjacentJsd.size(); ++k) {
    m_adjacentJsd[k].merge(other.m_adjacentJsd[k]);
  }
  for (std::size_t k = 0; k < m_sums.size(); ++k) m_sums[k].add(other.m_sums[k]);
  if (!other.m_pairSum.empty()) {
    if (m_pairSum.empty()) {
      m_pairSum.assign(other.m_pairSum.size(), 0.0);
      m_pairRows.assign(other.m_pairRows.size(), 0);
    }
    for (std::size_t k = 0; k < m_pairSum.size(); ++k) {
      m_pairSum[k] += other.m_pairSum[k];
      m_pairRows[k] += other.m_pairRows[k];
    }
  }
  m_pairwiseSequencesUsed += other.m_pairwiseSequencesUsed;
  m_sequences += other.m_sequences;
  m_rows += other.m_rows;
}

AttentionStatisticsResult AttentionStatistics::result() const {
  AttentionStatisticsResult r;
  const int L = m_layers, H = m_heads, lh = L * H;
  r.layers = L;
  r.heads = H;
  r.jsdBase = m_options.jsdBase;
  r.clarkSmoothing = m_options.clarkSmoothing;
  r.sequences = m_sequences;
  r.rows = m_rows;
  for (const HeadSums& s : m_sums) r.skippedRows += s.skipped;

  r.entropy.reserve(m_entropy.size());
  for (const StreamingDistribution& d : m_entropy) {
    r.entropy.push_back(d.summarise());
    r.entropyColours.push_back(entropyColour(r.entropy.back().median));
  }
  r.headOrder.resize(static_cast<std::size_t>(L));
  for (int l = 0; l < L; ++l) {
    r.headOrder[static_cast<std::size_t>(l)] =
        orderByMedian(std::span<const DistributionSummary>(r.entropy).subspan(
            static_cast<std::size_t>(l * H), static_cast<std::size_t>(H)));
  }
  const ColourThresholds jsdThresholds = jsdColourThresholds(m_options.jsdBase);
  r.adjacentJsd.reserve(m_adjacentJsd.size());
  for (const StreamingDistribution& d : m_adjacentJsd) {
    r.adjacentJsd.push_back(d.summarise());
    r.jsdColours.push_back(colourClass(r.adjacentJsd.back().median, jsdThresholds));
  }

  r.pairwiseSequencesUsed = m_pairwiseSequencesUsed;
  if (m_pairwiseSequencesUsed > 0 && !m_pairSum.empty()) {
    r.pairwiseJsd.assign(static_cast<std::size_t>(lh) * lh, 0.0);
    for (int a = 0; a < lh; ++a) {
      for (int c = a + 1; c < lh; ++c) {
        const std::size_t at = static_cast<std::size_t>(a) * lh + static_cast<std::size_t>(c);
        const double mean = meanOrNan(m_pairSum[at], m_pairRows[at]);
        r.pairwiseJsd[at] = mean;
        r.pairwiseJsd[static_cast<std::size_t>(c) * lh + static_cast<std::size_t>(a)] = mean;
      }
    }
  }

  r.headSummaries.reserve(m_sums.size());
  r.guidanceDistance.reserve(m_sums.size() * kGuidancePatterns.size());
  r.guidanceMse.reserve(m_sums.size() * kGuidancePatterns.size());
  for (const HeadSums& s : m_sums) {
    HeadSummary h;
    h.first = meanOrNan(s.first, s.rows);
    h.separator = meanOrNan(s.separator, s.rows);
    h.period = meanOrNan(s.period, s.rows);
    h.self = meanOrNan(s.self, s.rows);
    h.previous = meanOrNan(s.previous, s.previousRows);
    h.next = meanOrNan(s.next, s.nextRows);
    r.headSummaries.push_back(h);
    for (std::size_t k = 0; k < kGuidancePatterns.size(); ++k) {
      r.guidanceDistance.push_back(meanOrNan(s.tvd[k], s.tvdRows[k]));
      r.guidanceMse.push_back(meanOrNan(s.squaredError[k], s.cells));
    }
  }
  return r;
}

std::size_t AttentionStatistics::memoryBytes() const {
  std::size_t bytes = 0;
  for (const StreamingDistribution& d : m_entropy) bytes += sizeof d + d.memoryBytes();
  for (const StreamingDistribution& d : m_adjacentJsd) bytes += sizeof d + d.memoryBytes();
  bytes += m_sums.capacity() * sizeof(HeadSums) + m_slotSums.capacity() * sizeof(HeadSums);
  bytes += m_pairSum.capacity() * sizeof(double) + m_pairRows.capacity() * sizeof(std::int64_t);
  bytes += (m_rowEntropy.capacity() + m_rowJsdEntropy.capacity() + m_rowInverse.capacity() +
            m_rowJsd.capacity()) *
           sizeof(double);
  return bytes;
}

}  // namespace attnlab::analysis
