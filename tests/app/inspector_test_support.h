#pragma once

// What the Inspect tab's tests share: a dataset of an `attnlab-cli inspect` file read back
// by h5py (independently of the app), a run session holding a run's checkpoints, and the
// comparison of a shown matrix with the CLI's cells.

#include "app/gui/run_session.h"
#include "tests/support/cli_process.h"
#include "widgets/plots/plot_data.h"
#include "widgets/plots/plot_widget.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QString>
#include <QWidget>
#include <QtTest>

#include <cmath>
#include <initializer_list>

namespace attnlab::tests {

/// A dataset of an inspection file as nested JSON arrays, read by h5py.
inline QJsonArray inspectDataset(const QString& h5, const QString& dataset) {
  const auto r = runProcess(kPython, {"-c",
                                      "import h5py, json, sys\n"
                                      "f = h5py.File(sys.argv[1], 'r')\n"
                                      "print(json.dumps(f[sys.argv[2]][()].tolist()))",
                                      h5, dataset});
  return QJsonDocument::fromJson(r.out.toUtf8()).array();
}

/// `attnlab-cli inspect CHECKPOINT --text TEXT --out OUT`; true when it succeeded.
inline bool cliInspect(const QString& checkpoint, const QString& text, const QString& out) {
  const auto r = runCli({"inspect", checkpoint, "--text", text, "--out", out});
  if (r.exitCode != 0) qWarning("%s", qPrintable(r.err + r.out));
  return r.exitCode == 0;
}

/// The checkpoint file of `step` in a run directory.
inline QString checkpointFile(const QString& run, int step) {
  return QStringLiteral("%1/checkpoints/step-%2.h5").arg(run).arg(step, 7, 10, QLatin1Char('0'));
}

/// Gives a session the run's checkpoints (a run log the watcher would read is not needed).
inline void addCheckpoints(app::RunSession& session, const QString& run,
                           std::initializer_list<int> steps = {4, 8}) {
  app::RunUpdate u;
  std::vector<app::CheckpointInfo> list;
  for (int step : steps) list.push_back({step, checkpointFile(run, step), std::nullopt});
  u.checkpoints = list;
  session.applyUpdate(std::move(u));
}

/// True when `shown` equals the T x T matrix `rows` (JSON) to 1e-6.
inline bool sameCells(const QJsonArray& rows, const widgets::Matrix& shown) {
  if (!shown.isValid() || int(rows.size()) != shown.rows) return false;
  for (int q = 0; q < shown.rows; ++q) {
    const QJsonArray row = rows[q].toArray();
    if (int(row.size()) != shown.cols) return false;
    for (int k = 0; k < shown.cols; ++k)
      if (!(std::abs(row[k].toDouble() - shown.at(q, k)) < 1e-6)) return false;
  }
  return true;
}

/// With ATTNLAB_TEST_SHOTS=DIR set, saves `widget` as DIR/NAME.png, to look at the views
/// the tests build (nothing is checked on the image).
inline void saveShot(QWidget* widget, const QString& name) {
  const QString dir = qEnvironmentVariable("ATTNLAB_TEST_SHOTS");
  if (dir.isEmpty()) return;
  // Replots wait for the event loop; draw what the widgets hold now.
  for (auto* plot : widget->findChildren<widgets::PlotWidget*>()) plot->replotNow();
  widget->grab().save(dir + QLatin1Char('/') + name + QStringLiteral(".png"));
}

}  // namespace attnlab::tests
