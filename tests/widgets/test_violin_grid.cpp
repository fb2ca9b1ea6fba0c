// Violin grid: it draws the analysis' summaries, colour classes and head order (an analysis
// result straight in, and raw samples through the analysis' own streaming distribution),
// checked against exact quantiles of known data; one violin per head on the image, units on
// the axis, RealFormer's thresholds, export.
#include "widgets/plots/violin_grid.h"

#include <qcustomplot.h>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "analysis/attention/attention_statistics.h"
#include "tests/widgets/sample_data.h"
#include "tests/widgets/widget_test_support.h"

using namespace attnlab::widgets;
using attnlab::analysis::ColourClass;
using attnlab::analysis::DistributionSummary;

namespace {

// Samples around `centre` with a small spread.
std::vector<double> around(double centre, unsigned seed, int n = 300) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(centre, 0.2);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(d(rng));
  return v;
}

// Runs of non-background pixels along row y between x0 and x1.
int runsAlong(const QImage& image, int y, int x0, int x1, QRgb background) {
  int runs = 0;
  bool inside = false;
  for (int x = x0; x <= x1; ++x) {
    const bool ink = image.pixel(x, y) != background;
    if (ink && !inside) ++runs;
    inside = ink;
  }
  return runs;
}

// numpy.quantile(values, q) ("linear", type 7), computed here from the sorted values.
double exactQuantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(pos));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (pos - static_cast<double>(below)) * (values[above] - values[below]);
}

// Attention with known row entropies: in layer l, head h, query row i attends uniformly to
// the first width(l, h, i) keys, so the row's entropy is ln width exactly.
constexpr int kT = 129;  // 129 rows: the quartiles' ranks 32, 64, 96 are whole numbers
constexpr int kLayers = 2, kHeads = 3;
using Width = std::function<int(int row)>;
const Width kNarrow = [](int i) { return 1 + i % 4; };   // median ln 2: BLUE
const Width kGrowing = [](int i) { return i + 1; };      // median ln 65 = 4.17: YELLOW
const Width kBroad = [](int i) { return 91 + i % 39; };  // median > ln 91 = 4.51: RED
// Layer 0 heads: narrow, growing, broad; layer 1: broad, narrow, growing.
const Width& widthOf(int layer, int head) {
  static const Width* table[kLayers][kHeads] = {{&kNarrow, &kGrowing, &kBroad},
                                                {&kBroad, &kNarrow, &kGrowing}};
  return *table[layer][head];
}

std::vector<double> knownEntropies(int layer, int head) {
  std::vector<double> v;
  for (int i = 0; i < kT; ++i) v.push_back(std::log(double(widthOf(layer, head)(i))));
  return v;
}

attnlab::analysis::AttentionStatisticsResult knownResult() {
  std::vector<float> p(std::size_t(kLayers) * kHeads * kT * kT, 0.0f);
  for (int l = 0; l < kLayers; ++l)
    for (int h = 0; h < kHeads; ++h)
      for (int i = 0; i < kT; ++i) {
        const int w = widthOf(l, h)(i);
        float* row = p.data() + ((std::size_t(l) * kHeads + h) * kT + i) * kT;
        std::fill(row, row + w, 1.0f / float(w));
      }
  attnlab::analysis::StatisticsOptions o;
  o.pairwiseSequences = 0;
  o.threads = 1;
  attnlab::analysis::AttentionStatistics stats(kLayers, kHeads, kT, o);
  attnlab::analysis::SequenceRoles roles;
  roles.length = kT;
  stats.addSequence(p.data(), kT, roles);
  return stats.result();
}

bool sameSummary(const DistributionSummary& a, const DistributionSummary& b) {
  return a.count == b.count && a.q1 == b.q1 && a.median == b.median && a.q3 == b.q3 &&
         a.min == b.min && a.max == b.max && a.resolution == b.resolution && a.kdeX == b.kdeX &&
         a.kdeDensity == b.kdeDensity && a.histogramCounts == b.histogramCounts;
}

