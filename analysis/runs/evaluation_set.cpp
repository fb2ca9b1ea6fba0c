#include "analysis/runs/evaluation_set.h"

#include "core/data/mlm_data.h"
#include "core/data/text_encoding.h"
#include "core/errors/error.h"
#include "core/inspect/attention_inspector.h"
#include "core/tokenizer/tokenizer.h"

#include <torch/torch.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <optional>
#include <system_error>

namespace attnlab::analysis {

namespace fs = std::filesystem;

struct EvaluationSet::State {
  EvaluationSpec spec;
  core::SpecialTokenIds specials;
  std::vector<int> periodIds;
  int maxLength = 0;
  std::int64_t size = 0;
  std::int64_t cursor = 0;
  std::string description;
  std::string kind;
  std::vector<SkippedData> skipped;
  // Validation split.
  std::optional<core::MlmData> data;
  // Text file: the encoded lines (ids incl. <s> and </s>). Texts given by hand are small;
  // the validation split, which can be large, is read block by block.
  std::vector<std::vector<std::int64_t>> lines;

  // Progress of the phase in its own units (the data pipeline's steps, or bytes read).
  using Report = std::function<void(std::int64_t done, std::int64_t total)>;
  void openValidation(const core::AttentionInspector& inspector, const fs::path& runDir,
                      const Report& report, const std::atomic<bool>* cancel);
  void readTextFile(const core::AttentionInspector& inspector, const Report& report,
                    const std::atomic<bool>* cancel);
  void addTextLine(const std::string& line, const std::string& where,
                   const core::Tokenizer& tokenizer, int limit, std::int64_t& truncated);
};

SequenceRoles rolesOf(const std::int64_t* ids, int length, int eosId,
                      const std::vector<int>& periodIds) {
  SequenceRoles roles;
  roles.length = length;
  roles.separator.assign(static_cast<size_t>(length), 0);
  roles.period.assign(static_cast<size_t>(length), 0);
  for (int i = 0; i < length; ++i) {
    roles.separator[static_cast<size_t>(i)] = ids[i] == eosId ? 1 : 0;
    roles.period[static_cast<size_t>(i)] =
        std::find(periodIds.begin(), periodIds.end(), static_cast<int>(ids[i])) != periodIds.end()
            ? 1
            : 0;
  }
  return roles;
}

void EvaluationSet::State::openValidation(const core::AttentionInspector& inspector,
                                          const fs::path& runDir, const Report& report,
                                          const std::atomic<bool>* cancel) {
  kind = "validation";
  // The run's finished token store opens without a pass over the corpus; without one, the
  // pipeline runs, asking a few times a second whether to go on (false throws
  // attnlab::Cancelled); with the run's cache in place every phase but the corpus is a reuse.
  constexpr int kDataPhases = 4;  // corpus, tokenizer, token store, batches
  report(0, kDataPhases);
  throwIfCancelled(cancel, kPhaseBuildEvaluationSet);
  try {
    data.emplace(core::openPreparedMlmData(inspector.config(), runDir));
  } catch (const attnlab::Error&) {  // no finished store, or no tokenizer beside it
    data.emplace(
        core::prepareMlmData(inspector.config(), runDir, 0, [&](const core::DataProgress& p) {
          report(p.phaseIndex, p.phases);
          return !cancelRequested(cancel);
        }));
  }
  report(kDataPhases, kDataPhases);
  throwIfCancelled(cancel, kPhaseBuildEvaluationSet);
  const auto blocks = data->validation.blocksPerEpoch();
  if (blocks == 0) {
    throw DataError(runDir.string(),
                    "the run has no validation split (data.validation_fraction and "
                    "data.validation_lines are 0); give a text file with --text");
  }
  maxLength = data->validation.sequenceLength();
  const auto available = static_cast<std::int64_t>(blocks);
  size = spec.maxSequences > 0 ? std::min(available, spec.maxSequences) : available;
  description = "validation split, " + std::to_string(size) + " of " + std::to_string(blocks) +
                " blocks of " + std::to_string(maxLength) + " tokens";
}

void EvaluationSet::State::readTextFile(const core::AttentionInspector& inspector,
                                        const Report& report, const std::atomic<bool>* cancel) {
  kind = "text";
  const fs::path& path = spec.textFile;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path.string(), "cannot open the evaluation text file");
  std::error_code sizeError;
  const auto fileSize = fs::file_size(path, sizeError);
  // Progress in bytes: the number of lines is not known before reading them all.
  std::int64_t bytesTotal = sizeError ? 0 : static_cast<std::int64_t>(fileSize);
  std::int64_t bytesRead = 0;
  report(0, bytesTotal);
  const int limit = inspector.maxLength();
  std::string line;
  std::int64_t lineNumber = 0;
  std::int64_t truncated = 0;
  while (std::getline(in, line)) {
    ++lineNumber;
    bytesRead += static_cast<std::int64_t>(line.size()) + 1;
    // An atomic load per line is free next to encoding it; progress every few hundred lines
    // keeps the callback (and the app's event queue) quiet.
    throwIfCancelled(cancel, "reading " + path.string() + ":" + std::to_string(lineNumber));
    if (lineNumber % 256 == 0) report(std::min(bytesRead, bytesTotal), bytesTotal);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    addTextLine(line, path.string() + ":" + std::to_string(lineNumber), inspector.tokenizer(),
                limit, truncated);
    if (spec.maxSequences > 0 && static_cast<std::int64_t>(lines.size()) >= spec.maxSequences) {
      break;
    }
  }
  if (lines.empty()) throw DataError(path.string(), "has no usable line of text to evaluate on");
  // Ends at the total even when --examples stopped the reading early; without a size (a
  // pipe) the bytes read are the total.
  const auto end = sizeError ? bytesRead : bytesTotal;
  report(end, end);
  size = static_cast<std::int64_t>(lines.size());
  description = "text file " + path.string() + ", " + std::to_string(size) + " lines" +
                (truncated > 0 ? " (" + std::to_string(truncated) + " cut to " +
                                     std::to_string(limit) + " tokens)"
                               : std::string());
}

