#include "app/gui/run_session.h"

#include "core/tokenizer/piece_roles.h"

#include <QDateTime>
#include <QFileInfo>

#include <algorithm>

namespace attnlab::app {

namespace {
// Decoded snapshots kept per run: enough to scrub back and forth without re-reading.
constexpr std::size_t kCachedFrames = 8;

template <class T>
void appendAll(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}
}  // namespace

QString runStatusText(RunStatus status) {
  switch (status) {
    case RunStatus::Opening:
      return QStringLiteral("opening");
    case RunStatus::PreparingData:
      return QStringLiteral("preparing data");
    case RunStatus::Training:
      return QStringLiteral("training");
    case RunStatus::Paused:
      return QStringLiteral("paused");
    case RunStatus::Stopping:
      return QStringLiteral("stopping");
    case RunStatus::Stopped:
      return QStringLiteral("stopped");
    case RunStatus::Finished:
      return QStringLiteral("finished");
    case RunStatus::Failed:
      return QStringLiteral("failed");
    case RunStatus::LiveElsewhere:
      return QStringLiteral("live in another process");
    case RunStatus::Incomplete:
      return QStringLiteral("incomplete");
    case RunStatus::Pretrained:
      return QStringLiteral("pretrained model");
  }
  return {};
}

QString runStatusText(RunStatus status, int processes) {
  if (processes <= 1 || !isActiveHere(status)) return runStatusText(status);
  return QStringLiteral("%1 · %2 processes").arg(runStatusText(status)).arg(processes);
}

bool isActiveHere(RunStatus status) {
  return status == RunStatus::PreparingData || status == RunStatus::Training ||
         status == RunStatus::Paused || status == RunStatus::Stopping;
}

std::int64_t LayerSeries::rowSize() const {
  std::int64_t n = 1;
  for (auto d : innerShape) n *= d;
  return innerShape.empty() ? 0 : n;
}

widgets::Matrix SnapshotFrame::head(int layer, int sequence, int headIndex, int realLength) const {
  if (layer < 0 || layer >= layers || sequence < 0 || sequence >= sequences || headIndex < 0 ||
      headIndex >= heads)
    return {};
  const int n = std::clamp(realLength, 1, length);
  const std::size_t t = static_cast<std::size_t>(length);
  const std::size_t offset =
      ((static_cast<std::size_t>(layer) * sequences + sequence) * heads + headIndex) * t * t;
  if (offset + t * t > probabilities.size()) return {};
  widgets::Matrix m(n, n);
  for (int q = 0; q < n; ++q)
    std::copy_n(probabilities.data() + offset + static_cast<std::size_t>(q) * t, n,
                m.values.data() + static_cast<std::size_t>(q) * n);
  return m;
}

RunSession::RunSession(QString directory, QColor colour, QObject* parent)
    : QObject(parent), m_directory(std::move(directory)), m_colour(colour) {}

RunSession::~RunSession() = default;

QString RunSession::name() const {
  return m_name.isEmpty() ? QFileInfo(m_directory).fileName() : m_name;
}

void RunSession::setColour(QColor colour) {
  if (colour == m_colour) return;
  m_colour = colour;
  emit colourChanged();
}

void RunSession::setStatus(RunStatus status) {
  if (status == m_status) return;
  m_status = status;
  emit statusChanged();
}

void RunSession::setProcesses(int processes) {
  processes = std::max(1, processes);
  if (processes == m_processes) return;
  m_processes = processes;
  emit statusChanged();
}

int RunSession::recordedProcesses() const {
  // The latest start or resume says (logs written before events had a world size say 0,
  // and ran in one process unless a distributed event followed).
  for (auto it = m_messages.rbegin(); it != m_messages.rend(); ++it) {
    if (it->worldSize > 0) return it->worldSize;
    if (it->event == core::RunEventKind::Start || it->event == core::RunEventKind::Resume) break;
  }
  return 1;
}

void RunSession::setLiveStep(std::int64_t step, std::int64_t total) {
  if (step == m_step && (total == 0 || total == m_totalSteps)) return;
  m_step = step;
  if (total > 0) m_totalSteps = total;
  emit stepChanged();
}

int RunSession::probeLength(int sequence) const {
  if (sequence < 0 || sequence >= static_cast<int>(m_probeTokens.size())) return 0;
  const QStringList& pieces = m_probeTokens[static_cast<std::size_t>(sequence)];
  int n = static_cast<int>(pieces.size());
  while (n > 0 && core::isPaddingPiece(pieces[n - 1].toStdString())) --n;
  return n;
}

widgets::Matrix RunSession::guidanceTarget(int layer, int head, int sequence) const {
  if (layer < 0 || layer >= static_cast<int>(m_guidancePatternOfHead.size())) return {};
  const auto& heads = m_guidancePatternOfHead[static_cast<std::size_t>(layer)];
  if (head < 0 || head >= static_cast<int>(heads.size())) return {};
  const int pattern = heads[static_cast<std::size_t>(head)];
  if (pattern < 0 || pattern >= static_cast<int>(m_guidanceTargets.size())) return {};
  const auto& perSequence = m_guidanceTargets[static_cast<std::size_t>(pattern)];
  if (sequence < 0 || sequence >= static_cast<int>(perSequence.size())) return {};
  const widgets::Matrix& full = perSequence[static_cast<std::size_t>(sequence)];
  const int n = std::min(probeLength(sequence), full.rows);
  if (n <= 0 || !full.isValid()) return {};
  widgets::Matrix m(n, n);
  for (int q = 0; q < n; ++q)
    for (int k = 0; k < n; ++k) m.at(q, k) = full.at(q, k);
  return m;
}

QString RunSession::guidancePatternName(int layer, int head) const {
  if (layer < 0 || layer >= static_cast<int>(m_guidancePatternOfHead.size())) return {};
  const auto& heads = m_guidancePatternOfHead[static_cast<std::size_t>(layer)];
  if (head < 0 || head >= static_cast<int>(heads.size())) return {};
  const int pattern = heads[static_cast<std::size_t>(head)];
  return pattern >= 0 && pattern < m_guidancePatternNames.size() ? m_guidancePatternNames[pattern]
                                                                 : QString();
}

int RunSession::bandHalfWidth(int layer) const {
  return layer >= 0 && layer < static_cast<int>(m_bandHalfWidths.size())
             ? m_bandHalfWidths[static_cast<std::size_t>(layer)]
             : -1;
}

const SnapshotFrame* RunSession::snapshot(std::int64_t step) const {
  for (const auto& f : m_frames)
    if (f->step == step) return f.get();
  return nullptr;
}

void RunSession::requestSnapshot(std::int64_t step) {
  if (snapshot(step) != nullptr) {
    emit snapshotLoaded(step);
    return;
  }
  // One outstanding read per step: scrubbing a slider asks many times.
  if (std::find(m_pending.begin(), m_pending.end(), step) != m_pending.end()) return;
  m_pending.push_back(step);
  emit snapshotRequested(step);
}

void RunSession::addSnapshot(SnapshotFrame frame) {
  const std::int64_t step = frame.step;
  m_pending.erase(std::remove(m_pending.begin(), m_pending.end(), step), m_pending.end());
  if (snapshot(step) == nullptr) {
    if (m_frames.size() >= kCachedFrames) m_frames.erase(m_frames.begin());
    m_frames.push_back(std::make_unique<SnapshotFrame>(std::move(frame)));
  }
  emit snapshotLoaded(step);
}

void RunSession::addMessage(RunMessage message) {
  m_messages.push_back(std::move(message));
  emit messagesAppended(static_cast<int>(m_messages.size()) - 1);
}

void RunSession::applyUpdate(RunUpdate u) {
  applyMetadata(u);
  std::int64_t lastStep = m_step;
  const QStringList changedScalars = appendScalars(u, lastStep);
  const QStringList changedSeries = appendLayerSeries(u);
  if (u.snapshotSteps && *u.snapshotSteps != m_snapshotSteps) {
    m_snapshotSteps = std::move(*u.snapshotSteps);
    emit snapshotStepsChanged();
  }
  if (u.checkpoints) {
    m_checkpoints = std::move(*u.checkpoints);
    for (const auto& c : m_checkpoints) lastStep = std::max(lastStep, c.step);
    emit checkpointsChanged();
  }
  if (!u.events.empty()) {
    const int first = static_cast<int>(m_messages.size());
    appendAll(m_messages, u.events);
    emit messagesAppended(first);
  }
  // The engine of this process reports its step directly; a followed run's step is the
  // newest row of its log.
  if (!isActiveHere(m_status) && lastStep != m_step) {
    m_step = lastStep;
    emit stepChanged();
  }
  if (!changedScalars.isEmpty()) emit scalarsAppended(changedScalars);
  if (!changedSeries.isEmpty()) emit layerSeriesChanged(changedSeries);
  if (!isActiveHere(m_status)) applyWriterState(u);
}

void RunSession::applyMetadata(RunUpdate& u) {
  bool metadata = false;
  if (u.runName) m_name = *u.runName, metadata = true;
  if (u.configToml) m_configToml = *u.configToml, metadata = true;
  if (u.probeTokens) m_probeTokens = std::move(*u.probeTokens), metadata = true;
  if (u.totalSteps && *u.totalSteps > 0) m_totalSteps = *u.totalSteps, metadata = true;
  if (u.guidancePatternOfHead) m_guidancePatternOfHead = std::move(*u.guidancePatternOfHead);
  if (u.guidanceTargets) m_guidanceTargets = std::move(*u.guidanceTargets);
  if (u.guidancePatternNames) m_guidancePatternNames = *u.guidancePatternNames;
  if (u.bandHalfWidths) m_bandHalfWidths = std::move(*u.bandHalfWidths);
  if (metadata) emit metadataChanged();
}

QStringList RunSession::appendScalars(RunUpdate& u, std::int64_t& lastStep) {
  QStringList changed;
  for (auto& [name, points] : u.scalars) {
    if (points.steps.empty() && m_scalars.count(name) != 0) continue;
    ScalarPoints& s = m_scalars[name];
    appendAll(s.steps, points.steps);
    appendAll(s.values, points.values);
    appendAll(s.wallTimes, points.wallTimes);
    if (!points.steps.empty())
      lastStep = std::max(lastStep, static_cast<std::int64_t>(points.steps.back()));
    changed << name;
  }
  return changed;
}

QStringList RunSession::appendLayerSeries(RunUpdate& u) {
  QStringList changed;
  for (auto& [name, rows] : u.layerSeries) {
    LayerSeries& s = m_layerSeries[name];
    s.name = rows.name;
    s.unit = rows.unit;
    s.meaning = rows.meaning;
    s.innerShape = rows.innerShape;
    appendAll(s.steps, rows.steps);
    appendAll(s.values, rows.values);
    changed << name;
  }
  return changed;
}

void RunSession::applyWriterState(const RunUpdate& u) {
  // A followed run: its writer's lock says whether it trains elsewhere; else its events say
  // how it ended.
  if (m_status == RunStatus::Pretrained) return;  // nothing writes a model folder
  const bool active = u.writerActive.value_or(m_status == RunStatus::LiveElsewhere);
  if (active) {
    setStatus(RunStatus::LiveElsewhere);
  } else if (u.finished.value_or(false)) {
    setStatus(RunStatus::Finished);
  } else if (u.stopped.value_or(false)) {
    setStatus(RunStatus::Stopped);
  } else if (m_status == RunStatus::Opening || m_status == RunStatus::LiveElsewhere) {
    setStatus(RunStatus::Incomplete);
  }
}

void RunSession::markMessagesShownUntilNow() {
  m_messagesShownUntil = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}

}  // namespace attnlab::app
