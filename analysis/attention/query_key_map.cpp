#include "analysis/attention/query_key_map.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "analysis/attention/head_embedding.h"

namespace attnlab::analysis {

namespace {

using std::size_t;

[[noreturn]] void fail(const char* where, const std::string& what) {
  throw std::invalid_argument(std::string(where) + ": " + what);
}

// A row-major [rows x d] block of finite values; `what` names the rows in messages.
template <typename T>
void checkRows(const char* where, const char* what, std::span<const T> values, int rows, int d) {
  if (rows < 1)
    fail(where, std::string("need at least one ") + what + ", got " + std::to_string(rows));
  const size_t expected = static_cast<size_t>(rows) * static_cast<size_t>(d);
  if (values.size() != expected)
    fail(where, std::string(what) + ": " + std::to_string(values.size()) + " values for " +
                    std::to_string(rows) + " rows of " + std::to_string(d) + " (expected " +
                    std::to_string(expected) + ")");
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(static_cast<double>(values[i])))
      fail(where, std::string(what) + " row " + std::to_string(i / static_cast<size_t>(d)) +
                      ", component " + std::to_string(i % static_cast<size_t>(d)) +
                      " is not finite");
}

void checkHead(const char* where, std::span<const float> queries, int n,
               std::span<const float> keys, int m, int d) {
  if (d < 1) fail(where, "the dimension d must be >= 1, got " + std::to_string(d));
  checkRows(where, "queries", queries, n, d);
  checkRows(where, "keys", keys, m, d);
}

std::vector<double> centroid(std::span<const float> rows, int count, int d) {
  std::vector<double> mean(static_cast<size_t>(d), 0.0);
  for (int i = 0; i < count; ++i)
    for (int k = 0; k < d; ++k) mean[k] += rows[static_cast<size_t>(i) * d + k];
  for (double& v : mean) v /= count;
  return mean;
}

double meanNorm(std::span<const float> rows, int count, int d) {
  double sum = 0;
  for (int i = 0; i < count; ++i) {
    double sq = 0;
    for (int k = 0; k < d; ++k) {
      const double v = rows[static_cast<size_t>(i) * d + k];
      sq += v * v;
    }
    sum += std::sqrt(sq);
  }
  return sum / count;
}

// The centred keys delta_j = k_j - mu_k and the query centroid mu_q define
// h(u) = mean_j ||delta_j + u mu_q|| - u A (A = mean query norm). Returns h(u) and h'(u).
struct NormGap {
  double value, slope;
};
NormGap normGap(const std::vector<double>& delta, const std::vector<double>& muQ, int m, int d,
                double meanQueryNorm, double u) {
  double sum = 0, slope = 0;
  for (int j = 0; j < m; ++j) {
    double sq = 0, along = 0;
    for (int k = 0; k < d; ++k) {
      const double v = delta[static_cast<size_t>(j) * d + k] + u * muQ[k];
      sq += v * v;
      along += v * muQ[k];
    }
    const double norm = std::sqrt(sq);
    sum += norm;
    if (norm > 0) slope += along / norm;  // a key at the origin: 0 is a subgradient
  }
  return {sum / m - u * meanQueryNorm, slope / m - meanQueryNorm};
}

// The root of the convex, decreasing h by Newton's method from u = 0: the tangent of a
// convex function lies below it, so every step lands short of the root and the iterates
// climb to it monotonically (quadratically once close). Returns 0 when there is no root.
double solveScaleSquared(const std::vector<double>& delta, const std::vector<double>& muQ, int m,
                         int d, double meanQueryNorm) {
  double muNorm = 0;
  for (double v : muQ) muNorm += v * v;
  muNorm = std::sqrt(muNorm);
  // h'(u) <= ||mu_q|| - A: with equality (all queries on one ray) h only tends to 0.
  if (!(meanQueryNorm - muNorm > 1e-12 * meanQueryNorm)) return 0;
  double u = 0;
  NormGap g = normGap(delta, muQ, m, d, meanQueryNorm, u);
  if (!(g.value > 0)) return 0;  // every key the same point
  for (int it = 0; it < 200 && g.value > 0 && g.slope < 0; ++it) {
    const double next = u - g.value / g.slope;
    if (!(next > u)) break;
    const bool converged = next - u <= 1e-15 * next;
    u = next;
    g = normGap(delta, muQ, m, d, meanQueryNorm, u);
    if (converged) break;
  }
  return u;
}

}  // namespace

