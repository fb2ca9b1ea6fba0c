#include "app/gui/opened_runs.h"

#include "app/gui/run_watcher.h"
#include "core/config/attention_span.h"
#include "core/config/config_loader.h"
#include "core/pretrained/hf_bert_import.h"
#include "core/pretrained/pretrained_folder.h"
#include "widgets/plots/theme.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <QThread>

namespace attnlab::app {

namespace {

// A Hugging Face folder as a run without training history: its configuration (config.json
// read, the weights not yet), one "checkpoint" of step 0 (the folder, which the inspector
// and the analyses open), and a console line saying what it is.
RunUpdate modelFolderUpdate(const QString& dir) {
  const core::PretrainedModel described = core::describeHuggingFaceBert(dir.toStdString());
  const core::RunConfig config = core::pretrainedRunConfig(described);
  RunUpdate update;
  update.runName = QString::fromStdString(config.run.name);
  update.configToml = QString::fromStdString(core::toToml(config));
  update.totalSteps = 0;
  update.bandHalfWidths = core::bandHalfWidths(config.model);
  update.checkpoints = std::vector<CheckpointInfo>{CheckpointInfo{0, dir, std::nullopt}};
  RunMessage note;
  note.kind = QStringLiteral("model");
  note.text = QStringLiteral(
                  "pretrained %1 model from %2: %3 layers x %4 heads, hidden %5, "
                  "%6 tokens; no training history")
                  .arg(QString::fromStdString(described.modelType), dir)
                  .arg(described.model.layers)
                  .arg(described.model.heads)
                  .arg(described.model.hiddenSize)
                  .arg(described.vocabSize);
  note.wallTime = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
  update.events.push_back(note);
  return update;
}

}  // namespace

struct OpenedRuns::Entry {
  RunSession* session = nullptr;
  RunWatcher* watcher = nullptr;  // lives on the reader thread
};

OpenedRuns::OpenedRuns(QObject* parent) : QObject(parent) {
  registerRunWatcherTypes();
  m_readerThread = new QThread(this);
  m_readerThread->setObjectName(QStringLiteral("attnlab-log-reader"));
  m_readerThread->start(QThread::LowPriority);
  m_palette = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
               QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b)};
}

OpenedRuns::~OpenedRuns() {
  for (auto& e : m_entries) {
    if (e->watcher == nullptr) continue;  // a pretrained model folder: nothing to follow
    QMetaObject::invokeMethod(e->watcher, &RunWatcher::shutdown, Qt::BlockingQueuedConnection);
    e->watcher->deleteLater();
  }
  m_readerThread->quit();
  m_readerThread->wait();
}

QString OpenedRuns::runDirectoryOf(const QString& path) {
  QFileInfo info(path);
  if (info.isFile() && info.fileName().endsWith(QStringLiteral(".h5")))
    info = QFileInfo(info.absolutePath());
  QString dir = info.absoluteFilePath();
  const QString canonical = info.canonicalFilePath();
  if (!canonical.isEmpty()) dir = canonical;
  return QDir::cleanPath(dir);
}

RunSession* OpenedRuns::find(const QString& directory) const {
  const QString dir = runDirectoryOf(directory);
  for (RunSession* run : m_runs)
    if (run->directory() == dir) return run;
  return nullptr;
}

void OpenedRuns::setTheme(const widgets::Theme& theme) {
  setPalette(QList<QColor>(theme.series.begin(), theme.series.end()));
}

void OpenedRuns::setPalette(const QList<QColor>& colours) {
  if (!colours.isEmpty()) m_palette = colours;
}

QColor OpenedRuns::nextColour() const {
  // The first palette colour no open run uses; cycles when all are taken.
  for (const QColor& c : m_palette) {
    bool used = false;
    for (RunSession* run : m_runs) used = used || run->colour() == c;
    if (!used) return c;
  }
  return m_palette[m_runs.size() % m_palette.size()];
}

OpenedRuns::Entry* OpenedRuns::entryOf(RunSession* run) const {
  for (const auto& e : m_entries)
    if (e->session == run) return e.get();
  return nullptr;
}

