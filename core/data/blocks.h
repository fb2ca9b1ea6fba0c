#pragma once

#include "core/config/config_choices.h"

#include "core/config/run_config.h"
#include "core/data/token_sequence.h"
#include "core/data/token_store.h"
#include "core/tokenizer/tokenizer.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace attnlab::core {

/// Store lines (indices) of the training and validation parts, each ascending.
struct DataSplit {
  std::vector<std::int64_t> trainLines;
  std::vector<std::int64_t> validationLines;
};

/// Splits `lineCount` lines into training and validation (see DataConfig):
/// - data.validation_lines = n > 0: the last n lines of the corpus (a held-out tail the
///   user controls, e.g. text appended at the end);
/// - else data.validation_fraction = f > 0: n = max(1, round(f * lineCount)) lines evenly
///   spaced through the corpus: line i is validation when floor((i+1)n/L) > floor(i n/L).
///   Deterministic and seed-free, so runs with different seeds are evaluated on the same
///   text, and stratified (WordNet's nouns, verbs, adjectives and adverbs all appear);
/// - else no validation lines.
/// Throws ConfigError when the values are out of range or leave no training line.
DataSplit splitLines(std::int64_t lineCount, const DataConfig& config);

/// The same rule one line at a time, without lists (a corpus of any size): which of the
/// `lineCount` lines are validation lines. Throws ConfigError as splitLines does.
class ValidationRule {
 public:
  ValidationRule(std::int64_t lineCount, const DataConfig& config);
  std::int64_t validationCount() const { return m_count; }
  bool isValidation(std::int64_t line) const;

 private:
  std::int64_t m_lineCount = 0;
  std::int64_t m_count = 0;
  bool m_tail = false;  ///< data.validation_lines: the last m_count lines
};

// Packing (pack | line) is a config choice: core/config/config_choices.h.

/// Blocks shorter than this many real tokens (not counting <s> and </s>) at the end of a
/// packed split are dropped, unless it is the split's only block.
inline constexpr int kMinLastBlockTokens = 8;

/// Fixed-length blocks over some lines of a token store. Each block is
/// <s> + up to T-2 tokens + </s>, then <pad> up to T = sequenceLength.
/// - Pack: the lines form one stream ids(l0) </s> ids(l1) </s> ... (RoBERTa's
///   FULL-SENTENCES with a separator between documents), cut every T-2 tokens; only the last
///   block can be short (padded) and is dropped below kMinLastBlockTokens.
/// - Line: block b is the b-th non-empty line, truncated to T-2 tokens.
/// Blocks are computed on demand from the memory-mapped store (no copy of the corpus).
/// Over a whole TokenSequence without empty lines it keeps no per-line lists either, so its
/// memory does not grow with the corpus.
class BlockSet {
 public:
  BlockSet() = default;
  /// The blocks of some lines of one store.
  BlockSet(TokenStore store, std::vector<std::int64_t> lines, int sequenceLength, Packing packing,
           SpecialTokenIds specials = {});
  /// The blocks of every line of `tokens`.
  BlockSet(TokenSequence tokens, int sequenceLength, Packing packing,
           SpecialTokenIds specials = {});

  std::int64_t size() const { return m_blockCount; }
  int sequenceLength() const { return m_sequenceLength; }
  int vocabSize() const { return m_tokens.isOpen() ? m_tokens.vocabSize() : 0; }
  Packing packing() const { return m_packing; }
  const SpecialTokenIds& specials() const { return m_specials; }
  /// Tokens of the split's lines (what the blocks cover, before truncation in Line mode).
  std::int64_t lineTokens() const { return m_lineTokens; }

  /// Writes block `index` (sequenceLength ids) into `out`; returns its real (non-pad)
  /// token count, <s> and </s> included.
  int fill(std::int64_t index, std::span<std::int64_t> out) const;

 private:
  void checkSequenceLength() const;
  /// Counts blocks once the lines are known (both constructors).
  void countBlocks(std::int64_t lineCount);
  /// Line j of the blocks' lines: m_lines[j], or j itself over a whole sequence.
  std::int64_t lineAt(std::int64_t j) const {
    return m_explicit ? m_lines[static_cast<std::size_t>(j)] : j;
  }
  /// Pack: stream position of the j-th line's first token.
  std::int64_t streamStart(std::int64_t j) const {
    return m_explicit ? m_starts[static_cast<std::size_t>(j)] : m_tokens.lineBegin(j) + j;
  }
  std::int64_t lineAtStream(std::int64_t position) const;

  TokenSequence m_tokens;
  bool m_explicit = false;             ///< the lines are listed in m_lines
  std::vector<std::int64_t> m_lines;   ///< non-empty lines, in order (explicit only)
  std::vector<std::int64_t> m_starts;  ///< Pack, explicit: stream position of each line
  std::int64_t m_streamLength = 0;
  std::int64_t m_lineTokens = 0;
  std::int64_t m_blockCount = 0;
  int m_sequenceLength = 0;
  Packing m_packing = Packing::Pack;
  SpecialTokenIds m_specials;
};

}  // namespace attnlab::core
