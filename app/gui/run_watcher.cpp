#include "app/gui/run_watcher.h"

#include "core/config/attention_span.h"
#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/objectives/attention_guidance.h"
#include "core/runlog/run_log_reader.h"
#include "core/train/run_directory_lock.h"
#include "core/train/trainer.h"

#include <QDir>
#include <QFileInfo>
#include <QMetaType>
#include <QTimer>

#include <algorithm>

namespace attnlab::app {

namespace {

// The log records a checkpoint's path as the trainer was given it: relative to the folder
// `attnlab-cli train` ran in ("runs/tiny/checkpoints/step-0002000.h5"), which is not this
// process' folder. A recorded path that does not exist here is looked up where the
// checkpoint store writes it, <run>/checkpoints/<file name> (also after the run was moved).
QString checkpointFile(const QString& runDirectory, const QString& recorded) {
  if (QFileInfo(recorded).isAbsolute() && QFileInfo::exists(recorded)) return recorded;
  const QString inRun =
      QDir(runDirectory).filePath(QStringLiteral("checkpoints/") + QFileInfo(recorded).fileName());
  return QFileInfo::exists(inRun) ? inRun : recorded;
}

constexpr const char* kSnapshotSeries = "snapshots/probabilities";
constexpr const char* kSignedSnapshotSeries = "snapshots/weights";
constexpr const char* kEventsKey = "\x01events";  // cannot clash with a log name
// A log that is not readable yet while its writer starts up is retried this often before
// the error is shown (the writer creates the file, then switches it to SWMR).
constexpr int kOpenAttemptsWhileWriting = 25;

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

bool isSnapshotSeries(const std::string& name) {
  return name.rfind("snapshots/", 0) == 0;
}

}  // namespace

void registerRunWatcherTypes() {
  qRegisterMetaType<attnlab::app::RunUpdate>("attnlab::app::RunUpdate");
  qRegisterMetaType<attnlab::app::SnapshotFrame>("attnlab::app::SnapshotFrame");
}

RunWatcher::RunWatcher(QString runDirectory, bool expectTraining)
    : m_directory(std::move(runDirectory)),
      m_expectTraining(expectTraining),
      m_awaitingWriter(expectTraining) {}

RunWatcher::~RunWatcher() = default;

void RunWatcher::start() {
  if (m_timer == nullptr) {
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &RunWatcher::poll);
  }
  poll();
}

void RunWatcher::pollNow() {
  if (m_timer != nullptr && !m_failed) poll();
}

void RunWatcher::setTrainingHere(bool training) {
  m_trainingHere = training;
  if (training) m_expectTraining = true;
  if (!training) {
    m_awaitingWriter = false;
    // The engine's writer in this process has closed the log, but HDF5 shares one open file
    // per process: while this reader holds it, the file stays marked open for write, and
    // another process's plain (non-SWMR) open is refused. Once the last rows are read, the
    // next poll opens it again, read-only.
    m_reopenAfterTraining = m_reader != nullptr;
  }
  if (m_timer != nullptr && !m_failed) schedule();
}

void RunWatcher::writerOpened() {
  m_awaitingWriter = false;
  pollNow();
}

void RunWatcher::shutdown() {
  if (m_timer != nullptr) m_timer->stop();
  m_failed = true;  // nothing more is read
  m_reader.reset();
}

void RunWatcher::schedule() {
  const bool live = m_trainingHere || m_writerActive;
  m_timer->start(live ? kLivePollMs : kIdlePollMs);
}

void RunWatcher::poll() {
  if (m_failed) return;
  RunUpdate update;
  const auto holder = core::runDirectoryHolder(m_directory.toStdString());
  m_writerActive = holder.has_value();
  update.writerActive = m_writerActive;
  try {
    if (!m_reader && (m_awaitingWriter || !openReader(update))) {
      schedule();
      return;
    }
    m_reader->refresh();
    readNew(update);
    if (m_reopenAfterTraining && !m_trainingHere) reopenReadOnly();
  } catch (const std::exception& e) {
    m_failed = true;
    m_reader.reset();
    emit failed(QString::fromStdString(e.what()));
    return;
  }
  emit updated(std::move(update));
  schedule();
}

