// The figure catalog (figures/) and `attnlab-cli export` as a user runs them: two tiny runs
// trained by the CLI (one plain, one with ASA, squeeze-and-excitation and guidance on),
// analysed and probed; every figure exported in PNG, SVG and PDF and checked as a reader
// would (QImage, an XML parser, the PDF header and pdftoppm where installed); missing
// inputs give their message and exit 1; the same figure built in-process through the
// catalog and through the CLI gives the same PNG size and the same SVG text.
#include "figures/figure_builder.h"
#include "figures/figure_catalog.h"
#include "figures/figure_errors.h"
#include "tests/support/cli_process.h"
#include "tests/support/small_run_toml.h"
#include "tests/support/tiny_corpus.h"

#include <qcustomplot.h>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

using attnlab::tests::runCli;
using attnlab::tests::runProcess;
namespace figures = attnlab::figures;
namespace widgets = attnlab::widgets;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The text of every <text> element of an SVG, in document order; `error` set when the file
// is not well-formed XML.
QStringList svgTexts(const QByteArray& svg, QString* error) {
  QStringList texts;
  QXmlStreamReader xml(svg);
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement() && xml.name() == QLatin1String("text")) {
      texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    }
  }
  if (xml.hasError()) *error = xml.errorString();
  return texts;
}

// What a figure writes as words: its title, every axis label (colour scales included) and
// every legend entry, read from the built plot itself.
QStringList labelsOf(widgets::PlotWidget& plot) {
  QStringList labels{plot.title()};
  const auto addLabel = [&labels](const QString& label) {
    for (const QString& line : label.split('\n'))
      if (!line.trimmed().isEmpty()) labels << line.trimmed();
  };
  for (QCPLayoutElement* e : plot.customPlot()->plotLayout()->elements(true)) {
    if (auto* rect = qobject_cast<QCPAxisRect*>(e)) {
      for (QCPAxis* axis : rect->axes())
        if (axis->visible()) addLabel(axis->label());
    } else if (auto* scale = qobject_cast<QCPColorScale*>(e)) {
      if (scale->visible()) addLabel(scale->axis()->label());
    } else if (auto* legend = qobject_cast<QCPLegend*>(e)) {
      if (!legend->visible()) continue;
      for (int i = 0; i < legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
          addLabel(item->plottable()->name());
    }
  }
  return labels;
}

}  // namespace

