// The desktop app under load: how responsive the GUI thread stays while the app trains,
// what training inside the app costs against the engine alone, how late the live curves
// are, and how long a large finished run takes to open. A benchmark, not a test: it prints
// figures (run_gui_bench.sh runs it offscreen). In one process:
//   1. the engine alone: core::Trainer on a plain std::thread, no window;
//   2. the same config trained by a shown MainWindow (startTraining), a 10 ms timer on the
//      GUI thread recording how late it fires, the Attention tab shown from halfway and the
//      Health tab from three quarters;
//   3. live latency: when each train/loss row reaches the RunSession minus its wall time;
//   4. opening a synthesised finished log of 200,000 train/loss rows in a fresh window;
//   5. an analysis of the app's run (Analysis tab shown, AnalysisController on its thread
//      with every core, the report read and painted when done), the same timer probing.
// Data preparation (corpus, tokenizer, token store) is done once in <work>/data and reused
// by both timed runs (tokenizer.model and data.cache_dir point there).
// Last line: gui_stall_p99_ms=<n> gui_vs_cli=<ratio> live_latency_ms=<n> open_ms=<n>
// analysis_stall_p99_ms=<n>.

#include "app/gui/analysis_controller.h"
#include "app/gui/main_window.h"
#include "app/gui/notices.h"
#include "app/gui/opened_runs.h"
#include "app/gui/panels/analysis_panel.h"
#include "app/gui/panels/attention_panel.h"
#include "app/gui/panels/curves_panel.h"
#include "app/gui/panels/health/health_panel.h"
#include "app/gui/run_session.h"
#include "app/gui/training_controller.h"
#include "app/gui/training_coordinator.h"
#include "app/gui/view_tabs.h"
#include "core/config/config_loader.h"
#include "core/data/mlm_data.h"
#include "core/hdf5/hdf5_objects.h"
#include "core/runlog/run_log_reader.h"
#include "core/runlog/run_log_writer.h"
#include "core/train/trainer.h"
#include "core/train/training_progress.h"
#include "tests/bench/gui_probes.h"
#include "widgets/plots/curve_plot.h"

#include <QApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QWindow>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

using namespace attnlab;
namespace fs = std::filesystem;
using namespace attnlab::bench;

namespace {

constexpr std::int64_t kOpenRows = 200000;  // train/loss rows of the synthesised log
constexpr std::int64_t kOpenLogEvery = 10;  // its steps: 10, 20, ..., 2,000,000
constexpr int kOpenSnapshots = 100;
constexpr double kOpenSecondsPerStep = 0.12;

struct Args {
  int steps = 60;
  int threads = 0;
  std::string work;
};

/// The engine's throughput over a run's train/tokens_per_second rows: each row is the
/// real tokens per second of one logging interval. The first row (the first interval:
/// warm-up, the step-0 snapshot) is left out; the rest are combined as total steps over
/// total time, sum(ds) / sum(ds / tps), i.e. tokens/s assuming equal tokens per step.
struct Throughput {
  double tokensPerSecond = 0;
  std::int64_t firstStep = 0, lastStep = 0;  // the steps the figure covers
  std::size_t intervals = 0;
};

Throughput throughputOf(const std::vector<double>& steps, const std::vector<double>& tps) {
  Throughput t;
  double stepSum = 0, timeSum = 0;
  for (std::size_t i = 1; i < steps.size() && i < tps.size(); ++i) {
    const double ds = steps[i] - steps[i - 1];
    if (ds <= 0 || tps[i] <= 0) continue;
    if (t.intervals == 0) t.firstStep = static_cast<std::int64_t>(steps[i - 1]) + 1;
    t.lastStep = static_cast<std::int64_t>(steps[i]);
    stepSum += ds;
    timeSum += ds / tps[i];
    ++t.intervals;
  }
  t.tokensPerSecond = timeSum > 0 ? stepSum / timeSum : 0;
  return t;
}

/// Logging rows a run of `steps` writes: every log_every steps and the last.
std::size_t expectedLogRows(const core::RunConfig& c) {
  const auto every = std::max<std::int64_t>(1, c.train.logEvery);
  return static_cast<std::size_t>(c.schedule.steps / every + (c.schedule.steps % every ? 1 : 0));
}

// ---- 1. the engine alone ------------------------------------------------------------

/// Notes the milestones the CLI would print (the data line says whether data was reused).
class CliObserver : public core::TrainingObserver {
 public:
  void onEvent(const core::TrainingEvent& event) override {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (const auto* m = std::get_if<core::MilestoneEvent>(&event)) {
      if (m->kind == core::RunEventKind::Data) dataLine = m->message;
      if (m->kind == core::RunEventKind::Start && setupSeconds < 0)
        setupSeconds = std::chrono::duration<double>(Clock::now() - m_start).count();
    }
  }
  std::string dataLine;
  double setupSeconds = -1;

