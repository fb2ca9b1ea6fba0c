#include "analysis/attention/head_matching.h"
#include "analysis/attention/row_kernels.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attnlab::analysis {

namespace {

using namespace kernels;

constexpr double kLn2 = std::numbers::ln2;

template <class Body>
void parallelFor(int count, int threads, const Body& body) {
#ifdef _OPENMP
  const int team = std::max(1, std::min(threads > 0 ? threads : omp_get_max_threads(), count));
#pragma omp parallel for schedule(dynamic) num_threads(team)
  for (int k = 0; k < count; ++k) body(k);
#else
  (void)threads;
  for (int k = 0; k < count; ++k) body(k);
#endif
}

// ---- cross-run JSD ----------------------------------------------------------------------------

const float* headBlock(const AttentionStack& s, int layer, int head) {
  const auto t = static_cast<std::int64_t>(s.length);
  return s.data + (static_cast<std::int64_t>(layer) * s.heads + head) * t * t;
}

// sum_j p_j ln p_j of each valid row of one head into out[0, n); the first row whose sum is
// not finite (a NaN or infinity among its real keys), or -1.
ATTNLAB_HOT int headXLogX(const float* head, int T, int n, double* out) {
  for (int i = 0; i < n; ++i) {
    const RowSums r = rowSums(head + static_cast<std::int64_t>(i) * T, n);
    if (!std::isfinite(r.mass) || !std::isfinite(r.xLogX)) return i;
    out[i] = r.xLogX;
  }
  return -1;
}

// [layer][head][row] sum p ln p of `s`'s valid rows; throws, naming the first bad row.
std::vector<double> rowXLogX(const AttentionStack& s, int n, int threads, const char* run) {
  const int count = s.layers * s.heads;
  std::vector<double> out(static_cast<std::size_t>(count) * n);
  std::vector<int> bad(static_cast<std::size_t>(count), -1);
  parallelFor(count, threads, [&](int k) {
    bad[k] = headXLogX(headBlock(s, k / s.heads, k % s.heads), s.length, n,
                       out.data() + static_cast<std::size_t>(k) * n);
  });
  for (int k = 0; k < count; ++k) {
    if (bad[k] >= 0)
      throw std::invalid_argument("CrossHeadJsd::add: run " + std::string(run) + ", layer " +
                                  std::to_string(k / s.heads) + ", head " +
                                  std::to_string(k % s.heads) + ", row " + std::to_string(bad[k]) +
                                  " holds a value that is not finite");
  }
  return out;
}

// Sum over the n valid rows of JSD(a_i, b_i) in nats, as H(m) - (H(p) + H(q)) / 2 with
// m = (p + q) / 2: one log per key (the mixture's), the rows' own sums p ln p come in
// precomputed, as in attention_statistics.cpp. Clamped to [0, ln 2], JSD's range, which
// float rounding can leave by ~1e-7.
ATTNLAB_HOT double pairJsdSum(const float* a, int Ta, const double* xlA, const float* b, int Tb,
                              const double* xlB, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    const double mixture = mixtureXLogX(a + static_cast<std::int64_t>(i) * Ta,
                                        b + static_cast<std::int64_t>(i) * Tb, n, 0.5f, 0.5f, 0.0f);
    sum += std::clamp(0.5 * (xlA[i] + xlB[i]) - mixture, 0.0, kLn2);
  }
  return sum;
}

void checkStacks(const AttentionStack& a, const AttentionStack& b, int valid, int layers,
                 int heads) {
  const std::string where = "CrossHeadJsd::add: ";
  if (a.data == nullptr || b.data == nullptr)
    throw std::invalid_argument(where + "run " + (a.data ? "B" : "A") + "'s attention is null");
  if (a.layers != b.layers || a.heads != b.heads)
    throw std::invalid_argument(where + "run A has " + std::to_string(a.layers) + " layers x " +
                                std::to_string(a.heads) + " heads, run B " +
                                std::to_string(b.layers) + " x " + std::to_string(b.heads));
  if (a.layers != layers || a.heads != heads)
    throw std::invalid_argument(where + "the runs have " + std::to_string(a.layers) + " layers x " +
                                std::to_string(a.heads) + " heads, the accumulator " +
                                std::to_string(layers) + " x " + std::to_string(heads));
  if (valid < 0 || valid > a.length || valid > b.length)
    throw std::invalid_argument(
        where + std::to_string(valid) + " valid positions is outside [0, min(T_A = " +
        std::to_string(a.length) + ", T_B = " + std::to_string(b.length) + ")]");
}

