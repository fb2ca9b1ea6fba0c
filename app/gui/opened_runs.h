#pragma once

// The runs open in the window: one RunSession per run directory, each fed by a RunWatcher
// on the shared log-reader thread. A QObject without widgets, so it is tested without a
// window. Colours are handed out in order from the theme's categorical palette.

#include "app/gui/run_session.h"

#include <QList>
#include <QObject>
#include <QString>

#include <memory>

class QThread;

namespace attnlab::widgets {
struct Theme;
}

namespace attnlab::app {

class RunWatcher;

class OpenedRuns : public QObject {
  Q_OBJECT
 public:
  explicit OpenedRuns(QObject* parent = nullptr);
  /// Stops every watcher and the reader thread.
  ~OpenedRuns() override;

  /// Opens (or returns the already open) run in `directory`; a path to a run.h5 file opens
  /// its folder; a Hugging Face model folder opens as a run without training history
  /// (status Pretrained, its one checkpoint the folder). Returns nullptr and emits openFailed with
  /// the reason when the path is not a run folder. `expectTraining`: this process is about to train
  /// it (the log may not exist yet). Reading errors found later also arrive as openFailed, and the
  /// run closes.
  RunSession* open(const QString& path, bool expectTraining = false);
  void close(RunSession* run);
  RunSession* find(const QString& directory) const;
  const QList<RunSession*>& runs() const { return m_runs; }

  /// The palette colours are taken from (set from the theme).
  void setPalette(const QList<QColor>& colours);
  /// The theme's series colours as the palette (View > Theme).
  void setTheme(const widgets::Theme& theme);

  /// Tells a run's watcher that this process trains it (fast polling) or not any more.
  void setTrainingHere(RunSession* run, bool training);
  /// Asks the run's watcher to read now.
  void pollNow(RunSession* run);
  /// This process' engine opened `run`'s log for writing (the watcher waited for it).
  void writerOpened(RunSession* run);

  /// The canonical directory for a path (absolute, without a trailing run.h5).
  static QString runDirectoryOf(const QString& path);

 signals:
  void runOpened(attnlab::app::RunSession* run);
  void runClosing(attnlab::app::RunSession* run);
  void openFailed(const QString& path, const QString& message);

 private:
  struct Entry;
  Entry* entryOf(RunSession* run) const;
  RunSession* openModelFolder(const QString& path, const QString& dir);
  QColor nextColour() const;

  QThread* m_readerThread = nullptr;
  QList<RunSession*> m_runs;
  std::vector<std::unique_ptr<Entry>> m_entries;
  QList<QColor> m_palette;
};

}  // namespace attnlab::app