 private:
  std::mutex m_mutex;
  Clock::time_point m_start = Clock::now();
};

struct CliResult {
  bool ok = false;
  std::string error;
  Throughput throughput;
  double setupSeconds = 0, totalSeconds = 0;
  std::string dataLine;
};

CliResult runCli(const core::RunConfig& config, const fs::path& dir) {
  CliResult r;
  fs::remove_all(dir);  // a directory with a checkpoint would resume
  CliObserver observer;
  std::atomic<bool> stop{false};
  const auto t0 = Clock::now();
  std::thread engine([&] {
    try {
      core::Trainer(config, dir, &observer).run(stop);
      r.ok = true;
    } catch (const std::exception& e) {
      r.error = e.what();
    }
  });
  engine.join();
  r.totalSeconds = msSince(t0) / 1000;
  r.setupSeconds = observer.setupSeconds;
  r.dataLine = observer.dataLine;
  if (!r.ok) return r;
  const core::ScalarSeries tps =
      core::RunLogReader(core::runLogPath(dir).string()).scalar("train/tokens_per_second");
  r.throughput = throughputOf(std::vector<double>(tps.steps.begin(), tps.steps.end()), tps.values);
  return r;
}

// ---- 2 and 3. training in the app -----------------------------------------------------

struct AppResult {
  bool ok = false;
  std::string error;
  Throughput throughput;
  std::vector<double> lateMs;
  std::vector<double> latencyMs;  // per train/loss row
  double setupSeconds = 0, totalSeconds = 0;
  std::int64_t switchedAtStep = -1;
  std::int64_t healthAtStep = -1;   // the step from which the Health tab was shown
  std::int64_t attentionStep = -1;  // the snapshot the Attention tab showed at the end
  QString dataLine;
};

AppResult runApp(const core::RunConfig& config, const fs::path& dir) {
  AppResult r;
  fs::remove_all(dir);
  app::MainWindow window;
  window.show();
  if (!waitUntil([&] { return window.windowHandle() && window.windowHandle()->isExposed(); },
                 10000)) {
    r.error = "the window was not exposed";
    return r;
  }
  window.parts().views->setCurrentWidget(window.parts().views->curvesPanel());

  StallProbe probe;
  app::TrainingController* training = window.parts().training->inProcess();
  const auto t0 = Clock::now();
  bool finished = false, finishedOk = false;
  QString finishError;
  QObject::connect(training, &app::TrainingController::finished, &window,
                   [&](app::RunStatus status, const QString& error) {
                     finished = true;
                     finishedOk = status != app::RunStatus::Failed;
                     finishError = error;
                     probe.stop();
                   });
  QObject::connect(training, &app::TrainingController::statusChanged, &window,
                   [&](app::RunStatus s) {
                     if (s == app::RunStatus::Training && r.setupSeconds <= 0)
                       r.setupSeconds = msSince(t0) / 1000;
                   });
  QObject::connect(training, &app::TrainingController::message, &window,
                   [&](const app::RunMessage& m) {
                     if (m.kind == QStringLiteral("data")) r.dataLine = m.text;
                   });
  // Halfway: show the Attention tab, and from three quarters the Health tab, so every live
  // view paints during the run.
  QObject::connect(
      training, &app::TrainingController::stepReported, &window, [&](qint64 step, qint64 total) {
        if (r.switchedAtStep < 0 && step * 2 >= total) {
          r.switchedAtStep = step;
          window.parts().views->setCurrentWidget(window.parts().views->attentionPanel());
        }
        if (r.healthAtStep < 0 && step * 4 >= total * 3) {
          r.healthAtStep = step;
          window.parts().views->setCurrentWidget(window.parts().views->healthPanel());
        }
      });

  probe.start();
  const QString qdir = QString::fromStdString(dir.string());
  if (!window.parts().training->start(config, qdir)) {
    r.error = "startTraining refused: " + window.parts().notices->lastError().toStdString();
    return r;
  }
  app::RunSession* run = window.parts().runs->find(app::OpenedRuns::runDirectoryOf(qdir));
  if (run == nullptr) {
    r.error = "the training run is not among the opened runs";
    return r;
  }
  // Live latency: the GUI thread sees new train/loss rows in the session (its signal is
  // emitted on the GUI thread as each batch is applied); the row's wall time is when the
  // engine logged the value.
  std::size_t seen = 0;
  QObject::connect(run, &app::RunSession::scalarsAppended, &window, [&](const QStringList& names) {
    if (!names.contains(QStringLiteral("train/loss"))) return;
    const double nowMs = static_cast<double>(QDateTime::currentMSecsSinceEpoch());
    const auto it = run->scalars().find(QStringLiteral("train/loss"));
    if (it == run->scalars().end()) return;
    for (; seen < it->second.wallTimes.size(); ++seen)
      r.latencyMs.push_back(nowMs - it->second.wallTimes[seen] * 1000.0);
  });

  {
    QEventLoop loop;
    QObject::connect(training, &app::TrainingController::finished, &loop, &QEventLoop::quit);
    if (!finished) loop.exec();
  }
  r.totalSeconds = msSince(t0) / 1000;
  r.lateMs = probe.lateMs;
  if (!finishedOk) {
    r.error = "training in the app failed: " + finishError.toStdString();
    return r;
  }
  // The last rows reach the session with the watcher's read after the engine ended.
  const std::size_t rows = expectedLogRows(config);
  auto rowsOf = [&](const char* name) -> std::size_t {
    const auto it = run->scalars().find(QString::fromLatin1(name));
    return it == run->scalars().end() ? 0 : it->second.values.size();
  };
  if (!waitUntil(
          [&] { return rowsOf("train/loss") >= rows && rowsOf("train/tokens_per_second") >= rows; },
          30000)) {
    r.error = "the session did not receive every logged row (" +
              std::to_string(rowsOf("train/loss")) + " of " + std::to_string(rows) + ")";
    return r;
  }
  const app::ScalarPoints& tps = run->scalars().at(QStringLiteral("train/tokens_per_second"));
  r.throughput = throughputOf(tps.steps, tps.values);
  r.attentionStep = window.parts().views->attentionPanel()->shownStep();
  r.ok = true;
  return r;
}

// ---- 4. opening a large finished log ------------------------------------------------

/// A deterministic pseudo-random number in [0, 1) from a counter (splitmix64).
double noise(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return double(x >> 11) * 0x1.0p-53;
}

/// Writes <dir>/run.h5 and <dir>/config.toml: a finished run of the bench model trained
/// for 2,000,000 steps, logged every 10 (200,000 rows of each train/ scalar), evaluated
/// every 10,000, with 100 attention snapshots of the probe batch (probabilities and scores,
/// [L, B, H, T, T] float16, gzip 4, one per chunk, as the trainer writes them). Wall times
/// are rewritten afterwards to 0.12 s per step ending an hour ago (the writer stamps its own
/// clock, which would put 200,000 rows within seconds).
void synthesiseFinishedLog(core::RunConfig config, const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::int64_t totalSteps = kOpenRows * kOpenLogEvery;
  config.run.name = "bench-finished";
  config.schedule.steps = totalSteps;
  config.tokenizer.model.clear();
  config.data.cacheDir.clear();
  const std::string toml = core::toToml(config);
  std::ofstream(dir / "config.toml") << toml;

  const std::int64_t L = config.model.layers, B = config.log.snapshotSequences,
                     H = config.model.heads, T = config.data.sequenceLength;
  core::RunLogSchema schema;
  schema.runName = config.run.name;
  schema.configToml = toml;
  schema.configJson = core::toJson(config);
  schema.tokenizerPieces = {"<pad>", "<s>", "</s>", "<mask>", "<unk>"};
  for (int id = 5; id < config.tokenizer.vocabSize; ++id)
    schema.tokenizerPieces.push_back("\u2581w" + std::to_string(id));
  schema.scalarNames = core::RunLogSchema::defaultScalarNames();
  schema.scalarNames.push_back("train/accuracy");
  for (const char* name : {"snapshots/probabilities", "snapshots/scores"}) {
    core::TensorSeriesSpec s;
    s.name = name;
    s.innerShape = {L, B, H, T, T};
    s.type = core::hdf5::ElementType::Float16;
    s.chunkRows = 1;
    s.gzipLevel = 4;
    schema.series.push_back(s);
  }
  // The probe batch: sequence b holds T - 28 b real tokens, padding after.
  std::vector<std::int64_t> realLength(static_cast<std::size_t>(B));
  schema.probeSequences = B;
  schema.probeLength = T;
  for (std::int64_t b = 0; b < B; ++b) {
    realLength[std::size_t(b)] = std::max<std::int64_t>(8, T - 28 * b);
    for (std::int64_t t = 0; t < T; ++t) {
      std::int64_t id = 0;
      if (t == 0)
        id = 1;
      else if (t == realLength[std::size_t(b)] - 1)
        id = 2;
      else if (t < realLength[std::size_t(b)])
        id = 5 + std::int64_t(noise(std::uint64_t(b * T + t)) * (config.tokenizer.vocabSize - 5));
      schema.probeIds.push_back(id);
      schema.probePieces.push_back(schema.tokenizerPieces[std::size_t(id)]);
    }
  }

  const std::string path = core::runLogPath(dir).string();
  core::RunLogWriter log(path, schema, 0.5);
  log.addEvent(0, "start", "training started");
  const double peakLr = config.optimizer.learningRate;
  const std::int64_t warmup = config.schedule.warmupSteps;
  for (std::int64_t i = 1; i <= kOpenRows; ++i) {
    const std::int64_t step = i * kOpenLogEvery;
    const double s = double(step);
    const double n = noise(std::uint64_t(step)) - 0.5;
    log.appendScalar("train/loss", step, 1.9 + 7.1 * std::exp(-s / 120000.0) + 0.08 * n);
    log.appendScalar("train/accuracy", step, 0.62 * (1 - std::exp(-s / 150000.0)) + 0.01 * n);
    log.appendScalar(
        "train/learning_rate", step,
        step < warmup ? peakLr * s / double(warmup) : peakLr * (1 - s / double(totalSteps)));
    log.appendScalar("train/grad_norm", step, 0.4 + 2.5 * std::exp(-s / 40000.0) + 0.1 * n);
    log.appendScalar("train/tokens_per_second", step, 34000 + 900 * n);
    if (step % 10000 == 0) {
      log.appendScalar("eval/loss", step, 2.0 + 7.0 * std::exp(-s / 120000.0) + 0.02 * n);
      log.appendScalar("eval/accuracy", step, 0.6 * (1 - std::exp(-s / 150000.0)));
    }
  }
  // Attention: per head a pattern (previous, next, first token, local) that sharpens with
  // training, plus noise; the scores are the pre-softmax logits.
  const std::size_t rowElements = std::size_t(L * B * H * T * T);
  std::vector<float> probabilities(rowElements), scores(rowElements);
  std::vector<double> e(static_cast<std::size_t>(T));
  for (int k = 1; k <= kOpenSnapshots; ++k) {
    const std::int64_t step = std::int64_t(k) * totalSteps / kOpenSnapshots;
    const double sharp = 6.0 * (1 - std::exp(-double(step) / 200000.0));
    std::size_t at = 0;
    for (std::int64_t l = 0; l < L; ++l)
      for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h)
          for (std::int64_t q = 0; q < T; ++q) {
            const std::int64_t len = realLength[std::size_t(b)];
            const std::int64_t target = h % 4 == 0   ? q - 1
                                        : h % 4 == 1 ? q + 1
                                        : h % 4 == 2 ? 0
                                                     : q;
            double sum = 0;
            for (std::int64_t j = 0; j < T; ++j) {
              const double d = double(std::abs(j - target));
              const double logit =
                  sharp * std::exp(-d * (h % 4 == 3 ? 0.3 : 1.5)) +
                  1.5 * noise(std::uint64_t(((((k * L + l) * B + b) * H + h) * T + q) * T + j));
              scores[at + std::size_t(j)] = float(logit);
              e[std::size_t(j)] = j < len ? std::exp(logit) : 0.0;
              sum += e[std::size_t(j)];
            }
            for (std::int64_t j = 0; j < T; ++j)
              probabilities[at + std::size_t(j)] = float(e[std::size_t(j)] / sum);
            at += std::size_t(T);
          }
    log.appendSeries("snapshots/probabilities", step, probabilities);
    log.appendSeries("snapshots/scores", step, scores);
    if (k % 10 == 0) log.sync();  // bounds the queue to ten snapshots
  }
  log.addEvent(totalSteps, "finished", "training finished at step " + std::to_string(totalSteps));
  log.close();