QueryKeyNormalisation queryKeyNormalisation(std::span<const float> queries, int n,
                                            std::span<const float> keys, int m, int d) {
  checkHead("queryKeyNormalisation", queries, n, keys, m, d);
  const std::vector<double> muQ = centroid(queries, n, d), muK = centroid(keys, m, d);
  std::vector<double> delta(static_cast<size_t>(m) * d);
  for (int j = 0; j < m; ++j)
    for (int k = 0; k < d; ++k)
      delta[static_cast<size_t>(j) * d + k] = keys[static_cast<size_t>(j) * d + k] - muK[k];
  const double u = solveScaleSquared(delta, muQ, m, d, meanNorm(queries, n, d));
  QueryKeyNormalisation out;
  out.normsMatched = u > 0 && std::isfinite(u);
  const double u2 = out.normsMatched ? u : 1.0;
  out.scale = std::sqrt(u2);
  // (k + c) / s = (k - mu_k) / s + s mu_q: the key centroid lands on s mu_q, the queries'.
  out.keyShift.resize(static_cast<size_t>(d));
  for (int k = 0; k < d; ++k) out.keyShift[k] = u2 * muQ[k] - muK[k];
  return out;
}

NormalisedQueryKeys normaliseQueryKeys(const QueryKeyNormalisation& normalisation,
                                       std::span<const float> queries, int n,
                                       std::span<const float> keys, int m, int d) {
  const char* where = "normaliseQueryKeys";
  checkHead(where, queries, n, keys, m, d);
  checkRows(where, "keyShift", std::span<const double>(normalisation.keyShift), 1, d);
  const double s = normalisation.scale;
  if (!(std::isfinite(s) && s > 0))
    fail(where, "the scale must be finite and > 0, got " + std::to_string(s));
  NormalisedQueryKeys out;
  out.queries.resize(queries.size());
  out.keys.resize(keys.size());
  for (size_t i = 0; i < queries.size(); ++i) out.queries[i] = s * queries[i];
  for (size_t i = 0; i < keys.size(); ++i)
    out.keys[i] = (keys[i] + normalisation.keyShift[i % static_cast<size_t>(d)]) / s;
  return out;
}

namespace {

// The joint cloud centred on its centroid: [(n + m) x d] row-major.
std::vector<double> centredCloud(const NormalisedQueryKeys& v, int d) {
  std::vector<double> x(v.queries);
  x.insert(x.end(), v.keys.begin(), v.keys.end());
  const size_t rows = x.size() / static_cast<size_t>(d);
  std::vector<double> mean(static_cast<size_t>(d), 0.0);
  for (size_t i = 0; i < rows; ++i)
    for (int k = 0; k < d; ++k) mean[k] += x[i * d + k];
  for (double& c : mean) c /= static_cast<double>(rows);
  for (size_t i = 0; i < rows; ++i)
    for (int k = 0; k < d; ++k) x[i * d + k] -= mean[k];
  return x;
}

// C = X^T X / rows, d x d, both triangles. dsyrk reads X once, row by row: with 20,000
// points of d = 256 a column-wise loop would stride through 40 MB for each entry.
std::vector<double> covariance(const std::vector<double>& x, int d) {
  const int rows = static_cast<int>(x.size() / static_cast<size_t>(d));
  std::vector<double> c(static_cast<size_t>(d) * d, 0.0);
  cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, d, rows, 1.0 / rows, x.data(), d, 0.0,
              c.data(), d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < i; ++j)
      c[static_cast<size_t>(i) * d + j] = c[static_cast<size_t>(j) * d + i];
  return c;
}

// The top `dims` eigenvectors as rows [dims x d], each flipped so that its largest-magnitude
// loading is positive: an eigenvector's sign is arbitrary, and this choice depends only on
// the direction, not on the order the points came in.
std::vector<double> signedComponents(const SymmetricEigen& eig, int d, int dims) {
  std::vector<double> w(eig.vectors.begin(),
                        eig.vectors.begin() + static_cast<std::ptrdiff_t>(dims) * d);
  for (int c = 0; c < dims; ++c) {
    double* row = w.data() + static_cast<size_t>(c) * d;
    int largest = 0;
    for (int i = 1; i < d; ++i)
      if (std::abs(row[i]) > std::abs(row[largest])) largest = i;
    if (row[largest] < 0)
      for (int i = 0; i < d; ++i) row[i] = -row[i];
  }
  return w;
}

}  // namespace