// A class colour as the widget paints it: alpha 215 over the background.
QColor painted(const QColor& c, const QColor& background) {
  const double a = 215.0 / 255.0;
  return QColor::fromRgbF(float(a * c.redF() + (1 - a) * background.redF()),
                          float(a * c.greenF() + (1 - a) * background.greenF()),
                          float(a * c.blueF() + (1 - a) * background.blueF()));
}

bool near(const QColor& a, const QColor& b, int tolerance = 12) {
  return std::abs(a.red() - b.red()) <= tolerance && std::abs(a.green() - b.green()) <= tolerance &&
         std::abs(a.blue() - b.blue()) <= tolerance;
}

}  // namespace

class TestViolinGrid : public QObject {
  Q_OBJECT
 private slots:
  // The tie between widget and analysis: an AttentionStatistics result goes in as it is, and
  // what is drawn (quartile values, median line, fill colour, head order) is the analysis'
  // summary, which lies within its stated one-bin resolution of the exact quantiles of the
  // rows' known entropies.
  void drawsTheAnalysisResultAsItIs() {
    const attnlab::analysis::AttentionStatisticsResult result = knownResult();
    ViolinGrid w;
    w.resize(700, 1400);
    w.showEntropy(result);
    QCOMPARE(w.rows(), kLayers);
    QCOMPARE(w.heads(), kHeads);
    QCOMPARE(w.violinCount(), kLayers * kHeads);
    // By hand: narrow < growing < broad.
    QCOMPARE(w.headOrder(0), (std::vector<int>{0, 1, 2}));
    QCOMPARE(w.headOrder(1), (std::vector<int>{1, 2, 0}));
    const ColourClass expected[kLayers][kHeads] = {
        {ColourClass::Blue, ColourClass::Yellow, ColourClass::Red},
        {ColourClass::Red, ColourClass::Blue, ColourClass::Yellow}};
    for (int l = 0; l < kLayers; ++l) {
      QCOMPARE(w.headOrder(l), result.headOrder[std::size_t(l)]);
      for (int h = 0; h < kHeads; ++h) {
        const std::size_t i = std::size_t(l) * kHeads + h;
        const DistributionSummary& drawn = w.summary(l, h);
        QVERIFY(sameSummary(drawn, result.entropy[i]));
        QCOMPARE(w.violinClass(l, h), result.entropyColours[i]);
        QCOMPARE(w.violinClass(l, h), expected[l][h]);
        // Independent values: numpy's quantiles of the known entropies (the ranks are whole,
        // so each is one of the values, and the analysis' estimate lies in its bin).
        const std::vector<double> truth = knownEntropies(l, h);
        const double tolerance = drawn.resolution + 1e-6;  // + the kernels' log error
        QVERIFY(drawn.resolution > 0 && drawn.resolution < 2e-3);
        for (auto [q, value] :
             {std::pair{0.25, drawn.q1}, std::pair{0.5, drawn.median}, std::pair{0.75, drawn.q3}}) {
          const double exact = exactQuantile(truth, q);
          QVERIFY2(std::abs(value - exact) <= tolerance,
                   qPrintable(QString("L%1 h%2 q%3: drawn %4, exact %5")
                                  .arg(l)
                                  .arg(h)
                                  .arg(q)
                                  .arg(value, 0, 'g', 9)
                                  .arg(exact, 0, 'g', 9)));
        }
      }
    }

    // On the image: the solid median line sits at the summary's median, and the fill between
    // median and third quartile has the class colour.
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    const Theme& theme = w.theme();
    const QColor classColour[] = {theme.classLow, theme.classMid, theme.classHigh};
    for (int l = 0; l < kLayers; ++l) {
      QCPAxisRect* rect = w.rowRect(l);
      QCPAxis* x = rect->axis(QCPAxis::atBottom);
      QCPAxis* y = rect->axis(QCPAxis::atLeft);
      const std::vector<int> order = w.headOrder(l);
      for (int slot = 0; slot < kHeads; ++slot) {
        const int h = order[std::size_t(slot)];
        const DistributionSummary& s = w.summary(l, h);
        const int cx = int(std::lround(x->coordToPixel(slot)));
        const double medianPx = y->coordToPixel(s.median);
        // The layout must leave room between the lines for the colour probe.
        QVERIFY(std::abs(y->coordToPixel(s.q3) - medianPx) >= 8);
        bool line = false;
        for (int dy = -1; dy <= 1; ++dy)
          line |= image.pixelColor(cx, int(std::lround(medianPx)) + dy).lightness() < 80;
        QVERIFY2(line, qPrintable(
                           QString("L%1 h%2: no median line at y=%3").arg(l).arg(h).arg(medianPx)));
        const QColor fill =
            image.pixelColor(cx + 2, int(std::lround(0.5 * (medianPx + y->coordToPixel(s.q3)))));
        const QColor want = painted(classColour[int(w.violinClass(l, h))], theme.background);
        QVERIFY2(near(fill, want),
                 qPrintable(
                     QString("L%1 h%2: %3, want %4").arg(l).arg(h).arg(fill.name(), want.name())));
      }
    }
  }

