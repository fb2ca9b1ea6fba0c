#pragma once

// What the multi-process CLI tests share: finding a launcher's worker by its rank, and the
// largest difference between two checkpoints' floating-point tensors.
#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "tests/support/tiny_run_setup.h"

#include <ATen/ATen.h>

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QList>
#include <QString>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace attnlab::tests {

/// The tiny run prepared in `dir` (corpus and tokenizer), cut to 12 steps with checkpoints
/// and evaluations every 4 and one thread per process, written to dir/tiny.toml; its path.
inline QString writeShortMultiProcessRun(const QString& dir) {
  core::RunConfig config = prepareTinyRun(dir.toStdString());
  config.schedule.steps = 12;
  config.train.checkpointEvery = 4;
  config.train.evalEvery = 4;
  config.train.threads = 1;
  const QString path = dir + QStringLiteral("/tiny.toml");
  std::ofstream(path.toStdString()) << core::toToml(config);
  return path;
}

/// The pid of the worker with RANK=`rank` among the children of `launcher` (from /proc).
inline qint64 workerPid(qint64 launcher, int rank) {
  const QString wanted = QStringLiteral("RANK=%1").arg(rank);
  for (const QString& entry : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    bool numeric = false;
    const qint64 pid = entry.toLongLong(&numeric);
    if (!numeric) continue;
    QFile stat("/proc/" + entry + "/stat");
    if (!stat.open(QIODevice::ReadOnly)) continue;
    const QList<QByteArray> fields = stat.readAll().split(' ');
    if (fields.size() < 4 || fields[3].toLongLong() != launcher) continue;
    QFile environ("/proc/" + entry + "/environ");
    if (!environ.open(QIODevice::ReadOnly)) continue;
    for (const QByteArray& var : environ.readAll().split('\0'))
      if (QString::fromUtf8(var) == wanted) return pid;
  }
  return -1;
}

/// The largest absolute difference over the floating-point tensors (parameters and AdamW
/// moments) of two checkpoints; `compared` counts them.
inline double largestDifference(const std::filesystem::path& a, const std::filesystem::path& b,
                                int* compared) {
  const auto x = core::CheckpointStore::load(a);
  const auto y = core::CheckpointStore::load(b);
  double worst = 0;
  *compared = 0;
  for (const auto& [name, t] : x.tensors) {
    if (!t.is_floating_point()) continue;
    const auto& u = y.tensors.at(name);
    worst = std::max(worst,
                     (t.to(at::kDouble) - u.to(at::kDouble)).abs().max().template item<double>());
    ++*compared;
  }
  return worst;
}

}  // namespace attnlab::tests
