#pragma once

// What a run log holds, declared before the file is created: in HDF5 1.10 no group,
// dataset or attribute can be created once SWMR writing has started, so every series the
// run will ever append to is named here. The file layout is documented in docs/run-log.md.

#include "core/hdf5/element_type.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::core {

/// The layout version this code writes and the newest it reads (root attribute
/// schema_version). A reader refuses files with a newer version.
inline constexpr std::int64_t kRunLogSchemaVersion = 1;

/// Fixed string widths (bytes, UTF-8, null-padded; longer text is cut at a character
/// boundary). Fixed rather than variable length because SWMR appends cannot use the global
/// heap that variable-length strings live in.
inline constexpr std::size_t kRunLogPathBytes = 1024;
inline constexpr std::size_t kRunLogEventKindBytes = 32;
inline constexpr std::size_t kRunLogEventMessageBytes = 1024;

/// A per-step tensor quantity: one row of `innerShape` per logged step.
struct TensorSeriesSpec {
  std::string name;                      ///< e.g. "asa/mask_fraction" (a '/' makes groups)
  std::vector<std::int64_t> innerShape;  ///< e.g. {L}, {L, H}, {L, B, H, T, T}
  /// Float16, Float32, Float64 or Int64 (values are given as float and converted).
  hdf5::ElementType type = hdf5::ElementType::Float32;
  std::int64_t chunkRows = 0;  ///< rows per chunk; 0 = about 64 KiB per chunk
  int gzipLevel = 0;           ///< 0 = none, 1-9 = gzip (with shuffle)

  bool operator==(const TensorSeriesSpec& other) const = default;
};

/// Everything a run log is created with.
struct RunLogSchema {
  std::string runName;
  std::string configToml;                    ///< the resolved configuration, as TOML
  std::string configJson;                    ///< the same, as JSON
  std::vector<std::string> tokenizerPieces;  ///< piece text by id
  /// Scalar series, e.g. "train/loss" (stored under /scalars/train/loss).
  std::vector<std::string> scalarNames = defaultScalarNames();
  std::vector<TensorSeriesSpec> series;

  /// train/loss, train/learning_rate, train/grad_norm, train/tokens_per_second, eval/loss,
  /// eval/accuracy.
  static std::vector<std::string> defaultScalarNames();

  /// The probe batch whose attention snapshots the series "snapshots/..." hold:
  /// `probeSequences` x `probeLength` token ids (row-major) and their pieces. Written once
  /// at creation as /snapshots/token_ids and /snapshots/tokens (0 sequences = none).
  std::int64_t probeSequences = 0;
  std::int64_t probeLength = 0;
  std::vector<std::int64_t> probeIds;
  std::vector<std::string> probePieces;
};

/// Checks names (non-empty components, no '.'/'..', unique, none a group prefix of another),
/// shapes (positive), types and gzip levels; throws RunLogError naming the offending entry.
void validateRunLogSchema(const RunLogSchema& schema);

/// Number of elements in one row of `spec` (product of the inner shape).
std::int64_t seriesRowElements(const TensorSeriesSpec& spec);

}  // namespace attnlab::core