// ---- linear CKA -------------------------------------------------------------------------------

void checkMatrix(std::size_t size, int n, int width, const std::string& where) {
  if (n < 2)
    throw std::invalid_argument(where + ": " + std::to_string(n) +
                                " examples; CKA needs at least 2 (centring leaves nothing of 1)");
  if (width < 1) throw std::invalid_argument(where + ": width " + std::to_string(width) + " < 1");
  if (size != static_cast<std::size_t>(n) * static_cast<std::size_t>(width))
    throw std::invalid_argument(where + " holds " + std::to_string(size) +
                                " values, not n x width = " + std::to_string(n) + " x " +
                                std::to_string(width));
}

// X with every column's mean subtracted, in double. The mean is taken of x - x[0] (the
// column shifted by its first value): a constant column centres to exactly 0, and a large
// common offset (hidden states have outlier dimensions) costs no precision.
template <class T>
std::vector<double> centredColumns(std::span<const T> x, int n, int p, const std::string& where) {
  checkMatrix(x.size(), n, p, where);
  std::vector<double> c(x.size());
  std::vector<double> mean(static_cast<std::size_t>(p), 0.0);
  for (std::size_t r = 0; r < static_cast<std::size_t>(n); ++r) {
    for (std::size_t j = 0; j < static_cast<std::size_t>(p); ++j) {
      const double v = static_cast<double>(x[r * p + j]);
      if (!std::isfinite(v))
        throw std::invalid_argument(where + ": the value at row " + std::to_string(r) +
                                    ", column " + std::to_string(j) + " is not finite");
      c[r * p + j] = v - static_cast<double>(x[j]);
      mean[j] += c[r * p + j];
    }
  }
  for (double& m : mean) m /= n;
  for (std::size_t k = 0; k < c.size(); ++k) c[k] -= mean[k % static_cast<std::size_t>(p)];
  return c;
}

// ||X^T X||_F of a centred n x p X by a symmetric rank-k update. Where p > n the n x n
// X X^T is formed instead: it has the same nonzero eigenvalues, hence the same norm.
double gramNorm(const std::vector<double>& c, int n, int p, const std::string& where) {
  const int k = std::min(n, p);
  std::vector<double> g(static_cast<std::size_t>(k) * k, 0.0);
  if (p <= n)
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, p, n, 1.0, c.data(), p, 0.0, g.data(), p);
  else
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasNoTrans, n, p, 1.0, c.data(), p, 0.0, g.data(), n);
  double sum = 0.0;
  for (int i = 0; i < k; ++i) {
    const double* row = g.data() + static_cast<std::size_t>(i) * k;
    sum += row[i] * row[i];
    for (int j = i + 1; j < k; ++j) sum += 2.0 * row[j] * row[j];  // the lower triangle's twin
  }
  const double norm = std::sqrt(sum);
  if (!(norm > 0.0))
    throw std::invalid_argument(where +
                                " has zero variance (every column is constant): CKA is "
                                "undefined");
  if (!std::isfinite(norm)) throw std::invalid_argument(where + ": ||X^T X||_F overflows a double");
  return norm;
}

// ||Y^T X||_F^2 of centred X [n][p] and Y [n][q]: the q x p product by the BLAS (n can be
// 10^4 tokens and p, q 768: 6 GFLOP, far too many for plain loops).
double crossSquared(const std::vector<double>& x, int p, const std::vector<double>& y, int q,
                    int n) {
  std::vector<double> g(static_cast<std::size_t>(q) * p);
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, q, p, n, 1.0, y.data(), q, x.data(), p, 0.0,
              g.data(), p);
  double sum = 0.0;
  for (const double v : g) sum += v * v;
  return sum;
}

// Cauchy-Schwarz bounds CKA by 1; rounding alone can step past it.
double ckaOf(double cross, double selfX, double selfY) {
  return std::clamp(cross / (selfX * selfY), 0.0, 1.0);
}

template <class T>
double linearCkaOf(std::span<const T> x, int n, int p, std::span<const T> y, int q) {
  const std::vector<double> cx = centredColumns(x, n, p, "linearCka: X");
  const std::vector<double> cy = centredColumns(y, n, q, "linearCka: Y");
  const double selfX = gramNorm(cx, n, p, "linearCka: X");
  const double selfY = gramNorm(cy, n, q, "linearCka: Y");
  return ckaOf(crossSquared(cx, p, cy, q, n), selfX, selfY);
}

