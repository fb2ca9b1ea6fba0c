#pragma once

#include "core/config/run_config.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::core {

class BlockSet;
class MaskedLanguageModelImpl;
class RunLogWriter;
class Tokenizer;
struct RunLogSchema;

/// Attention snapshots of a fixed probe batch at chosen steps: the probabilities of every
/// layer and head, and (log.snapshot_scores) the pre-softmax scores (raw, or RealFormer's
/// residual ones) and ASA's keep-masks, as float16 gzip-compressed series in the run log:
///   snapshots/probabilities  [L, B, H, T, T]  (|s| / sum |s| per row for maps that are not
///                                              probabilities: core/model/attention_maps.h)
///   snapshots/weights        [L, B, H, T, T]  (those maps as the model made them)
///   snapshots/scores         [L, B, H, T, T]
///   snapshots/asa_masks      [L, B, T, T]     (ASA runs)
/// The probe batch: log.snapshot_sentences encoded with <s> ... </s> and padded, or
/// log.snapshot_sequences validation blocks chosen with run.seed. Its ids and pieces are in
/// the log (/snapshots/token_ids, /snapshots/tokens).
class AttentionSnapshots {
 public:
  AttentionSnapshots(const RunConfig& config, const BlockSet* validationBlocks,
                     const Tokenizer& tokenizer, bool asa);

  /// Steps 1, 2, 4, 8, ... (log.snapshot_log_spaced), every log.snapshot_every, and the last.
  bool due(std::int64_t step) const;
  /// Adds the series and the probe batch to a run-log schema.
  void declare(RunLogSchema& schema) const;
  /// Runs the probe batch in evaluation mode (no dropout, no gradients) and appends.
  void write(MaskedLanguageModelImpl& model, const c10::Device& device, std::int64_t step,
             RunLogWriter& log) const;

  std::int64_t sequences() const { return m_ids.size(0); }
  std::int64_t length() const { return m_ids.size(1); }
  bool enabled() const { return m_ids.defined() && m_ids.size(0) > 0; }
  /// The probe batch: ids and mask [B, T], pieces [B * T] (the attention-health stream
  /// measures the same sequences).
  const at::Tensor& ids() const { return m_ids; }
  const at::Tensor& mask() const { return m_mask; }
  const std::vector<std::string>& pieces() const { return m_pieces; }

 private:
  RunConfig m_config;
  bool m_asa;
  at::Tensor m_ids;   // [B, T] int64
  at::Tensor m_mask;  // [B, T] bool
  std::vector<std::string> m_pieces;
};

}  // namespace attnlab::core
