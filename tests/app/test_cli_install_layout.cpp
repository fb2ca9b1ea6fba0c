// attnlab-cli outside its build folder, laid out as `cmake --install` lays it out: the
// version it reports, preset names for --config, and the bridge lookup. The package test
// (packaging/test-package.sh) does the same with the real .deb; this one runs everywhere.
#include "tests/support/cli_process.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using attnlab::tests::kCli;
using attnlab::tests::runCli;
using Run = attnlab::tests::ProcessResult;

namespace {

// A private prefix holding a copy of attnlab-cli at <prefix>/bin, nothing else.
QString installCliCopy(const QTemporaryDir& prefix) {
  QDir(prefix.path()).mkpath(QStringLiteral("bin"));
  const QString copy = prefix.filePath(QStringLiteral("bin/attnlab-cli"));
  if (!QFile::copy(kCli, copy)) return {};
  QFile::setPermissions(copy, QFile::permissions(kCli));
  return copy;
}

Run runCopy(const QString& program, const QStringList& args) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove(QStringLiteral("ATTNLAB_SPBRIDGE"));
  env.remove(QStringLiteral("ATTNLAB_CONFIG_DIR"));
  p.setProcessEnvironment(env);
  p.start(program, args);
  Run r;
  if (!p.waitForFinished(120000)) return r;
  r.exitCode = p.exitCode();
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

}  // namespace

class TestCliInstallLayout : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qunsetenv("ATTNLAB_CONFIG_DIR"); }

  // The version comes from project() in CMakeLists.txt, the one the .deb carries; the
  // second line names the LibTorch line (docs/building.md): CPU only, or its CUDA and
  // cuDNN and the GPUs or their absence.
  void versionIsTheProjectVersion() {
    const Run r = runCli({"--version"});
    QCOMPARE(r.exitCode, 0);
    const QStringList lines = r.out.trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines[0], QStringLiteral("attnlab-cli " ATTNLAB_EXPECTED_VERSION));
    QVERIFY2(lines[1].startsWith(QStringLiteral("LibTorch ")), qPrintable(lines[1]));
    QVERIFY2(lines[1].contains(QStringLiteral("(CPU only)")) ||
                 (lines[1].contains(QStringLiteral("CUDA ")) &&
                  lines[1].contains(QStringLiteral("cuDNN ")) &&
                  (lines[1].contains(QStringLiteral("GPU 0: ")) ||
                   lines[1].contains(QStringLiteral("no GPU present")))),
             qPrintable(lines[1]));
  }

  // From the build folder a preset name finds the source tree's presets. An unknown key
  // set on top fails after the file was found and read, so nothing is trained.
  void presetNameFromTheBuildFolder() {
    QTemporaryDir dir;
    const Run r = runCli({"train", "--config", "tiny", "--run-dir", dir.filePath("run"), "--set",
                          "model.no_such_key=1"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("model.no_such_key: unknown key"), qPrintable(r.err));
  }

  void unknownPresetListsPresetsAndFolders() {
    const Run r = runCli({"train", "--config", "no-such-preset"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("no-such-preset: no such file, and no preset of that name"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains(" tiny") && r.err.contains(" bert-base"), qPrintable(r.err));
    QVERIFY2(r.err.contains(ATTNLAB_SOURCE_DIR "/resources/configs"), qPrintable(r.err));
  }

  // Installed elsewhere, the same binary looks in <prefix>/share/attnlab/configs and never
  // in the source tree.
  void installedCopyUsesItsOwnPresetsOnly() {
    QTemporaryDir prefix;
    const QString cli = installCliCopy(prefix);
    QVERIFY(!cli.isEmpty());
    const QString configs = prefix.filePath(QStringLiteral("share/attnlab/configs"));

    Run r = runCopy(cli, {"train", "--config", "tiny"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(configs + " (not found)"), qPrintable(r.err));
    QVERIFY2(!r.err.contains(ATTNLAB_SOURCE_DIR), qPrintable(r.err));

    QVERIFY(QDir().mkpath(configs));
    QVERIFY(QFile::copy(QStringLiteral(ATTNLAB_SOURCE_DIR "/resources/configs/tiny.toml"),
                        configs + QStringLiteral("/mine.toml")));
    r = runCopy(cli, {"train", "--config", "mine", "--run-dir", prefix.filePath("run"), "--set",
                      "model.no_such_key=1"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("model.no_such_key: unknown key"), qPrintable(r.err));
  }

  // Without the bridge at <prefix>/lib/<arch>/attnlab the error names that path and every
  // other one tried.
  void installedCopyWithoutTheBridgeNamesThePathsTried() {
    QTemporaryDir prefix;
    const QString cli = installCliCopy(prefix);
    QVERIFY(!cli.isEmpty());
    const Run r =
        runCopy(cli, {"smoke", "--work-dir", prefix.filePath("work"), "--wordnet-dir",
                      QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/app/fixtures/wordnet_mini")});
    QVERIFY(r.exitCode != 0);
    const QString expected =
        prefix.filePath(QStringLiteral(ATTNLAB_PLUGIN_SUBDIR "/libattnlab_spbridge.so"));
    QVERIFY2(r.err.contains("tried:") && r.err.contains(expected + " (not found)") &&
                 r.err.contains(prefix.filePath(QStringLiteral("bin/libattnlab_spbridge.so"))),
             qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestCliInstallLayout)
#include "test_cli_install_layout.moc"