  void drawsTheAnalysisJsdWithItsColoursAndUnit() {
    const attnlab::analysis::AttentionStatisticsResult result = knownResult();
    ViolinGrid w;
    w.showAdjacentJsd(result);
    QCOMPARE(w.rows(), kLayers - 1);
    QCOMPARE(w.violinCount(), kHeads);
    QCOMPARE(w.scale().unit, QString("bits"));
    QVERIFY(w.rowRect(0)->axis(QCPAxis::atLeft)->label().startsWith("L0-L1"));
    QCOMPARE(w.headOrder(0), attnlab::analysis::orderByMedian(std::span<const DistributionSummary>(
                                 result.adjacentJsd.data(), std::size_t(kHeads))));
    for (int h = 0; h < kHeads; ++h) {
      QVERIFY(sameSummary(w.summary(0, h), result.adjacentJsd[std::size_t(h)]));
      QCOMPARE(w.violinClass(0, h), result.jsdColours[std::size_t(h)]);
    }
  }

  // Raw samples go through the analysis' streaming distribution, not through code of the
  // widget's own: the drawn summary is the analysis' summary of the same samples.
  void samplesAreSummarisedByTheAnalysis() {
    std::vector<std::vector<double>> samples;
    std::mt19937 rng(4);
    for (int k = 0; k < 4; ++k) {
      std::gamma_distribution<double> g(2.0 + k, 0.3);
      std::vector<double> v;
      for (int i = 0; i < 401; ++i) v.push_back(g(rng));  // 401: whole quartile ranks
      samples.push_back(v);
    }
    ViolinGrid w;
    w.setSamples(2, 2, samples);
    double top = 0.0;
    for (const auto& v : samples) top = std::max(top, *std::max_element(v.begin(), v.end()));
    for (int i = 0; i < 4; ++i) {
      // Entropy is bounded below by 0 and not above: the range is [0, largest sample].
      attnlab::analysis::StreamingDistribution d(0.0, top);
      d.addMany(std::span<const double>(samples[std::size_t(i)]));
      const DistributionSummary& drawn = w.summary(i / 2, i % 2);
      QVERIFY(sameSummary(drawn, d.summarise()));
      QCOMPARE(drawn.count, std::int64_t(401));
      for (double q : {0.25, 0.5, 0.75}) {
        const double exact = exactQuantile(samples[std::size_t(i)], q);
        const double value = q == 0.25 ? drawn.q1 : q == 0.5 ? drawn.median : drawn.q3;
        QVERIFY(std::abs(value - exact) <= drawn.resolution);
      }
      QCOMPARE(w.violinClass(i / 2, i % 2), attnlab::analysis::entropyColour(drawn.median));
    }
    // Non-finite samples are left out, as the analysis leaves them out.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    w.setSamples(1, 1, {{nan, 1.0, 2.0, 3.0, std::numeric_limits<double>::infinity()}});
    QCOMPARE(w.summary(0, 0).count, std::int64_t(3));
    QVERIFY(std::abs(w.summary(0, 0).median - 2.0) <= w.summary(0, 0).resolution);
  }

