#include "core/config/config_loader.h"

#include "core/config/config_schema.h"
#include "core/errors/error.h"

#include <toml++/toml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace attnlab::core {

namespace {

// --- names and suggestions ------------------------------------------------------------

std::string lastComponent(std::string_view path) {
  const auto dot = path.rfind('.');
  return std::string(dot == std::string_view::npos ? path : path.substr(dot + 1));
}

// Optimal string alignment distance: Levenshtein plus adjacent transpositions, so
// "hidden_szie" is one edit from "hidden_size".
std::size_t editDistance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

// The candidate nearest to `unknown`, or "" when none is close enough to be a plausible
// typo. A key in the wrong section ("model.seed") matches by its last component too.
std::string nearest(std::string_view unknown, const std::vector<std::string>& candidates) {
  const std::string name = lastComponent(unknown);
  std::size_t best = std::string::npos;
  std::string bestCandidate;
  for (const auto& c : candidates) {
    std::size_t score = editDistance(unknown, c);
    score = std::min(score, editDistance(name, lastComponent(c)) + 1);
    if (score < best) {
      best = score;
      bestCandidate = c;
    }
  }
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
  return best <= limit ? bestCandidate : std::string();
}

std::vector<std::string> allKeyPaths() {
  std::vector<std::string> out;
  for (const auto& k : configSchema()) out.push_back(k.path);
  return out;
}

bool isSection(std::string_view path) {
  const auto& sections = configSections();
  return std::find(sections.begin(), sections.end(), path) != sections.end();
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string unknownKeyReason(const std::string& path) {
  if (const std::string guess = nearest(path, allKeyPaths()); !guess.empty()) {
    return "unknown key; did you mean " + guess + "?";
  }
  const auto dot = path.rfind('.');
  const std::string section = dot == std::string::npos ? std::string() : path.substr(0, dot);
  if (isSection(section)) {
    std::vector<std::string> names;
    for (const auto& k : configSchema()) {
      if (k.section() == section) names.push_back(k.name());
    }
    return "unknown key; [" + section + "] has " + join(names, ", ");
  }
  return "unknown key; the sections are " + join(configSections(), ", ");
}

std::string unknownSectionReason(const std::string& path) {
  if (const std::string guess = nearest(path, configSections()); !guess.empty()) {
    return "unknown section; did you mean " + guess + "?";
  }
  return "unknown section; the sections are " + join(configSections(), ", ");
}

std::string sectionNotKeyReason(const std::string& path) {
  for (const auto& k : configSchema()) {
    if (k.path.rfind(path + ".", 0) == 0) {
      return "is a section, not a key; set one of its keys, e.g. " + k.path;
    }
  }
  return "is a section, not a key";
}

// --- TOML values ----------------------------------------------------------------------

std::string describeNode(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

// Converts a node to the key's value type, or sets `reason` ("expected ..., got ...").
std::optional<ConfigValue> valueFromNode(const ConfigKey& key, const toml::node& node,
                                         std::string& reason) {
  const auto mismatch = [&] {
    reason = "expected " + describeExpected(key) + ", got " + describeNode(node);
    return std::nullopt;
  };
  switch (key.type) {
    case ConfigType::Integer:
      if (const auto* v = node.as_integer()) return ConfigValue(v->get());
      return mismatch();
    case ConfigType::Float:
      if (const auto* v = node.as_floating_point()) return ConfigValue(v->get());
      // "learning_rate = 1" means 1.0; rejecting it would only annoy.
      if (const auto* v = node.as_integer()) return ConfigValue(static_cast<double>(v->get()));
      return mismatch();
    case ConfigType::Boolean:
      if (const auto* v = node.as_boolean()) return ConfigValue(v->get());
      return mismatch();
    case ConfigType::String:
    case ConfigType::Choice:
      if (const auto* v = node.as_string()) return ConfigValue(v->get());
      return mismatch();
    case ConfigType::StringList: {
      const auto* array = node.as_array();
      if (!array) return mismatch();
      std::vector<std::string> items;
      for (std::size_t i = 0; i < array->size(); ++i) {
        const toml::node& item = *array->get(i);
        const auto* s = item.as_string();
        if (!s) {
          reason = "expected a list of strings, got " + describeNode(item) + " at index " +
                   std::to_string(i);
          return std::nullopt;
        }
        items.push_back(s->get());
      }
      return ConfigValue(std::move(items));
    }
  }
  return mismatch();
}

std::string locationOf(const toml::source_region& src) {
  if (src.begin.line == 0) return {};
  std::string where = src.path ? *src.path : std::string();
  where += (where.empty() ? "line " : ":") + std::to_string(src.begin.line) + ":" +
           std::to_string(src.begin.column);
  return " (" + where + ")";
}

void applyTable(RunConfig& config, const toml::table& table, const std::string& prefix) {
  for (auto&& [k, node] : table) {
    const std::string name(k.str());
    const std::string path = prefix.empty() ? name : prefix + "." + name;
    if (const ConfigKey* key = findConfigKey(path)) {
      std::string reason;
      const auto value = valueFromNode(*key, node, reason);
      if (!value) throw ConfigError(path, reason + locationOf(node.source()));
      if (auto bad = key->constraint.check(*value); !bad.empty()) {
        throw ConfigError(path, bad + locationOf(node.source()));
      }
      key->set(config, *value);
    } else if (isSection(path)) {
      const auto* sub = node.as_table();
      if (!sub) {
        throw ConfigError(path, "expected a section (a table, [" + path + "]), got " +
                                    describeNode(node) + locationOf(node.source()));
      }
      applyTable(config, *sub, path);
    } else if (node.is_table()) {
      throw ConfigError(path, unknownSectionReason(path) + locationOf(k.source()));
    } else {
      // The key's own position: the value is not what is wrong.
      throw ConfigError(path, unknownKeyReason(path) + locationOf(k.source()));
    }
  }
}

RunConfig resolve(const toml::table& table, const std::vector<std::string>& overrides) {
  RunConfig config;
  applyTable(config, table, "");
  for (const auto& o : overrides) applyOverride(config, o);
  validateRunConfig(config);
  return config;
}

// --- JSON -----------------------------------------------------------------------------

// JSON configs take the TOML path after conversion, so both formats share one set of
// checks and messages.
toml::table jsonObjectToToml(const nlohmann::json& object, const std::string& prefix);

toml::array jsonArrayToToml(const nlohmann::json& array, const std::string& path);

template <class Insert>
void insertJson(const nlohmann::json& v, const std::string& path, Insert&& insert) {
  switch (v.type()) {
    case nlohmann::json::value_t::object:
      insert(jsonObjectToToml(v, path));
      break;
    case nlohmann::json::value_t::array:
      insert(jsonArrayToToml(v, path));
      break;
    case nlohmann::json::value_t::string:
      insert(v.get<std::string>());
      break;
    case nlohmann::json::value_t::boolean:
      insert(v.get<bool>());
      break;
    case nlohmann::json::value_t::number_integer:
      insert(v.get<std::int64_t>());
      break;
    case nlohmann::json::value_t::number_unsigned: {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        throw ConfigError(path, "integer " + std::to_string(u) + " is out of range");
      }
      insert(static_cast<std::int64_t>(u));
      break;
    }
    case nlohmann::json::value_t::number_float:
      insert(v.get<double>());
      break;
    default:
      throw ConfigError(path, "null is not a value; leave the key out to keep its default");
  }
}

toml::table jsonObjectToToml(const nlohmann::json& object, const std::string& prefix) {
  toml::table table;
  for (const auto& [name, v] : object.items()) {
    const std::string& key = name;  // clang before 16 cannot capture a structured binding
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    insertJson(v, path, [&](auto&& value) {
      table.insert_or_assign(key, std::forward<decltype(value)>(value));
    });
  }
  return table;
}

toml::array jsonArrayToToml(const nlohmann::json& array, const std::string& path) {
  toml::array out;
  for (std::size_t i = 0; i < array.size(); ++i) {
    insertJson(array[i], path + "[" + std::to_string(i) + "]",
               [&](auto&& value) { out.push_back(std::forward<decltype(value)>(value)); });
  }
  return out;
}

std::string lineColumn(std::string_view text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

// --- overrides ------------------------------------------------------------------------

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Byte offset of the first ill-formed UTF-8 sequence in `text` (overlongs, surrogates and
// code points past U+10FFFF included), or npos. A --set value taken as plain text must pass:
// TOML files are UTF-8, and toToml() of the config has to read back.
std::size_t firstInvalidUtf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;  // no overlongs
      if (c == 0xED) hi = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;  // no overlongs
      if (c == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
    } else {
      return i;
    }
    if (i + n >= text.size()) return i;  // cut short
    for (std::size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return i;
    }
    i += n + 1;
  }
  return std::string_view::npos;
}

// The value of "v = <text>" when <text> is exactly one TOML value.
std::optional<toml::table> parseTomlValue(std::string_view text) {
  if (text.empty() || text.find_first_of("\r\n") != std::string_view::npos) return std::nullopt;
  try {
    toml::table t = toml::parse("v = " + std::string(text) + "\n");
    if (t.size() != 1 || !t.contains("v")) return std::nullopt;
    return t;
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
}

std::string readFile(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw ConfigError(file.string(), "no such file");
  if (std::filesystem::is_directory(file, ec)) {
    throw ConfigError(file.string(), "is a folder, not a config file");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(file.string(), std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(file.string(), "read failed");
  return text.str();
}

}  // namespace

RunConfig parseRunConfig(std::string_view tomlText, std::string_view sourceName,
                         const std::vector<std::string>& overrides) {
  toml::table table;
  try {
    table = toml::parse(tomlText, sourceName);
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    throw ConfigError(std::string(sourceName) + ":" + std::to_string(begin.line) + ":" +
                          std::to_string(begin.column),
                      std::string(e.description()));
  }
  return resolve(table, overrides);
}

RunConfig parseRunConfigJson(std::string_view jsonText, std::string_view sourceName,
                             const std::vector<std::string>& overrides) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(jsonText);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's what() is "[json.exception...] parse error at line L, column C: reason".
    std::string reason = e.what();
    if (const auto col = reason.find("column "); col != std::string::npos) {
      if (const auto colon = reason.find(": ", col); colon != std::string::npos) {
        reason = reason.substr(colon + 2);
      }
    }
    const std::size_t byte = e.byte > 0 ? e.byte - 1 : 0;
    throw ConfigError(std::string(sourceName) + ":" + lineColumn(jsonText, byte), reason);
  } catch (const nlohmann::json::exception& e) {
    // Valid JSON the parser still cannot hold: a number beyond a double ("1e400") is
    // out_of_range, "[json.exception.out_of_range.406] number overflow parsing '1e400'".
    std::string reason = e.what();
    if (const auto close = reason.find("] "); close != std::string::npos) {
      reason = reason.substr(close + 2);
    }
    throw ConfigError(std::string(sourceName), reason);
  }
  if (!json.is_object()) {
    throw ConfigError(std::string(sourceName),
                      "expected a JSON object with one member per "
                      "section");
  }
  return resolve(jsonObjectToToml(json, ""), overrides);
}

RunConfig loadRunConfig(const std::filesystem::path& file,
                        const std::vector<std::string>& overrides) {
  const std::string text = readFile(file);
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".json") return parseRunConfigJson(text, file.string(), overrides);
  return parseRunConfig(text, file.string(), overrides);
}

void applyOverride(RunConfig& config, std::string_view keyEqualsValue) {
  const std::string_view text = trim(keyEqualsValue);
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    throw ConfigError("--set " + std::string(text), "expected key=value, e.g. model.layers=6");
  }
  const std::string path(trim(text.substr(0, eq)));
  const std::string_view raw = trim(text.substr(eq + 1));
  const std::string where = "--set " + path;
  if (path.empty()) throw ConfigError(where, "expected key=value, the key is empty");