class TestFigures : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const QString corpus = m_dir.filePath("corpus.txt");
    QVERIFY(attnlab::tests::writeBytes(
        corpus, QByteArray::fromStdString(attnlab::tests::regularCorpusText(400))));
    QVERIFY(attnlab::tests::writeBytes(m_dir.filePath("plain.toml"),
                                       attnlab::tests::smallRunToml("plain", corpus, 4, 2)));
    // One run carries every logged variant quantity the catalog draws: cheap at this size.
    const QByteArray variants =
        "[attention.asa]\nenabled = true\n"
        "[attention.squeeze]\nenabled = true\n"
        "[attention.guidance]\nenabled = true\n"
        "heads = [\"next\", \"prev\"]\n";
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("variants.toml"),
        attnlab::tests::smallRunToml("variants", corpus, 4, 2) + variants));
    m_plain = m_dir.filePath("plain");
    m_variants = m_dir.filePath("variants");
    for (const auto& [toml, run] : {std::pair{QString("plain.toml"), m_plain},
                                    std::pair{QString("variants.toml"), m_variants}}) {
      const auto r = runCli({"train", "--config", m_dir.filePath(toml), "--run-dir", run});
      QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    }
    // The report figures' inputs, for the variants run only: the plain run shows what a
    // missing report says. A few sequences of all-pairs JSD (head-jsd-*) and the log's
    // snapshots (training-statistics) keep it cheap; --heads for head-importance/-pruning.
    auto r = runCli({"analyze", m_variants, "--pairwise", "8", "--heads", "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    r = runCli({"probe", "coref", m_variants, "--size", "20", "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    // The two runs' heads compared (heads-matching, layer-cka): the report lands in the plain run.
    r = runCli({"compare", m_plain, m_variants, "--heads", "--examples", "16", "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
  }

  // --list names every figure of the catalog with its title and what it reproduces.
  void listNamesEveryFigure() {
    const auto r = runCli({"export", "--list"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(figures::figureCatalog().size() >= 7);
    for (const auto& spec : figures::figureCatalog()) {
      for (const std::string& text : {spec.name, spec.title, spec.reproduces, spec.inputs})
        QVERIFY2(r.out.contains(QString::fromStdString(text)), text.c_str());
    }
  }

  // Every catalog figure exports in every format from the CLI, at the asked size, with its
  // title, axis labels and legend in the SVG's text.
  void everyFigureExports_data() {
    QTest::addColumn<QString>("figure");
    QTest::addColumn<QStringList>("runs");
    QTest::addColumn<QStringList>("mustSay");  // words the SVG must hold besides the labels
    const QStringList both{"PLAIN", "VARIANTS"}, variants{"VARIANTS"};
    QTest::newRow("loss-curves") << "loss-curves" << both
                                 << QStringList{"MLM loss (nats)", "step", "plain: training",
                                                "variants: validation"};
    QTest::newRow("guidance-fig3")
        << "guidance-fig3" << both
        << QStringList{"MLM loss (nats)", "plain: unguided", "variants: guided (next, prev)"};
    QTest::newRow("asa-fig5") << "asa-fig5" << variants
                              << QStringList{"layer 0", "layer 1", "(fraction)", "step"};
    QTest::newRow("sesame-fig4") << "sesame-fig4" << variants
                                 << QStringList{"layer 0", "layer weight s_l"};
    // The attention-health series (log.health, on by default; test_health_figures.cpp checks
    // their data against the log).
    QTest::newRow("health-sink-rate") << "health-sink-rate" << variants
                                      << QStringList{"step", "first", "punctuation", "sink rate"};
    QTest::newRow("health-massive")
        << "health-massive" << variants << QStringList{"step 4", "top-1 |h|", "median |h|"};
    QTest::newRow("health-entropy-logits")
        << "health-entropy-logits" << variants
        << QStringList{"L0H0", "L1H1", "minimum attention entropy", "S_max"};
    QTest::newRow("entropy-violins")
        << "entropy-violins" << variants << QStringList{"step 4", "nats", "L0", "L1"};
    QTest::newRow("jsd-violins") << "jsd-violins" << variants << QStringList{"bits", "L0-L1"};
    QTest::newRow("coref-heads") << "coref-heads" << variants
                                 << QStringList{"head", "layer", "nearest_mention"};
    // The figures that compare runs (comparison_figures.cpp), here on the one analysed run.
    QTest::newRow("realformer-fig4")
        << "realformer-fig4" << variants << QStringList{"variants", "nats"};
    QTest::newRow("realformer-fig6")
        << "realformer-fig6" << variants << QStringList{"variants", "bits"};
    QTest::newRow("guidance-table8") << "guidance-table8" << variants << QStringList{"variants"};
    // The head figures of an analysis report (head_figures.h).
    QTest::newRow("clark-fig2") << "clark-fig2" << variants
                                << QStringList{"step 4", "layer 0", "layer 1", "periods",
                                               "mean attention (fraction)"};
    QTest::newRow("head-jsd-matrix")
        << "head-jsd-matrix" << variants
        << QStringList{"L0 h0", "L1 h1", "head (layer, head)", "(bits), over 8 sequences"};
    QTest::newRow("head-jsd-mds") << "head-jsd-mds" << variants
                                  << QStringList{"MDS axis 1 (JSD, bits)", "layer 0",
                                                 "of the variance"};
    QTest::newRow("guidance-conformity")
        << "guidance-conformity" << variants
        << QStringList{"pattern \"next\"", "pattern \"period\"",
                       "mean total-variation distance (0 = follows the pattern)"};
    QTest::newRow("training-statistics")
        << "training-statistics" << variants
        << QStringList{"step", "median row entropy (nats)", "median JSD to the layer below (bits)",
                       "layer 1 (mean of its heads)"};
    // The corpus summaries beyond the weights (beyond_figures.h); the variants run has
    // SesameBERT's squeeze-and-excitation, so the lens has its output row.
    QTest::newRow("rollout-spread")
        << "rollout-spread" << variants
        << QStringList{"spread from the diagonal", "mean sum_j R_ij |i - j| (tokens)",
                       "diagonal mass", "mean entropy of R_i (nats)"};
    QTest::newRow("norm-weight-correlation")
        << "norm-weight-correlation" << variants
        << QStringList{"Pearson r of alpha_ij,h and ||alpha_ij,h f_h(x_j)||; layer r: L0",
                       "(the largest)"};
    QTest::newRow("logit-lens") << "logit-lens" << variants
                                << QStringList{"fraction ranked first", "KL(output || layer)",
                                               "layer (last: SesameBERT's output)"};
    // The heads' analysis (pruning_figures.h).
    QTest::newRow("head-importance")
        << "head-importance" << variants
        << QStringList{"importance E|dL/dxi_h|, normalised per layer (L2)",
                       "loss change with the head masked", "(full model:"};
    QTest::newRow("head-pruning") << "head-pruning" << variants
                                  << QStringList{"MLM loss at masked positions",
                                                 "heads masked (% of all)", "by importance",
                                                 "random orders (seeds 1, 2, 3)"};
    // Two runs' heads compared (head_comparison_figures.h).
    QTest::newRow("heads-matching") << "heads-matching" << both
                                    << QStringList{"layer 0: matched", "head of plain",
                                                   "mean JSD of the heads' attention rows (bits)"};
    QTest::newRow("layer-cka") << "layer-cka" << both
                               << QStringList{"embeddings", "layer 1", "linear CKA"};
  }
  void everyFigureExports() {
    QFETCH(QString, figure);
    QFETCH(QStringList, runs);
    QFETCH(QStringList, mustSay);
    runs.replaceInStrings("PLAIN", m_plain).replaceInStrings("VARIANTS", m_variants);
    m_exported << figure;
    const QString stem = m_dir.filePath("cli-" + figure);
    for (const QString format : {"png", "svg", "pdf"}) {
      const auto r =
          runCli(QStringList{"export"} + runs +
                 QStringList{"--figure", figure, "--format", format, "--out", stem + "." + format,
                             "--width", "640", "--height", "480", "--dpi", "192"});
      QVERIFY2(r.exitCode == 0, qPrintable(format + ": " + r.out + r.err));
    }
    // PNG: the asked logical size at 192 dpi is twice as many pixels.
    const QImage png(stem + ".png");
    QVERIFY2(!png.isNull(), qPrintable(stem + ".png"));
    QCOMPARE(png.size(), QSize(1280, 960));
    // SVG: well-formed, with every word the figure draws.
    QString error;
    const QStringList texts = svgTexts(readAll(stem + ".svg"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QString all = texts.join('\n');
    figures::FigureRequest request{figure.toStdString(), {}, std::nullopt};
    for (const QString& run : runs) request.runs.push_back(run.toStdString());
    figures::Figure built = figures::buildFigure(request);
    const QStringList labels = labelsOf(*built.plot) + mustSay;
    for (const QString& label : labels)
      QVERIFY2(all.contains(label), qPrintable("'" + label + "' not in the SVG: " + all));
    // PDF: a PDF, which renders where poppler's pdftoppm is installed.
    const QByteArray pdf = readAll(stem + ".pdf");
    QVERIFY2(pdf.startsWith("%PDF-"), qPrintable(stem + ".pdf"));
    const QString pdftoppm = QStandardPaths::findExecutable("pdftoppm");
    if (pdftoppm.isEmpty()) {
      qInfo("pdftoppm is not installed: the PDF is checked by its header only");
    } else {
      const auto r =
          runProcess(pdftoppm, {"-png", "-r", "72", "-singlefile", stem + ".pdf", stem + "-pdf"});
      QVERIFY2(r.exitCode == 0, qPrintable(r.err));
      const QImage rendered(stem + "-pdf.png");
      QVERIFY(!rendered.isNull());
      QCOMPARE(rendered.size(), QSize(640, 480));
    }
  }

  // The test above covered the whole catalog: a new figure needs a row there.
  void everyCatalogFigureWasExported() {
    for (const auto& spec : figures::figureCatalog())
      QVERIFY2(m_exported.contains(QString::fromStdString(spec.name)), spec.name.c_str());
  }

  // Built in-process through the catalog or by the CLI, a figure is the same: the same PNG
  // size and the same SVG text, element by element.
  void inProcessEqualsCli_data() {
    QTest::addColumn<QString>("figure");
    QTest::newRow("asa-fig5") << "asa-fig5";
    QTest::newRow("entropy-violins") << "entropy-violins";
  }
  void inProcessEqualsCli() {
    QFETCH(QString, figure);
    const QString cli = m_dir.filePath("same-cli-" + figure);
    for (const QString format : {"png", "svg"}) {
      const auto r =
          runCli({"export", m_variants, "--figure", figure, "--out", cli + "." + format});
      QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    }
    figures::Figure built =
        figures::buildFigure({figure.toStdString(), {m_variants.toStdString()}, {}});
    const QString own = m_dir.filePath("same-own-" + figure);
    const auto options = figures::defaultExportOptions(built);
    figures::exportFigure(built, (own + ".png").toStdString(), widgets::ExportFormat::Png, options);
    figures::exportFigure(built, (own + ".svg").toStdString(), widgets::ExportFormat::Svg, options);
    QCOMPARE(QImage(own + ".png").size(), QImage(cli + ".png").size());
    QString e1, e2;
    const QStringList ownTexts = svgTexts(readAll(own + ".svg"), &e1);
    const QStringList cliTexts = svgTexts(readAll(cli + ".svg"), &e2);
    QVERIFY(e1.isEmpty() && e2.isEmpty());
    QVERIFY(!ownTexts.isEmpty());
    QCOMPARE(ownTexts, cliTexts);
  }

  // A missing input names what is missing, where, and how to make it; exit 1, no file.
  void missingInputIsReported_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("expected");  // each must appear in stderr
    QTest::newRow("ASA off") << QStringList{"PLAIN", "--figure", "asa-fig5"}
                             << QStringList{"run plain has no asa/mask_proportion series",
                                            "ASA was off in that run"};
    QTest::newRow("squeeze off") << QStringList{"PLAIN", "--figure", "sesame-fig4"}
                                 << QStringList{"no squeeze/weights series",
                                                "squeeze-and-excitation was off"};
    QTest::newRow("no guided run") << QStringList{"PLAIN", "--figure", "guidance-fig3"}
                                   << QStringList{"did not use attention guidance"};
    QTest::newRow("no analysis report")
        << QStringList{"PLAIN", "--figure", "entropy-violins"}
        << QStringList{"no analysis report under", "run attnlab-cli analyze"};
    QTest::newRow("no report at step")
        << QStringList{"VARIANTS", "--figure", "jsd-violins", "--step", "2"}
        << QStringList{"no analysis report at step 2", "(analysis reports at steps 4)", "--step 2"};
    QTest::newRow("no pairwise JSD") << QStringList{"PAIRLESS", "--figure", "head-jsd-mds"}
                                     << QStringList{"has no all-pairs head JSD", "--pairwise 64"};
    QTest::newRow("no heads' analysis")
        << QStringList{"PAIRLESS", "--figure", "head-pruning"}
        << QStringList{"has no heads' analysis", "attnlab-cli analyze RUN --heads"};
    QTest::newRow("no statistics over training")
        << QStringList{"PAIRLESS", "--figure", "training-statistics"}
        << QStringList{"no statistics over training", "--over-checkpoints"};
    QTest::newRow("no coref report")
        << QStringList{"PLAIN", "--figure", "coref-heads"}
        << QStringList{"no coreference probe report", "run attnlab-cli probe coref"};
    QTest::newRow("not a run") << QStringList{"/nonexistent/run", "--figure", "loss-curves"}
                               << QStringList{"/nonexistent/run: no such run folder"};
    QTest::newRow("unknown figure")
        << QStringList{"PLAIN", "--figure", "realformer-fig9"}
        << QStringList{"realformer-fig9: no such figure", "loss-curves"};
    QTest::newRow("too many runs") << QStringList{"PLAIN", "VARIANTS", "--figure", "asa-fig5"}
                                   << QStringList{"asa-fig5: takes 1 run, got 2"};
  }
  void missingInputIsReported() {
    QFETCH(QStringList, args);
    QFETCH(QStringList, expected);
    if (args.contains("PAIRLESS")) {
      // A copy of the variants run analysed without pairwise JSD and snapshots.
      const QString pairless = m_dir.filePath("pairless");
      if (!QFile::exists(pairless + "/analysis")) {
        QVERIFY(QDir().mkpath(pairless));
        QVERIFY(QFile::copy(m_variants + "/run.h5", pairless + "/run.h5"));
        const auto r = runCli({"analyze", m_variants, "--pairwise", "0", "--no-snapshots", "--out",
                               pairless + "/analysis/step-4", "--plain"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
      }
      args.replaceInStrings("PAIRLESS", pairless);
    }
    args.replaceInStrings("PLAIN", m_plain).replaceInStrings("VARIANTS", m_variants);
    const QString out = m_dir.filePath("missing.png");
    const auto r = runCli(QStringList{"export"} + args + QStringList{"--out", out});
    QCOMPARE(r.exitCode, 1);
    for (const QString& e : expected) QVERIFY2(r.err.contains(e), qPrintable(r.err));
    QVERIFY(!QFile::exists(out));
  }

  // In-process, the same failures are typed errors with what and where.
  void missingInputIsATypedError() {
    try {
      figures::buildFigure({"asa-fig5", {m_plain.toStdString()}, {}});
      QFAIL("no error");
    } catch (const figures::FigureInputError& e) {
      QCOMPARE(QString::fromStdString(e.where()), m_plain);
      QVERIFY2(QString::fromStdString(e.reason()).contains("ASA was off"), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(figures::FigureError,
                             figures::buildFigure({"no-such-figure", {}, {}}));
  }

  void badExportArguments_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("format from extension")
        << QStringList{"PLAIN", "--figure", "loss-curves", "--out", "OUT/x.txt"}
        << "give --format png, svg or pdf";
    QTest::newRow("missing folder")
        << QStringList{"PLAIN", "--figure", "loss-curves", "--out", "/nonexistent/x.png"}
        << "/nonexistent/x.png: folder /nonexistent does not exist";
    QTest::newRow("no figure") << QStringList{"PLAIN", "--out", "OUT/x.png"} << "give --figure";
    QTest::newRow("report of two runs")
        << QStringList{"PLAIN", "VARIANTS", "--report", "OUT/r"} << "takes one run, got 2";
  }
  void badExportArguments() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    args.replaceInStrings("PLAIN", m_plain)
        .replaceInStrings("VARIANTS", m_variants)
        .replaceInStrings("OUT", m_dir.path());
    const auto r = runCli(QStringList{"export"} + args);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
  }

  // --report: every figure that applies in three formats, and an index naming for each the
  // run, the steps or checkpoint, the data source and the units; the others with the reason.
  void reportBundle() {
    const QString dir = m_dir.filePath("report-plain");
    auto r = runCli({"export", m_plain, "--report", dir});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    for (const QString ext : {"png", "svg", "pdf"})
      QVERIFY2(QFile::exists(dir + "/loss-curves." + ext), qPrintable(ext));
    QVERIFY(!QFile::exists(dir + "/asa-fig5.png"));
    QString index = QString::fromUtf8(readAll(dir + "/index.md"));
    for (const QString& s :
         {QString("# Figures of run plain"), QString("[loss-curves.svg](loss-curves.svg)"),
          QString("steps 1-4, 4 rows"), QString("run.h5: scalar train/loss"),
          QString("MLM cross-entropy (nats)"),
          QString("| asa-fig5 | ASA (Wu et al. 2023) Fig. 5 | run plain has no "
                  "asa/mask_proportion series: ASA was off in that run"),
          QString("| entropy-violins |"), QString("run attnlab-cli analyze")}) {
      QVERIFY2(index.contains(s), qPrintable(s + "\n" + index));
    }

    const QString all = m_dir.filePath("report-variants");
    r = runCli({"export", m_variants, "--report", all, "--dpi", "96"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    for (const auto& spec : figures::figureCatalog()) {
      const QString name = QString::fromStdString(spec.name);
      for (const QString ext : {"png", "svg", "pdf"})  // a figure of two runs is not one run's
        QVERIFY2(QFile::exists(all + "/" + name + "." + ext) == (spec.minRuns == 1),
                 qPrintable(name + "." + ext));
    }
    // Each figure at its own default size.
    QCOMPARE(QImage(all + "/entropy-violins.png").size(), QSize(900, 700));
    index = QString::fromUtf8(readAll(all + "/index.md"));
    for (const QString& s :
         {QString("checkpoint step 4 (step-0000004.h5)"),
          QString("analysis/step-4/analysis.json: per-head entropy (nats)"),
          QString("analysis/coref-step-4/coref.json"), QString("series asa/mask_proportion"),
          QString("| heads-matching | no paper figure: Clark et al. 2019's head-to-head JSD "
                  "across two models, with the Hungarian matching per layer | compares 2 runs: "
                  "attnlab-cli export RUN_A RUN_B --figure heads-matching |")}) {
      QVERIFY2(index.contains(s), qPrintable(s + "\n" + index));
    }
  }

 private:
  QTemporaryDir m_dir;
  QString m_plain, m_variants;
  QStringList m_exported;
};

QTEST_MAIN(TestFigures)
#include "test_figures.moc"