QString RunWatcher::logPath() const {
  return QDir(m_directory).filePath(QStringLiteral("run.h5"));
}

void RunWatcher::reopenReadOnly() {
  m_reopenAfterTraining = false;
  m_reader.reset();  // the process's last handle: HDF5 closes the file here
  m_reader = std::make_unique<core::RunLogReader>(logPath().toStdString());
}

bool RunWatcher::openReader(RunUpdate& update) {
  const QString path = logPath();
  const bool writing = m_writerActive || m_trainingHere || m_expectTraining;
  if (!QFileInfo::exists(path)) {
    if (writing) return false;  // data preparation comes before the log
    throw RunLogError(m_directory.toStdString(),
                      "not an AttnLab run: the folder has no run.h5 (a run directory holds "
                      "run.h5, config.toml and checkpoints/)");
  }
  try {
    m_reader = std::make_unique<core::RunLogReader>(path.toStdString());
  } catch (const RunLogError&) {
    // The writer may be between creating the file and opening it for SWMR.
    if (writing && ++m_openAttempts < kOpenAttemptsWhileWriting) return false;
    throw;
  }
  core::RunLogReader& r = *m_reader;
  update.runName = qs(r.runName());
  const std::string toml = r.configToml();
  update.configToml = qs(toml);
  std::vector<QStringList> probe;
  const auto pieces = r.probeTokens();
  for (const auto& sequence : pieces) {
    QStringList row;
    for (const auto& p : sequence) row << qs(p);
    probe.push_back(row);
  }
  update.probeTokens = probe;
  m_scalarNames = r.scalarNames();
  m_layerSeriesNames.clear();
  for (const auto& name : r.seriesNames())
    if (!isSnapshotSeries(name)) m_layerSeriesNames.push_back(name);
  try {
    // The config tells the schedule's length, the variants' units and the guidance targets;
    // a log whose config this version cannot parse still shows its curves.
    const core::RunConfig config = core::parseRunConfig(toml, path.toStdString());
    update.totalSteps = config.schedule.steps;
    update.bandHalfWidths = core::bandHalfWidths(config.model);
    m_signedMaps = core::attentionMapsOf(config.attention) == core::AttentionMaps::Signed;
    for (const auto& q : core::loggedQuantities(config))
      m_seriesMeta[q.name] = {qs(q.unit), qs(q.meaning)};
    const core::ProbeGuidance guidance = core::probeGuidance(config, pieces);
    if (!guidance.patternNames.empty()) {
      update.guidancePatternOfHead = guidance.patternOfHead;
      QStringList names;
      for (const auto& n : guidance.patternNames) names << qs(n);
      update.guidancePatternNames = names;
      std::vector<std::vector<widgets::Matrix>> targets;
      for (const auto& perSequence : guidance.targets) {
        std::vector<widgets::Matrix> row;
        for (const auto& t : perSequence) row.emplace_back(guidance.length, guidance.length, t);
        targets.push_back(std::move(row));
      }
      update.guidanceTargets = std::move(targets);
    }
  } catch (const std::exception&) {
  }
  return true;
}

void RunWatcher::readNew(RunUpdate& update) {
  readScalars(update);
  readLayerSeries(update);
  readSnapshotSteps(update);
  readEvents(update);
  const auto checkpoints = m_reader->checkpoints();
  if (checkpoints.size() != m_checkpointCount) {
    m_checkpointCount = checkpoints.size();
    std::vector<CheckpointInfo> list;
    for (const auto& c : checkpoints)
      list.push_back({c.step, checkpointFile(m_directory, qs(c.path)), c.valLoss});
    update.checkpoints = std::move(list);
  }
}

void RunWatcher::readScalars(RunUpdate& update) {
  core::RunLogReader& r = *m_reader;
  for (const auto& name : m_scalarNames) {
    std::uint64_t& have = m_rowsRead[name];
    const std::uint64_t rows = r.scalarRows(name);
    ScalarPoints& points = update.scalars[qs(name)];  // present even when empty: the name
    if (rows <= have) continue;
    core::ScalarSeries s = r.scalar(name, have);
    have += s.steps.size();
    points.steps.assign(s.steps.begin(), s.steps.end());
    points.values = std::move(s.values);
    points.wallTimes = std::move(s.wallTimes);
  }
  // The first batch names every scalar (views lay out their plots); later ones carry only
  // scalars with new rows.
  if (m_scalarsAnnounced) {
    for (auto it = update.scalars.begin(); it != update.scalars.end();)
      it = it->second.steps.empty() ? update.scalars.erase(it) : std::next(it);
  }
  m_scalarsAnnounced = true;
}

