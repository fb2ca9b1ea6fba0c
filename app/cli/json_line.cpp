#include "app/cli/json_line.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

namespace attnlab::app {

std::string JsonLine::quote(std::string_view text) {
  // nlohmann's serializer (the project's JSON library) escapes; bytes that are not UTF-8 (a
  // worker's stray output) become U+FFFD instead of an exception.
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void JsonLine::key(std::string_view name) {
  if (!m_fields.empty()) m_fields += ',';
  m_fields += quote(name) + ':';
}

JsonLine& JsonLine::add(std::string_view name, std::string_view text) {
  key(name);
  m_fields += quote(text);
  return *this;
}

JsonLine& JsonLine::add(std::string_view name, std::int64_t number) {
  key(name);
  m_fields += std::to_string(number);
  return *this;
}

JsonLine& JsonLine::add(std::string_view name, double number) {
  key(name);
  if (!std::isfinite(number)) {
    m_fields += "null";
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", number);
    m_fields += buf;
  }
  return *this;
}

}  // namespace attnlab::app
