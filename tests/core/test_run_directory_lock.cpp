// Two trainings must never share a run directory: the lock refuses the second with the
// holder's name, is released by close and by process death, and can be asked about without
// being taken.

#include "core/errors/error.h"
#include "core/train/run_directory_lock.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

#include <optional>

using namespace attnlab::core;

class TestRunDirectoryLock : public QObject {
  Q_OBJECT
 private slots:
  void secondHolderIsRefusedWithTheHolder() {
    QTemporaryDir dir;
    const std::filesystem::path run = dir.path().toStdString();
    QVERIFY(!runDirectoryHolder(run));
    {
      RunDirectoryLock first(run);
      const auto holder = runDirectoryHolder(run);
      QVERIFY(holder);
      QVERIFY2(holder->description.find("pid " + std::to_string(getpid())) != std::string::npos,
               holder->description.c_str());
      try {
        RunDirectoryLock second(run);
        QFAIL("a second lock of the same directory was granted");
      } catch (const attnlab::ConfigError& e) {
        const std::string what = e.what();
        QVERIFY2(what.find(run.string()) != std::string::npos, e.what());
        QVERIFY2(what.find("pid " + std::to_string(getpid())) != std::string::npos, e.what());
        QVERIFY2(what.find("being trained by") != std::string::npos, e.what());
      }
      // Asking does not take it: the holder still holds, and asking again says so.
      QVERIFY(runDirectoryHolder(run));
    }
    QVERIFY(!runDirectoryHolder(run));
    RunDirectoryLock again(run);  // released on destruction
  }

  // kill -9 leaves no stale lock: the kernel drops it with the process.
  void deadHolderLeavesNoLock() {
    QTemporaryDir dir;
    const std::filesystem::path run = dir.path().toStdString();
    int ready[2];
    QCOMPARE(pipe(ready), 0);
    const pid_t child = fork();
    if (child == 0) {
      RunDirectoryLock lock(run);
      const char c = 'x';
      (void)!write(ready[1], &c, 1);
      pause();
      _exit(0);
    }
    char c = 0;
    QCOMPARE(read(ready[0], &c, 1), ssize_t{1});
    const auto holder = runDirectoryHolder(run);
    QVERIFY(holder);
    QVERIFY2(holder->description.find("pid " + std::to_string(child)) != std::string::npos,
             holder->description.c_str());
    QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, RunDirectoryLock{run});
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    QVERIFY(!runDirectoryHolder(run));
    RunDirectoryLock mine(run);
  }
};

QTEST_APPLESS_MAIN(TestRunDirectoryLock)
#include "test_run_directory_lock.moc"
