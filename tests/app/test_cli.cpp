// attnlab-cli as a user runs it: a separate process, exit codes, stdout and stderr.
#include "tests/support/cli_process.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using attnlab::tests::kCli;
using Run = attnlab::tests::ProcessResult;
using attnlab::tests::runProcess;

class TestCli : public QObject {
  Q_OBJECT
 private slots:
  void versionFlag() {
    const Run r = runProcess(kCli, {"--version"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("attnlab-cli"), qPrintable(r.out));
  }

  void unknownSubcommandFails() {
    const Run r = runProcess(kCli, {"frobnicate"});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(!r.err.isEmpty(), "an error message belongs on stderr");
  }

  // The smoke path on the real WordNet corpus: LibTorch, tokenizer, LibTorch again.
  void smokeRunsEndToEnd() {
    QTemporaryDir dir;
    const Run r = runProcess(kCli, {"smoke", "--work-dir", dir.path(), "--vocab-size", "2000"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY(r.out.contains("GFLOP/s"));
    QVERIFY(r.out.contains("117659 glosses"));
    QVERIFY(r.out.contains("smoke: OK"));
    QVERIFY(QFile::exists(dir.filePath("tokenizer.model")));
  }

  // Copied away from its build tree, the CLI cannot find the bridge and must say
  // which paths it tried.
  void missingBridgeNamesThePathsTried() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("attnlab-cli");
    QVERIFY(QFile::copy(kCli, copy));
    QFile::setPermissions(copy, QFile::permissions(kCli));
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("ATTNLAB_SPBRIDGE");
    p.setProcessEnvironment(env);
    p.start(copy, {"smoke", "--work-dir", dir.filePath("work"), "--wordnet-dir",
                   QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/app/fixtures/wordnet_mini")});
    QVERIFY(p.waitForFinished(120000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY(p.exitCode() != 0);
    QVERIFY2(err.contains("libattnlab_spbridge.so") && err.contains("tried:") &&
                 err.contains(dir.path()),
             qPrintable(err));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
