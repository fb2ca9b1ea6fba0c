// A newcomer's first minutes in the window (issue 25), driven as a person would: the empty
// window offers New run, Open run, the demo's run and the recent runs (a click opens one, and
// closing the last run brings the offer back); two runs of one name are told apart by their
// folder; the New run dialog proposes a fresh name when the preset's folder holds a run.
#include "app/gui/app_settings.h"
#include "app/gui/main_window.h"
#include "app/gui/new_run/new_run_dialog.h"
#include "app/gui/opened_runs.h"
#include "app/gui/panels/runs_panel.h"
#include "app/gui/panels/welcome_panel.h"
#include "app/gui/view_tabs.h"
#include "core/config/config_loader.h"
#include "tests/support/cli_process.h"
#include "tests/support/tiny_run_setup.h"

#include <QCommandLinkButton>
#include <QDir>
#include <QLineEdit>
#include <QSettings>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace attnlab;

class TestFirstMinutes : public QObject {
  Q_OBJECT
  QTemporaryDir m_settingsDir, m_dir;
  QString m_run;  // a finished tiny run called "tiny"

  QString qpath(const QString& name) const { return m_dir.filePath(name); }

  static QCommandLinkButton* runButton(app::MainWindow& window, const QString& dir) {
    for (auto* b :
         window.parts().welcome->findChildren<QCommandLinkButton*>(QStringLiteral("welcomeRun")))
      if (b->description() == QDir::toNativeSeparators(dir)) return b;
    return nullptr;
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttnLabTest"));
    QCoreApplication::setApplicationName(QStringLiteral("test_first_minutes"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
    qunsetenv("ATTNLAB_CONFIG_DIR");
    const core::RunConfig config = tests::prepareTinyRun(m_dir.path().toStdString());
    std::ofstream(qpath(QStringLiteral("tiny.toml")).toStdString()) << core::toToml(config);
    m_run = qpath(QStringLiteral("runs/tiny"));
    const auto r = tests::runCli(
        {"train", "--config", qpath(QStringLiteral("tiny.toml")), "--run-dir", m_run, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
  }

  void init() { QSettings().clear(); }

  void emptyWindowOffersWaysToBegin() {
    app::AppSettings().setRunsFolder(qpath(QStringLiteral("runs")));
    const QString other = qpath(QStringLiteral("elsewhere"));
    QVERIFY(QDir().mkpath(other));
    app::AppSettings().addRecentRun(other);
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* centre = qobject_cast<QStackedWidget*>(window.centralWidget());
    QVERIFY(centre != nullptr);
    QCOMPARE(centre->currentWidget(), static_cast<QWidget*>(window.parts().welcome));
    QVERIFY(
        window.parts().welcome->findChild<QCommandLinkButton*>(QStringLiteral("welcomeNewRun")));
    QVERIFY(
        window.parts().welcome->findChild<QCommandLinkButton*>(QStringLiteral("welcomeOpenRun")));
    // The demo's run (tiny under the runs folder) first, then the recent runs.
    QCOMPARE(window.parts().welcome->offeredRuns(), (QStringList{QDir::cleanPath(m_run), other}));

    QCommandLinkButton* demo = runButton(window, QDir::cleanPath(m_run));
    QVERIFY(demo != nullptr);
    QTest::mouseClick(demo, Qt::LeftButton);
    QTRY_COMPARE(window.parts().runs->runs().size(), qsizetype{1});
    QCOMPARE(centre->currentWidget(), static_cast<QWidget*>(window.parts().views));

    // Closing the last run brings the offer back, with the run now among the recent ones.
    window.closeRun(window.parts().runsPanel->currentRun());
    QTRY_COMPARE(centre->currentWidget(), static_cast<QWidget*>(window.parts().welcome));
    QVERIFY(window.parts().welcome->offeredRuns().contains(QDir::cleanPath(m_run)));
  }

  void sameNamedRunsShowTheirFolders() {
    const QString copy = qpath(QStringLiteral("second/tiny-again"));
    QVERIFY(QDir().mkpath(copy));
    for (const QString& f : {QStringLiteral("run.h5"), QStringLiteral("config.toml")})
      QVERIFY(QFile::copy(m_run + QLatin1Char('/') + f, copy + QLatin1Char('/') + f));
    app::MainWindow window;
    window.show();
    app::RunSession* first = window.openRun(m_run);
    QVERIFY(first != nullptr);
    QTRY_COMPARE(first->name(), QStringLiteral("tiny"));
    // Alone, a run shows its name.
    QVERIFY(window.parts().runsPanel->rowText(first).startsWith(QStringLiteral("tiny\n")));
    app::RunSession* second = window.openRun(copy);
    QVERIFY(second != nullptr);
    QTRY_COMPARE(second->name(), QStringLiteral("tiny"));
    QTRY_VERIFY(
        window.parts().runsPanel->rowText(first).startsWith(QStringLiteral("tiny (tiny)\n")));
    QTRY_VERIFY(window.parts().runsPanel->rowText(second).startsWith(
        QStringLiteral("tiny (tiny-again)\n")));
    window.closeRun(second);
    QTRY_VERIFY(window.parts().runsPanel->rowText(first).startsWith(QStringLiteral("tiny\n")));
  }

  void newRunDialogProposesAFreshName() {
    // runs/tiny holds a run: the tiny preset proposes tiny-2, a new run, not a resume.
    app::NewRunDialog dialog(qpath(QStringLiteral("runs")), QStringLiteral("tiny"));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QCOMPARE(dialog.config().run.name, std::string("tiny-2"));
    QCOMPARE(dialog.runDirectory(), QDir::cleanPath(qpath(QStringLiteral("runs/tiny-2"))));
    QCOMPARE(dialog.startButton()->text(), QStringLiteral("Start"));
    QVERIFY(!dialog.resumesExistingRun());
    // A folder typed by hand is taken as typed: there the dialog resumes.
    auto* directory = dialog.findChild<QLineEdit*>(QStringLiteral("runDirectory"));
    directory->selectAll();
    QTest::keyClicks(directory, m_run);
    QTRY_COMPARE(dialog.startButton()->text(), QStringLiteral("Resume"));
  }
};

QTEST_MAIN(TestFirstMinutes)
#include "test_first_minutes.moc"
