#include "core/tokenizer/fairseq_sentencepiece_tokenizer.h"

#include "core/errors/error.h"

#include <utility>

namespace attnlab::core {

FairseqSentencePieceTokenizer::FairseqSentencePieceTokenizer(SentencePieceTokenizer pieces,
                                                             std::vector<AddedToken> added,
                                                             SpecialTokenIds special, int vocabSize,
                                                             std::filesystem::path file)
    : m_pieces(std::move(pieces)),
      m_special(special),
      m_vocabSize(vocabSize),
      m_file(std::move(file)) {
  for (const auto& t : added) {
    m_addedByContent.emplace(t.content, t.id);
    m_addedById.emplace(t.id, t.content);
    if (t.special) m_specialIds.insert(t.id);
  }
  m_matcher = AddedTokenMatcher(std::move(added));
}

int FairseqSentencePieceTokenizer::shifted(int pieceId) const {
  return pieceId == m_pieces.specialIds().unk ? m_special.unk : pieceId + kIdOffset;
}

std::vector<int> FairseqSentencePieceTokenizer::encode(std::string_view text) const {
  // As `tokenizers` does: the added tokens first, then each stretch of text between them
  // on its own (SentencePiece gives each its leading "▁", as Metaspace's "always" does).
  std::vector<TextSegment> segments;
  m_matcher.split(text, segments);
  std::vector<int> ids;
  for (const auto& s : segments) {
    if (s.id >= 0) {
      ids.push_back(s.id);
      continue;
    }
    for (const int id : m_pieces.encode(text.substr(s.begin, s.end - s.begin)))
      ids.push_back(shifted(id));
  }
  return ids;
}

std::string FairseqSentencePieceTokenizer::decode(std::span<const int> ids) const {
  // Runs of the model's pieces decode through SentencePiece; added tokens are their text,
  // special ones (<s>, </s>, <pad>, <mask>) left out as the other tokenizers leave them.
  std::string out;
  std::vector<int> run;
  const auto flush = [&] {
    if (!run.empty()) out += m_pieces.decode(run);
    run.clear();
  };
  for (const int id : ids) {
    if (m_specialIds.count(id) != 0) {
      flush();
    } else if (const auto it = m_addedById.find(id); it != m_addedById.end()) {
      flush();
      out += it->second;
    } else if (id >= kIdOffset && id - kIdOffset < m_pieces.vocabSize()) {
      run.push_back(id - kIdOffset);
    }
  }
  flush();
  return out;
}

int FairseqSentencePieceTokenizer::pieceToId(std::string_view piece) const {
  if (const auto it = m_addedByContent.find(piece); it != m_addedByContent.end()) return it->second;
  return shifted(m_pieces.pieceToId(piece));
}

std::string FairseqSentencePieceTokenizer::idToPiece(int id) const {
  if (const auto it = m_addedById.find(id); it != m_addedById.end()) return it->second;
  if (id >= kIdOffset && id - kIdOffset < m_pieces.vocabSize())
    return m_pieces.idToPiece(id - kIdOffset);
  throw TokenizerError(m_file.string(), "piece id " + std::to_string(id) + " is out of range [0, " +
                                            std::to_string(m_vocabSize) + ")");
}

}  // namespace attnlab::core