void RunWatcher::readLayerSeries(RunUpdate& update) {
  core::RunLogReader& r = *m_reader;
  for (const auto& name : m_layerSeriesNames) {
    std::uint64_t& have = m_rowsRead[name];
    if (r.seriesRows(name) <= have) continue;
    core::TensorSeries s = r.series(name, have);
    have += s.steps.size();
    LayerSeries rows;
    rows.name = qs(name);
    const auto meta = m_seriesMeta.find(name);
    if (meta != m_seriesMeta.end()) std::tie(rows.unit, rows.meaning) = meta->second;
    rows.innerShape = s.innerShape;
    rows.steps.assign(s.steps.begin(), s.steps.end());
    rows.values = std::move(s.values);
    update.layerSeries[rows.name] = std::move(rows);
  }
}

void RunWatcher::readSnapshotSteps(RunUpdate& update) {
  const auto names = m_reader->seriesNames();
  if (std::find(names.begin(), names.end(), kSnapshotSeries) == names.end()) return;
  const auto fresh = m_reader->seriesSteps(kSnapshotSeries, m_snapshotSteps.size());
  if (!fresh.empty() || !m_rowsRead.count(kSnapshotSeries)) {
    m_rowsRead[kSnapshotSeries] = 1;
    m_snapshotSteps.insert(m_snapshotSteps.end(), fresh.begin(), fresh.end());
    update.snapshotSteps = m_snapshotSteps;
  }
}

void RunWatcher::readEvents(RunUpdate& update) {
  std::uint64_t& eventsRead = m_rowsRead[kEventsKey];
  const auto events = m_reader->events(eventsRead);
  eventsRead += events.size();
  for (const auto& e : events) {
    const std::optional<core::RunEventKind> kind = e.knownKind();
    update.events.push_back(
        {e.step, e.wallTime, qs(e.kind), qs(e.message), kind, /*error=*/false, e.worldSize});
    if (kind == core::RunEventKind::Start || kind == core::RunEventKind::Resume)
      m_finished = m_stopped = false;
    if (kind == core::RunEventKind::Finished) m_finished = true, m_stopped = false;
    if (kind == core::RunEventKind::Stopped) m_stopped = true, m_finished = false;
  }
  update.finished = m_finished;
  update.stopped = m_stopped;
}

void RunWatcher::loadSnapshot(qint64 step) {
  if (!m_reader) return;
  try {
    // The newest row of that step: a run's last step can be snapshotted twice (by the
    // schedule and as the final snapshot).
    const auto it = std::find(m_snapshotSteps.rbegin(), m_snapshotSteps.rend(), step);
    if (it == m_snapshotSteps.rend()) return;
    const auto row = static_cast<std::uint64_t>(m_snapshotSteps.rend() - it - 1);
    // Signed maps as the model made them (snapshots/weights, a row per snapshot like
    // snapshots/probabilities); their |s| / sum |s| is what the analyses read.
    const auto names = m_reader->seriesNames();
    const bool signedMaps =
        m_signedMaps && std::find(names.begin(), names.end(), kSignedSnapshotSeries) != names.end();
    core::TensorSeries s =
        m_reader->series(signedMaps ? kSignedSnapshotSeries : kSnapshotSeries, row, 1);
    if (s.steps.empty() || s.innerShape.size() != 5) return;
    SnapshotFrame frame;
    frame.signedWeights = signedMaps;
    frame.step = step;
    frame.layers = static_cast<int>(s.innerShape[0]);
    frame.sequences = static_cast<int>(s.innerShape[1]);
    frame.heads = static_cast<int>(s.innerShape[2]);
    frame.length = static_cast<int>(s.innerShape[3]);
    frame.probabilities = std::move(s.values);
    emit snapshotReady(std::move(frame));
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
  }
}

}  // namespace attnlab::app