std::string layerName(const char* run, std::size_t layer) {
  return std::string("linearCkaMatrix: layer ") + std::to_string(layer) + " of " + run;
}

// ---- Hungarian --------------------------------------------------------------------------------

// One row joins the assignment: Dijkstra-like growth of an alternating tree over the
// reduced costs a[i][j] - u[i] - v[j] >= 0, then augmentation along the path found. Rows
// and columns are 1-based; column 0 is the virtual start, p[j] the row on column j.
void augmentRow(std::span<const double> a, int n, int row, std::vector<double>& u,
                std::vector<double>& v, std::vector<int>& p, std::vector<int>& way) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> minv(static_cast<std::size_t>(n) + 1, inf);
  std::vector<char> used(static_cast<std::size_t>(n) + 1, 0);
  p[0] = row;
  int j0 = 0;
  do {
    used[j0] = 1;
    const int i0 = p[j0];
    double delta = inf;
    int j1 = 0;
    for (int j = 1; j <= n; ++j) {
      if (used[j]) continue;
      const double cur = a[static_cast<std::size_t>(i0 - 1) * n + (j - 1)] - u[i0] - v[j];
      if (cur < minv[j]) minv[j] = cur, way[j] = j0;
      if (minv[j] < delta) delta = minv[j], j1 = j;
    }
    for (int j = 0; j <= n; ++j) {
      if (used[j])
        u[p[j]] += delta, v[j] -= delta;
      else
        minv[j] -= delta;
    }
    if (j1 == 0)  // only where reduced costs overflowed to infinity
      throw std::invalid_argument("minimumCostAssignment: the costs are too large to compare");
    j0 = j1;
  } while (p[j0] != 0);
  do {  // flip the alternating path back to the start
    const int j1 = way[j0];
    p[j0] = p[j1];
    j0 = j1;
  } while (j0 != 0);
}

}  // namespace

// ---- CrossHeadJsd -----------------------------------------------------------------------------

CrossHeadJsd::CrossHeadJsd(int layers, int heads, LogBase base, int threads)
    : m_layers(layers), m_heads(heads), m_base(base), m_threads(threads) {
  if (layers < 1 || heads < 1)
    throw std::invalid_argument("CrossHeadJsd: layers and heads must be >= 1 (got " +
                                std::to_string(layers) + " x " + std::to_string(heads) + ")");
  m_sum.assign(static_cast<std::size_t>(layers) * heads * heads, 0.0);
}

void CrossHeadJsd::add(const AttentionStack& a, const AttentionStack& b, int valid) {
  checkStacks(a, b, valid, m_layers, m_heads);
  if (valid > 0) {
    // Every check (and throw) comes before the first sum changes.
    const std::vector<double> xlA = rowXLogX(a, valid, m_threads, "A");
    const std::vector<double> xlB = rowXLogX(b, valid, m_threads, "B");
    const int H = m_heads;
    parallelFor(m_layers * H, m_threads, [&](int k) {
      const int l = k / H;
      const float* headA = headBlock(a, l, k % H);
      const double* rowsA = xlA.data() + static_cast<std::size_t>(k) * valid;
      for (int hb = 0; hb < H; ++hb) {
        const std::size_t kb = static_cast<std::size_t>(l) * H + hb;
        m_sum[static_cast<std::size_t>(k) * H + hb] += pairJsdSum(
            headA, a.length, rowsA, headBlock(b, l, hb), b.length, xlB.data() + kb * valid, valid);
      }
    });
  }
  m_rows += valid;
  ++m_sequences;
}

std::vector<double> CrossHeadJsd::mean() const {
  if (m_rows == 0)
    return std::vector<double>(m_sum.size(), std::numeric_limits<double>::quiet_NaN());
  const double scale = (m_base == LogBase::Bits ? 1.0 / kLn2 : 1.0) / static_cast<double>(m_rows);
  std::vector<double> out(m_sum.size());
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = m_sum[k] * scale;
  return out;
}

// ---- assignment and matching ------------------------------------------------------------------

