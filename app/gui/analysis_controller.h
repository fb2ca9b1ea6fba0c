#pragma once

// Runs `attnlab-cli analyze`'s and `attnlab-cli probe coref`'s work inside the app: the
// attention statistics of a run's checkpoint over its validation split, or the coreference
// probe, on a thread of its own, with progress and Cancel (one job at a time). The report
// goes where the CLI puts it (<run>/analysis/step-S/ or coref-step-S/, written only at the
// end, each file staged and renamed), so the tabs and the CLI see the same files. A QObject
// without widgets, testable without a window.

#include "app/gui/panels/probe_request.h"

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

/// What to analyse besides the checkpoint: the evaluation set and the optional statistics,
/// as `attnlab-cli analyze --text/--examples/--pairwise/--over-checkpoints` take them.
struct AnalysisJobOptions {
  QString textFile;               ///< empty: the run's validation split
  qint64 maxSequences = 0;        ///< 0: every sequence of the evaluation set
  qint64 pairwiseSequences = 64;  ///< all-pairs head JSD over the first N sequences; 0 = off
  bool overCheckpoints = false;   ///< also the evaluation set under every checkpoint
  bool heads = false;  ///< head importance, ablation and pruning curves (analyze --heads)
};

class AnalysisController : public QObject {
  Q_OBJECT
 public:
  explicit AnalysisController(QObject* parent = nullptr);
  ~AnalysisController() override;  ///< cancels and joins a running analysis

  /// Starts analysing `runDirectory` at `step` (the latest checkpoint when empty). False
  /// (and `whyNot`) when an analysis is already running. `threads`: statistics threads
  /// (0 = all cores; the app passes 1 while a run trains, so the engine keeps its share).
  bool start(const QString& runDirectory, std::optional<qint64> step = std::nullopt,
             int threads = 0, QString* whyNot = nullptr,
             const AnalysisJobOptions& job = AnalysisJobOptions{});
  /// Starts the coreference probe of `runDirectory`'s latest checkpoint with `request`'s
  /// dataset ("synthetic", "conll:PATH" or "lin:PATH", as the CLI's --dataset) and synthetic
  /// size, seed and distractor; the report is the CLI's, coref_examples.json included.
  bool startProbe(const QString& runDirectory, const ProbeRequest& request,
                  QString* whyNot = nullptr);
  /// Compares the heads of the latest checkpoints of `runA` and `runB` as `attnlab-cli
  /// compare A B --heads` does (run A's validation split, first 256 sequences) and writes the
  /// report where the CLI puts it; finished() names its heads_comparison.json.
  bool startHeadComparison(const QString& runA, const QString& runB, QString* whyNot = nullptr);
  /// Asks the analysis to stop at its next check (within about a second); finished() then
  /// reports it as cancelled and nothing is written.
  void cancel();
  bool isRunning() const { return m_running; }

 signals:
  /// An analysis was started (before its first progress).
  void started();
  /// The current phase ("loading checkpoint", "evaluation set", ...) and its progress,
  /// at most every 100 ms.
  void progress(const QString& phase, qint64 done, qint64 total);
  /// `reportPath` is the analysis.json written when `ok`; otherwise `message` says why
  /// (what and where), and `cancelled` tells a cancel from a failure.
  void finished(bool ok, bool cancelled, const QString& message, const QString& reportPath);

 private:
  /// The job: runs on the thread with the progress callback and the cancel flag, returns
  /// the report file it wrote; throws on failure.
  using Job = std::function<std::string(
      const std::function<void(const std::string&, std::int64_t, std::int64_t)>& progress,
      const std::atomic<bool>* cancel)>;
  bool launch(const QString& runDirectory, Job job, QString* whyNot);
  void join();

  std::thread m_thread;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  bool m_running = false;
  QString m_runDirectory;
};

}  // namespace attnlab::app
