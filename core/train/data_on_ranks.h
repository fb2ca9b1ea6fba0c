#pragma once

// How the processes of one multi-process run get their data: each machine prepares it once.
//  - rank 0 prepares (corpus, tokenizer, token store) into its cache, and marks the cache;
//  - the local rank 0 of another machine finds that mark when the cache is on a shared file
//    system and opens rank 0's files once they are finished, else prepares its own copy;
//  - every other rank waits for its machine's local rank 0, then opens what it made.
// Waiting polls the run's key-value store rather than a collective, so it lasts as long as
// preparation does (a 4 GB corpus outlasts any collective's timeout), and the waiting ranks
// report the preparer's progress as their own.

#include "core/config/run_config.h"
#include "core/data/mlm_data.h"

#include <filesystem>
#include <functional>
#include <optional>

namespace attnlab::core {

class DistributedContext;

class DataOnRanks {
 public:
  /// Prepares the data here with the given progress sink; nullopt when a stop came.
  using Prepare = std::function<std::optional<MlmData>(const DataProgressCallback&)>;
  /// Progress to show: this rank's own, or that of the rank it waits for.
  using Report = std::function<bool(const DataProgress&)>;

  DataOnRanks(DistributedContext& distributed, const RunConfig& config,
              std::filesystem::path runDir);

  /// Every rank calls it once. nullopt when preparation stopped on request; throws
  /// DataError when the rank this one waits for failed (that rank reports why).
  std::optional<MlmData> run(const Prepare& prepare, const Report& report);

 private:
  /// The rank whose files this rank opens (itself when it prepares).
  int preparerRank();
  std::optional<MlmData> prepareHere(const Prepare& prepare, const Report& report);
  /// Polls `rank`'s state until it is final, reporting its progress; the state.
  std::string waitFor(int rank, const Report& report);
  void publishState(const std::string& state);

  DistributedContext& m_distributed;
  const RunConfig& m_config;
  std::filesystem::path m_runDir;
};

}  // namespace attnlab::core