std::vector<int> minimumCostAssignment(std::span<const double> cost, int n) {
  if (n < 0)
    throw std::invalid_argument("minimumCostAssignment: n = " + std::to_string(n) + " < 0");
  if (cost.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(n))
    throw std::invalid_argument("minimumCostAssignment: " + std::to_string(cost.size()) +
                                " costs for a " + std::to_string(n) + " x " + std::to_string(n) +
                                " matrix");
  for (std::size_t k = 0; k < cost.size(); ++k) {
    if (!std::isfinite(cost[k]))
      throw std::invalid_argument("minimumCostAssignment: the cost at row " +
                                  std::to_string(k / n) + ", column " + std::to_string(k % n) +
                                  " is not finite");
  }
  // Potentials u (rows), v (columns); p[j] the row on column j; way[j] the column before j
  // on the current shortest path.
  std::vector<double> u(static_cast<std::size_t>(n) + 1, 0.0), v(u);
  std::vector<int> p(static_cast<std::size_t>(n) + 1, 0), way(p);
  for (int row = 1; row <= n; ++row) augmentRow(cost, n, row, u, v, p, way);
  std::vector<int> match(static_cast<std::size_t>(n));
  for (int j = 1; j <= n; ++j) match[p[j] - 1] = j - 1;
  return match;
}

std::vector<LayerHeadMatching> matchHeads(std::span<const double> jsd, int layers, int heads) {
  if (layers < 0 || heads < 0 ||
      jsd.size() != static_cast<std::size_t>(layers) * heads * static_cast<std::size_t>(heads))
    throw std::invalid_argument("matchHeads: " + std::to_string(jsd.size()) +
                                " JSDs, not layers x heads x heads = " + std::to_string(layers) +
                                " x " + std::to_string(heads) + " x " + std::to_string(heads));
  std::vector<LayerHeadMatching> out(static_cast<std::size_t>(layers));
  const std::size_t block = static_cast<std::size_t>(heads) * heads;
  for (int l = 0; l < layers; ++l) {
    const std::span<const double> d = jsd.subspan(l * block, block);
    LayerHeadMatching& m = out[l];
    try {
      m.match = minimumCostAssignment(d, heads);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("matchHeads: layer " + std::to_string(l) + ": " + e.what());
    }
    for (int h = 0; h < heads; ++h) {
      const std::span<const double> row = d.subspan(static_cast<std::size_t>(h) * heads, heads);
      m.matchedJsd.push_back(row[m.match[h]]);
      m.identityJsd.push_back(row[h]);
      m.nearest.push_back(static_cast<int>(std::min_element(row.begin(), row.end()) - row.begin()));
      m.meanMatched += m.matchedJsd.back() / heads;
      m.meanIdentity += m.identityJsd.back() / heads;
    }
  }
  return out;
}

// ---- linear CKA -------------------------------------------------------------------------------

double linearCka(std::span<const float> x, int n, int p, std::span<const float> y, int q) {
  return linearCkaOf(x, n, p, y, q);
}

double linearCka(std::span<const double> x, int n, int p, std::span<const double> y, int q) {
  return linearCkaOf(x, n, p, y, q);
}

std::vector<double> linearCkaMatrix(std::span<const std::span<const float>> layersA, int widthA,
                                    std::span<const std::span<const float>> layersB, int widthB,
                                    int n) {
  if (layersA.empty() || layersB.empty())
    throw std::invalid_argument("linearCkaMatrix: run " + std::string(layersA.empty() ? "A" : "B") +
                                " has no layers");
  // B's self terms first, once each. Its centred layers are not kept (10^4 tokens x 768
  // doubles is 61 MB a layer): each is centred again per A layer, O(n q) against the
  // product's O(n p q), and it has to be converted to double for the BLAS anyway.
  std::vector<double> selfB(layersB.size());
  for (std::size_t j = 0; j < layersB.size(); ++j) {
    const std::string where = layerName("B", j);
    selfB[j] = gramNorm(centredColumns(layersB[j], n, widthB, where), n, widthB, where);
  }
  std::vector<double> out(layersA.size() * layersB.size());
  for (std::size_t i = 0; i < layersA.size(); ++i) {
    const std::string where = layerName("A", i);
    const std::vector<double> x = centredColumns(layersA[i], n, widthA, where);
    const double selfA = gramNorm(x, n, widthA, where);
    for (std::size_t j = 0; j < layersB.size(); ++j) {
      const std::vector<double> y = centredColumns(layersB[j], n, widthB, layerName("B", j));
      out[i * layersB.size() + j] = ckaOf(crossSquared(x, widthA, y, widthB, n), selfA, selfB[j]);
    }
  }
  return out;
}

}  // namespace attnlab::analysis
