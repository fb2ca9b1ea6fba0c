// The pieces the Analysis, Probe and Compare tabs share: ReportPicker lists one run's reports
// of one kind by step (step-2 before step-10, the other kind's folders and folders without
// their file left out) and says which one the person picked; NewestWins lets only the newest
// of overlapping reads land, whatever order they finish in (an older read finishing after a
// newer one is dropped), never after its owner is gone, and passes a read's error on.
#include "app/gui/panels/newest_wins.h"
#include "app/gui/panels/report_picker.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>

#include <algorithm>
#include <memory>
#include <stdexcept>

using namespace attnlab;
using app::NewestWins;

namespace {

// NewestWins lives in the object whose answers it guards, as in the tabs.
struct Owner : QObject {
  NewestWins loads;
  QStringList landed;
  QStringList errors;

  auto record() {
    return [this](std::shared_ptr<QString> result, const QString& error) {
      if (result)
        landed << *result;
      else
        errors << error;
    };
  }
};

// Every answer posted so far has been delivered (or dropped).
void settle() {
  QThreadPool::globalInstance()->waitForDone();
  QCoreApplication::sendPostedEvents();
  QCoreApplication::processEvents();
}

void touch(const QString& path) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("{}");
}

}  // namespace

class TestReportPicker : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // A blocked read holds one pool thread; the newer one needs another.
    QThreadPool::globalInstance()->setMaxThreadCount(
        std::max(4, QThreadPool::globalInstance()->maxThreadCount()));
  }

  void listsOneKindOfReportByStep() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString run = dir.path();
    const QString step2 = run + "/analysis/step-2/analysis.json";
    const QString step10 = run + "/analysis/step-10/analysis.json";
    const QString coref = run + "/analysis/coref-step-3/coref.json";
    touch(step10);
    touch(step2);
    touch(coref);
    QVERIFY(QDir().mkpath(run + "/analysis/step-5"));  // no analysis.json: not a report

    app::ReportPicker picker(analysis::ReportKind::Attention, "someReportBox", "someOpenButton");
    auto* box = picker.findChild<QComboBox*>("someReportBox");
    QVERIFY(box != nullptr);
    QVERIFY(picker.findChild<QPushButton*>("someOpenButton") != nullptr);
    picker.rescan();
    QVERIFY(picker.files().isEmpty());  // no run yet
    QVERIFY(!box->isEnabled());

    picker.setRunDirectory(run);
    picker.rescan();
    QCOMPARE(picker.files(), (QStringList{step2, step10}));
    QCOMPARE(box->count(), 2);
    QCOMPARE(box->itemText(0), QStringLiteral("step-2"));
    QCOMPARE(box->itemText(1), QStringLiteral("step-10"));
    QCOMPARE(box->currentIndex(), 1);  // the newest
    QVERIFY(box->isEnabled());

    QVERIFY(picker.select(step2));
    QCOMPARE(box->currentIndex(), 0);
    QVERIFY(!picker.select(coref));
    QVERIFY(!picker.select(QString()));
    QCOMPARE(box->currentIndex(), 0);

    QSignalSpy picked(&picker, &app::ReportPicker::picked);
    emit box->activated(1);  // what a click on an entry sends
    QCOMPARE(picked.count(), 1);
    QCOMPARE(picked.first().first().toString(), step10);

    app::ReportPicker probes(analysis::ReportKind::Coref, "probes", "openProbes");
    probes.setRunDirectory(run);
    probes.rescan();
    QCOMPARE(probes.files(), QStringList{coref});
  }

  void anOlderReadFinishingLastIsDropped() {
    Owner owner;
    QSemaphore releaseOlder;
    owner.loads.run<QString>(
        &owner,
        [&releaseOlder] {
          releaseOlder.acquire();
          return QStringLiteral("older");
        },
        owner.record());
    owner.loads.run<QString>(
        &owner, [] { return QStringLiteral("newer"); }, owner.record());
    QTRY_COMPARE(owner.landed, QStringList{"newer"});
    releaseOlder.release();  // the older read ends only now
    settle();
    QCOMPARE(owner.landed, QStringList{"newer"});
    QVERIFY(owner.errors.isEmpty());
  }

  void companionReadsFollowTheirRequest() {
    Owner owner;
    const NewestWins::Ticket first = owner.loads.run<QString>(
        &owner, [] { return QStringLiteral("report"); }, owner.record());
    settle();
    owner.loads.runFor<QString>(
        first, &owner, [] { return QStringLiteral("its examples"); }, owner.record());
    settle();
    QCOMPARE(owner.landed, (QStringList{"report", "its examples"}));

    // Another report asked for: the first one's companions are dropped.
    owner.loads.next();
    owner.loads.runFor<QString>(
        first, &owner, [] { return QStringLiteral("stale examples"); }, owner.record());
    settle();
    QCOMPARE(owner.landed, (QStringList{"report", "its examples"}));

    // The selection is gone: nothing in flight lands.
    owner.loads.run<QString>(
        &owner, [] { return QStringLiteral("dropped"); }, owner.record());
    owner.loads.dropAll();
    settle();
    QCOMPARE(owner.landed, (QStringList{"report", "its examples"}));
  }

  void aFailedReadSaysWhy() {
    Owner owner;
    owner.loads.run<QString>(
        &owner, []() -> QString { throw std::runtime_error("step-8/analysis.json: not JSON"); },
        owner.record());
    settle();
    QVERIFY(owner.landed.isEmpty());
    QCOMPARE(owner.errors, QStringList{"step-8/analysis.json: not JSON"});
  }

  void noAnswerAfterTheOwnerIsGone() {
    auto owner = std::make_unique<Owner>();
    QSemaphore release;
    bool called = false;
    owner->loads.run<QString>(
        owner.get(),
        [&release] {
          release.acquire();
          return QStringLiteral("late");
        },
        [&called](std::shared_ptr<QString>, const QString&) { called = true; });
    owner.reset();  // the tab closed while its read was running
    release.release();
    settle();
    QVERIFY(!called);
  }
};

QTEST_MAIN(TestReportPicker)
#include "test_report_picker.moc"
