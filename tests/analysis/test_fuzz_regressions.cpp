// Replays the fuzz harnesses' seeds and committed crash inputs in the normal build
// (docs/hardening.md, "Fuzzing"): each file goes through the same harness code libFuzzer runs
// (tests/fuzz/fuzz_*.cpp, entry points renamed by tests_fuzz_regressions.cmake), which lets
// through only the reader's documented errors and checks what the reader promises of an
// accepted input. A finding is thrown as attnlab::fuzz::Finding and fails the row with its
// text; a memory error fails the sanitize preset's run.
#include "tests/fuzz/fuzz_support.h"

#include <QtTest>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

using HarnessEntry = int (*)(const std::uint8_t*, std::size_t);

#define ATTNLAB_REPLAYED(name) \
  extern "C" int attnlab_replay_##name(const std::uint8_t*, std::size_t);
ATTNLAB_REPLAYED(fuzz_config_toml)
ATTNLAB_REPLAYED(fuzz_config_json)
ATTNLAB_REPLAYED(fuzz_config_set)
ATTNLAB_REPLAYED(fuzz_corpus)
ATTNLAB_REPLAYED(fuzz_token_store)
ATTNLAB_REPLAYED(fuzz_conll)
ATTNLAB_REPLAYED(fuzz_lin_reflexives)
ATTNLAB_REPLAYED(fuzz_analysis_json)
ATTNLAB_REPLAYED(fuzz_coref_json)
ATTNLAB_REPLAYED(fuzz_coref_examples_json)
ATTNLAB_REPLAYED(fuzz_run_log)
ATTNLAB_REPLAYED(fuzz_checkpoint)
ATTNLAB_REPLAYED(fuzz_safetensors)
#undef ATTNLAB_REPLAYED

namespace {

struct Harness {
  const char* name;
  HarnessEntry entry;
};

const std::vector<Harness>& harnesses() {
  static const std::vector<Harness> all = {
      {"fuzz_config_toml", attnlab_replay_fuzz_config_toml},
      {"fuzz_config_json", attnlab_replay_fuzz_config_json},
      {"fuzz_config_set", attnlab_replay_fuzz_config_set},
      {"fuzz_corpus", attnlab_replay_fuzz_corpus},
      {"fuzz_token_store", attnlab_replay_fuzz_token_store},
      {"fuzz_conll", attnlab_replay_fuzz_conll},
      {"fuzz_lin_reflexives", attnlab_replay_fuzz_lin_reflexives},
      {"fuzz_analysis_json", attnlab_replay_fuzz_analysis_json},
      {"fuzz_coref_json", attnlab_replay_fuzz_coref_json},
      {"fuzz_coref_examples_json", attnlab_replay_fuzz_coref_examples_json},
      {"fuzz_run_log", attnlab_replay_fuzz_run_log},
      {"fuzz_checkpoint", attnlab_replay_fuzz_checkpoint},
      {"fuzz_safetensors", attnlab_replay_fuzz_safetensors},
  };
  return all;
}

std::vector<fs::path> filesIn(const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return files;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

class TestFuzzRegressions : public QObject {
  Q_OBJECT
 private slots:
  // Every harness has seeds, and the harness list here is the one tests/fuzz builds.
  void everyHarnessHasSeeds() {
    const fs::path root = fs::path(ATTNLAB_SOURCE_DIR) / "tests/fuzz";
    std::ifstream cmake(root / "CMakeLists.txt");
    const std::string text{std::istreambuf_iterator<char>(cmake), {}};
    for (const Harness& h : harnesses()) {
      QVERIFY2(text.find(std::string("attnlab_fuzzer(") + h.name + " ") != std::string::npos,
               h.name);
      QVERIFY2(!filesIn(root / "seeds" / h.name).empty(), h.name);
    }
  }

  void replay_data() {
    QTest::addColumn<int>("harness");
    QTest::addColumn<QString>("file");
    const fs::path root = fs::path(ATTNLAB_SOURCE_DIR) / "tests/fuzz";
    for (std::size_t i = 0; i < harnesses().size(); ++i) {
      const std::string name = harnesses()[i].name;
      for (const char* kind : {"regressions", "seeds"}) {
        for (const fs::path& file : filesIn(root / kind / name)) {
          const std::string row = std::string(kind) + "/" + name + "/" + file.filename().string();
          QTest::newRow(row.c_str())
              << static_cast<int>(i) << QString::fromStdString(file.string());
        }
      }
    }
  }

  // The reader ends in its result or its documented error, and keeps its promises.
  void replay() {
    QFETCH(int, harness);
    QFETCH(QString, file);
    std::ifstream in(file.toStdString(), std::ios::binary);
    QVERIFY(in.good());
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
    try {
      harnesses()[static_cast<std::size_t>(harness)].entry(
          reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    } catch (const attnlab::fuzz::Finding& finding) {
      QFAIL(finding.what.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "test_fuzz_regressions.moc"