  const ConfigKey* key = findConfigKey(path);
  if (!key) {
    throw ConfigError(where, isSection(path) ? sectionNotKeyReason(path) : unknownKeyReason(path));
  }

  const auto parsed = parseTomlValue(raw);
  const toml::node* node = parsed ? parsed->get("v") : nullptr;
  std::optional<ConfigValue> value;
  if ((key->type == ConfigType::String || key->type == ConfigType::Choice) &&
      (!node || !node->is_string())) {
    // --set run.name=baseline (not TOML) and --set run.name=2024 (a TOML integer) both
    // mean the text; quoting on a shell command line is a trap.
    if (const std::size_t bad = firstInvalidUtf8(raw); bad != std::string_view::npos) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(raw[bad]));
      throw ConfigError(where, "the value is not valid UTF-8 text (byte " +
                                   std::to_string(bad + 1) + " of the value is " + hex + ")");
    }
    value = ConfigValue(std::string(raw));
  } else if (!node) {
    throw ConfigError(where, "expected " + describeExpected(*key) + ", got `" + std::string(raw) +
                                 "`, which is not a TOML value");
  } else {
    std::string reason;
    value = valueFromNode(*key, *node, reason);
    if (!value) throw ConfigError(where, reason);
  }
  if (auto bad = key->constraint.check(*value); !bad.empty()) throw ConfigError(where, bad);
  key->set(config, *value);
}

