// attnlab --help and --version on a machine without a display (issue 25): they print and exit
// 0 before QApplication exists, instead of aborting in Qt's platform plugin. The app is run
// as a newcomer on a server would: no DISPLAY, no WAYLAND_DISPLAY, no QT_QPA_PLATFORM.
#include <QProcess>
#include <QProcessEnvironment>
#include <QtTest>

namespace {

const QString kApp = QStringLiteral(ATTNLAB_BINARY_DIR "/bin/attnlab");

struct Result {
  int exitCode = -1;
  QString out, err;
};

Result runWithoutDisplay(const QStringList& args) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const char* v : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
    env.remove(QString::fromLatin1(v));
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(kApp, args);
  if (!p.waitForFinished(60000)) p.kill();
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
          QString::fromLocal8Bit(p.readAllStandardOutput()),
          QString::fromLocal8Bit(p.readAllStandardError())};
}

}  // namespace

class TestGuiCommandLine : public QObject {
  Q_OBJECT
 private slots:
  void helpPrintsWithoutADisplay() {
    for (const QString& flag : {QStringLiteral("--help"), QStringLiteral("-h")}) {
      const Result r = runWithoutDisplay({flag});
      QVERIFY2(r.exitCode == 0, qPrintable(flag + ": " + r.err));
      QVERIFY2(r.out.contains(QStringLiteral("Usage:")), qPrintable(r.out));
      QVERIFY2(r.out.contains(QStringLiteral("--train <config>")), qPrintable(r.out));
      QVERIFY2(r.out.contains(QStringLiteral("[RUN_DIR...]")), qPrintable(r.out));
    }
  }

  void versionPrintsWithoutADisplay() {
    const Result r = runWithoutDisplay({QStringLiteral("--version")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(r.out.trimmed(), QStringLiteral("attnlab " ATTNLAB_PROJECT_VERSION));
  }

  // Qt's own options still reach QApplication: with -platform offscreen the window starts
  // (and --screenshot then ends it), so the first reading did not reject them.
  void qtOptionsStillWork() {
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("empty.png"));
    const Result r = runWithoutDisplay({QStringLiteral("-platform"), QStringLiteral("offscreen"),
                                        QStringLiteral("--screenshot"), png});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(QFileInfo(png).size() > 0);
  }
};

QTEST_GUILESS_MAIN(TestGuiCommandLine)
#include "test_gui_command_line.moc"
