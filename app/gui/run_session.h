#pragma once

// What the app knows about one opened run, on the GUI thread. Every view reads from here;
// the data arrives in batches (RunUpdate) from the run's RunWatcher, which reads the run log
// on a thread of its own, whether the run trains in this process or in another one.

#include "core/runlog/run_event_kind.h"
#include "widgets/plots/plot_data.h"

#include <QColor>
#include <QObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace attnlab::app {

/// Where a run stands, as the runs list shows it.
enum class RunStatus {
  Opening,        ///< the log is being read for the first time
  PreparingData,  ///< this process: corpus, tokenizer or token store before training
  Training,       ///< this process trains it
  Paused,         ///< this process trains it and holds between steps
  Stopping,       ///< a stop was requested; the step, checkpoint and log close finish
  Stopped,        ///< ended early (by a stop); can be resumed
  Finished,       ///< reached schedule.steps
  Failed,         ///< ended with an error (the console has the message)
  LiveElsewhere,  ///< another process is writing it (followed live)
  Incomplete,     ///< not running and not finished (killed, or never ended): can be resumed
  Pretrained,     ///< a pretrained model folder: no training history, nothing to follow
};

/// "training", "live in another process", ...
QString runStatusText(RunStatus status);
/// The same for a run trained in `processes` processes: "training · 2 processes" while this
/// window trains it (the states of isActiveHere), runStatusText(status) otherwise.
QString runStatusText(RunStatus status, int processes);
/// True for the states in which this process' engine owns the run.
bool isActiveHere(RunStatus status);

/// One scalar over steps: parallel columns.
struct ScalarPoints {
  std::vector<double> steps;
  std::vector<double> values;
  std::vector<double> wallTimes;  ///< Unix seconds
};

/// A per-layer ([L]) or per-layer-and-head ([L, H]) quantity over steps.
struct LayerSeries {
  QString name;     ///< the log's series name, "asa/mask_proportion"
  QString unit;     ///< "fraction", "weight", "temperature"
  QString meaning;  ///< one line for tooltips and titles
  std::vector<std::int64_t> innerShape;
  std::vector<double> steps;
  std::vector<float> values;  ///< steps.size() rows of innerShape, row-major
  std::int64_t rowSize() const;
};

/// One attention snapshot of the probe batch: probabilities [L, B, H, T, T].
struct SnapshotFrame {
  std::int64_t step = -1;
  int layers = 0, sequences = 0, heads = 0, length = 0;
  std::vector<float> probabilities;
  /// True when `probabilities` holds differential attention's signed maps (p1 - lambda p2,
  /// snapshots/weights) rather than probabilities.
  bool signedWeights = false;
  /// The T x T matrix of (layer, sequence, head), cut to the first `realLength` tokens.
  widgets::Matrix head(int layer, int sequence, int head, int realLength) const;
};

/// A checkpoint the run recorded.
struct CheckpointInfo {
  std::int64_t step = 0;
  QString path;
  std::optional<double> validationLoss;
};

/// A line for the console: an event of the run log, or a message of this process' engine.
struct RunMessage {
  std::int64_t step = 0;
  double wallTime = 0;  ///< Unix seconds
  QString kind;         ///< the label shown: "start", "stopped", "error", "evaluation", ...
  QString text;
  /// The run event it is (a milestone of the engine or a row of the log's events); empty
  /// for the app's own lines (evaluation, checkpoint, error, a process' output).
  std::optional<core::RunEventKind> event;
  /// An error (shown in red; the status bar repeats it): an engine failure, a worker's error.
  bool error = false;
  /// For a start, resume or distributed event: the processes training the run from then on
  /// (the log's typed field); 0 when the event does not say.
  int worldSize = 0;
};

/// What a watcher read since its previous batch. Lists marked "new" are appended to what
/// the session holds; the others replace it.
struct RunUpdate {
  std::optional<QString> runName;                       ///< first batch
  std::optional<QString> configToml;                    ///< first batch
  std::optional<std::vector<QStringList>> probeTokens;  ///< first batch: pieces per sequence
  std::optional<std::int64_t> totalSteps;               ///< schedule.steps, first batch
  /// Guidance target per (layer, head) for the probe batch (first batch, guided runs only).
  std::optional<std::vector<std::vector<int>>> guidancePatternOfHead;        ///< [L][H], -1 = none
  std::optional<std::vector<std::vector<widgets::Matrix>>> guidanceTargets;  ///< [pattern][seq]
  std::optional<QStringList> guidancePatternNames;  ///< index -> "next", "prev", ...
  /// Per layer, core::bandHalfWidth of the run's model (first batch; -1 = global layer).
  std::optional<std::vector<int>> bandHalfWidths;
  std::map<QString, ScalarPoints> scalars;                 ///< new rows per scalar
  std::map<QString, LayerSeries> layerSeries;              ///< new rows per series (meta each time)
  std::optional<std::vector<std::int64_t>> snapshotSteps;  ///< all snapshot steps now
  std::vector<RunMessage> events;                          ///< new run-log events
  std::optional<std::vector<CheckpointInfo>> checkpoints;  ///< all checkpoints now
  /// Whether a process holds the run directory's lock now (ours or another).
  std::optional<bool> writerActive;
  std::optional<bool> finished;  ///< the log holds a "finished" event
  std::optional<bool> stopped;   ///< the last end event is "stopped"
};