  void imageShowsOneViolinPerHead() {
    ViolinGrid w;
    w.resize(900, 700);
    const int rows = 3, heads = 5;
    std::vector<std::vector<double>> samples;
    for (int i = 0; i < rows * heads; ++i) samples.push_back(around(3.0, i + 1));
    w.setSamples(rows, heads, samples);
    w.setTitle("Entropy");
    QCOMPARE(w.violinCount(), rows * heads);
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    const QRgb background = image.pixel(2, 2);
    int counted = 0;
    for (int r = 0; r < rows; ++r) {
      QCPAxisRect* rect = w.rowRect(r);
      // Scan just above the common median (3.0) so the lines across it do not matter.
      const int y = int(rect->axis(QCPAxis::atLeft)->coordToPixel(3.05));
      counted += runsAlong(image, y, rect->left() + 2, rect->right() - 2, background);
    }
    QCOMPARE(counted, rows * heads);
  }

  void headsAreOrderedByMedianAndClassified() {
    ViolinGrid w;
    w.setScale(ViolinScale::entropyNats());
    // One row: medians 5.0, 1.0, 3.0 -> order 1, 2, 0; classes RED, BLUE, YELLOW.
    w.setSamples(1, 3, {around(5.0, 1), around(1.0, 2), around(3.0, 3)});
    QCOMPARE(w.headOrder(0), (std::vector<int>{1, 2, 0}));
    QCOMPARE(w.violinClass(0, 0), ColourClass::Red);
    QCOMPARE(w.violinClass(0, 1), ColourClass::Blue);
    QCOMPARE(w.violinClass(0, 2), ColourClass::Yellow);
    QVERIFY(w.rowRect(0)->axis(QCPAxis::atLeft)->label().contains("nats"));
    auto ticks = qSharedPointerDynamicCast<QCPAxisTickerText>(
        w.rowRect(0)->axis(QCPAxis::atBottom)->ticker());
    QCOMPARE(ticks->ticks().value(0), QString("h1"));
    // The fill colour on the image is the class colour.
    w.resize(700, 400);
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    QCPAxisRect* rect = w.rowRect(0);
    auto colourAt = [&](int slot, double value) {
      return image.pixelColor(int(rect->axis(QCPAxis::atBottom)->coordToPixel(slot)) + 3,
                              int(rect->axis(QCPAxis::atLeft)->coordToPixel(value)) + 4);
    };
    const QColor red = colourAt(2, 5.0), blue = colourAt(0, 1.0), yellow = colourAt(1, 3.0);
    QVERIFY2(red.red() > 180 && red.blue() < 120, qPrintable(red.name()));
    QVERIFY2(blue.blue() > 150 && blue.red() < 120, qPrintable(blue.name()));
    QVERIFY2(yellow.red() > 180 && yellow.green() > 150 && yellow.blue() < 120,
             qPrintable(yellow.name()));
  }

