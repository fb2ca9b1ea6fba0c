#pragma once

// Reads one run's log on the log-reader thread and hands the GUI what is new, in batches.
// The same path serves a run this process trains and a run another process writes (the
// log is SWMR), so every view sees a run the same way. The reader never runs on the GUI
// thread: HDF5 has one global lock, and a reader can wait on it while the writer compresses
// a snapshot.

#include "app/gui/run_session.h"

#include <QObject>
#include <QString>

#include <map>
#include <memory>
#include <string>

class QTimer;

namespace attnlab::core {
class RunLogReader;
}

namespace attnlab::app {

class RunWatcher : public QObject {
  Q_OBJECT
 public:
  /// `expectTraining`: this process is about to train the directory, so a log that does not
  /// exist yet is waited for rather than reported.
  RunWatcher(QString runDirectory, bool expectTraining);
  ~RunWatcher() override;

  /// How often a live log is polled, and an idle one (a finished run may be resumed later
  /// by another process).
  static constexpr int kLivePollMs = 200;
  static constexpr int kIdlePollMs = 2000;

 public slots:
  /// Starts polling; call (queued) after moving the watcher to its thread.
  void start();
  /// Reads now (e.g. this process' engine reported a new step).
  void pollNow();
  /// Reads the attention snapshot logged at `step` and sends it with snapshotReady.
  void loadSnapshot(qint64 step);
  /// Whether this process trains the run now (it keeps the poll fast). False also ends a
  /// wait for the writer (the engine ended, or never opened the log).
  void setTrainingHere(bool training);
  /// This process' engine has opened the log for writing: the watcher may open it now.
  void writerOpened();
  /// Stops polling and closes the log (before the watcher is deleted).
  void shutdown();

 signals:
  void updated(attnlab::app::RunUpdate update);
  void snapshotReady(attnlab::app::SnapshotFrame frame);
  /// The log cannot be read: what and where. The watcher stops.
  void failed(QString message);

 private:
  void poll();
  bool openReader(RunUpdate& update);
  void reopenReadOnly();
  QString logPath() const;
  void readNew(RunUpdate& update);
  void readScalars(RunUpdate& update);
  void readLayerSeries(RunUpdate& update);
  void readSnapshotSteps(RunUpdate& update);
  void readEvents(RunUpdate& update);
  void schedule();

  QString m_directory;
  bool m_expectTraining = false;
  /// This process is about to write the log: no reader may open it until the writer has.
  /// HDF5 refuses, within one process, to open for writing a file already open for
  /// reading; once the writer has it, a reader in the same process shares its file.
  bool m_awaitingWriter = false;
  bool m_trainingHere = false;
  // Set when this process's training ends: the next poll reads the last rows, then opens the
  // log afresh (see setTrainingHere).
  bool m_reopenAfterTraining = false;
  bool m_writerActive = false;
  bool m_failed = false;
  bool m_scalarsAnnounced = false;
  int m_openAttempts = 0;
  QTimer* m_timer = nullptr;
  std::unique_ptr<core::RunLogReader> m_reader;
  std::vector<std::string> m_scalarNames;
  std::vector<std::string> m_layerSeriesNames;
  std::map<std::string, std::uint64_t> m_rowsRead;  // per scalar / series / "events"
  std::map<std::string, std::pair<QString, QString>> m_seriesMeta;  // unit, meaning
  /// Differential attention: the snapshots' signed maps (snapshots/weights) are shown.
  bool m_signedMaps = false;
  std::vector<std::int64_t> m_snapshotSteps;
  std::size_t m_checkpointCount = ~std::size_t{0};
  bool m_finished = false, m_stopped = false;
};

/// Registers RunUpdate and SnapshotFrame for queued signals (once, before the first watcher).
void registerRunWatcherTypes();

}  // namespace attnlab::app
