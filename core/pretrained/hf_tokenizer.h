#pragma once

// The tokenizer of a Hugging Face model folder (issue 29): BERT's WordPiece or RoBERTa's /
// GPT-2's byte-level BPE, read from tokenizer.json when the folder has one, else from the
// vocabulary files (vocab.txt; vocab.json + merges.txt) with tokenizer_config.json and
// special_tokens_map.json. docs/pretrained.md, "Tokenizers".

#include "core/tokenizer/tokenizer.h"

#include <filesystem>
#include <memory>

namespace attnlab::core {

/// Reads the folder's tokenizer. Throws DataError naming the file and the field for a folder
/// with no tokenizer files, a tokenizer of another kind (Unigram, a normaliser or
/// pre-tokenizer other than BERT's or ByteLevel), a malformed file, or a vocabulary that
/// lacks a special token the engine needs (pad, cls/bos, sep/eos, mask, unk).
std::unique_ptr<Tokenizer> loadHuggingFaceTokenizer(const std::filesystem::path& folder);

}  // namespace attnlab::core
