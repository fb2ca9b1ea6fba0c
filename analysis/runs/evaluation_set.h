#pragma once

#include "analysis/attention/attention_statistics.h"
#include "analysis/attention/skipped_data.h"
#include "analysis/runs/analysis_control.h"

#include <ATen/core/Tensor.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace attnlab::core {
class AttentionInspector;
}

namespace attnlab::analysis {

/// Which sequences an analysis runs the model on.
struct EvaluationSpec {
  std::filesystem::path textFile;  ///< empty: the run's validation split; else one line a sequence
  std::int64_t maxSequences = 0;   ///< 0: all of them
  int batchSize = 16;
};

/// A batch of sequences ready for the model: ids [B, T] int64 padded with <pad>, and each
/// sequence's roles (real length, separators, periods) for the statistics.
struct EvaluationBatch {
  at::Tensor ids;
  std::vector<SequenceRoles> roles;
};

/// Streams an evaluation set in batches, so memory does not grow with its size:
/// - the run's validation split: its fixed-length blocks as the trainer evaluates them
///   (data.sequence_length, packed or by line as configured, no MLM masking);
/// - a text file: one sequence per non-empty line, <s> pieces </s>, cut at the model's
///   length; lines that are not UTF-8 are reported with file:line and skipped.
class EvaluationSet {
 public:
  /// Uses the checkpoint's configuration and tokenizer. Throws DataError (no validation
  /// split, unreadable or empty file) naming what is missing. `progress` is told
  /// kPhaseBuildEvaluationSet (the data pipeline's phases, or bytes of the text file read);
  /// a set `*cancel` throws attnlab::Cancelled between data phases or every few hundred lines.
  EvaluationSet(const core::AttentionInspector& inspector, const std::filesystem::path& runDir,
                const EvaluationSpec& spec, const AnalysisProgress& progress = {},
                const std::atomic<bool>* cancel = nullptr);
  ~EvaluationSet();
  EvaluationSet(EvaluationSet&&) noexcept;
  EvaluationSet& operator=(EvaluationSet&&) noexcept;

  /// "validation split (812 blocks of 64 tokens)" or "text file notes.txt (120 lines)".
  std::string description() const;
  std::string kind() const;   ///< "validation" or "text"
  std::int64_t size() const;  ///< sequences next() will produce
  int maxLength() const;      ///< the longest sequence (T of the statistics)
  const std::vector<SkippedData>& skipped() const;

  /// Fills the next batch; false when the set is exhausted.
  bool next(EvaluationBatch& batch);
  /// Starts over from the first sequence.
  void rewind();

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

/// Roles of one sequence of token ids (separator: </s>; period: the pieces "." and "▁.").
SequenceRoles rolesOf(const std::int64_t* ids, int length, int eosId,
                      const std::vector<int>& periodIds);

}  // namespace attnlab::analysis