/// One non-blank line as <s> pieces </s>, cut to `limit` ids; invalid UTF-8 is skipped.
void EvaluationSet::State::addTextLine(const std::string& line, const std::string& where,
                                       const core::Tokenizer& tokenizer, int limit,
                                       std::int64_t& truncated) {
  if (!core::isValidUtf8(line)) {
    skipped.push_back({where, "not valid UTF-8 (byte " +
                                  std::to_string(core::firstInvalidUtf8Offset(line)) + ")"});
    return;
  }
  std::vector<std::int64_t> ids = {specials.bos};
  const auto pieces = tokenizer.encode(line);
  for (const int id : pieces) {
    if (static_cast<int>(ids.size()) >= limit - 1) break;
    ids.push_back(id);
  }
  if (static_cast<int>(pieces.size()) > limit - 2) ++truncated;
  ids.push_back(specials.eos);
  maxLength = std::max(maxLength, static_cast<int>(ids.size()));
  lines.push_back(std::move(ids));
}

EvaluationSet::EvaluationSet(const core::AttentionInspector& inspector, const fs::path& runDir,
                             const EvaluationSpec& spec, const AnalysisProgress& progress,
                             const std::atomic<bool>* cancel)
    : m_state(std::make_unique<State>()) {
  const auto report = [&progress](std::int64_t done, std::int64_t total) {
    if (progress) progress(kPhaseBuildEvaluationSet, done, total);
  };
  throwIfCancelled(cancel, kPhaseBuildEvaluationSet);
  auto& s = *m_state;
  s.spec = spec;
  s.spec.batchSize = std::max(1, spec.batchSize);
  const auto& tokenizer = inspector.tokenizer();
  s.specials = tokenizer.specialIds();
  s.periodIds = core::periodIds(tokenizer);
  if (spec.textFile.empty()) {
    s.openValidation(inspector, runDir, report, cancel);
  } else {
    s.readTextFile(inspector, report, cancel);
  }
}

EvaluationSet::~EvaluationSet() = default;
EvaluationSet::EvaluationSet(EvaluationSet&&) noexcept = default;
EvaluationSet& EvaluationSet::operator=(EvaluationSet&&) noexcept = default;

std::string EvaluationSet::description() const {
  return m_state->description;
}
std::string EvaluationSet::kind() const {
  return m_state->kind;
}
std::int64_t EvaluationSet::size() const {
  return m_state->size;
}
int EvaluationSet::maxLength() const {
  return m_state->maxLength;
}
const std::vector<SkippedData>& EvaluationSet::skipped() const {
  return m_state->skipped;
}
void EvaluationSet::rewind() {
  m_state->cursor = 0;
}

bool EvaluationSet::next(EvaluationBatch& batch) {
  auto& s = *m_state;
  if (s.cursor >= s.size) return false;
  const auto count = std::min<std::int64_t>(s.spec.batchSize, s.size - s.cursor);
  batch.roles.clear();
  if (s.data) {
    const auto& blocks = s.data->validation.blocks();
    const int T = blocks.sequenceLength();
    batch.ids = torch::empty({count, T}, torch::kLong);
    auto* out = batch.ids.data_ptr<std::int64_t>();
    for (std::int64_t b = 0; b < count; ++b) {
      std::span<std::int64_t> row(out + b * T, static_cast<size_t>(T));
      const int real = blocks.fill(s.cursor + b, row);
      batch.roles.push_back(rolesOf(row.data(), real, s.specials.eos, s.periodIds));
    }
  } else {
    std::size_t longest = 0;
    for (std::int64_t b = 0; b < count; ++b) {
      longest = std::max(longest, s.lines[static_cast<size_t>(s.cursor + b)].size());
    }
    const auto T = static_cast<std::int64_t>(longest);
    batch.ids = torch::full({count, T}, s.specials.pad, torch::kLong);
    auto* out = batch.ids.data_ptr<std::int64_t>();
    for (std::int64_t b = 0; b < count; ++b) {
      const auto& ids = s.lines[static_cast<size_t>(s.cursor + b)];
      std::copy(ids.begin(), ids.end(), out + b * T);
      batch.roles.push_back(
          rolesOf(ids.data(), static_cast<int>(ids.size()), s.specials.eos, s.periodIds));
    }
  }
  s.cursor += count;
  return true;
}

}  // namespace attnlab::analysis
