#include "core/data/jsonl_lines.h"

#include "core/data/compressed_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

/// Reasons end up in reports one per line; a huge record should not flood them.
constexpr std::size_t kMaxReasonBytes = 200;
/// How many of a record's field names a "no such field" reason lists.
constexpr std::size_t kMaxListedFields = 8;

std::string clip(std::string s) {
  if (s.size() <= kMaxReasonBytes) return s;
  // Back up to the start of a UTF-8 sequence, so the clipped text stays valid UTF-8.
  std::size_t cut = kMaxReasonBytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  return s + "...";
}

/// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string parseMessage(const nlohmann::ordered_json::parse_error& e) {
  std::string msg = e.what();
  const std::size_t close = msg.find("] ");
  if (!msg.empty() && msg.front() == '[' && close != std::string::npos) msg.erase(0, close + 2);
  return clip(std::move(msg));
}

/// The record's field names in the file's order (hence ordered_json), a few at most.
std::string fieldList(const nlohmann::ordered_json& record) {
  if (record.empty()) return "none";
  std::string list;
  std::size_t n = 0;
  for (const auto& item : record.items()) {
    if (n == kMaxListedFields) return list + ", ...";
    if (n++ > 0) list += ", ";
    list += item.key();
  }
  return clip(std::move(list));
}

/// "null", "a number", "an array", ...: how a reason names a JSON value's type.
std::string typeWithArticle(const nlohmann::ordered_json& v) {
  const std::string type = v.type_name();
  if (v.is_null()) return type;
  return (type.front() == 'a' || type.front() == 'o' ? "an " : "a ") + type;
}

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

bool readsAsJsonLines(CorpusFormat format, const fs::path& file) {
  switch (format) {
    case CorpusFormat::Auto: {
      fs::path name = file.filename();
      if (compressionFromName(name) != Compression::None) name = name.stem();
      const std::string ext = lowercase(name.extension().string());
      return ext == ".jsonl" || ext == ".ndjson";
    }
    case CorpusFormat::Text:
      return false;
    case CorpusFormat::Jsonl:
      return true;
  }
  return false;
}

JsonLineText jsonLineText(std::string_view line, const std::string& field) {
  nlohmann::ordered_json record;
  try {
    record = nlohmann::ordered_json::parse(line);
  } catch (const nlohmann::ordered_json::parse_error& e) {
    return {{}, "not JSON: " + parseMessage(e)};
  }
  if (!record.is_object()) {
    return {{}, "not a JSON object but " + typeWithArticle(record) + " (one record a line)"};
  }
  const auto it = record.find(field);
  if (it == record.end()) {
    return {
        {},
        "no \"" + field + "\" field (fields: " + fieldList(record) + "); set corpus.text_field"};
  }
  if (!it->is_string()) {
    return {{}, "\"" + field + "\" is " + typeWithArticle(*it) + ", not a string"};
  }
  return {it->get<std::string>(), {}};
}

}  // namespace attnlab::core