RunSession* OpenedRuns::open(const QString& path, bool expectTraining) {
  const QString dir = runDirectoryOf(path);
  if (RunSession* existing = find(dir)) {
    if (expectTraining) setTrainingHere(existing, true);
    return existing;
  }
  if (!expectTraining && core::isPretrainedModelFolder(dir.toStdString()))
    return openModelFolder(path, dir);
  const QFileInfo info(path);
  if (!expectTraining) {
    if (!info.exists()) {
      emit openFailed(path, QStringLiteral("%1: no such file or folder").arg(path));
      return nullptr;
    }
    if (info.isFile() && !info.fileName().endsWith(QStringLiteral(".h5"))) {
      emit openFailed(path, QStringLiteral("%1: not a run folder (choose the folder that holds "
                                           "run.h5)")
                                .arg(path));
      return nullptr;
    }
    const QDir folder(dir);
    if (!folder.exists(QStringLiteral("run.h5"))) {
      emit openFailed(path, QStringLiteral("%1: not an AttnLab run: the folder has no run.h5 (a "
                                           "run folder holds run.h5, config.toml and "
                                           "checkpoints/)")
                                .arg(dir));
      return nullptr;
    }
  }
  auto* session = new RunSession(dir, nextColour(), this);
  auto entry = std::make_unique<Entry>();
  entry->session = session;
  entry->watcher = new RunWatcher(dir, expectTraining);
  entry->watcher->moveToThread(m_readerThread);
  RunWatcher* watcher = entry->watcher;
  connect(watcher, &RunWatcher::updated, session,
          [session](RunUpdate update) { session->applyUpdate(std::move(update)); });
  connect(watcher, &RunWatcher::snapshotReady, session,
          [session](SnapshotFrame frame) { session->addSnapshot(std::move(frame)); });
  connect(session, &RunSession::snapshotRequested, watcher, &RunWatcher::loadSnapshot);
  connect(watcher, &RunWatcher::failed, this, [this, session, path](const QString& message) {
    // Deferred: the session may be in the middle of a signal.
    QMetaObject::invokeMethod(
        this,
        [this, session, path, message] {
          if (entryOf(session) == nullptr) return;
          emit openFailed(path, message);
          close(session);
        },
        Qt::QueuedConnection);
  });
  if (expectTraining) QMetaObject::invokeMethod(watcher, "setTrainingHere", Q_ARG(bool, true));
  QMetaObject::invokeMethod(watcher, &RunWatcher::start, Qt::QueuedConnection);
  m_entries.push_back(std::move(entry));
  m_runs.append(session);
  emit runOpened(session);
  return session;
}

RunSession* OpenedRuns::openModelFolder(const QString& path, const QString& dir) {
  RunUpdate update;
  try {
    update = modelFolderUpdate(dir);
  } catch (const std::exception& e) {
    emit openFailed(path, QString::fromStdString(e.what()));
    return nullptr;
  }
  auto* session = new RunSession(dir, nextColour(), this);
  session->setStatus(RunStatus::Pretrained);
  auto entry = std::make_unique<Entry>();
  entry->session = session;
  m_entries.push_back(std::move(entry));
  m_runs.append(session);
  emit runOpened(session);
  // After runOpened, as a watcher's first batch arrives: the views are connected by then.
  session->applyUpdate(std::move(update));
  return session;
}

void OpenedRuns::close(RunSession* run) {
  Entry* e = entryOf(run);
  if (e == nullptr) return;
  emit runClosing(run);
  // The watcher may be reading; shutting it down on its own thread makes closing safe.
  if (e->watcher != nullptr) {
    QMetaObject::invokeMethod(e->watcher, &RunWatcher::shutdown, Qt::BlockingQueuedConnection);
    e->watcher->deleteLater();
  }
  m_runs.removeAll(run);
  for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
    if (it->get() == e) {
      m_entries.erase(it);
      break;
    }
  }
  run->deleteLater();
}

void OpenedRuns::setTrainingHere(RunSession* run, bool training) {
  if (Entry* e = entryOf(run); e != nullptr && e->watcher != nullptr)
    QMetaObject::invokeMethod(e->watcher, "setTrainingHere", Qt::QueuedConnection,
                              Q_ARG(bool, training));
}

void OpenedRuns::writerOpened(RunSession* run) {
  if (Entry* e = entryOf(run); e != nullptr && e->watcher != nullptr)
    QMetaObject::invokeMethod(e->watcher, &RunWatcher::writerOpened, Qt::QueuedConnection);
}

void OpenedRuns::pollNow(RunSession* run) {
  if (Entry* e = entryOf(run); e != nullptr && e->watcher != nullptr)
    QMetaObject::invokeMethod(e->watcher, &RunWatcher::pollNow, Qt::QueuedConnection);
}

}  // namespace attnlab::app
