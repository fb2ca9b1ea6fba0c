// attnlab-cli as a user runs it: a separate process, exit codes, stdout and stderr.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kCli = QStringLiteral(ATTNLAB_BINARY_DIR "/bin/attnlab-cli");

struct Run {
  int exitCode;
  QString out;
  QString err;
};

Run runCli(const QString& program, const QStringList& args, int timeoutMs = 300000) {
  QProcess p;
  p.start(program, args);
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    return {-1, {}, QStringLiteral("timed out")};
  }
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

}  // namespace

class TestCli : public QObject {
  Q_OBJECT
 private slots:
  void versionFlag() {
    const Run r = runCli(kCli, {"--version"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("attnlab-cli"), qPrintable(r.out));
  }

  void unknownSubcommandFails() {
    const Run r = runCli(kCli, {"frobnicate"});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(!r.err.isEmpty(), "an error message belongs on stderr");
  }

  // The smoke path on the real WordNet corpus: LibTorch, tokenizer, LibTorch again.
  void smokeRunsEndToEnd() {
    QTemporaryDir dir;
    const Run r = runCli(kCli, {"smoke", "--work-dir", dir.path(), "--vocab-size", "2000"});
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
