#pragma once

// The added (special) tokens of a Hugging Face tokenizer (issue 29) and how they are found in
// a text before anything else happens to it, as the `tokenizers` library's AddedVocabulary
// does: leftmost-longest matches, lstrip/rstrip taking the whitespace beside a match with it,
// single_word matches only between non-word characters.

#include <string>
#include <string_view>
#include <vector>

namespace attnlab::core {

/// One entry of tokenizer.json's added_tokens (or a tokenizer_config.json's special token).
struct AddedToken {
  std::string content;
  int id = 0;
  bool special = true;
  bool lstrip = false;
  bool rstrip = false;
  bool singleWord = false;
  /// Matched in the normalised text (true) or in the text as given (false).
  bool normalized = false;
};

/// A piece of a text: an added token's id, or text (id < 0) for the rest of the pipeline.
struct TextSegment {
  std::size_t begin = 0;
  std::size_t end = 0;
  int id = -1;
};

class AddedTokenMatcher {
 public:
  AddedTokenMatcher() = default;
  /// `tokens` as they are matched (a normalised token already normalised by the caller).
  explicit AddedTokenMatcher(std::vector<AddedToken> tokens);

  bool empty() const { return m_tokens.empty(); }
  /// Splits `text` into added tokens and the text between them (empty pieces left out).
  void split(std::string_view text, std::vector<TextSegment>& out) const;

 private:
  std::vector<AddedToken> m_tokens;
  bool m_firstByte[256] = {};
};

}  // namespace attnlab::core