  // Realistic wall times: step s was logged at end - (totalSteps - s) * 0.12 s.
  const double end = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0 - 3600.0;
  auto wallOf = [&](double step) {
    return end - (double(totalSteps) - step) * kOpenSecondsPerStep;
  };
  core::hdf5::File file = core::hdf5::File::open(path, core::hdf5::ErrorDomain::RunLog,
                                                 core::hdf5::File::Mode::ReadWrite);
  core::hdf5::Group root = file.root();
  std::vector<std::string> groups;
  for (const auto& name : schema.scalarNames) groups.push_back("scalars/" + name);
  for (const auto& s : schema.series) groups.push_back("series/" + s.name);
  groups.push_back("events");
  for (const auto& g : groups) {
    if (!root.exists(g + "/step")) continue;
    const std::vector<std::int64_t> steps = root.openDataset(g + "/step").readInt64();
    if (steps.empty()) continue;
    std::vector<double> wall(steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i) wall[i] = wallOf(double(steps[i]));
    root.openDataset(g + "/wall_time").write(wall.data(), core::hdf5::ElementType::Float64);
  }
  file.close();
}

struct OpenResult {
  bool ok = false;
  std::string error;
  double sessionMs = -1;  // the session holds all train/loss rows
  double plotMs = -1;     // the train/loss plot holds them
  double replotMs = 0;    // the forced replot with them
  double openMs = 0;
};

