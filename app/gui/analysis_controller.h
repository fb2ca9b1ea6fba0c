#pragma once

// Runs `attnlab-cli analyze`'s, `probe coref`'s and `compare --heads`'s work inside the app:
// the same analysis/jobs functions (runAnalysisJob, runProbeJob, runHeadComparisonJob), one
// job at a time on its JobRunner, with progress and Cancel. The Analysis, Probe and Compare
// tabs start their jobs here themselves, each with a JobBar over runner(). It also holds the
// window's ModelCache, the one loaded model per checkpoint that the Inspect tab and the
// query-key maps borrow (analyzeRun, probeCoreference and compareHeads load their own inside
// analysis/runs, which takes no model from outside yet). The report goes
// where the CLI puts it (<run>/analysis/step-S/, coref-step-S/ or compare-step-...,
// written only at the end, each file staged and renamed), so the tabs and the CLI see the
// same files. A QObject without widgets, testable without a window.

#include <QObject>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace attnlab::app {

class JobRunner;
class ModelCache;
struct JobControl;

/// What to analyse besides the checkpoint: the evaluation set and the optional statistics,
/// as `attnlab-cli analyze --text/--examples/--pairwise/--over-checkpoints` take them.
struct AnalysisJobOptions {
  QString textFile;               ///< empty: the run's validation split
  qint64 maxSequences = 0;        ///< 0: every sequence of the evaluation set
  qint64 pairwiseSequences = 64;  ///< all-pairs head JSD over the first N sequences; 0 = off
  bool overCheckpoints = false;   ///< also the evaluation set under every checkpoint
  bool heads = false;  ///< head importance, ablation and pruning curves (analyze --heads)
};

/// What Run probe on the Probe tab asks for: the CLI's `probe coref` options that the tab
/// sets (--dataset, and for synthetic data --size, --seed and --distractor).
struct ProbeRequest {
  /// "synthetic", "conll:PATH" or "lin:PATH", as attnlab-cli probe coref --dataset.
  QString dataset = QStringLiteral("synthetic");
  int size = 1000;          ///< synthetic sentences to generate
  std::uint64_t seed = 1;   ///< seed of the synthetic data
  bool distractor = false;  ///< synthetic: a distractor phrase before each sentence
};

/// How a report job ended: the report file written when `ok`, else why not.
struct ReportJobEnd {
  bool ok = false;
  bool cancelled = false;
  QString message;     ///< what failed and where, or the cancel
  QString reportPath;  ///< analysis.json, coref.json or heads_comparison.json
};
/// Called on the GUI thread when the job a caller started ends (after finished()).
using ReportJobDone = std::function<void(const ReportJobEnd&)>;

class AnalysisController : public QObject {
  Q_OBJECT
 public:
  /// Runs its jobs on a JobRunner of its own (a child).
  explicit AnalysisController(QObject* parent = nullptr);
  ~AnalysisController() override;  ///< cancels and joins a running job (the runner does)

  /// The runner its jobs run on, for the tabs' JobBars.
  JobRunner* runner() const { return m_runner; }
  /// The models the window's jobs and the Inspect tab share.
  const std::shared_ptr<ModelCache>& models() const { return m_models; }

  /// Starts analysing `runDirectory` at `step` (the latest checkpoint when empty). False
  /// (and `whyNot`) when a job is already running. `threads`: statistics threads
  /// (0 = all cores; the app passes 1 while a run trains, so the engine keeps its share).
  bool start(const QString& runDirectory, std::optional<qint64> step = std::nullopt,
             int threads = 0, QString* whyNot = nullptr,
             const AnalysisJobOptions& job = AnalysisJobOptions{}, ReportJobDone done = {});
  /// Starts the coreference probe of `runDirectory`'s latest checkpoint with `request`'s
  /// dataset and synthetic size, seed and distractor; the report is the CLI's,
  /// coref_examples.json included.
  bool startProbe(const QString& runDirectory, const ProbeRequest& request,
                  QString* whyNot = nullptr, ReportJobDone done = {});
  /// Compares the heads of the latest checkpoints of `runA` and `runB` as `attnlab-cli
  /// compare A B --heads` does (run A's validation split, first 256 sequences) and writes the
  /// report where the CLI puts it; finished() names its heads_comparison.json.
  bool startHeadComparison(const QString& runA, const QString& runB, QString* whyNot = nullptr,
                           ReportJobDone done = {});
  /// Asks the job to stop at its next check (within about a second); finished() then
  /// reports it as cancelled and nothing is written.
  void cancel();
  bool isRunning() const;

  /// The statistics threads an analysis started by a tab takes now (0 = all cores).
  int threadsNow() const { return m_threads ? m_threads() : 0; }
  /// How threadsNow() decides (the window: 1 while a run trains here).
  void setThreadPolicy(std::function<int()> threads) { m_threads = std::move(threads); }

 signals:
  /// A job was started (before its first progress).
  void started();
  /// The current phase ("loading checkpoint", "evaluation set", ...) and its progress,
  /// at most every 100 ms.
  void progress(const QString& phase, qint64 done, qint64 total);
  /// `reportPath` is the report written when `ok`; otherwise `message` says why (what and
  /// where), and `cancelled` tells a cancel from a failure.
  void finished(bool ok, bool cancelled, const QString& message, const QString& reportPath);

 private:
  using Work = std::function<std::string(const JobControl&)>;
  bool launch(const QString& label, Work work, ReportJobDone done, QString* whyNot);

  JobRunner* m_runner;
  std::shared_ptr<ModelCache> m_models;
  std::function<int()> m_threads;
};

}  // namespace attnlab::app

Q_DECLARE_METATYPE(attnlab::app::ProbeRequest)
