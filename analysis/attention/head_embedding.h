#pragma once

// Classical (Torgerson) multidimensional scaling: points in the plane whose Euclidean
// distances approximate given distances. Clark et al. ("What does BERT look at?", Sec. 6)
// embed BERT's heads this way from their pairwise Jensen-Shannon divergences. Plain C++:
// a small Jacobi eigensolver, no linear-algebra dependency.

#include <cstddef>
#include <span>
#include <vector>

namespace attnlab::analysis {

/// Eigenvalues (descending) and unit eigenvectors of a symmetric n x n matrix (row-major),
/// by cyclic Jacobi rotations until the off-diagonal mass is below 1e-22 of the total (or
/// 100 sweeps). vectors[k * n + i] is component i of the k-th eigenvector. Throws
/// std::invalid_argument when `matrix` is not n x n.
struct SymmetricEigen {
  std::vector<double> values;
  std::vector<double> vectors;
};
SymmetricEigen symmetricEigen(std::span<const double> matrix, int n);

/// The heads as points of a `dims`-dimensional embedding.
struct HeadEmbedding {
  int points = 0, dims = 0;
  std::vector<double> coords;       ///< [points * dims], point-major
  std::vector<double> eigenvalues;  ///< the `dims` largest of the double-centred matrix B
  /// Share of the positive eigenvalues' sum the kept dimensions explain (0..1): how faithful
  /// the picture is.
  double explained = 0;
};

/// Classical MDS of the n x n distance matrix `distances` (row-major; only the symmetric
/// part (d_ij + d_ji) / 2 is used, the diagonal is taken as 0): B = -1/2 J D^2 J with
/// J = I - 11^T/n, then the top `dims` eigenvectors scaled by sqrt(eigenvalue) (a negative
/// eigenvalue gives a zero coordinate). The result is unique up to rotation and reflection.
/// Throws std::invalid_argument when `distances` is not n x n, n < 1, dims < 1 or a
/// distance is not finite.
HeadEmbedding classicalMds(std::span<const double> distances, int n, int dims = 2);

}  // namespace attnlab::analysis
