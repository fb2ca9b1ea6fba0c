#pragma once

// One JSON object on one line, built field by field: the machine-readable progress of
// `attnlab-cli train --progress jsonl` (docs/distributed.md, "Progress for programs"). The
// objects are flat; strings go through nlohmann's serializer, so this header stays light.

#include <cstdint>
#include <string>
#include <string_view>

namespace attnlab::app {

class JsonLine {
 public:
  JsonLine& add(std::string_view key, std::string_view text);
  JsonLine& add(std::string_view key, const char* text) { return add(key, std::string_view(text)); }
  JsonLine& add(std::string_view key, std::int64_t number);
  JsonLine& add(std::string_view key, int number) { return add(key, std::int64_t{number}); }
  /// A non-finite number is written as null (JSON has no NaN).
  JsonLine& add(std::string_view key, double number);
  /// The object, without a newline.
  std::string str() const { return "{" + m_fields + "}"; }

  /// `text` as a JSON string, quotes included (invalid UTF-8 replaced by U+FFFD).
  static std::string quote(std::string_view text);

 private:
  void key(std::string_view name);
  std::string m_fields;
};

}  // namespace attnlab::app