/// The accumulated data of one run. Views connect to its signals; RunWatcher (via the
/// OpenedRuns controller) feeds it with applyUpdate() and addSnapshot().
class RunSession : public QObject {
  Q_OBJECT
 public:
  RunSession(QString directory, QColor colour, QObject* parent = nullptr);
  ~RunSession() override;

  QString directory() const { return m_directory; }
  /// run.name from the log, else the folder's name.
  QString name() const;
  QColor colour() const { return m_colour; }
  void setColour(QColor colour);

  RunStatus status() const { return m_status; }
  void setStatus(RunStatus status);
  /// The processes this window trains the run in, or trained it in at its latest launch
  /// from here: N for a data-parallel launch (DistributedRunLauncher), 1 otherwise. Part of
  /// the status text while it trains (statusChanged).
  int processes() const { return m_processes; }
  void setProcesses(int processes);
  /// The processes the run's latest start or resume trained in, as its log records them
  /// (the "distributed" event: "data-parallel over N processes"); 1 when it names none.
  int recordedProcesses() const;
  /// The latest step the log (or the engine) reported, and schedule.steps (0 = unknown).
  std::int64_t step() const { return m_step; }
  std::int64_t totalSteps() const { return m_totalSteps; }
  /// Progress of this process' engine (overrides the log's step while it trains).
  void setLiveStep(std::int64_t step, std::int64_t total);

  QString configToml() const { return m_configToml; }
  const std::vector<QStringList>& probeTokens() const { return m_probeTokens; }
  /// Real (non-padding) tokens of a probe sequence.
  int probeLength(int sequence) const;

  const std::map<QString, ScalarPoints>& scalars() const { return m_scalars; }
  const std::map<QString, LayerSeries>& layerSeries() const { return m_layerSeries; }
  const std::vector<std::int64_t>& snapshotSteps() const { return m_snapshotSteps; }
  const std::vector<CheckpointInfo>& checkpoints() const { return m_checkpoints; }
  const std::vector<RunMessage>& messages() const { return m_messages; }
  /// Messages written up to this Unix time were already shown as they happened (the run
  /// trained in this window, whose engine reports directly): the log's copies of them are not
  /// shown again.
  double messagesShownUntil() const { return m_messagesShownUntil; }
  /// Called when training here ends: everything written so far was shown.
  void markMessagesShownUntilNow();

  /// The guidance target of (layer, head) for probe sequence `sequence`, cut to its real
  /// tokens; an invalid Matrix when that head is not guided.
  widgets::Matrix guidanceTarget(int layer, int head, int sequence) const;
  /// "next", "prev", ... for a guided head, empty otherwise.
  QString guidancePatternName(int layer, int head) const;
  /// The keys either side a query of `layer` sees in a sliding-window layer; -1 for a global
  /// layer or when the configuration is unknown.
  int bandHalfWidth(int layer) const;

  /// A snapshot already loaded, or nullptr; requestSnapshot() loads it (snapshotLoaded).
  const SnapshotFrame* snapshot(std::int64_t step) const;
  void requestSnapshot(std::int64_t step);

  /// Feeding (GUI thread).
  void applyUpdate(RunUpdate update);
  void addSnapshot(SnapshotFrame frame);
  void addMessage(RunMessage message);

 signals:
  void statusChanged();
  void stepChanged();
  /// New points (or new scalars) arrived: the names that changed.
  void scalarsAppended(const QStringList& names);
  void layerSeriesChanged(const QStringList& names);
  void snapshotStepsChanged();
  void snapshotRequested(qint64 step);
  void snapshotLoaded(qint64 step);
  void checkpointsChanged();
  void messagesAppended(int firstNew);
  /// Name, config or probe tokens arrived (the first batch).
  void metadataChanged();
  void colourChanged();

 private:
  // The parts of applyUpdate, in the order it applies them.
  void applyMetadata(RunUpdate& update);
  QStringList appendScalars(RunUpdate& update, std::int64_t& lastStep);
  QStringList appendLayerSeries(RunUpdate& update);
  void applyWriterState(const RunUpdate& update);

  QString m_directory;
  QColor m_colour;
  QString m_name;
  RunStatus m_status = RunStatus::Opening;
  int m_processes = 1;
  std::int64_t m_step = 0;
  std::int64_t m_totalSteps = 0;
  QString m_configToml;
  std::vector<int> m_bandHalfWidths;
  std::vector<QStringList> m_probeTokens;
  std::map<QString, ScalarPoints> m_scalars;
  std::map<QString, LayerSeries> m_layerSeries;
  std::vector<std::int64_t> m_snapshotSteps;
  std::vector<CheckpointInfo> m_checkpoints;
  std::vector<RunMessage> m_messages;
  double m_messagesShownUntil = 0;
  std::vector<std::vector<int>> m_guidancePatternOfHead;
  std::vector<std::vector<widgets::Matrix>> m_guidanceTargets;
  QStringList m_guidancePatternNames;
  // A few decoded snapshots (each is L*B*H*T*T floats); the oldest request is dropped.
  std::vector<std::unique_ptr<SnapshotFrame>> m_frames;
  std::vector<std::int64_t> m_pending;
};

}  // namespace attnlab::app
