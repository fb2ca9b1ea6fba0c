#pragma once

// Runs `attnlab-cli qk-map`'s work inside the app: the query-key map (AttentionViz) of one
// head, or of every head of a layer, of a run's checkpoint over the first tokens of its
// validation split, on a thread of its own with progress and Cancel. Nothing is written: the
// map comes back to the GUI thread as a value. A QObject without widgets, testable without a
// window; one map per controller at a time (each map window owns one).

#include "analysis/runs/query_key_sample.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace attnlab::app {

/// Which map to make, as `attnlab-cli qk-map RUN --step S --layer L --head H|--all-heads
/// --tokens N` takes it (the evaluation set is always the run's validation split).
struct QueryKeyMapRequest {
  QString runDirectory;
  std::optional<qint64> step;  ///< nullopt: the latest checkpoint
  int layer = 0;
  int head = -1;          ///< -1: every head of the layer
  int maxTokens = 10000;  ///< the CLI's default
};

/// A finished map and what it was made from.
struct QueryKeyMapResult {
  analysis::QueryKeySample sample;
  QString runDirectory;  ///< the run's folder (as selectCheckpoint resolved it)
  QString checkpoint;    ///< the checkpoint file
  qint64 step = 0;
  QString evaluation;  ///< "validation split (12 blocks of 24 tokens)"
  int maxTokens = 0;
};

class QueryKeyMapController : public QObject {
  Q_OBJECT
 public:
  explicit QueryKeyMapController(QObject* parent = nullptr);
  ~QueryKeyMapController() override;  ///< cancels and joins a running map

  /// Starts making `request`'s map. False (and `whyNot`) while one is being made.
  bool start(const QueryKeyMapRequest& request, QString* whyNot = nullptr);
  /// Asks the map to stop at its next check (between data phases and batches); finished()
  /// then reports it as cancelled.
  void cancel();
  bool isRunning() const { return m_running; }

 signals:
  void started();
  /// The phase ("loading checkpoint", "building evaluation set", "query-key map") and its
  /// progress, at most every 100 ms and at each phase's end.
  void progress(const QString& phase, qint64 done, qint64 total);
  /// `result` holds the map when `ok`; otherwise `message` says why (what and where) and
  /// `cancelled` tells a cancel from a failure.
  void finished(bool ok, bool cancelled, const QString& message,
                std::shared_ptr<const attnlab::app::QueryKeyMapResult> result);

 private:
  using Progress = std::function<void(const std::string&, std::int64_t, std::int64_t)>;
  /// The work, on the thread: throws attnlab::Cancelled on a cancel, anything else on failure.
  static std::shared_ptr<const QueryKeyMapResult> compute(const QueryKeyMapRequest& request,
                                                          const Progress& progress,
                                                          const std::atomic<bool>* cancel);
  void join();

  std::thread m_thread;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  bool m_running = false;
};

}  // namespace attnlab::app
