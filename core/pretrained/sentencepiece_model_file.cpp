#include "core/pretrained/sentencepiece_model_file.h"

#include "core/errors/error.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

namespace attnlab::core {

namespace {

/// A bounds-checked reader over one protobuf message's bytes.
class Wire {
 public:
  Wire(std::string_view bytes, const std::string& where, std::string context)
      : m_bytes(bytes), m_where(where), m_context(std::move(context)) {}

  bool done() const { return m_pos >= m_bytes.size(); }

  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (done()) fail("a number runs past the end of the data");
      const auto byte = static_cast<std::uint8_t>(m_bytes[m_pos++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    fail("a number longer than 10 bytes");
  }

  std::string_view take(std::uint64_t n) {
    if (n > m_bytes.size() - m_pos)
      fail("a field of " + std::to_string(n) + " bytes runs past the end of the data (" +
           std::to_string(m_bytes.size() - m_pos) + " left)");
    const auto out = m_bytes.substr(m_pos, static_cast<size_t>(n));
    m_pos += static_cast<size_t>(n);
    return out;
  }

  float fixed32() {
    const auto raw = take(4);
    std::uint32_t bits = 0;
    for (int i = 3; i >= 0; --i) bits = (bits << 8) | static_cast<std::uint8_t>(raw[i]);
    float f = 0;
    std::memcpy(&f, &bits, 4);
    return f;
  }

  /// Skips a field of `wireType` that is not read.
  void skip(std::uint64_t wireType) {
    if (wireType == 0)
      (void)varint();
    else if (wireType == 1)
      (void)take(8);
    else if (wireType == 2)
      (void)take(varint());
    else if (wireType == 5)
      (void)take(4);
    else
      fail("wire type " + std::to_string(wireType) + " (groups or damage) is not read");
  }

  /// The next field's number and wire type.
  std::pair<std::uint64_t, std::uint64_t> key() {
    const auto k = varint();
    if ((k >> 3) == 0) fail("field number 0 (damaged data)");
    return {k >> 3, k & 7};
  }

  void expect(std::uint64_t wireType, std::uint64_t want, const char* field) {
    if (wireType != want)
      fail(std::string(field) + " has wire type " + std::to_string(wireType) + ", not " +
           std::to_string(want));
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw DataError(m_where, m_context + ": " + why +
                                 " (a truncated or damaged SentencePiece "
                                 "model?)");
  }

  const std::string& where() const { return m_where; }

 private:
  std::string_view m_bytes;
  size_t m_pos = 0;
  const std::string& m_where;
  std::string m_context;
};

SentencePieceEntry parsePiece(std::string_view bytes, const std::string& where, size_t index) {
  Wire w(bytes, where, "piece " + std::to_string(index));
  SentencePieceEntry e;
  bool hasText = false;
  while (!w.done()) {
    const auto [field, type] = w.key();
    if (field == 1) {
      w.expect(type, 2, "piece");
      e.piece = std::string(w.take(w.varint()));
      hasText = true;
    } else if (field == 2) {
      w.expect(type, 5, "score");
      e.score = w.fixed32();
    } else if (field == 3) {
      w.expect(type, 0, "type");
      const auto t = w.varint();
      if (t < 1 || t > 6) w.fail("type " + std::to_string(t) + " is not a SentencePiece type");
      e.type = static_cast<SentencePieceType>(t);
    } else {
      w.skip(type);
    }
  }
  if (!hasText) w.fail("has no text (field 1)");
  return e;
}

void parseTrainerSpec(std::string_view bytes, const std::string& where, SentencePieceModelFile& m) {
  Wire w(bytes, where, "trainer_spec");
  while (!w.done()) {
    const auto [field, type] = w.key();
    if (field == 3 || field == 24 || field == 35 || field == 40) {
      w.expect(type, 0, "trainer_spec field");
      const auto v = w.varint();
      if (field == 3) {
        if (v < 1 || v > 4) w.fail("model_type " + std::to_string(v) + " is unknown");
        m.algorithm = static_cast<SentencePieceAlgorithm>(v);
      } else if (field == 24) {
        m.whitespaceAsSuffix = v != 0;
      } else if (field == 35) {
        m.byteFallback = v != 0;
      } else {
        m.unkId = static_cast<int>(static_cast<std::int32_t>(v));
      }
    } else if (field == 45) {
      w.expect(type, 2, "unk_piece");
      m.unkPiece = std::string(w.take(w.varint()));
    } else {
      w.skip(type);
    }
  }
}

void parseNormalizerSpec(std::string_view bytes, const std::string& where,
                         SentencePieceModelFile& m) {
  Wire w(bytes, where, "normalizer_spec");
  while (!w.done()) {
    const auto [field, type] = w.key();
    if (field == 1 || field == 2) {
      w.expect(type, 2, field == 1 ? "name" : "precompiled_charsmap");
      (field == 1 ? m.normalizerName : m.precompiledCharsmap) = std::string(w.take(w.varint()));
    } else if (field >= 3 && field <= 5) {
      w.expect(type, 0, "normalizer_spec flag");
      const bool on = w.varint() != 0;
      (field == 3   ? m.addDummyPrefix
       : field == 4 ? m.removeExtraWhitespaces
                    : m.escapeWhitespaces) = on;
    } else {
      w.skip(type);
    }
  }
}

}  // namespace

SentencePieceModelFile parseSentencePieceModel(std::string_view bytes, const std::string& where) {
  SentencePieceModelFile m;
  Wire w(bytes, where, "ModelProto");
  bool trainer = false, normalizer = false;
  while (!w.done()) {
    const auto [field, type] = w.key();
    if (field >= 1 && field <= 3) {
      w.expect(type, 2, field == 1 ? "pieces" : field == 2 ? "trainer_spec" : "normalizer_spec");
      const auto body = w.take(w.varint());
      if (field == 1)
        m.pieces.push_back(parsePiece(body, where, m.pieces.size()));
      else if (field == 2)
        parseTrainerSpec(body, where, m), trainer = true;
      else
        parseNormalizerSpec(body, where, m), normalizer = true;
    } else {
      w.skip(type);
    }
  }
  if (m.pieces.empty()) w.fail("no pieces");
  // SentencePiece writes the pieces first and both specs after them: a file cut between two
  // pieces still parses, and is caught here.
  if (!trainer || !normalizer)
    w.fail(std::string("no ") + (trainer ? "normalizer_spec" : "trainer_spec") + " after " +
           std::to_string(m.pieces.size()) + " pieces");
  if (m.unkId < 0 || static_cast<size_t>(m.unkId) >= m.pieces.size())
    w.fail("unk_id " + std::to_string(m.unkId) + " is not one of the " +
           std::to_string(m.pieces.size()) + " pieces");
  return m;
}

SentencePieceModelFile readSentencePieceModel(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path.string(), "cannot be read");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw DataError(path.string(), "cannot be read");
  return parseSentencePieceModel(bytes, path.string());
}

const char* algorithmName(SentencePieceAlgorithm algorithm) {
  switch (algorithm) {
    case SentencePieceAlgorithm::Unigram:
      return "unigram";
    case SentencePieceAlgorithm::Bpe:
      return "bpe";
    case SentencePieceAlgorithm::Word:
      return "word";
    case SentencePieceAlgorithm::Char:
      return "char";
  }
  return "unknown";
}

}  // namespace attnlab::core