OpenResult openFinished(const fs::path& dir) {
  OpenResult r;
  app::MainWindow window;
  window.show();
  if (!waitUntil([&] { return window.windowHandle() && window.windowHandle()->isExposed(); },
                 10000)) {
    r.error = "the window was not exposed";
    return r;
  }
  window.parts().views->setCurrentWidget(window.parts().views->curvesPanel());
  const QString loss = QStringLiteral("train/loss");
  const auto t0 = Clock::now();
  app::RunSession* run = window.openRun(QString::fromStdString(dir.string()));
  if (run == nullptr) {
    r.error = "openRun refused the folder: " + window.parts().notices->lastError().toStdString();
    return r;
  }
  QObject::connect(run, &app::RunSession::scalarsAppended, &window, [&](const QStringList&) {
    const auto it = run->scalars().find(loss);
    if (r.sessionMs < 0 && it != run->scalars().end() &&
        std::int64_t(it->second.values.size()) >= kOpenRows)
      r.sessionMs = msSince(t0);
  });
  widgets::CurvePlot* plot = nullptr;
  auto plotHoldsAll = [&] {
    plot = window.parts().views->curvesPanel()->plotFor(loss);
    return plot != nullptr &&
           std::int64_t(plot->pointCount(window.parts().views->curvesPanel()->seriesName(run))) >=
               kOpenRows;
  };
  // Polled every millisecond: the figure's resolution, not a sleep.
  if (!waitUntil(plotHoldsAll, 120000, 1)) {
    r.error = "the train/loss plot did not receive all rows within 120 s";
    return r;
  }
  r.plotMs = msSince(t0);
  // Drawn once with them: QCustomPlot renders its layers and repaints synchronously.
  const auto tReplot = Clock::now();
  plot->replotNow();
  r.replotMs = msSince(tReplot);
  r.openMs = msSince(t0);
  if (r.sessionMs < 0) r.sessionMs = r.plotMs;
  r.ok = true;
  return r;
}