QueryKeyMap queryKeyMap(std::span<const float> queries, int n, std::span<const float> keys, int m,
                        int d, int dims) {
  const char* where = "queryKeyMap";
  checkHead(where, queries, n, keys, m, d);
  if (dims < 1 || dims > d)
    fail(where, "dims must be in 1.." + std::to_string(d) + ", got " + std::to_string(dims));
  QueryKeyMap out;
  out.queries = n;
  out.keys = m;
  out.dims = dims;
  out.normalisation = queryKeyNormalisation(queries, n, keys, m, d);
  const std::vector<double> x =
      centredCloud(normaliseQueryKeys(out.normalisation, queries, n, keys, m, d), d);
  const SymmetricEigen eig = symmetricEigen(covariance(x, d), d);
  double total = 0, kept = 0;
  for (int k = 0; k < d; ++k) total += std::max(0.0, eig.values[k]);
  for (int k = 0; k < dims; ++k) {
    out.eigenvalues.push_back(eig.values[k]);
    kept += std::max(0.0, eig.values[k]);
  }
  out.explained = total > 0 ? kept / total : 1.0;
  out.components = signedComponents(eig, d, dims);
  const int rows = n + m;
  out.coords.assign(static_cast<size_t>(rows) * dims, 0.0);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, dims, d, 1.0, x.data(), d,
              out.components.data(), d, 0.0, out.coords.data(), dims);
  return out;
}

namespace {

// Running moments of (x, y) pairs, merged block by block (Chan et al.'s pairwise update)
// so that n x m pairs need neither storing nor a second pass, and large means do not cancel.
struct Moments {
  double count = 0, meanX = 0, meanY = 0, m2x = 0, m2y = 0, cxy = 0;
  void merge(const Moments& b) {
    if (b.count == 0) return;
    const double total = count + b.count, dx = b.meanX - meanX, dy = b.meanY - meanY;
    const double w = count * b.count / total;
    meanX += dx * b.count / total;
    meanY += dy * b.count / total;
    m2x += b.m2x + dx * dx * w;
    m2y += b.m2y + dy * dy * w;
    cxy += b.cxy + dx * dy * w;
    count = total;
  }
};

std::vector<double> squaredNorms(std::span<const double> rows, int count, int d) {
  std::vector<double> out(static_cast<size_t>(count), 0.0);
  for (int i = 0; i < count; ++i)
    for (int k = 0; k < d; ++k)
      out[i] += rows[static_cast<size_t>(i) * d + k] * rows[static_cast<size_t>(i) * d + k];
  return out;
}

// Moments of (q.k, ||q - k||) for a block of `rows` queries against all keys, from the
// block's dot products `dots` [rows x m] and ||q - k||^2 = ||q||^2 + ||k||^2 - 2 q.k.
Moments blockMoments(const std::vector<double>& dots, const double* qn,
                     const std::vector<double>& kn, int rows, int m) {
  const auto dist = [&](int i, int j) {
    return std::sqrt(std::max(0.0, qn[i] + kn[j] - 2 * dots[static_cast<size_t>(i) * m + j]));
  };
  Moments b;
  b.count = static_cast<double>(rows) * m;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < m; ++j)
      b.meanX += dots[static_cast<size_t>(i) * m + j], b.meanY += dist(i, j);
  b.meanX /= b.count;
  b.meanY /= b.count;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < m; ++j) {
      const double dx = dots[static_cast<size_t>(i) * m + j] - b.meanX, dy = dist(i, j) - b.meanY;
      b.m2x += dx * dx;
      b.m2y += dy * dy;
      b.cxy += dx * dy;
    }
  return b;
}

}  // namespace

double dotDistanceCorrelation(std::span<const double> queries, int n, std::span<const double> keys,
                              int m, int d) {
  const char* where = "dotDistanceCorrelation";
  if (d < 1) fail(where, "the dimension d must be >= 1, got " + std::to_string(d));
  checkRows(where, "queries", queries, n, d);
  checkRows(where, "keys", keys, m, d);
  const std::vector<double> qn = squaredNorms(queries, n, d), kn = squaredNorms(keys, m, d);
  // Blocks of query rows keep the dot products to a few MB whatever n and m are.
  const int block = std::max(1, std::min(n, static_cast<int>((1 << 20) / std::max(m, 1))));
  std::vector<double> dots(static_cast<size_t>(block) * m);
  Moments all;
  for (int first = 0; first < n; first += block) {
    const int rows = std::min(block, n - first);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, m, d, 1.0,
                queries.data() + static_cast<size_t>(first) * d, d, keys.data(), d, 0.0,
                dots.data(), m);
    all.merge(blockMoments(dots, qn.data() + first, kn, rows, m));
  }
  return all.m2x > 0 && all.m2y > 0 ? all.cxy / std::sqrt(all.m2x * all.m2y) : 0.0;
}

}  // namespace attnlab::analysis
