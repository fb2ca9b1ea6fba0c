#pragma once

// Shared by the tests that use a Hugging Face model folder as a run (issue 29): a read-only
// copy of a fixture folder (as a download cache is), the attnlab-cli arguments of a short run
// started from it (model.init_from), and a run's latest checkpoint.

#include "tests/support/cli_process.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QString>
#include <QStringList>

namespace attnlab::tests {

/// `from` copied to `to` without its make_fixture.py, files and folder made read-only; `to`,
/// or empty when a copy failed.
inline QString readOnlyCopy(const QString& from, const QString& to) {
  QDir().mkpath(to);
  for (const QString& name : QDir(from).entryList(QDir::Files))
    if (name != "make_fixture.py" && !QFile::copy(from + "/" + name, to + "/" + name))
      return QString();
  for (const QString& name : QDir(to).entryList(QDir::Files))
    QFile::setPermissions(to + "/" + name, QFile::ReadOwner | QFile::ReadGroup);
  QFile::setPermissions(to, QFile::ReadOwner | QFile::ExeOwner);
  return to;
}

/// `attnlab-cli train` of the tiny preset started from `model`: `steps` steps of 4 sequences
/// of 32 tokens, no warm-up, evaluation or periodic snapshots.
inline QStringList initFromArguments(const QString& model, const QString& runDir, int steps) {
  return {"train", "--config",
          "tiny",  "--run-dir",
          runDir,  "--plain",
          "--set", "model.init_from=" + model,
          "--set", "schedule.steps=" + QString::number(steps),
          "--set", "schedule.warmup_steps=0",
          "--set", "train.batch_size=4",
          "--set", "data.sequence_length=32",
          "--set", "train.eval_every=0",
          "--set", "log.snapshot_every=0"};
}

/// The run's latest checkpoint file (<run>/checkpoints/step-N.h5); empty when none.
inline QString lastCheckpointOf(const QString& run) {
  const auto files = QDir(run + "/checkpoints").entryList({"step-*.h5"}, QDir::Files, QDir::Name);
  return files.isEmpty() ? QString() : run + "/checkpoints/" + files.last();
}

/// `attnlab-cli analyze` (64 sequences) and `probe coref` of `model`, then the analysis.json
/// and coref.json files found under <dataHome>/attnlab/models (its work folder); empty with
/// the CLI's output in `error` when one failed.
inline QStringList analyseAndProbe(const QString& model, const QString& dataHome, QString& error) {
  for (const QStringList& args : {QStringList{"analyze", model, "--plain", "--examples", "64"},
                                  QStringList{"probe", "coref", model, "--plain"}}) {
    const auto r = runCli(args);
    if (r.exitCode != 0) {
      error = r.err + r.out;
      return {};
    }
  }
  QStringList reports;
  QDirIterator it(dataHome + "/attnlab/models", {"analysis.json", "coref.json"}, QDir::Files,
                  QDirIterator::Subdirectories);
  while (it.hasNext()) reports << it.next();
  return reports;
}

}  // namespace attnlab::tests
