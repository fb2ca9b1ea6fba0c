#pragma once

// A run's SentencePiece model as the fast tokenizer Hugging Face's AutoTokenizer loads (issue
// 29): tokenizer.json as the `tokenizers` library reads it (Unigram, SentencePiece's
// normalizer, Metaspace, "<s> $A </s>"), tokenizer_config.json, special_tokens_map.json, and
// the .model copied. Both exports (BERT and ModernBERT) write it.

#include "core/pretrained/sentencepiece_model_file.h"
#include "core/tokenizer/tokenizer.h"

#include <filesystem>
#include <string>

namespace attnlab::core {

/// Writes tokenizer.json, tokenizer_config.json, special_tokens_map.json and a copy of the
/// .model into `folder`. Throws DataError naming tokenizer.algorithm for a model the export
/// does not convert (bpe, word, char), and naming the file when AttnLab's special pieces are
/// missing from it.
void writeHfTokenizer(const std::filesystem::path& folder, const std::filesystem::path& spModel,
                      const SentencePieceModelFile& model, int maxLength);

/// The ids of AttnLab's special pieces in `model`, the first piece of each text (what
/// tokenizer.json names as its added tokens). Throws DataError naming `where` when one is
/// missing.
SpecialTokenIds hfSpecialTokenIds(const SentencePieceModelFile& model, const std::string& where);

/// tokenizer.json's text for `model`; the same refusals as writeHfTokenizer. `where` names
/// the .model file.
std::string hfTokenizerJson(const SentencePieceModelFile& model, const std::string& where);

}  // namespace attnlab::core
