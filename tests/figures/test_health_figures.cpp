// The attention-health figures (figures/health_figures.h) as a user makes them: a tiny run
// trained by the CLI with the health stream on (the default) and one with log.health = false;
// each figure exported through `attnlab-cli export` as PNG, SVG and PDF and checked as a
// reader would; the data each figure plots compared value for value with the run log read
// independently (h5py, /series/health/<name>/value); health-massive at the last step and at
// --step; a log without health/ series refused with a message naming the log and the setting.
#include "figures/figure_builder.h"
#include "figures/figure_catalog.h"
#include "figures/figure_errors.h"
#include "figures/health_figures.h"
#include "tests/support/cli_process.h"
#include "tests/support/small_run_toml.h"
#include "tests/support/tiny_corpus.h"
#include "widgets/plots/scatter_plot.h"

#include <qcustomplot.h>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <cmath>

using attnlab::tests::kPython;
using attnlab::tests::runCli;
using attnlab::tests::runProcess;
namespace figures = attnlab::figures;
namespace widgets = attnlab::widgets;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Every <text> element of an SVG, joined by newlines; `error` set when it is not XML.
QString svgText(const QByteArray& svg, QString* error) {
  QStringList texts;
  QXmlStreamReader xml(svg);
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement() && xml.name() == QLatin1String("text"))
      texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
  }
  if (xml.hasError()) *error = xml.errorString();
  return texts.join('\n');
}

// The health series of a run log as h5py reads them, without AttnLab: steps, and each
// series' rows flattened (NaN as null), as JSON.
const char* kReadHealth =
    "import h5py, json, math, sys\n"
    "f = h5py.File(sys.argv[1], 'r')\n"
    "g = f['series/health']\n"
    "out = {'steps': [int(s) for s in g['sink_rate/step'][()]]}\n"
    "for name in ['sink_rate', 'entropy_min', 'logit_max', 'massive_value', 'median_abs']:\n"
    "    v = g[name + '/value'][()]\n"
    "    assert str(v.dtype) == 'float32', (name, v.dtype)\n"
    "    out[name + '/shape'] = list(v.shape)\n"
    "    out[name] = [[None if math.isnan(x) else x for x in row.reshape(-1).tolist()]\n"
    "                 for row in v]\n"
    "print(json.dumps(out))\n";

QVector<int> shapeOf(const QJsonValue& v) {
  QVector<int> shape;
  for (const QJsonValue d : v.toArray()) shape << d.toInt();
  return shape;
}

double valueOf(const QJsonValue& v) {
  return v.isNull() ? std::nan("") : v.toDouble();
}

// Equal as plotted: the same number, or both NaN (a gap in the line).
bool same(double plotted, double logged) {
  return plotted == logged || (std::isnan(plotted) && std::isnan(logged));
}

// The QCPBars of a plot in the order they were added.
QVector<QCPBars*> barsOf(widgets::PlotWidget& plot) {
  QVector<QCPBars*> bars;
  for (int i = 0; i < plot.customPlot()->plottableCount(); ++i)
    if (auto* b = qobject_cast<QCPBars*>(plot.customPlot()->plottable(i))) bars << b;
  return bars;
}

}  // namespace

