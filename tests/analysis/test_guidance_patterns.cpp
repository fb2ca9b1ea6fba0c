// The guidance target matrices against matrices written out by hand for one short sentence
// "<s> a . b . </s>" plus one padding position: next/prev/first shift one step, separator
// and period spread each row uniformly over their positions, empty rows and padding stay
// zero, and an unknown name is refused with the known ones listed.
#include "analysis/attention/guidance_patterns.h"

#include <QtTest>

#include <stdexcept>
#include <string>
#include <vector>

using attnlab::analysis::guidancePatternMatrix;

namespace {

const std::vector<std::string> kPieces = {"<s>",
                                          "\xE2\x96\x81"
                                          "a",
                                          ".",
                                          "\xE2\x96\x81"
                                          "b",
                                          "\xE2\x96\x81.",
                                          "</s>",
                                          "<pad>"};

void compareMatrix(const std::vector<float>& got, const std::vector<std::vector<float>>& want) {
  QCOMPARE(got.size(), want.size() * want.size());
  for (std::size_t r = 0; r < want.size(); ++r)
    for (std::size_t c = 0; c < want.size(); ++c)
      QVERIFY2(std::abs(got[r * want.size() + c] - want[r][c]) < 1e-7f,
               qPrintable(QStringLiteral("cell (%1, %2): %3, expected %4")
                              .arg(r)
                              .arg(c)
                              .arg(got[r * want.size() + c])
                              .arg(want[r][c])));
}

}  // namespace

class TestGuidancePatterns : public QObject {
  Q_OBJECT
 private slots:
  void next() {
    compareMatrix(guidancePatternMatrix("next", kPieces, 6), {{0, 1, 0, 0, 0, 0, 0},
                                                              {0, 0, 1, 0, 0, 0, 0},
                                                              {0, 0, 0, 1, 0, 0, 0},
                                                              {0, 0, 0, 0, 1, 0, 0},
                                                              {0, 0, 0, 0, 0, 1, 0},
                                                              {0, 0, 0, 0, 0, 0, 0},
                                                              {0, 0, 0, 0, 0, 0, 0}});
  }
  void prev() {
    compareMatrix(guidancePatternMatrix("prev", kPieces, 6), {{0, 0, 0, 0, 0, 0, 0},
                                                              {1, 0, 0, 0, 0, 0, 0},
                                                              {0, 1, 0, 0, 0, 0, 0},
                                                              {0, 0, 1, 0, 0, 0, 0},
                                                              {0, 0, 0, 1, 0, 0, 0},
                                                              {0, 0, 0, 0, 1, 0, 0},
                                                              {0, 0, 0, 0, 0, 0, 0}});
  }
  void first() {
    compareMatrix(guidancePatternMatrix("first", kPieces, 6), {{1, 0, 0, 0, 0, 0, 0},
                                                               {1, 0, 0, 0, 0, 0, 0},
                                                               {1, 0, 0, 0, 0, 0, 0},
                                                               {1, 0, 0, 0, 0, 0, 0},
                                                               {1, 0, 0, 0, 0, 0, 0},
                                                               {1, 0, 0, 0, 0, 0, 0},
                                                               {0, 0, 0, 0, 0, 0, 0}});
  }
  void separator() {
    const std::vector<float> row = {0, 0, 0, 0, 0, 1, 0};
    const std::vector<float> none(7, 0.0f);
    compareMatrix(guidancePatternMatrix("separator", kPieces, 6),
                  {row, row, row, row, row, row, none});
  }
  void periodSpreadsOverBothPeriodPieces() {
    const std::vector<float> row = {0, 0, 0.5f, 0, 0.5f, 0, 0};
    const std::vector<float> none(7, 0.0f);
    compareMatrix(guidancePatternMatrix("period", kPieces, 6),
                  {row, row, row, row, row, row, none});
  }
  void noPeriodGivesEmptyRows() {
    const std::vector<std::string> pieces = {"<s>", "a", "</s>"};
    compareMatrix(guidancePatternMatrix("period", pieces), {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}});
    // Without a length every piece is real.
    compareMatrix(guidancePatternMatrix("next", pieces), {{0, 1, 0}, {0, 0, 1}, {0, 0, 0}});
  }
  void unknownPatternIsRefused() {
    try {
      (void)guidancePatternMatrix("delim", kPieces);
      QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
      const QString message = QString::fromUtf8(e.what());
      QVERIFY2(
          message.contains("'delim'") && message.contains("next, prev, first, separator, period"),
          qPrintable(message));
    }
  }
};

QTEST_APPLESS_MAIN(TestGuidancePatterns)
#include "test_guidance_patterns.moc"
