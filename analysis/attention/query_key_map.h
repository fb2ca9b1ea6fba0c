#pragma once

// The query-key map of one attention head: its queries and keys as points of one picture,
// after AttentionViz (Yeh et al. 2023, "AttentionViz: A Global View of Transformer
// Attention", IEEE VIS, arXiv 2305.03210, section 4: joint query-key embedding and its
// vector normalisation). A query attends to the keys with the largest dot products; the
// picture shows distances. Two changes leave every softmax row unchanged and bring distance
// in line with the dot product,
//     ||q - k||^2 = ||q||^2 + ||k||^2 - 2 q.k,
// (1) translating all keys by one vector c (each score of query q gains the same q.c) so the
// key centroid meets the query centroid, and (2) scaling queries by s and keys by 1/s (each
// q.k is unchanged) so the mean query norm equals the mean key norm. Both conditions hold
// for the final vectors (the scale is solved for jointly with the shift): translating first
// and then scaling would pull the centroids apart again unless s = 1. Then the points are
// projected with PCA.
//
// Only PCA is offered. Classical MDS of the Euclidean distances would give PCA's coordinates
// exactly (up to rotation and reflection), so it adds nothing; AttentionViz's t-SNE and UMAP
// views are not offered because Debian packages no t-SNE or UMAP library for C or C++ (only
// the R packages r-cran-tsne, r-cran-rtsne, r-cran-uwot and the Python umap-learn, per
// apt-cache on Debian 12). Plain C++ and the system BLAS (no Qt, no LibTorch).

#include <span>
#include <vector>

namespace attnlab::analysis {

/// What the normalisation does to a head's vectors: q' = s q and k' = (k + keyShift) / s.
struct QueryKeyNormalisation {
  /// c, added to every key before scaling: the key centroid moves to s^2 times the query
  /// centroid, so that after scaling both centroids coincide. [d]
  std::vector<double> keyShift;
  /// s > 0. Chosen with the shift so that mean ||q'|| = mean ||k'||.
  double scale = 1.0;
  /// False when no s equalises the mean norms (every query is a non-negative multiple of
  /// one vector, e.g. a single query, or every key is the same): then s = 1 and only the
  /// centroids are matched.
  bool normsMatched = true;
};

/// The normalised vectors, in double precision.
struct NormalisedQueryKeys {
  std::vector<double> queries;  ///< [n * d] row-major
  std::vector<double> keys;     ///< [m * d] row-major
};

/// The normalisation of `n` queries and `m` keys of dimension `d` (row-major floats; n and
/// m may differ). Writing mu_q, mu_k for the centroids and u = s^2, the conditions
/// mean(k') = mean(q') and mean ||q'|| = mean ||k'|| give c = u mu_q - mu_k and
///     h(u) = mean_j ||k_j - mu_k + u mu_q|| - u mean_i ||q_i|| = 0,
/// which is convex and decreasing in u (||mu_q|| <= mean ||q_i||), so its one root is found
/// by Newton's method from u = 0. Throws std::invalid_argument on n, m or d < 1, a span
/// whose size is not rows x d, or a non-finite value (the message names the row).
QueryKeyNormalisation queryKeyNormalisation(std::span<const float> queries, int n,
                                            std::span<const float> keys, int m, int d);

/// Applies `normalisation`: q' = s q, k' = (k + c) / s. Same checks as
/// queryKeyNormalisation, and the shift must have d finite entries and s be finite and > 0.
NormalisedQueryKeys normaliseQueryKeys(const QueryKeyNormalisation& normalisation,
                                       std::span<const float> queries, int n,
                                       std::span<const float> keys, int m, int d);

/// One head's query-key map.
struct QueryKeyMap {
  int queries = 0, keys = 0, dims = 0;
  /// [(queries + keys) * dims] point-major: the queries first, then the keys.
  std::vector<double> coords;
  /// The `dims` largest eigenvalues of the joint covariance (divided by n + m), descending.
  std::vector<double> eigenvalues;
  /// The principal axes as unit rows [dims * d], in the normalised space: which of the
  /// head's dimensions each map axis reads.
  std::vector<double> components;
  /// Share of the total variance the kept components explain (0..1; 1 when every point is
  /// the same): how faithful the picture is.
  double explained = 0;
  QueryKeyNormalisation normalisation;
};

/// Normalises (queryKeyNormalisation) and projects all n + m points jointly on the top
/// `dims` principal components of their covariance (centred on the joint centroid; Jacobi
/// eigensolver, symmetricEigen). Each component's sign makes its largest-magnitude loading
/// positive (the earliest one on an exact tie), so equal input gives an identical picture
/// and reordering the points does not mirror it. Throws std::invalid_argument as
/// queryKeyNormalisation does, and on dims < 1 or dims > d.
QueryKeyMap queryKeyMap(std::span<const float> queries, int n, std::span<const float> keys, int m,
                        int d, int dims = 2);

/// How well distance tracks attention: the Pearson correlation, over all n x m query-key
/// pairs, between q.k and ||q - k|| of the given vectors (row-major doubles, [n * d] and
/// [m * d]). AttentionViz aims for a value near -1; it is exactly -1 only when distance is
/// a decreasing affine function of the dot product. 0 when either has no spread.
/// O(n m d), through the BLAS. Throws std::invalid_argument on sizes that do not match or
/// n, m, d < 1.
double dotDistanceCorrelation(std::span<const double> queries, int n, std::span<const double> keys,
                              int m, int d);

}  // namespace attnlab::analysis
