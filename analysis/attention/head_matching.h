#pragma once

// Heads matched across runs (issue 28): two models, or two checkpoints of one run, read the
// same inputs, and their heads are compared.
//  - CrossHeadJsd: mean Jensen-Shannon divergence between every head of run A and every head
//    of run B of the same layer, per query row, the distance Clark et al. ("What does BERT
//    look at?", 2019, Sec. 6) use between heads of one model, here across two models.
//  - minimumCostAssignment: the Hungarian method (Kuhn 1955) in the shortest augmenting path
//    form with potentials (Jonker & Volgenant 1987), O(n^3); matchHeads() pairs A's heads
//    with B's at the least total JSD, since heads are only defined up to a permutation.
//  - linearCka: linear centred kernel alignment (Kornblith et al. 2019, "Similarity of
//    Neural Network Representations Revisited", ICML, Sec. 3: CKA with the linear kernel,
//    their Table 1's "Linear CKA"), layer representations compared across runs.
// Plain C++20 and the system BLAS (no Qt, no LibTorch).

#include "analysis/attention/attention_rollout.h"
#include "analysis/attention/distribution_stats.h"

#include <cstdint>
#include <span>
#include <vector>

namespace attnlab::analysis {

/// Mean JSD between each head of run A and each head of run B of the same layer, over query
/// rows of sequences both runs read. Memory is fixed by (layers, heads), not by the number
/// of sequences.
class CrossHeadJsd {
 public:
  /// Throws std::invalid_argument unless layers and heads are >= 1. `threads` = 0: all cores.
  CrossHeadJsd(int layers, int heads, LogBase base = LogBase::Bits, int threads = 0);

  /// One sequence as run A and run B attended to it ([layers][heads][T][T] each; the two
  /// lengths T may differ). Rows and keys >= `valid` are padding and never read. Rows are
  /// used as given (not renormalised). For every layer l and heads a (of A) and b (of B),
  /// adds JSD(A[l][a][i][0, valid), B[l][b][i][0, valid)) for each row i < valid. Throws
  /// std::invalid_argument, leaving the accumulator unchanged, when A and B or the
  /// accumulator differ in layers or heads, a pointer is null, `valid` is outside
  /// [0, min(T_A, T_B)], or a valid row holds a value that is not finite.
  void add(const AttentionStack& a, const AttentionStack& b, int valid);

  /// [layers][heads of A][heads of B] mean JSD over every row added, in the base given to
  /// the constructor (bits: [0, 1]); NaN everywhere while no row was added. Exact to ~1e-6
  /// (the rows' x ln x sums are vectorised in float, see row_kernels.h).
  std::vector<double> mean() const;

  int layers() const { return m_layers; }
  int heads() const { return m_heads; }
  LogBase base() const { return m_base; }
  std::int64_t rows() const { return m_rows; }  ///< query rows added (per head pair)
  std::int64_t sequences() const { return m_sequences; }

 private:
  int m_layers, m_heads;
  LogBase m_base;
  int m_threads;
  std::int64_t m_rows = 0, m_sequences = 0;
  std::vector<double> m_sum;  ///< [layers][heads][heads], nats
};

/// For each row of the n x n row-major `cost`, its column in an assignment (a permutation)
/// of least total cost; ties between equally cheap assignments are broken arbitrarily.
/// O(n^3). n = 0 gives an empty vector. Throws std::invalid_argument when n < 0, `cost` does
/// not hold n * n entries, or an entry is not finite.
std::vector<int> minimumCostAssignment(std::span<const double> cost, int n);

/// How one layer's heads of run A pair with run B's (all JSDs in the input's unit).
struct LayerHeadMatching {
  std::vector<int> match;           ///< [heads]: B's head given to A's head h (a permutation)
  std::vector<double> matchedJsd;   ///< [heads]: JSD(A head h, B head match[h])
  double meanMatched = 0;           ///< mean of matchedJsd: the least over all pairings
  std::vector<double> identityJsd;  ///< [heads]: JSD(A head h, B head h)
  double meanIdentity = 0;          ///< mean of identityJsd: how far training moved the heads
  std::vector<int> nearest;         ///< [heads]: B's head nearest A's head h (first on ties)
};

/// Per layer, the pairing of A's heads with B's of least total JSD (minimumCostAssignment on
/// the layer's heads x heads block of `jsd`, laid out as CrossHeadJsd::mean()), with the
/// identity pairing and each head's nearest for comparison. Throws std::invalid_argument
/// when `jsd` does not hold layers * heads * heads entries or holds a non-finite one.
std::vector<LayerHeadMatching> matchHeads(std::span<const double> jsd, int layers, int heads);

/// Linear CKA between X [n][p] and Y [n][q] (row-major; row k of both is the same example,
/// e.g. token): with every column centred, ||Y^T X||_F^2 / (||X^T X||_F ||Y^T Y||_F), in
/// [0, 1], invariant to orthogonal transforms and isotropic scaling of either. Products in
/// double precision by the BLAS. Throws std::invalid_argument when n < 2, p or q < 1, a
/// span does not hold n rows, a value is not finite, or X or Y has no variance (every
/// column constant: CKA is undefined).
double linearCka(std::span<const float> x, int n, int p, std::span<const float> y, int q);
double linearCka(std::span<const double> x, int n, int p, std::span<const double> y, int q);

/// [layers of A][layers of B] linear CKA between per-layer representations of the same n
/// examples: layersA[i] is [n][widthA] row-major, layersB[j] is [n][widthB]. Each layer's
/// self term ||X^T X||_F is computed once; memory beyond the inputs is two centred layers,
/// one widthB x widthA product and one min(n, width)^2 Gram matrix. Throws as linearCka()
/// (naming the layer), or when either list is empty.
std::vector<double> linearCkaMatrix(std::span<const std::span<const float>> layersA, int widthA,
                                    std::span<const std::span<const float>> layersB, int widthB,
                                    int n);

}  // namespace attnlab::analysis
