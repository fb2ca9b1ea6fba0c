#include "core/data/text_encoding.h"

#include <QtTest>

using attnlab::core::isValidUtf8;
using attnlab::core::latin1ToUtf8;

class TestTextEncoding : public QObject {
  Q_OBJECT
 private slots:
  void latin1BecomesUtf8() {
    // "café" in Latin-1 is 63 61 66 E9; in UTF-8 the é is C3 A9.
    QCOMPARE(latin1ToUtf8("caf\xE9"), std::string("caf\xC3\xA9"));
    QCOMPARE(latin1ToUtf8("plain ascii"), std::string("plain ascii"));
    QCOMPARE(latin1ToUtf8("\xFF"), std::string("\xC3\xBF"));
  }
  void utf8Validation_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("valid");
    QTest::newRow("ascii") << QByteArray("hello") << true;
    QTest::newRow("two-byte") << QByteArray("caf\xC3\xA9") << true;
    QTest::newRow("four-byte") << QByteArray("\xF0\x9F\x98\x80") << true;
    QTest::newRow("lone continuation") << QByteArray("\x80") << false;
    QTest::newRow("latin1 e-acute") << QByteArray("caf\xE9") << false;
    QTest::newRow("overlong slash") << QByteArray("\xC0\xAF") << false;
    QTest::newRow("surrogate") << QByteArray("\xED\xA0\x80") << false;
    QTest::newRow("truncated") << QByteArray("\xE2\x82") << false;
    QTest::newRow("above U+10FFFF") << QByteArray("\xF4\x90\x80\x80") << false;
  }
  void utf8Validation() {
    QFETCH(QByteArray, bytes);
    QFETCH(bool, valid);
    QCOMPARE(isValidUtf8(std::string_view(bytes.constData(), bytes.size())), valid);
  }
};

QTEST_APPLESS_MAIN(TestTextEncoding)
#include "test_text_encoding.moc"
