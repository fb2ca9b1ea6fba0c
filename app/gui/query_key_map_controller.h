#pragma once

// Runs `attnlab-cli qk-map`'s work inside the app: analysis::runQueryKeyMapJob (the CLI's own
// job) on a JobRunner of its own, with progress and Cancel, the model borrowed from the
// window's ModelCache (the one the Inspect tab uses) when one is set. Nothing is written: the
// map comes back to the GUI thread as a value. A QObject without widgets, testable without a
// window; one map per controller at a time (each map window owns one).

#include "analysis/runs/query_key_sample.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace attnlab::app {

class JobRunner;
class ModelCache;

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

  /// Where the map borrows its model; null (the default): it loads one of its own.
  void setModels(std::shared_ptr<ModelCache> models) { m_models = std::move(models); }
  JobRunner* runner() const { return m_runner; }

  /// Starts making `request`'s map. False (and `whyNot`) while one is being made.
  bool start(const QueryKeyMapRequest& request, QString* whyNot = nullptr);
  /// Asks the map to stop at its next check (between data phases and batches); finished()
  /// then reports it as cancelled.
  void cancel();
  bool isRunning() const;

 signals:
  /// `result` holds the map when `ok`; otherwise `message` says why (what and where) and
  /// `cancelled` tells a cancel from a failure.
  void finished(bool ok, bool cancelled, const QString& message,
                std::shared_ptr<const attnlab::app::QueryKeyMapResult> result);

 private:
  JobRunner* m_runner;
  std::shared_ptr<ModelCache> m_models;
};

}  // namespace attnlab::app
