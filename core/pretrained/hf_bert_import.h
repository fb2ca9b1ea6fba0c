#pragma once

// A Hugging Face BERT or RoBERTa folder (config.json and model.safetensors, as
// `save_pretrained` writes them for BertForMaskedLM, RobertaForMaskedLM and
// XLMRobertaForMaskedLM) as AttnLab's encoder (issue 29). The fields of config.json that
// change the computation are honoured or refused by name; the weights are mapped onto
// AttnLab's parameters: q, k and v into the fused projection, the token-type embedding of
// type 0 (every token's, as BERT adds it without token types) folded into the position
// embeddings (from RoBERTa's first used row, pad_token_id + 1: AttnLab numbers positions from
// 0, so a RoBERTa model's padding positions differ, which attention never reads), the MLM
// head's decoder tied to the word embeddings as in both.

#include "core/config/run_config.h"
#include "core/model/masked_lm.h"

#include <filesystem>
#include <string>
#include <vector>

namespace attnlab::core {

struct PretrainedModel {
  std::filesystem::path folder;
  std::string modelType;  ///< "bert", "roberta" or "xlm-roberta"
  ModelConfig model;
  int vocabSize = 0;
  int padId = 0;
  MaskedLanguageModel network{nullptr};  ///< in evaluation mode, float32, on the CPU
  /// Checkpoint tensors AttnLab has no use for (the pooler, next-sentence head), named.
  std::vector<std::string> unused;
  /// False for a BertModel / RobertaModel saved alone: its MLM head (transform, LayerNorm,
  /// bias) is AttnLab's random initialisation, so the logit lens, the MLM loss and what
  /// depends on them (head importance, pruning) mean nothing; attention and hidden states are
  /// the checkpoint's. model.init_from keeps the new run's own head then.
  bool hasMlmHead = true;
};

/// Reads `folder`. Throws DataError naming the file and the field: a missing config.json or
/// model.safetensors, pytorch_model.bin alone (with how to convert it), a model_type other
/// than bert, roberta or xlm-roberta, a hidden_act other than gelu, relative position embeddings, a
/// decoder, a tensor missing or of the wrong shape.
PretrainedModel loadHuggingFaceBert(const std::filesystem::path& folder);

/// config.json alone, checked as loadHuggingFaceBert checks it: everything but the network
/// (null) and `unused`. Cheap: for listing a folder before its weights are needed.
PretrainedModel describeHuggingFaceBert(const std::filesystem::path& folder);

}  // namespace attnlab::core