  // Given colours and order win over the scale (the analysis decided them); without them the
  // widget asks the analysis' functions.
  void givenColoursAndOrderAreDrawnAsGiven() {
    std::vector<DistributionSummary> s;
    for (double centre : {1.0, 3.0}) {
      attnlab::analysis::StreamingDistribution d(0.0, 5.0);
      d.addMany(std::span<const double>(around(centre, 9)));
      s.push_back(d.summarise());
    }
    ViolinGrid w;
    w.setSummaries(1, 2, s);
    QCOMPARE(w.violinClass(0, 0), ColourClass::Blue);
    QCOMPARE(w.headOrder(0), (std::vector<int>{0, 1}));
    w.setSummaries(1, 2, s, {ColourClass::Red, ColourClass::Red}, {{1, 0}});
    QCOMPARE(w.violinClass(0, 0), ColourClass::Red);
    QCOMPARE(w.headOrder(0), (std::vector<int>{1, 0}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, w.setSummaries(1, 2, s, {ColourClass::Red}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, w.setSummaries(1, 2, s, {}, {{0, 0}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, w.setSummaries(1, 2, s, {}, {{0, 1}, {1, 0}}));
  }

  // A summary made without a KDE (kdePoints = 0) is drawn from its histogram.
  void summaryWithoutKdeDrawsItsHistogram() {
    attnlab::analysis::StreamingDistribution d(0.0, 5.0);
    d.addMany(std::span<const double>(around(2.5, 5, 2000)));
    ViolinGrid w;
    w.resize(400, 400);
    w.setSummaries(1, 1, {d.summarise(40, 0)});
    QCOMPARE(w.violinCount(), 1);
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    QCPAxisRect* rect = w.rowRect(0);
    const int y = int(rect->axis(QCPAxis::atLeft)->coordToPixel(2.2));
    const QRgb background = image.pixel(2, 2);
    QCOMPARE(runsAlong(image, y, rect->left() + 2, rect->right() - 2, background), 1);
  }

  void jsdUsesBitsAndItsThresholds() {
    const ViolinScale jsd = ViolinScale::jsdBits();
    QCOMPARE(jsd.classify(0.1), ColourClass::Blue);
    QCOMPARE(jsd.classify(0.5), ColourClass::Yellow);
    QCOMPARE(jsd.classify(0.9), ColourClass::Red);
    QCOMPARE(jsd.axisLabel(), QString("JSD (bits)"));
    const ViolinScale e = ViolinScale::entropyNats();
    QCOMPARE(e.classify(4.6), ColourClass::Red);
    QCOMPARE(e.classify(1.4), ColourClass::Blue);
    QCOMPARE(e.classify(4.5), ColourClass::Yellow);
    // In nats the thresholds follow the unit: 0.5 bits = 0.347 nats is YELLOW either way.
    QCOMPARE(ViolinScale::jsdNats().classify(0.5 * std::log(2.0)), ColourClass::Yellow);
    // 0.2 nats = 0.29 bits: YELLOW (against the bits thresholds it would read BLUE).
    QCOMPARE(ViolinScale::jsdNats().classify(0.2), ColourClass::Yellow);
    ViolinGrid w;
    w.setScale(jsd);
    w.setSamples(2, 4, sample::jsdSamples(2, 4, 200));
    // A bounded quantity shows its whole scale, and densities never leave [0, 1].
    const QCPRange r = w.rowRect(0)->axis(QCPAxis::atLeft)->range();
    QVERIFY(r.lower < 0 && r.lower > -0.1 && r.upper > 1 && r.upper < 1.1);
    for (int i = 0; i < 8; ++i) {
      const DistributionSummary& s = w.summary(i / 4, i % 4);
      QVERIFY(s.kdeX.front() >= 0.0 && s.kdeX.back() <= 1.0);
    }
  }

  void twelveByTwelveExports() {
    ViolinGrid w;
    w.setSummaries(12, 12,
                   sample::summaries(sample::entropySamples(12, 12, 512), 0.0, std::log(128.0)));
    w.setTitle("Attention entropy");
    QCOMPARE(w.violinCount(), 144);
    QTemporaryDir dir;
    const QString problem = testing::checkExports(w, dir.path(), "violins");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(testing::readAll(dir.filePath("violins.svg")).contains("nats"));
  }
};

QTEST_MAIN(TestViolinGrid)
#include "test_violin_grid.moc"
