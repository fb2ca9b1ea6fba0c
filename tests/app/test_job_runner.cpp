// The app's one job runner and its bar (app/gui/jobs): a job's typed result arrives on the
// GUI thread after finished(); progress is thinned but every phase's end arrives; one job at
// a time; while the bar's job runs its progress and Cancel replace Run; Cancel on the bar stops a
// job that checks its flag and the bar says "Cancelling…", then "Cancelled"; a failure is told with
// its message; destroying the runner while a job runs cancels it and joins its thread (the job has
// ended when the destructor returns, and its result is never delivered).
#include "app/gui/jobs/job_bar.h"
#include "app/gui/jobs/job_runner.h"
#include "core/errors/error.h"

#include <QApplication>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

using namespace attnlab;

namespace {

/// A job that runs until it is cancelled (checking every 5 ms), reporting its turns.
int untilCancelled(const app::JobControl& control, std::atomic<bool>* ended = nullptr) {
  for (int turn = 0;; ++turn) {
    if (control.cancelled()) {
      if (ended) ended->store(true);
      throw Cancelled("the test job", "cancelled at turn " + std::to_string(turn));
    }
    control.progress("turning", turn, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

class TestJobRunner : public QObject {
  Q_OBJECT

 private slots:
  void deliversATypedResultOnTheGuiThread() {
    app::JobRunner runner;
    QSignalSpy finished(&runner, &app::JobRunner::finished);
    QSignalSpy progress(&runner, &app::JobRunner::progress);
    QThread* workThread = nullptr;
    QThread* doneThread = nullptr;
    std::vector<int> got;
    bool finishedBeforeDone = false;
    QVERIFY(runner.start<std::vector<int>>(
        QStringLiteral("squares"),
        [&workThread](const app::JobControl& control) {
          workThread = QThread::currentThread();
          std::vector<int> squares;
          for (int i = 0; i < 2000; ++i) {
            squares.push_back(i * i);
            control.progress("squaring", i + 1, 2000);
          }
          return squares;
        },
        [&](const app::JobResult<std::vector<int>>& r) {
          doneThread = QThread::currentThread();
          finishedBeforeDone = finished.size() == 1;
          QVERIFY(r.ok());
          QVERIFY(r.value != nullptr);
          got = *r.value;
        }));
    QVERIFY(runner.isRunning());
    QCOMPARE(runner.label(), QStringLiteral("squares"));
    QVERIFY(finished.wait(30000));
    QTRY_COMPARE(got.size(), std::size_t(2000));
    QCOMPARE(got[1999], 1999 * 1999);
    QVERIFY(workThread != nullptr && workThread != qApp->thread());
    QCOMPARE(doneThread, qApp->thread());
    QVERIFY(finishedBeforeDone);
    QVERIFY(!runner.isRunning());
    QCOMPARE(finished.first().at(0).toBool(), true);
    // 2000 reports within a few milliseconds are thinned, but the phase's end arrives.
    QVERIFY(!progress.isEmpty());
    QVERIFY2(progress.size() < 100, qPrintable(QString::number(progress.size())));
    QCOMPARE(progress.last().at(1).toLongLong(), 2000);
    QCOMPARE(progress.last().at(2).toLongLong(), 2000);
  }

  void oneJobAtATime() {
    app::JobRunner runner;
    QVERIFY(runner.start<int>(QStringLiteral("the first job"),
                              [](const app::JobControl& c) { return untilCancelled(c); }, {}));
    QString whyNot;
    QVERIFY(!runner.start<int>(
        QStringLiteral("the second job"), [](const app::JobControl&) { return 2; }, {}, &whyNot));
    QVERIFY2(whyNot.contains("the first job is still running"), qPrintable(whyNot));
    QSignalSpy finished(&runner, &app::JobRunner::finished);
    runner.cancel();
    QVERIFY(finished.wait(10000));
    // Once it ended, the next starts.
    int value = 0;
    QVERIFY(runner.start<int>(
        QStringLiteral("the second job"), [](const app::JobControl&) { return 2; },
        [&value](const app::JobResult<int>& r) { value = *r.value; }));
    QTRY_COMPARE(value, 2);
  }

  void cancelOnTheBarStopsTheJobAndTheBarSaysSo() {
    app::JobRunner runner;
    app::JobBar bar(QStringLiteral("Run"), QStringLiteral("test"));
    bar.setRunner(&runner);
    bar.setRunnable(true);
    bar.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bar));
    std::optional<app::JobResult<int>> end;
    QObject::connect(&bar, &app::JobBar::runClicked, &runner, [&] {
      runner.start<int>(
          QStringLiteral("a job"), [](const app::JobControl& c) { return untilCancelled(c); },
          [&end](const app::JobResult<int>& r) { end = r; });
      bar.markStarted();
    });
    QTest::mouseClick(bar.runButton(), Qt::LeftButton);
    QVERIFY(runner.isRunning());
    QVERIFY(!bar.runButton()->isEnabled());
    QVERIFY(!bar.runButton()->isVisible());  // progress and Cancel in its place
    QVERIFY(bar.cancelButton()->isVisible());
    QVERIFY(bar.progressBar()->isVisible());
    QTRY_VERIFY(bar.progressBar()->format().startsWith("turning"));
    QTest::mouseClick(bar.cancelButton(), Qt::LeftButton);
    QCOMPARE(bar.statusText(), QStringLiteral("Cancelling…"));
    QVERIFY(!bar.cancelButton()->isEnabled());
    QTRY_VERIFY(end.has_value());
    QCOMPARE(end->outcome, app::JobOutcome::Cancelled);
    QVERIFY(end->value == nullptr);
    QVERIFY2(end->message.contains("cancelled at turn"), qPrintable(end->message));
    QCOMPARE(bar.statusText(), QStringLiteral("Cancelled"));
    QVERIFY(!bar.cancelButton()->isVisible());
    QVERIFY(!bar.progressBar()->isVisible());
    QVERIFY(bar.runButton()->isVisible());
    QVERIFY(bar.runButton()->isEnabled());
  }

  void aFailureIsToldWithItsMessage() {
    app::JobRunner runner;
    app::JobBar bar(QString(), QStringLiteral("failing"));
    bar.setRunner(&runner);
    bar.setFollowsEveryJob(true);
    QVERIFY(!bar.runButton()->isVisible());
    std::optional<app::JobResult<int>> end;
    QVERIFY(runner.start<int>(
        QStringLiteral("a failing job"),
        [](const app::JobControl&) -> int { throw DataError("data.txt:3", "no such column"); },
        [&end](const app::JobResult<int>& r) { end = r; }));
    QTRY_VERIFY(end.has_value());
    QCOMPARE(end->outcome, app::JobOutcome::Failed);
    QCOMPARE(end->message, QStringLiteral("data.txt:3: no such column"));
    QCOMPARE(bar.statusText(), QStringLiteral("Failed: data.txt:3: no such column"));
  }

  void destroyingTheRunnerJoinsARunningJob() {
    auto ended = std::make_shared<std::atomic<bool>>(false);
    bool delivered = false;
    {
      auto runner = std::make_unique<app::JobRunner>();
      QVERIFY(runner->start<int>(
          QStringLiteral("a long job"),
          [ended](const app::JobControl& c) { return untilCancelled(c, ended.get()); },
          [&delivered](const app::JobResult<int>&) { delivered = true; }));
      QTest::qWait(50);  // well inside the job
      QVERIFY(!ended->load());
      runner.reset();  // cancels, and waits for the job's thread
      QVERIFY(ended->load());
    }
    // Its end, queued before the runner went, is dropped with it.
    QTest::qWait(50);
    QCoreApplication::processEvents();
    QVERIFY(!delivered);
  }
};

QTEST_MAIN(TestJobRunner)
#include "test_job_runner.moc"
