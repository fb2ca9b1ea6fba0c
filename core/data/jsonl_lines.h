#pragma once

// JSON-lines corpora (what `datasets`' to_json writes): one JSON object a line, its text in one
// string field. nlohmann_json stays inside jsonl_lines.cpp.

#include "core/config/config_choices.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace attnlab::core {

/// Whether `file` is read as JSON lines under corpus.format = `format`. "auto" goes by the
/// name: .jsonl or .ndjson, also before a .gz or .zst ("wiki.jsonl.zst").
bool readsAsJsonLines(CorpusFormat format, const std::filesystem::path& file);

/// The text of one JSON-lines record, or why it has none.
struct JsonLineText {
  std::string text;     ///< the field's string; '\n' separates its paragraphs
  std::string problem;  ///< empty when the record is usable, else the reason for a report
};

/// Parses `line` (one JSON object) and takes its string field `field`. A problem says what
/// is wrong: not JSON (ill-formed UTF-8 included), not an object, no such field (listing the
/// fields there are), or a field that is not a string.
JsonLineText jsonLineText(std::string_view line, const std::string& field);

}  // namespace attnlab::core
