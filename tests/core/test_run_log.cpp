#include "core/errors/error.h"
#include "core/hdf5/float16.h"
#include "core/hdf5/hdf5_objects.h"
#include "core/runlog/run_log_reader.h"
#include "core/runlog/run_log_writer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <thread>

using namespace attnlab::core;
using hdf5::ElementType;

namespace {

RunLogSchema testSchema() {
  RunLogSchema s;
  s.runName = "test-run";
  s.configToml = "[run]\nname = \"test-run\"\n";
  s.configJson = R"({"run":{"name":"test-run"}})";
  s.tokenizerPieces = {"<pad>", "<s>", "</s>", "<mask>", "<unk>", "▁the", "é"};
  s.series = {
      {"attention/entropy", {2, 3}, ElementType::Float32, 0, 0},
      {"asa/mask_fraction", {4}, ElementType::Float16, 0, 4},
      {"probe/counts", {3}, ElementType::Int64, 0, 0},
      {"se/weights", {2}, ElementType::Float64, 8, 0},
  };
  return s;
}

/// Runs tests/core/run_log_probe.py with Debian's python (which has h5py).
QJsonObject probe(const std::string& path, bool swmr) {
  QProcess p;
  QStringList args{QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/core/run_log_probe.py"),
                   QString::fromStdString(path)};
  if (swmr) args << QStringLiteral("--swmr");
  p.start(QStringLiteral(ATTNLAB_PYTHON), args);
  if (!p.waitForFinished(60000) || p.exitCode() != 0) {
    qWarning().noquote() << "probe failed:" << p.readAllStandardError();
    return {};
  }
  return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

template <class F>
bool waitUntil(F condition, int ms = 5000) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

}  // namespace

class TestRunLog : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }

 private slots:
  void writesAndReadsBack() {
    const std::string file = path("basic.h5");
    {
      RunLogWriter w(file, testSchema(), 0.05);
      for (int step = 0; step < 50; ++step) {
        w.appendScalar("train/loss", step, 10.0 - step * 0.1);
        if (step % 10 == 0) w.appendScalar("eval/accuracy", step, step / 100.0);
      }
      w.appendSeries("attention/entropy", 10, std::vector<float>{1, 2, 3, 4, 5, 6});
      w.appendSeries("attention/entropy", 20, std::vector<float>{6, 5, 4, 3, 2, 1});
      const float counts[3] = {1, 2.4f, 1e6f};
      w.appendSeries("probe/counts", 20, counts);
      w.appendSeries("se/weights", 5, std::vector<float>{0.25f, 0.75f});
      w.addCheckpoint(20, "/runs/x/checkpoints/step-0000020.h5", 3.5);
      w.addCheckpoint(40, "/runs/x/checkpoints/step-0000040.h5", std::nullopt);
      w.addEvent(49, "stop", "stopped by the user at step 49 — ünïcode");
      w.close();
      QVERIFY(!w.status());
      QVERIFY(!w.isOpen());
    }
    RunLogReader r(file);
    QCOMPARE(r.schemaVersion(), std::int64_t{1});
    QCOMPARE(r.runName(), std::string("test-run"));
    QVERIFY(!r.attnlabVersion().empty());
    QVERIFY(r.createdUtc().size() == 20);
    QCOMPARE(r.configToml(), testSchema().configToml);
    QCOMPARE(r.configJson(), testSchema().configJson);
    QCOMPARE(r.tokenizerPieces(), testSchema().tokenizerPieces);
    auto names = r.scalarNames();
    QCOMPARE(names.size(), std::size_t{6});
    QCOMPARE(names.front(), std::string("eval/accuracy"));
    QCOMPARE(r.seriesNames(), (std::vector<std::string>{"asa/mask_fraction", "attention/entropy",
                                                        "probe/counts", "se/weights"}));
    const ScalarSeries loss = r.scalar("train/loss");
    QCOMPARE(loss.steps.size(), std::size_t{50});
    QCOMPARE(loss.steps[49], std::int64_t{49});
    QCOMPARE(loss.values[10], 10.0 - 10 * 0.1);
    QVERIFY(loss.wallTimes[0] > 1.6e9);
    QCOMPARE(r.scalar("eval/accuracy").steps.size(), std::size_t{5});
    QCOMPARE(r.scalar("train/grad_norm").steps.size(), std::size_t{0});
    const TensorSeries ent = r.series("attention/entropy");
    QCOMPARE(ent.steps, (std::vector<std::int64_t>{10, 20}));
    QCOMPARE(ent.innerShape, (std::vector<std::int64_t>{2, 3}));
    QCOMPARE(ent.values.size(), std::size_t{12});
    QCOMPARE(ent.values[6], 6.0f);
    QCOMPARE(r.series("attention/entropy", 1, 5).steps, (std::vector<std::int64_t>{20}));
    const TensorSeries counts = r.series("probe/counts");
    QCOMPARE(counts.type, ElementType::Int64);
    QCOMPARE(counts.values, (std::vector<float>{1, 2, 1e6f}));
    QCOMPARE(r.series("se/weights").values, (std::vector<float>{0.25f, 0.75f}));
    const auto cks = r.checkpoints();
    QCOMPARE(cks.size(), std::size_t{2});
    QCOMPARE(cks[0].path, std::string("/runs/x/checkpoints/step-0000020.h5"));
    QCOMPARE(cks[0].valLoss, std::optional(3.5));
    QVERIFY(!cks[1].valLoss);
    const auto events = r.events();
    QCOMPARE(events.size(), std::size_t{1});
    QCOMPARE(events[0].kind, std::string("stop"));
    QCOMPARE(events[0].message, std::string("stopped by the user at step 49 — ünïcode"));
    QVERIFY_THROWS_EXCEPTION(attnlab::RunLogError, r.scalar("train/nope"));
  }

  // The events' kinds: the enum's names are the file's text (docs/run-log.md lists them),
  // each name reads back as its kind, an older log's "stop" as Stopped, a name this version
  // does not know as none.
  void eventKindsAreTheirNamesInTheFile() {
    const std::pair<RunEventKind, const char*> expected[] = {
        {RunEventKind::Setup, "setup"},
        {RunEventKind::Data, "data"},
        {RunEventKind::Note, "note"},
        {RunEventKind::Start, "start"},
        {RunEventKind::Resume, "resume"},
        {RunEventKind::Variants, "variants"},
        {RunEventKind::Distributed, "distributed"},
        {RunEventKind::Paused, "paused"},
        {RunEventKind::Unpaused, "unpaused"},
        {RunEventKind::Stopped, "stopped"},
        {RunEventKind::Finished, "finished"},
        {RunEventKind::OutOfMemory, "out_of_memory"},
        {RunEventKind::NonFinite, "non_finite"}};
    const std::string file = path("kinds.h5");
    {
      RunLogWriter w(file, testSchema(), 0.05);
      for (const auto& [kind, name] : expected) w.addEvent(1, kind, name);
      w.addEvent(2, "stop", "an older log's stop");
      w.addEvent(3, "someday", "a newer writer's kind");
      w.close();
    }
    const auto events = RunLogReader(file).events();
    QCOMPARE(events.size(), std::size(expected) + 2);
    for (std::size_t i = 0; i < std::size(expected); ++i) {
      QCOMPARE(events[i].kind, std::string(expected[i].second));
      QVERIFY(events[i].knownKind() == expected[i].first);
    }
    QVERIFY(events[std::size(expected)].knownKind() == RunEventKind::Stopped);
    QVERIFY(!events[std::size(expected) + 1].knownKind());
  }

  // The world size is a typed column of the events (0: the event does not say), read back by
  // the reader and by h5py; a log written before the column gets it on resume, 0 for its
  // earlier rows, so the events' columns keep one length.
  void eventsCarryTheirWorldSize() {
    const std::string file = path("world.h5");
    {
      RunLogWriter w(file, testSchema(), 0.05);
      w.addEvent(0, RunEventKind::Start, "training started", 2);
      w.addEvent(0, RunEventKind::Distributed, "two processes", 2);
      w.addEvent(3, RunEventKind::Stopped, "stopped");
      w.close();
    }
    auto events = RunLogReader(file).events();
    QCOMPARE(events.size(), std::size_t{3});
    QCOMPARE(events[0].worldSize, 2);
    QCOMPARE(events[1].worldSize, 2);
    QCOMPARE(events[2].worldSize, 0);
    QProcess py;
    py.start(QStringLiteral(ATTNLAB_PYTHON),
             {QStringLiteral("-c"),
              QStringLiteral("import h5py,sys; print(list(h5py.File(sys.argv[1],'r')"
                             "['events/world_size'][()]))"),
              QString::fromStdString(file)});
    QVERIFY(py.waitForFinished(60000));
    QCOMPARE(QString::fromUtf8(py.readAllStandardOutput()).trimmed(), QStringLiteral("[2, 2, 0]"));

    // An older log: no column. Resumed after step 3, it gains one, zeros for the old rows.
    py.start(QStringLiteral(ATTNLAB_PYTHON),
             {QStringLiteral("-c"),
              QStringLiteral("import h5py,sys; f=h5py.File(sys.argv[1],'r+'); "
                             "del f['events/world_size']"),
              QString::fromStdString(file)});
    QVERIFY(py.waitForFinished(60000) && py.exitCode() == 0);
    QCOMPARE(RunLogReader(file).events()[0].worldSize, 0);
    {
      RunLogWriter w(file, testSchema(), 0.05, true, 3);
      w.addEvent(4, RunEventKind::Resume, "resumed", 1);
      w.close();
    }
    events = RunLogReader(file).events();
    QCOMPARE(events.size(), std::size_t{4});
    QCOMPARE(events[0].worldSize, 0);
    QCOMPARE(events[3].worldSize, 1);
  }

  // A live view reads only rows after those it holds, and the snapshot steps without their
  // values; the reads agree with a full read of the same log while the writer appends.
  void incrementalReadsWhileWriterIsLive() {
    const std::string file = path("incremental.h5");
    RunLogWriter w(file, testSchema(), 0.02);
    w.appendScalar("train/loss", 1, 5.0);
    w.appendSeries("attention/entropy", 1, std::vector<float>{1, 2, 3, 4, 5, 6});
    w.addEvent(1, "start", "first");
    w.sync();
    RunLogReader r(file);
    QVERIFY(r.isSwmr());
    QCOMPARE(r.scalarRows("train/loss"), std::uint64_t{1});
    std::vector<std::int64_t> steps = r.scalar("train/loss", 0).steps;
    std::vector<std::int64_t> snapshotSteps = r.seriesSteps("attention/entropy");
    std::size_t events = r.events().size();
    for (int step = 2; step <= 40; ++step) {
      w.appendScalar("train/loss", step, 5.0 - step * 0.01);
      if (step % 8 == 0)
        w.appendSeries("attention/entropy", step, std::vector<float>(6, float(step)));
      if (step % 10 == 0) w.addEvent(step, "note", "step " + std::to_string(step));
      if (step % 5 == 0) {
        w.sync();
        r.refresh();
        const auto fresh = r.scalar("train/loss", steps.size());
        steps.insert(steps.end(), fresh.steps.begin(), fresh.steps.end());
        const auto freshSteps = r.seriesSteps("attention/entropy", snapshotSteps.size());
        snapshotSteps.insert(snapshotSteps.end(), freshSteps.begin(), freshSteps.end());
        events += r.events(events).size();
      }
    }
    w.close();
    RunLogReader full(file);
    QCOMPARE(steps, full.scalar("train/loss").steps);
    QCOMPARE(steps.size(), std::size_t{40});
    QCOMPARE(snapshotSteps, full.series("attention/entropy").steps);
    QCOMPARE(snapshotSteps, (std::vector<std::int64_t>{1, 8, 16, 24, 32, 40}));
    QCOMPARE(events, full.events().size());
    QCOMPARE(events, std::size_t{5});
    // Past the end: nothing, not an error.
    QCOMPARE(full.scalar("train/loss", 1000).steps.size(), std::size_t{0});
    QCOMPARE(full.seriesSteps("attention/entropy", 99).size(), std::size_t{0});
    QCOMPARE(full.events(99).size(), std::size_t{0});
    QCOMPARE(full.scalar("train/loss", 38).steps, (std::vector<std::int64_t>{39, 40}));
  }

  void h5pyReadsWhileWriterIsLive() {
    const std::string file = path("live.h5");
    RunLogWriter w(file, testSchema(), 0.2);
    // The "engine": appends every few milliseconds until told to stop.
    std::atomic<std::int64_t> step{0};
    std::atomic<bool> stop{false};
    auto engine = [&] {
      while (!stop) {
        const std::int64_t s = step.load();
        w.appendScalar("train/loss", s, 5.0 / (1.0 + s));
        w.appendScalar("train/learning_rate", s, 1e-4);
        step = s + 1;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    };
    std::thread producer(engine);
    std::this_thread::sleep_for(std::chrono::seconds(2));
    // The writer is live and the engine keeps appending: another process reads with SWMR.
    const QJsonObject live = probe(file, true);
    const std::int64_t afterProbe = step;
    QVERIFY2(!live.isEmpty(), "h5py could not read the live log");
    const int seen = live["scalars"].toObject()["train/loss"].toInt();
    qInfo() << "h5py saw" << seen << "loss values while the writer was live;" << afterProbe
            << "had been appended when it finished";
    QVERIFY(seen > 0);
    QVERIFY(seen <= afterProbe);
    QCOMPARE(live["schema_version"].toInt(), 1);

    {
      // Our own reader in this process, while the writer thread keeps going. (It shares
      // HDF5's open file with the writer, so the file is fully closed only when both are.)
      RunLogReader r(file);
      QVERIFY(r.isSwmr());
      const auto before = r.scalar("train/loss").steps.size();
      std::this_thread::sleep_for(std::chrono::milliseconds(600));
      w.sync();
      r.refresh();
      const auto after = r.scalar("train/loss").steps.size();
      QVERIFY2(after > before, qPrintable(QString("%1 -> %2").arg(before).arg(after)));
    }

    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
    producer.join();
    w.close();
    const QJsonObject final = probe(file, false);
    QCOMPARE(final["scalars"].toObject()["train/loss"].toInt(), static_cast<int>(step));
    QCOMPARE(final["scalars"].toObject()["train/learning_rate"].toInt(), static_cast<int>(step));
    QVERIFY(final["last_loss"].toDouble() > 0);
    QCOMPARE(RunLogReader(file).scalar("train/loss").steps.size(), static_cast<std::size_t>(step));
  }

  void h5dumpShowsScalars() {
    const std::string file = path("dump.h5");
    {
      RunLogWriter w(file, testSchema(), 0.1);
      for (int i = 0; i < 5; ++i) w.appendScalar("train/loss", i, 1.0 / (i + 1));
      w.close();
    }
    // hdf5-tools (packaging/install-deps.sh test); a machine that only runs the engine, such
    // as the borrowed GPU machine, may lack it.
    if (QStandardPaths::findExecutable(QStringLiteral("h5dump")).isEmpty())
      QSKIP("h5dump is not installed (Debian: hdf5-tools)");
    QProcess p;
    p.start(QStringLiteral("h5dump"), {QStringLiteral("-g"), QStringLiteral("/scalars/train/loss"),
                                       QString::fromStdString(file)});
    QVERIFY(p.waitForFinished(30000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    QCOMPARE(p.exitCode(), 0);
    QVERIFY2(out.contains("GROUP \"/scalars/train/loss\""), qPrintable(out));
    QVERIFY2(out.contains("DATASET \"value\""), qPrintable(out));
    QVERIFY(out.contains("0.333333"));
  }

  void float16SeriesRoundTripAndH5pyDtype() {
    const std::string file = path("half.h5");
    const std::vector<float> row{0.1f, -1.0f / 3.0f, 65504.0f, 2.5f};
    {
      RunLogWriter w(file, testSchema(), 0.1);
      w.appendSeries("asa/mask_fraction", 3, row);
      w.close();
    }
    const TensorSeries s = RunLogReader(file).series("asa/mask_fraction");
    QCOMPARE(s.type, ElementType::Float16);
    QCOMPARE(s.values.size(), row.size());
    for (std::size_t i = 0; i < row.size(); ++i)
      QCOMPARE(s.values[i], hdf5::halfBitsToFloat(hdf5::floatToHalfBits(row[i])));
    const QJsonObject info =
        probe(file, false)["series"].toObject()["asa/mask_fraction"].toObject();
    QCOMPARE(info["dtype"].toString(), QStringLiteral("float16"));
    QCOMPARE(info["rows"].toInt(), 1);
    QCOMPARE(info["shape"].toArray().size(), 1);
  }

  void newerSchemaVersionIsRefused() {
    const std::string file = path("future.h5");
    RunLogWriter(file, testSchema(), 0.1).close();
    {
      auto f = hdf5::File::open(file, hdf5::ErrorDomain::RunLog, hdf5::File::Mode::ReadWrite);
      f.root().setIntAttribute("schema_version", 7);
    }
    try {
      RunLogReader r(file);
      QFAIL("a newer schema version must be refused");
    } catch (const attnlab::RunLogError& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("schema version 7") != std::string::npos, e.what());
      QVERIFY2(what.find("up to 1") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(attnlab::RunLogError, RunLogWriter(file, testSchema(), 0.1, true));
  }

  void unknownNamesFailAtTheCall() {
    RunLogWriter w(path("unknown.h5"), testSchema(), 0.1);
    try {
      w.appendScalar("train/los", 1, 1.0);
      QFAIL("unknown scalar accepted");
    } catch (const attnlab::RunLogError& e) {
      QVERIFY2(std::string(e.what()).find("'train/los'") != std::string::npos, e.what());
    }
    try {
      w.appendSeries("attention/entropies", 1, std::vector<float>(6));
      QFAIL("unknown series accepted");
    } catch (const attnlab::RunLogError& e) {
      QVERIFY2(std::string(e.what()).find("'attention/entropies'") != std::string::npos, e.what());
    }
    try {
      w.appendSeries("attention/entropy", 1, std::vector<float>(5));
      QFAIL("a row of the wrong size accepted");
    } catch (const attnlab::RunLogError& e) {
      QVERIFY2(std::string(e.what()).find("takes 6 values") != std::string::npos, e.what());
    }
    w.close();
    QVERIFY_THROWS_EXCEPTION(attnlab::RunLogError, w.appendScalar("train/loss", 2, 1.0));
  }

  void invalidSchemaIsRejected() {
    RunLogSchema s = testSchema();
    s.scalarNames.push_back("train");
    try {
      RunLogWriter w(path("nested.h5"), s, 0.1);
      QFAIL("'train' and 'train/loss' cannot both be scalars");
    } catch (const attnlab::RunLogError& e) {
      QVERIFY2(std::string(e.what()).find("'train'") != std::string::npos, e.what());
    }
    s = testSchema();
    s.series.push_back({"bad", {0}, ElementType::Float32, 0, 0});
    QVERIFY_THROWS_EXCEPTION(attnlab::RunLogError, RunLogWriter(path("bad.h5"), s, 0.1));
  }

  void unusableLocationsGiveClearErrors() {
    try {
      RunLogWriter w(path("missing-folder/run.h5"), testSchema(), 0.1);
      QFAIL("a missing folder must fail");
    } catch (const attnlab::RunLogError& e) {
      QVERIFY2(std::string(e.what()).find("does not exist") != std::string::npos, e.what());
    }
    // /proc accepts no new files, even for root (a chmod'ed folder would not stop root).
    try {
      RunLogWriter w("/proc/attnlab-run-log-test.h5", testSchema(), 0.1);
      QFAIL("an unwritable folder must fail");
    } catch (const attnlab::RunLogError& e) {
      QVERIFY2(e.where().find("/proc/attnlab-run-log-test.h5") != std::string::npos, e.what());
      QVERIFY2(std::string(e.what()).find("cannot create the file") != std::string::npos, e.what());
    }
    // An existing log is never overwritten by a new run.
    RunLogWriter(path("exists.h5"), testSchema(), 0.1).close();
    QVERIFY_THROWS_EXCEPTION(attnlab::RunLogError, RunLogWriter(path("exists.h5"), testSchema()));
  }

  void writerFailureSurfaces() {
    const std::string file = path("failing.h5");
    RunLogWriter w(file, testSchema(), 0.05);
    for (int i = 0; i < 10; ++i) w.appendScalar("train/loss", i, i);
    w.sync();
    w.injectFailureForTesting("simulated: no space left on device");
    QVERIFY(waitUntil([&] { return w.status().has_value(); }));
    QVERIFY(std::string(w.status()->what()).find("no space left") != std::string::npos);
    try {
      w.appendScalar("train/loss", 10, 1.0);
      QFAIL("an append after a failure must throw");
    } catch (const attnlab::RunLogError& e) {
      QVERIFY2(std::string(e.what()).find("no space left") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(attnlab::RunLogError, w.close());
    // What was flushed before the failure stays readable.
    QCOMPARE(RunLogReader(file).scalar("train/loss").steps.size(), std::size_t{10});
  }

  void aFullDiskLeavesTheLogWhole() {
    // The file-size limit stands in for a full disk: the log may grow by 64 kB only, less
    // than its reserve for HDF5's metadata. The writer refuses the batch instead of writing
    // part of it, says so, and closes the file as it was: h5py (a plain open) reads it.
    const std::string file = path("full.h5");
    RunLogWriter w(file, testSchema(), 0.05);
    for (int i = 0; i < 10; ++i) w.appendScalar("train/loss", i, i);
    w.sync();
    struct rlimit saved {};
    getrlimit(RLIMIT_FSIZE, &saved);
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit tight = saved;
    tight.rlim_cur = static_cast<rlim_t>(std::filesystem::file_size(file) + (64 << 10));
    QVERIFY(setrlimit(RLIMIT_FSIZE, &tight) == 0);
    for (int i = 10; i < 20; ++i) w.appendScalar("train/loss", i, i);
    QString message;
    try {
      w.sync();
    } catch (const attnlab::RunLogError& e) {
      message = QString::fromUtf8(e.what());
    }
    QVERIFY_THROWS_EXCEPTION(attnlab::RunLogError, w.close());
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previous);
    QVERIFY2(message.contains(QString::fromStdString(file)) &&
                 message.contains("the disk is full") && message.contains("closed whole"),
             qPrintable(message));
    QCOMPARE(RunLogReader(file).scalar("train/loss").steps.size(), std::size_t{10});
    const QJsonObject read = probe(file, /*swmr=*/false);
    QVERIFY2(!read.isEmpty(), "h5py could not open the log");
  }

  void destructorClosesWithoutThrowing() {
    const std::string file = path("dtor.h5");
    {
      RunLogWriter w(file, testSchema(), 10.0);  // long period: only the close flushes
      for (int i = 0; i < 100; ++i) w.appendScalar("train/loss", i, i);
    }
    QCOMPARE(RunLogReader(file).scalar("train/loss").steps.size(), std::size_t{100});
    {
      RunLogWriter w(path("dtor-failed.h5"), testSchema(), 0.05);
      w.injectFailureForTesting("simulated");
      QVERIFY(waitUntil([&] { return w.status().has_value(); }));
    }  // must not throw
  }

  void resumeAppendsAndDropsTheTail() {
    const std::string file = path("resume.h5");
    {
      RunLogWriter w(file, testSchema(), 0.1);
      for (int i = 0; i < 10; ++i) w.appendScalar("train/loss", i, i);
      w.appendSeries("se/weights", 8, std::vector<float>{1, 2});
      w.addEvent(9, "stop", "first part");
      w.close();
    }
    {
      RunLogWriter w(file, testSchema(), 0.1, true, 5);
      w.addEvent(6, "resume", "resumed from step 5");
      for (int i = 6; i < 9; ++i) w.appendScalar("train/loss", i, 100 + i);
      w.close();
    }
    {
      RunLogReader r(file);
      const auto loss = r.scalar("train/loss");
      QCOMPARE(loss.steps, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
      QCOMPARE(loss.values[6], 106.0);
      QCOMPARE(r.seriesRows("se/weights"), std::uint64_t{0});
      QCOMPARE(r.events().size(), std::size_t{1});
      QCOMPARE(r.events()[0].kind, std::string("resume"));
    }

    RunLogSchema other = testSchema();
    other.scalarNames.push_back("train/extra");
    other.series[0].innerShape = {3, 3};
    try {
      RunLogWriter w(file, other, 0.1, true);
      QFAIL("a different schema must be refused on resume");
    } catch (const attnlab::RunLogError& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("'train/extra'") != std::string::npos, e.what());
      QVERIFY2(what.find("float32[2, 3] in the log but float32[3, 3] here") != std::string::npos,
               e.what());
    }
  }

  void startingOverDropsTheRowsAndKeepsTheFirstEvents() {
    // An attempt killed before its first checkpoint left a log with step-0 rows (the first
    // attention snapshot): starting over must not log step 0 twice.
    const std::string file = path("start-over.h5");
    {
      RunLogWriter w(file, testSchema(), 0.1);
      w.addEvent(0, "start", "training started");
      w.appendSeries("se/weights", 0, std::vector<float>{1, 2});
      w.appendScalar("train/loss", 0, 9.0);
      w.appendScalar("train/loss", 3, 8.0);
      w.addEvent(3, "eval", "an evaluation the next attempt repeats");
      w.close();
    }
    {
      RunLogWriter w(file, testSchema(), 0.1, true, -1);
      w.appendSeries("se/weights", 0, std::vector<float>{3, 4});
      w.appendScalar("train/loss", 0, 7.0);
      w.close();
    }
    RunLogReader r(file);
    QCOMPARE(r.seriesRows("se/weights"), std::uint64_t{1});
    const auto loss = r.scalar("train/loss");
    QCOMPARE(loss.steps, (std::vector<std::int64_t>{0}));
    QCOMPARE(loss.values[0], 7.0);
    QCOMPARE(r.events().size(), std::size_t{1});
    QCOMPARE(r.events()[0].message, std::string("training started"));
  }

  void resumesAfterACrashedWriter() {
    const std::string file = path("crashed.h5");
    const pid_t child = fork();
    if (child == 0) {
      // The child "crashes": it flushes some rows and exits without closing the file.
      try {
        auto* w = new RunLogWriter(file, testSchema(), 0.05);
        for (int i = 0; i < 20; ++i) w->appendScalar("train/loss", i, i);
        w->sync();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child: %s\n", e.what());
        _exit(3);
      }
      _exit(0);
    }
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QCOMPARE(WEXITSTATUS(status), 0);
    // A reader copes with the "still being written" mark (SWMR read).
    try {
      QCOMPARE(RunLogReader(file).scalar("train/loss").steps.size(), std::size_t{20});
    } catch (const attnlab::RunLogError& e) {
      QFAIL(e.what());
    }
    {
      RunLogWriter w(file, testSchema(), 0.1, true, 9);
      w.appendScalar("train/loss", 10, 10);
      w.close();
    }
    QCOMPARE(RunLogReader(file).scalar("train/loss").steps.size(), std::size_t{11});
  }
};

QTEST_APPLESS_MAIN(TestRunLog)
#include "test_run_log.moc"