void validateRunConfig(const RunConfig& config) {
  for (const auto& key : configSchema()) {
    if (auto bad = key.constraint.check(key.get(config)); !bad.empty()) {
      throw ConfigError(key.path, bad);
    }
  }
  for (const auto& rule : configRules()) {
    if (auto bad = rule.check(config); !bad.empty()) throw ConfigError(rule.keys.front(), bad);
  }
}

std::string toToml(const RunConfig& config) {
  // Keys grouped by their section in order of first appearance; a TOML table's own keys
  // must all follow its header.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ConfigKey*>> bySection;
  for (const auto& key : configSchema()) {
    const std::string section = key.section();
    if (!bySection.count(section)) order.push_back(section);
    bySection[section].push_back(&key);
  }
  // Keys outside any section have to precede the first header.
  std::stable_partition(order.begin(), order.end(), [](const auto& s) { return s.empty(); });

  std::string out = "# AttnLab run configuration, resolved: every key, defaults included.\n";
  for (const auto& section : order) {
    out += "\n";
    if (!section.empty()) out += "[" + section + "]\n";
    for (const ConfigKey* key : bySection[section]) {
      out += key->name() + " = " + toTomlLiteral(key->get(config)) + "\n";
    }
  }
  return out;
}

std::string toJson(const RunConfig& config) {
  nlohmann::ordered_json root = nlohmann::ordered_json::object();
  for (const auto& key : configSchema()) {
    nlohmann::ordered_json* object = &root;
    const std::string section = key.section();
    std::size_t start = 0;
    while (start < section.size()) {
      const auto dot = section.find('.', start);
      const std::string part =
          section.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      object = &(*object)[part];
      start = dot == std::string::npos ? section.size() : dot + 1;
    }
    std::visit([&](const auto& v) { (*object)[key.name()] = v; }, key.get(config));
  }
  return root.dump(2) + "\n";
}

std::string configurationReferenceMarkdown() {
  const auto cell = [](std::string text) {
    std::string out;
    for (const char c : text) {
      if (c == '|') out += "\\";
      out += c;
    }
    return out;
  };
  std::string out;
  std::string current = "\x01";
  for (const auto& key : configSchema()) {
    const std::string section = key.section();
    if (section != current) {
      if (current != "\x01") out += "\n";
      out += "### `[" + section + "]`\n\n";
      out += "| key | type | default | meaning |\n|---|---|---|---|\n";
      current = section;
    }
    out += "| `" + key.path + "` | " + describeType(key) + " | `" +
           cell(toTomlLiteral(key.defaultValue)) + "` | " + cell(key.meaning) + " |\n";
  }
  out += "\n### Rules across keys\n\n";
  out += "Checked after every key has its value (file, then each `--set` in order):\n\n";
  for (const auto& rule : configRules()) out += "- " + rule.text + "\n";
  return out;
}

}  // namespace attnlab::core
