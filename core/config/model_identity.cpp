#include "core/config/model_identity.h"

#include "core/config/config_loader.h"

#include <map>
#include <sstream>

namespace attnlab::core {
namespace {

// The configuration with everything that does not make the model reset to defaults, so the
// serialised TOML differs exactly in the keys that do.
RunConfig modelPart(const RunConfig& c) {
  RunConfig m;
  m.model = c.model;
  m.attention = c.attention;
  // Guidance only adds a loss term: the same model trains with or without it, and a run may
  // change its weight or schedule between sessions.
  m.attention.guidance = GuidanceConfig{};
  m.tokenizer.vocabSize = c.tokenizer.vocabSize;
  m.data.sequenceLength = c.data.sequenceLength;
  return m;
}

// "section.key" -> "value" from toToml()'s output (sections as [a.b] headers).
std::map<std::string, std::string> keyValues(const std::string& toml) {
  std::map<std::string, std::string> out;
  std::istringstream in(toml);
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      section = line.substr(1, line.find(']') - 1);
      continue;
    }
    const auto eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    out[section + "." + line.substr(0, eq)] = line.substr(eq + 3);
  }
  return out;
}

}  // namespace

std::vector<std::string> modelDifferences(const RunConfig& theirs, const RunConfig& ours) {
  const auto a = keyValues(toToml(modelPart(theirs)));
  const auto b = keyValues(toToml(modelPart(ours)));
  std::vector<std::string> lines;
  for (const auto& [key, value] : a) {
    const auto other = b.find(key);
    if (other == b.end() || other->second != value)
      lines.push_back(key + " = " + value +
                      " (here: " + (other == b.end() ? std::string("unset") : other->second) + ")");
  }
  return lines;
}

}  // namespace attnlab::core
