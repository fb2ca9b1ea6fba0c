// Text corpora: buildCorpus() over one input file, as `corpus.source = "text"` reads each file
// (under corpus.invalid_utf8 "skip" and "reject"), and as `corpus.source = "wordnet"` reads
// WordNet's data files (the input as data.noun, the other three empty). Documented errors:
// DataError (file or file:line) and ConfigError. What the build keeps must be what its header
// promises: every line non-empty, valid and normalised, the counts and fingerprint those of
// the file written.

#include "core/data/corpus_source.h"
#include "core/data/data_files.h"
#include "core/errors/error.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace {

namespace fs = std::filesystem;
using namespace attnlab;

void checkBuild(const core::CorpusBuild& build) {
  const std::string text = core::readFileBytes(build.textPath);
  if (text.size() != build.stats.bytes) {
    fuzz::reportFinding("corpus.txt has " + std::to_string(text.size()) + " bytes, stats say " +
                        std::to_string(build.stats.bytes));
  }
  if (core::fingerprintFile(build.textPath) != build.fingerprint) {
    fuzz::reportFinding("the build's fingerprint is not corpus.txt's");
  }
  if (!text.empty() && text.back() != '\n') fuzz::reportFinding("corpus.txt's last line is open");
  std::uint64_t lines = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    ++lines;
    if (line.empty()) fuzz::reportFinding("corpus.txt holds an empty line");
    if (const std::string problem = core::corpusLineProblem(line); !problem.empty()) {
      fuzz::reportFinding("corpus.txt holds a line the checks reject: " + problem);
    }
    if (core::normaliseCorpusLine(line) != line) {
      fuzz::reportFinding("corpus.txt holds a line that is not normalised");
    }
  }
  if (lines != build.stats.linesKept) {
    fuzz::reportFinding("corpus.txt has " + std::to_string(lines) + " lines, stats say " +
                        std::to_string(build.stats.linesKept));
  }
  if (build.stats.linesKept == 0) fuzz::reportFinding("an empty corpus was accepted");
}

void buildOnce(const core::CorpusConfig& config) {
  try {
    checkBuild(core::buildCorpus(config, fuzz::scratchFolder() / "built"));
  } catch (const DataError& e) {
    fuzz::checkClearError(e);
  } catch (const ConfigError& e) {
    fuzz::checkClearError(e);
  } catch (const std::exception& e) {
    fuzz::reportUndocumented(e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path input = fuzz::writeScratchFile("input.txt", data, size);

  core::CorpusConfig text;
  text.source = core::CorpusSource::Text;
  text.paths = {input.string()};
  text.invalidUtf8 = core::InvalidUtf8Policy::Skip;
  buildOnce(text);
  text.invalidUtf8 = core::InvalidUtf8Policy::Reject;
  buildOnce(text);

  const fs::path wordnet = fuzz::scratchFolder() / "wordnet";
  fs::create_directories(wordnet);
  fs::copy_file(input, wordnet / "data.noun", fs::copy_options::overwrite_existing);
  for (const char* name : {"data.verb", "data.adj", "data.adv"}) {
    std::ofstream(wordnet / name, std::ios::trunc);
  }
  core::CorpusConfig glosses;
  glosses.source = core::CorpusSource::Wordnet;
  glosses.wordnetDir = wordnet.string();
  buildOnce(glosses);
  return 0;
}
