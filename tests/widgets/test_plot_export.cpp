// Every export format produces a valid file; failures are reported, never silent.
#include "widgets/plots/plot_export.h"

#include <qcustomplot.h>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <sys/resource.h>

#include <csignal>

using namespace attnlab::widgets;

namespace {

void fillPlot(QCustomPlot& plot) {
  plot.plotLayout()->insertRow(0);
  plot.plotLayout()->addElement(0, 0, new QCPTextElement(&plot, "Loss over steps"));
  auto* g = plot.addGraph();
  g->setName("train loss");
  QVector<double> x, y;
  for (int i = 0; i < 100; ++i) x << i, y << 10.0 / (1 + i);
  g->setData(x, y);
  plot.xAxis->setLabel("step");
  plot.yAxis->setLabel("loss (nats)");
  plot.legend->setVisible(true);
  plot.rescaleAxes();
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestPlotExport : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    m_plot = new QCustomPlot;
    fillPlot(*m_plot);
  }
  void cleanup() { delete m_plot; }

  void pngHasSignatureSizeAndContent() {
    const QString path = m_dir.filePath("loss.png");
    const auto r = exportPlot(*m_plot, path, ExportFormat::Png, {400, 300, 192.0, "Loss"});
    QVERIFY2(r.ok, qPrintable(r.error));
    QVERIFY(readAll(path).startsWith("\x89PNG\r\n\x1a\n"));
    QImage image(path);
    QCOMPARE(image.size(), QSize(800, 600));  // 192 dpi = 2x the logical size
    // Not blank: the curve and text put many distinct colours on the page.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
      for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
    QVERIFY(colours.size() > 5);
  }

  void svgIsXmlWithTitleAndLabels() {
    const QString path = m_dir.filePath("loss.svg");
    const auto r =
        exportPlot(*m_plot, path, ExportFormat::Svg, {400, 300, 96.0, "Loss over steps"});
    QVERIFY2(r.ok, qPrintable(r.error));
    const QByteArray svg = readAll(path);
    QXmlStreamReader xml(svg);
    bool sawSvg = false, sawTitle = false;
    while (!xml.atEnd()) {
      xml.readNext();
      if (xml.isStartElement() && xml.name() == QLatin1String("svg")) sawSvg = true;
      if (xml.isStartElement() && xml.name() == QLatin1String("title") &&
          xml.readElementText() == QLatin1String("Loss over steps"))
        sawTitle = true;
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(sawSvg);
    QVERIFY(sawTitle);
    QVERIFY(svg.contains("<path") || svg.contains("<polyline"));  // vector content
  }

  void pdfStartsWithMagic() {
    const QString path = m_dir.filePath("loss.pdf");
    const auto r = exportPlot(*m_plot, path, ExportFormat::Pdf, {400, 300, 96.0, "Loss"});
    QVERIFY2(r.ok, qPrintable(r.error));
    const QByteArray pdf = readAll(path);
    QVERIFY(pdf.startsWith("%PDF"));
    QVERIFY(pdf.size() > 1000);
  }

  void missingFolderIsReported() {
    const QString path = m_dir.filePath("no/such/folder/x.png");
    const auto r = exportPlot(*m_plot, path, ExportFormat::Png);
    QVERIFY(!r.ok);
    QVERIFY2(r.error.contains(path), qPrintable(r.error));
  }

  void unwritableFolderIsReportedAndOldFileKept() {
    QDir(m_dir.path()).mkdir("ro");
    const QString path = m_dir.filePath("ro/fig.png");
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("old figure");
    }
    QFile::setPermissions(m_dir.filePath("ro"), QFileDevice::ReadOwner | QFileDevice::ExeOwner);
    const bool isRoot = QFileInfo(m_dir.filePath("ro")).isWritable();  // root ignores modes
    const auto r = exportPlot(*m_plot, path, ExportFormat::Png);
    QFile::setPermissions(m_dir.filePath("ro"),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    if (isRoot) QSKIP("running as root: folder permissions are not enforced");
    QVERIFY(!r.ok);
    QVERIFY2(r.error.contains(path), qPrintable(r.error));
    QCOMPARE(readAll(path), QByteArray("old figure"));
  }

  // A write that fails part-way (the file-size limit stands in for a full disk, and binds
  // root too, so this runs wherever the suite does): the failure is reported and the figure
  // already there is kept whole.
  void failedWriteIsReportedAndOldFileKept() {
    const QString path = m_dir.filePath("full-disk.png");
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("old figure");
    }
    struct rlimit saved {};
    QCOMPARE(getrlimit(RLIMIT_FSIZE, &saved), 0);
    const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of a kill
    struct rlimit tight = saved;
    tight.rlim_cur = 512;  // bytes: far less than any PNG of the plot
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &tight), 0);
    const auto r = exportPlot(*m_plot, path, ExportFormat::Png);
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previousHandler);
    QVERIFY(!r.ok);
    QVERIFY2(r.error.contains(path), qPrintable(r.error));
    QCOMPARE(readAll(path), QByteArray("old figure"));
  }

  void unwritableFilesystemIsReported() {
    // procfs refuses new files even for root, so this fails wherever the test runs.
    const QString path = QStringLiteral("/proc/attnlab-export-test.png");
    const auto r = exportPlot(*m_plot, path, ExportFormat::Png);
    QVERIFY(!r.ok);
    QVERIFY2(r.error.contains(path), qPrintable(r.error));
  }

  void parsesFormats() {
    ExportFormat f;
    QVERIFY(parseExportFormat("SVG", &f) && f == ExportFormat::Svg);
    QVERIFY(parseExportFormat("pdf", &f) && f == ExportFormat::Pdf);
    QVERIFY(!parseExportFormat("jpeg", &f));
  }

 private:
  QCustomPlot* m_plot = nullptr;
  QTemporaryDir m_dir;
};

QTEST_MAIN(TestPlotExport)
#include "test_plot_export.moc"