class TestHealthFigures : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const QString corpus = m_dir.filePath("corpus.txt");
    QVERIFY(attnlab::tests::writeBytes(
        corpus, QByteArray::fromStdString(attnlab::tests::regularCorpusText(400))));
    // 6 steps, health every step (log_every = 1): rows at steps 0 to 6.
    QVERIFY(attnlab::tests::writeBytes(m_dir.filePath("healthy.toml"),
                                       attnlab::tests::smallRunToml("healthy", corpus, 6, 3)));
    // smallRunToml ends in [log]: this key lands there.
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("nohealth.toml"),
        attnlab::tests::smallRunToml("nohealth", corpus, 2, 2) + "health = false\n"));
    m_healthy = m_dir.filePath("healthy");
    m_noHealth = m_dir.filePath("nohealth");
    for (const auto& [toml, run] : {std::pair{QString("healthy.toml"), m_healthy},
                                    std::pair{QString("nohealth.toml"), m_noHealth}}) {
      const auto r = runCli({"train", "--config", m_dir.filePath(toml), "--run-dir", run});
      QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    }
    const auto py = runProcess(kPython, {"-c", kReadHealth, m_healthy + "/run.h5"});
    QVERIFY2(py.exitCode == 0, qPrintable(py.out + py.err));
    QJsonParseError error;
    m_log = QJsonDocument::fromJson(py.out.toUtf8(), &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    for (const QJsonValue s : m_log["steps"].toArray()) m_steps << s.toInteger();
    QCOMPARE(m_steps, (QVector<qint64>{0, 1, 2, 3, 4, 5, 6}));
    QCOMPARE(shapeOf(m_log["entropy_min/shape"]), (QVector<int>{7, 2, 2}));
    QCOMPARE(shapeOf(m_log["massive_value/shape"]), (QVector<int>{7, 2, 3}));
  }

  // Each figure exports from the CLI as PNG (at the asked size), SVG (well-formed, with its
  // title and the words each figure must say) and PDF.
  void exportsInEveryFormat_data() {
    QTest::addColumn<QString>("figure");
    QTest::addColumn<QStringList>("mustSay");
    QTest::newRow("health-sink-rate")
        << "health-sink-rate"
        << QStringList{"Attention sink rate per token class over training: healthy",
                       "step",
                       "sink rate (share of heads with class mass > 0.3)",
                       "first",
                       "cls",
                       "sep",
                       "punctuation",
                       "other"};
    QTest::newRow("health-massive") << "health-massive"
                                    << QStringList{"Massive activations per layer, step 6: healthy",
                                                   "top-1 |h|",
                                                   "top-2 |h|",
                                                   "top-3 |h|",
                                                   "median |h|",
                                                   "layer (its output: the residual stream)",
                                                   "|h|, activation magnitude (log scale)"};
    QTest::newRow("health-entropy-logits")
        << "health-entropy-logits"
        << QStringList{"minimum attention entropy",
                       "largest attention logit S_max",
                       "min row entropy over the probe batch (nats)",
                       "L0H0",
                       "L0H1",
                       "L1H0",
                       "L1H1"};
  }
  void exportsInEveryFormat() {
    QFETCH(QString, figure);
    QFETCH(QStringList, mustSay);
    const QString stem = m_dir.filePath("cli-" + figure);
    for (const QString format : {"png", "svg", "pdf"}) {
      const auto r =
          runCli({"export", m_healthy, "--figure", figure, "--format", format, "--out",
                  stem + "." + format, "--width", "640", "--height", "480", "--dpi", "192"});
      QVERIFY2(r.exitCode == 0, qPrintable(format + ": " + r.out + r.err));
    }
    const QImage png(stem + ".png");
    QVERIFY2(!png.isNull(), qPrintable(stem + ".png"));
    QCOMPARE(png.size(), QSize(1280, 960));
    QString error;
    const QString all = svgText(readAll(stem + ".svg"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    for (const QString& word : mustSay)
      QVERIFY2(all.contains(word), qPrintable("'" + word + "' not in the SVG: " + all));
    QVERIFY(readAll(stem + ".pdf").startsWith("%PDF-"));
    const QString pdftoppm = QStandardPaths::findExecutable("pdftoppm");
    if (!pdftoppm.isEmpty()) {
      const auto r =
          runProcess(pdftoppm, {"-png", "-r", "72", "-singlefile", stem + ".pdf", stem + "-pdf"});
      QVERIFY2(r.exitCode == 0, qPrintable(r.err));
      QCOMPARE(QImage(stem + "-pdf.png").size(), QSize(640, 480));
    }
  }

  // health-sink-rate plots health/sink_rate as logged: one line per class, x the steps, on
  // a 0..1 axis.
  void sinkRateIsTheLoggedSeries() {
    auto built = figures::buildFigure({"health-sink-rate", {m_healthy.toStdString()}, {}});
    auto* plot = dynamic_cast<widgets::ScatterPlot*>(built.plot.get());
    QVERIFY(plot);
    QCOMPARE(plot->panelCount(), 1);
    const QJsonArray rows = m_log["sink_rate"].toArray();
    QCOMPARE(shapeOf(m_log["sink_rate/shape"]), (QVector<int>{7, 5}));
    const QStringList classes{"first", "cls", "sep", "punctuation", "other"};
    for (int c = 0; c < classes.size(); ++c) {
      QCPGraph* g = plot->graph(0, c);
      QVERIFY(g);
      QCOMPARE(g->name(), classes[c]);
      QCOMPARE(g->data()->size(), int(m_steps.size()));
      for (int i = 0; i < m_steps.size(); ++i) {
        QCOMPARE(g->data()->at(i)->key, double(m_steps[i]));
        const double logged = valueOf(rows[i].toArray()[c]);
        QVERIFY2(same(g->data()->at(i)->value, logged), qPrintable(classes[c]));
        QVERIFY(logged >= 0 && logged <= 1);
      }
    }
    const QCPRange y = plot->panelRect(0)->axis(QCPAxis::atLeft)->range();
    QVERIFY(y.lower <= 0 && y.lower > -0.1 && y.upper >= 1 && y.upper < 1.1);
    QCOMPARE(QString::fromStdString(built.provenance.at(0).steps), "steps 0-6, 7 rows");
  }

  // health-entropy-logits: per head L<l>H<h> the logged entropy_min (left) and logit_max
  // (right).
  void entropyAndLogitsAreTheLoggedSeries() {
    auto built = figures::buildFigure({"health-entropy-logits", {m_healthy.toStdString()}, {}});
    auto* plot = dynamic_cast<widgets::ScatterPlot*>(built.plot.get());
    QVERIFY(plot);
    QCOMPARE(plot->panelCount(), 2);
    const char* series[2] = {"entropy_min", "logit_max"};
    for (int p = 0; p < 2; ++p) {
      const QJsonArray rows = m_log[series[p]].toArray();
      for (int l = 0; l < 2; ++l) {
        for (int h = 0; h < 2; ++h) {
          QCPGraph* g = plot->graph(p, l * 2 + h);
          QVERIFY(g);
          QCOMPARE(g->name(), QStringLiteral("L%1H%2").arg(l).arg(h));
          QCOMPARE(g->data()->size(), int(m_steps.size()));
          for (int i = 0; i < m_steps.size(); ++i) {
            QCOMPARE(g->data()->at(i)->key, double(m_steps[i]));
            QVERIFY2(same(g->data()->at(i)->value, valueOf(rows[i].toArray()[l * 2 + h])),
                     series[p]);
          }
        }
      }
    }
    // Entropy in nats over real rows of at most 24 keys: within [0, ln 24].
    for (const QJsonValue row : m_log["entropy_min"].toArray())
      for (const QJsonValue v : row.toArray())
        QVERIFY(v.toDouble() >= 0 && v.toDouble() <= std::log(24.0) + 1e-5);
  }

  // health-massive: per layer the logged top-3 |h| and the median |h| of the last row by
  // default, of the asked step's row with --step; log y axis; top-1 values in the SVG.
  void massiveIsTheLoggedRow_data() {
    QTest::addColumn<int>("step");  // -1: none given
    QTest::addColumn<int>("row");
    QTest::newRow("last step") << -1 << 6;
    QTest::newRow("--step 2") << 2 << 2;
  }
  void massiveIsTheLoggedRow() {
    QFETCH(int, step);
    QFETCH(int, row);
    std::optional<std::int64_t> asked;
    if (step >= 0) asked = step;
    auto built = figures::buildFigure({"health-massive", {m_healthy.toStdString()}, asked});
    QCOMPARE(built.plot->title(),
             QStringLiteral("Massive activations per layer, step %1: healthy").arg(row));
    const QVector<QCPBars*> bars = barsOf(*built.plot);
    QCOMPARE(bars.size(), 4);
    const QJsonArray top = m_log["massive_value"].toArray()[row].toArray();
    const QJsonArray median = m_log["median_abs"].toArray()[row].toArray();
    for (int k = 0; k < 4; ++k) {
      QCOMPARE(bars[k]->name(), QString::fromLatin1(figures::kMassiveBarNames[k]));
      QCOMPARE(bars[k]->data()->size(), 2);
      for (int l = 0; l < 2; ++l) {
        QCOMPARE(bars[k]->data()->at(l)->key, double(l));
        const double logged = k < 3 ? valueOf(top[l * 3 + k]) : valueOf(median[l]);
        QCOMPARE(bars[k]->data()->at(l)->value, logged);
        QVERIFY(logged > 0);
      }
    }
    for (int l = 0; l < 2; ++l) {  // largest first, the median below the top-3
      QVERIFY(valueOf(top[l * 3]) >= valueOf(top[l * 3 + 1]));
      QVERIFY(valueOf(top[l * 3 + 1]) >= valueOf(top[l * 3 + 2]));
      QVERIFY(valueOf(median[l]) <= valueOf(top[l * 3 + 2]));
    }
    QCOMPARE(built.plot->customPlot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    // The same numbers reach the exported file: the top-1 labels in the SVG's text.
    QStringList args{"export",   m_healthy,
                     "--figure", "health-massive",
                     "--out",    m_dir.filePath(QStringLiteral("massive-%1.svg").arg(row))};
    if (asked) args << "--step" << QString::number(step);
    const auto r = runCli(args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QString error;
    const QString svg = svgText(readAll(args[5]), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(svg.contains(QStringLiteral("step %1: healthy").arg(row)), qPrintable(svg));
    for (int l = 0; l < 2; ++l) {
      const QString label = QString::number(valueOf(top[l * 3]), 'g', 3);
      QVERIFY2(svg.contains(label), qPrintable(label + " not in " + svg));
    }
  }

  // A run trained with log.health = false: each figure is refused, naming the run log and
  // how to get the series; exit 1 and no file.
  void runWithoutHealthIsRefused_data() {
    QTest::addColumn<QString>("figure");
    QTest::newRow("health-sink-rate") << "health-sink-rate";
    QTest::newRow("health-massive") << "health-massive";
    QTest::newRow("health-entropy-logits") << "health-entropy-logits";
  }
  void runWithoutHealthIsRefused() {
    QFETCH(QString, figure);
    const QString out = m_dir.filePath("refused.png");
    const auto r = runCli({"export", m_noHealth, "--figure", figure, "--out", out});
    QCOMPARE(r.exitCode, 1);
    for (const QString& e : {m_noHealth + "/run.h5", QString("has no health/ series"),
                             QString("log.health = false"), QString("log.health = true")})
      QVERIFY2(r.err.contains(e), qPrintable(e + " not in: " + r.err));
    QVERIFY(!QFile::exists(out));
    try {
      figures::buildFigure({figure.toStdString(), {m_noHealth.toStdString()}, {}});
      QFAIL("no error");
    } catch (const figures::FigureInputError& e) {
      QCOMPARE(QString::fromStdString(e.where()), m_noHealth);
      QVERIFY2(QString::fromStdString(e.reason()).contains("no health/ series"), e.what());
    }
  }

  // A step before the first health row is refused with the rows there are.
  void massiveBeforeTheFirstRowIsRefused() {
    try {
      figures::buildFigure({"health-massive", {m_healthy.toStdString()}, std::int64_t{-1}});
      QFAIL("no error");
    } catch (const figures::FigureInputError& e) {
      QVERIFY2(QString::fromStdString(e.reason()).contains("no health row at or before step -1"),
               e.what());
      QVERIFY2(QString::fromStdString(e.reason()).contains("steps 0-6, 7 rows"), e.what());
    }
  }

 private:
  QTemporaryDir m_dir;
  QString m_healthy, m_noHealth;
  QJsonObject m_log;
  QVector<qint64> m_steps;
};

QTEST_MAIN(TestHealthFigures)
#include "test_health_figures.moc"