/// The offscreen platform warns on every top-level window it cannot size-hint; the rest of
/// Qt's messages go through unchanged.
QtMessageHandler g_defaultHandler = nullptr;
void filterMessages(QtMsgType type, const QMessageLogContext& context, const QString& text) {
  if (text.contains(QStringLiteral("propagateSizeHints"))) return;
  g_defaultHandler(type, context, text);
}

const char* passMiss(bool pass) {
  return pass ? "PASS" : "MISS";
}

// ---- 5. an analysis while the window is shown -------------------------------------------

struct AnalysisStallResult {
  bool ok = false;
  std::string error;
  double seconds = 0;
  std::vector<double> lateMs;
};

/// Analyses `runDir` from a shown window with the Analysis tab in front, as Run analysis
/// does, until the report is read back and painted; the timer probes the GUI thread all
/// along.
AnalysisStallResult runAnalysisInApp(const fs::path& runDir) {
  AnalysisStallResult r;
  app::MainWindow window;
  window.show();
  if (!waitUntil([&] { return window.windowHandle() && window.windowHandle()->isExposed(); },
                 10000)) {
    r.error = "the window was not exposed";
    return r;
  }
  if (window.openRun(QString::fromStdString(runDir.string())) == nullptr) {
    r.error = "could not open " + runDir.string() + ": " +
              window.parts().notices->lastError().toStdString();
    return r;
  }
  window.parts().views->setCurrentWidget(window.parts().views->analysisPanel());
  StallProbe probe;
  bool done = false, ok = false;
  QString message;
  QObject::connect(window.parts().analysis, &app::AnalysisController::finished, &window,
                   [&](bool success, bool, const QString& m, const QString&) {
                     done = true;
                     ok = success;
                     message = m;
                   });
  const auto t0 = Clock::now();
  probe.start();
  QString whyNot;
  if (!window.parts().analysis->start(QString::fromStdString(runDir.string()), std::nullopt, 0,
                                      &whyNot)) {
    r.error = "the analysis did not start: " + whyNot.toStdString();
    return r;
  }
  if (!waitUntil([&] { return done; }, 600000)) {
    r.error = "the analysis did not finish within 10 minutes";
    return r;
  }
  // The tab reads the new report off the GUI thread and paints it: part of the work.
  waitUntil([&] { return window.parts().views->analysisPanel()->report() != nullptr; }, 30000);
  QApplication::processEvents();
  probe.stop();
  r.seconds = msSince(t0) / 1000;
  r.lateMs = probe.lateMs;
  if (!ok) {
    r.error = "the analysis failed: " + message.toStdString();
    return r;
  }
  r.ok = true;
  return r;
}

int usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s [--steps N] [--work DIR] [--threads N]\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  runPassiveAndOffscreen(argv);

  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage(argv[0]);
    if (arg == "--steps")
      a.steps = std::atoi(argv[++i]);
    else if (arg == "--threads")
      a.threads = std::atoi(argv[++i]);
    else if (arg == "--work")
      a.work = argv[++i];
    else
      return usage(argv[0]);
  }
  if (a.steps < 1 || a.threads < 0) return usage(argv[0]);

  QCoreApplication::setApplicationName(QStringLiteral("AttnLabBenchGui"));
  QCoreApplication::setOrganizationName(QStringLiteral("AttnLab"));
  g_defaultHandler = qInstallMessageHandler(filterMessages);
  QApplication qapp(argc, argv);

  QTemporaryDir temporary;
  const fs::path work =
      a.work.empty() ? fs::path(temporary.path().toStdString()) : fs::path(a.work);
  fs::create_directories(work);
  // Settings of this benchmark only (recent runs, layout), inside the work folder.
  QSettings::setDefaultFormat(QSettings::IniFormat);
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope,
                     QString::fromStdString((work / "settings").string()));

  core::RunConfig config;
  try {
    std::vector<std::string> overrides = {"schedule.steps=" + std::to_string(a.steps),
                                          "train.threads=" + std::to_string(a.threads)};
    const core::RunConfig file =
        core::loadRunConfig(ATTNLAB_SOURCE_DIR "/resources/configs/bench.toml");
    if (file.schedule.warmupSteps > a.steps)
      overrides.push_back("schedule.warmup_steps=" + std::to_string(a.steps));
    config = core::loadRunConfig(ATTNLAB_SOURCE_DIR "/resources/configs/bench.toml", overrides);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gui: %s\n", e.what());
    return 1;
  }
  const char* omp = std::getenv("OMP_WAIT_POLICY");
  std::printf(
      "config: resources/configs/bench.toml, %d steps (log every %lld), %d layers, hidden %d, "
      "batch %d x %d tokens, train.threads=%d (0 = cores; %u here), OMP_WAIT_POLICY=%s, "
      "QT_QPA_PLATFORM=%s\n",
      a.steps, static_cast<long long>(config.train.logEvery), config.model.layers,
      config.model.hiddenSize, config.train.batchSize, config.data.sequenceLength, a.threads,
      std::thread::hardware_concurrency(), omp ? omp : "(unset)", std::getenv("QT_QPA_PLATFORM"));
  std::printf("work: %s%s\n", work.string().c_str(), a.work.empty() ? " (temporary)" : "");
  std::fflush(stdout);

  // Data preparation, once: corpus, tokenizer and token store in <work>/data (kept there
  // and reused by later invocations with the same --work).
  const fs::path dataDir = work / "data";
  try {
    fs::create_directories(dataDir);
    core::RunConfig prep = config;
    const auto t0 = Clock::now();
    const int threads = a.threads > 0 ? a.threads : int(std::thread::hardware_concurrency());
    const core::MlmData data = core::prepareMlmData(prep, dataDir, threads);
    std::printf("data preparation: %s in %.1f s (tokenizer %s, %lld tokens)\n",
                dataDir.string().c_str(), msSince(t0) / 1000,
                data.tokenizer.trained ? "trained" : "reused",
                static_cast<long long>(data.store.tokenCount()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gui: data preparation failed: %s\n", e.what());
    return 1;
  }
  config.tokenizer.model = (dataDir / "tokenizer.model").string();
  config.data.cacheDir = (dataDir / "cache").string();
  std::fflush(stdout);

  // 1. The engine alone.
  const CliResult cli = runCli(config, work / "cli");
  if (!cli.ok) {
    std::fprintf(stderr, "bench_gui: CLI engine run failed: %s\n", cli.error.c_str());
    return 1;
  }
  // The engine's data line ("trained" there also means copied from tokenizer.model).
  std::printf("cli: setup %.1f s before step 1 (%s), %.1f s in all\n", cli.setupSeconds,
              cli.dataLine.c_str(), cli.totalSeconds);
  std::printf(
      "cli_tokens_per_s=%.1f (engine on a std::thread, no GUI; steps %lld-%lld, %zu logging "
      "intervals of train/tokens_per_second, first interval left out as warm-up)\n",
      cli.throughput.tokensPerSecond, static_cast<long long>(cli.throughput.firstStep),
      static_cast<long long>(cli.throughput.lastStep), cli.throughput.intervals);
  std::fflush(stdout);

  // 2 and 3. Training in the app.
  const AppResult app = runApp(config, work / "app");
  if (!app.ok) {
    std::fprintf(stderr, "bench_gui: %s\n", app.error.c_str());
    return 1;
  }
  std::printf(
      "app: setup %.1f s before step 1 (%s), %.1f s in all; Attention tab shown from step %lld, "
      "its heatmap at snapshot step %lld at the end; Health tab shown from step %lld\n",
      app.setupSeconds, qPrintable(app.dataLine), app.totalSeconds,
      static_cast<long long>(app.switchedAtStep), static_cast<long long>(app.attentionStep),
      static_cast<long long>(app.healthAtStep));
  std::printf(
      "app_tokens_per_s=%.1f (MainWindow::startTraining, window shown offscreen; steps "
      "%lld-%lld, same rows and method as cli)\n",
      app.throughput.tokensPerSecond, static_cast<long long>(app.throughput.firstStep),
      static_cast<long long>(app.throughput.lastStep));
  const double ratio = cli.throughput.tokensPerSecond > 0
                           ? app.throughput.tokensPerSecond / cli.throughput.tokensPerSecond
                           : 0;
  std::printf("gui_vs_cli=%.3f (app tokens/s over engine-alone tokens/s)\n", ratio);
  const double stallP50 = percentile(app.lateMs, 50), stallP99 = percentile(app.lateMs, 99),
               stallMax = maxOf(app.lateMs);
  std::printf(
      "gui stalls: %zu ticks of a %d ms timer on the GUI thread from startTraining to "
      "finished; lateness = actual interval - %d ms: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
      app.lateMs.size(), kTickMs, kTickMs, stallP50, stallP99, stallMax);
  std::printf("gui_stall_p99_ms=%.1f\n", stallP99);
  std::printf("gui_stall_max_ms=%.1f\n", stallMax);
  const double latP50 = percentile(app.latencyMs, 50), latP95 = percentile(app.latencyMs, 95),
               latMax = maxOf(app.latencyMs);
  std::printf(
      "live latency: %zu train/loss rows; time each appeared in the RunSession on the GUI "
      "thread minus its logged wall time: p50 %.0f ms, p95 %.0f ms, max %.0f ms "
      "(live_latency_ms is the p95)\n",
      app.latencyMs.size(), latP50, latP95, latMax);
  std::fflush(stdout);

  // 4. Opening a large finished log.
  const fs::path openDir = work / "open";
  const fs::path marker = openDir / ".bench-gui-complete";
  try {
    if (!fs::exists(marker) || !fs::exists(core::runLogPath(openDir))) {
      const auto t0 = Clock::now();
      synthesiseFinishedLog(config, openDir);
      std::ofstream(marker) << kOpenRows << "\n";
      std::printf("synthesised the finished log in %.1f s\n", msSince(t0) / 1000);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gui: synthesising the finished log failed: %s\n", e.what());
    return 1;
  }
  std::printf(
      "finished log: %s (%lld KiB): %lld rows each of 5 train/ scalars, %lld eval rows, %d "
      "snapshots x 2 series of [%d, %d, %d, %d, %d] float16\n",
      core::runLogPath(openDir).string().c_str(),
      static_cast<long long>(fs::file_size(core::runLogPath(openDir)) / 1024),
      static_cast<long long>(kOpenRows), static_cast<long long>(kOpenRows * kOpenLogEvery / 10000),
      kOpenSnapshots, config.model.layers, config.log.snapshotSequences, config.model.heads,
      config.data.sequenceLength, config.data.sequenceLength);
  const OpenResult open = openFinished(openDir);
  if (!open.ok) {
    std::fprintf(stderr, "bench_gui: %s\n", open.error.c_str());
    return 1;
  }
  std::printf(
      "open: fresh MainWindow, openRun() to the train/loss plot holding all %lld points and "
      "drawn once (forced replotNow): session has them at %.0f ms, plot at %.0f ms, replot "
      "%.0f ms; open_ms=%.0f\n",
      static_cast<long long>(kOpenRows), open.sessionMs, open.plotMs, open.replotMs, open.openMs);

  // 5. An analysis running in the app.
  const AnalysisStallResult analysis = runAnalysisInApp(work / "app");
  if (!analysis.ok) {
    std::fprintf(stderr, "bench_gui: %s\n", analysis.error.c_str());
    return 1;
  }
  const double anP50 = percentile(analysis.lateMs, 50), anP99 = percentile(analysis.lateMs, 99),
               anMax = maxOf(analysis.lateMs);
  std::printf(
      "analysis in the app: %.1f s from start to the report painted (all cores, Analysis tab "
      "shown); %zu ticks: lateness p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
      analysis.seconds, analysis.lateMs.size(), anP50, anP99, anMax);

  std::printf("targets:\n");
  std::printf("  gui_stall_p99_ms %.1f <= 50: %s\n", stallP99, passMiss(stallP99 <= 50));
  std::printf("  gui_stall_max_ms %.1f <= 250: %s\n", stallMax, passMiss(stallMax <= 250));
  std::printf("  gui_vs_cli %.3f >= 0.95: %s\n", ratio, passMiss(ratio >= 0.95));
  std::printf("  live_latency_ms %.0f <= 1000: %s\n", latP95, passMiss(latP95 <= 1000));
  std::printf("  open_ms %.0f <= 1000: %s\n", open.openMs, passMiss(open.openMs <= 1000));
  std::printf("  analysis_stall_p99_ms %.1f <= 50: %s\n", anP99, passMiss(anP99 <= 50));
  std::printf("  analysis_stall_max_ms %.1f <= 250: %s\n", anMax, passMiss(anMax <= 250));
  std::printf(
      "gui_stall_p99_ms=%.1f gui_vs_cli=%.3f live_latency_ms=%.0f open_ms=%.0f "
      "analysis_stall_p99_ms=%.1f\n",
      stallP99, ratio, latP95, open.openMs, anP99);
  return 0;
}
