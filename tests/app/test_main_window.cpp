#include "app/gui/main_window.h"

#include <QLabel>
#include <QtTest>

class TestMainWindow : public QObject {
  Q_OBJECT
 private slots:
  void showsTitleAndEnvironment() {
    attnlab::app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.windowTitle(), QStringLiteral("AttnLab"));
    QVERIFY2(window.environmentSummary().contains("LibTorch"),
             qPrintable(window.environmentSummary()));
    auto* label = window.findChild<QLabel*>("environmentLabel");
    QVERIFY(label != nullptr && label->isVisible());
    const QImage shot = window.grab().toImage();
    QVERIFY(!shot.isNull() && shot.width() > 100);
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
