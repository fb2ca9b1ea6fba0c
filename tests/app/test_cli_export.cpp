// `attnlab-cli export` in the build at hand: with ATTNLAB_GUI=ON it lists the figure catalog;
// in a headless build (ATTNLAB_GUI=OFF) the command still exists and fails with a message
// saying this build cannot render figures and why. tests/figures/test_figures.cpp exports
// the figures themselves.
#include "tests/support/cli_process.h"

#include <QtTest>

using attnlab::tests::runCli;

class TestCliExport : public QObject {
  Q_OBJECT
 private slots:
  void commandExistsInEveryBuild() {
    const auto r = runCli({"export", "--help"});
    QCOMPARE(r.exitCode, 0);
    for (const char* option : {"--figure", "--format", "--out", "--report", "--list", "--step"})
      QVERIFY2(r.out.contains(option), option);
  }

  // The catalog is listed in every build (it needs no rendering); a headless build says why
  // it cannot draw one.
  void listOrExplain() {
    const auto r = runCli({"export", "--list"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    for (const char* name : {"loss-curves", "guidance-fig3", "asa-fig5", "sesame-fig4",
                             "entropy-violins", "jsd-violins", "coref-heads"})
      QVERIFY2(r.out.contains(name), name);
#if !ATTNLAB_EXPECT_FIGURES
    const auto draw = runCli({"export", "runs/none", "--figure", "loss-curves", "--out", "x.png"});
    QCOMPARE(draw.exitCode, 1);
    QVERIFY2(draw.err.contains("attnlab-cli export: error: this build has no figure rendering"),
             qPrintable(draw.err));
    QVERIFY2(draw.err.contains("ATTNLAB_GUI=OFF"), qPrintable(draw.err));
#endif
  }
};

QTEST_GUILESS_MAIN(TestCliExport)
#include "test_cli_export.moc"
