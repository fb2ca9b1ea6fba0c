#include "core/train/data_on_ranks.h"

#include "core/data/data_files.h"
#include "core/data/hashing.h"
#include "core/distributed/distributed_context.h"
#include "core/errors/error.h"

#include <chrono>
#include <random>
#include <sstream>
#include <system_error>
#include <thread>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

constexpr const char* kReady = "ready";
constexpr const char* kStopped = "stopped";
constexpr const char* kFailed = "failed";
constexpr auto kPollInterval = std::chrono::milliseconds(200);
constexpr auto kPublishInterval = std::chrono::milliseconds(500);

std::string stateKey(int rank) {
  return "data/" + std::to_string(rank) + "/state";
}
std::string progressKey(int rank) {
  return "data/" + std::to_string(rank) + "/progress";
}

/// DataProgress on the wire: tab-separated fields, the phase name last.
std::string encodeProgress(const DataProgress& p) {
  std::ostringstream out;
  out << p.phaseIndex << '\t' << p.phases << '\t' << p.done << '\t' << p.total << '\t'
      << p.phaseSeconds << '\t' << p.phase;
  return out.str();
}

std::optional<DataProgress> decodeProgress(const std::string& text) {
  std::istringstream in(text);
  DataProgress p;
  in >> p.phaseIndex >> p.phases >> p.done >> p.total >> p.phaseSeconds;
  in.get();  // the tab before the name
  std::getline(in, p.phase);
  if (!in && !in.eof()) return std::nullopt;
  return p;
}

/// The file rank 0 marks its cache with; another machine that reads the same nonce from its
/// cache path shares rank 0's file system.
fs::path markFile(const RunConfig& config, const fs::path& runDir) {
  return dataCacheDir(config, runDir) / "preparer.id";
}

}  // namespace

DataOnRanks::DataOnRanks(DistributedContext& distributed, const RunConfig& config, fs::path runDir)
    : m_distributed(distributed), m_config(config), m_runDir(std::move(runDir)) {}

int DataOnRanks::preparerRank() {
  const int rank = m_distributed.rank();
  const fs::path mark = markFile(m_config, m_runDir);
  if (rank == 0) {
    std::error_code ec;
    fs::create_directories(mark.parent_path(), ec);
    const std::string nonce = toHex64(std::random_device{}() * 0x9E3779B97F4A7C15ull ^
                                      static_cast<std::uint64_t>(::time(nullptr)));
    writeFileAtomically(mark, nonce);
    m_distributed.publish("data/nonce", nonce);
    return 0;
  }
  if (m_distributed.localRank() != 0) return rank - m_distributed.localRank();
  std::optional<std::string> nonce;
  while (!(nonce = m_distributed.published("data/nonce")))
    std::this_thread::sleep_for(kPollInterval);
  std::error_code ec;
  const bool shared = fs::is_regular_file(mark, ec) && readFileBytes(mark) == *nonce;
  return shared ? 0 : rank;
}

std::optional<MlmData> DataOnRanks::run(const Prepare& prepare, const Report& report) {
  const int preparer = preparerRank();
  if (preparer == m_distributed.rank()) return prepareHere(prepare, report);
  std::optional<MlmData> data;
  try {
    const std::string state = waitFor(preparer, report);
    if (state == kFailed) {
      throw DataError("data preparation", "rank " + std::to_string(preparer) +
                                              " could not prepare the data (its output says why)");
    }
    if (state == kReady) data = openPreparedMlmData(m_config, m_runDir);
  } catch (...) {
    publishState(kFailed);
    throw;
  }
  publishState(data ? kReady : kStopped);
  return data;
}

std::optional<MlmData> DataOnRanks::prepareHere(const Prepare& prepare, const Report& report) {
  auto lastPublished = std::chrono::steady_clock::now() - kPublishInterval;
  const DataProgressCallback publishing = [&](const DataProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (now - lastPublished >= kPublishInterval || p.done == p.total) {
      m_distributed.publish(progressKey(m_distributed.rank()), encodeProgress(p));
      lastPublished = now;
    }
    return report(p);
  };
  std::optional<MlmData> data;
  try {
    data = prepare(publishing);
  } catch (...) {
    publishState(kFailed);
    throw;
  }
  publishState(data ? kReady : kStopped);
  return data;
}

std::string DataOnRanks::waitFor(int rank, const Report& report) {
  DataProgress waiting{"waiting for rank " + std::to_string(rank), 0, 0, 0, 0, 0.0};
  report(waiting);
  for (;;) {
    if (auto state = m_distributed.published(stateKey(rank))) return *state;
    if (auto text = m_distributed.published(progressKey(rank))) {
      if (auto p = decodeProgress(*text)) {
        p->phase += " (rank " + std::to_string(rank) + ")";
        report(*p);  // a stop reaches the preparer too, which then says "stopped"
      }
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

void DataOnRanks::publishState(const std::string& state) {
  // Only a machine's local rank 0 is waited for; the others' states are informative.
  m_distributed.publish(stateKey(m_distributed.rank()), state);
}

}  // namespace attnlab::core
