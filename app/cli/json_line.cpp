#include "app/cli/json_line.h"

#include <cmath>
#include <cstdio>

namespace attnlab::app {

std::string JsonLine::quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;  // UTF-8 passes through as it is
        }
    }
  }
  return out + "\"";
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
