// The command line's progress display: the shared ProgressBar (bar, ETA, status line on a
// terminal, plain lines elsewhere) and the analysis reporter drawn through it. (Training's
// ProgressPrinter is an adapter over the same bar; attnlab-cli train's tests cover it.)
#include "app/cli/json_line.h"
#include "app/cli/progress_bar.h"
#include "app/cli/task_progress.h"

#include <QProcess>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

using attnlab::app::formatDuration;
using attnlab::app::ProgressBar;

namespace {

// Everything `write` prints to a FILE*, as a string.
std::string capture(const std::function<void(std::FILE*)>& write) {
  std::FILE* f = std::tmpfile();
  if (!f) return "<tmpfile failed>";
  write(f);
  std::fflush(f);
  std::rewind(f);
  std::string text;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return text;
}

QString show(const std::string& s) {
  return QString::fromStdString(s).replace("\033", "<ESC>").replace("\r", "<CR>");
}

}  // namespace

class TestProgressBar : public QObject {
  Q_OBJECT
 private slots:
  void barFillsByFraction() {
    QCOMPARE(ProgressBar::bar(0.0, 10), std::string(">         "));
    QCOMPARE(ProgressBar::bar(0.5, 10), std::string("=====>    "));
    QCOMPARE(ProgressBar::bar(0.96, 10), std::string("=========="));
    QCOMPARE(ProgressBar::bar(1.0, 10), std::string("=========="));
    QCOMPARE(ProgressBar::bar(0.5).size(), size_t(ProgressBar::kBarWidth));
  }

  // More done than planned, negative or unknown fractions must not overflow the bar.
  void barClampsOutOfRangeFractions() {
    QCOMPARE(ProgressBar::bar(1.7, 10), std::string("=========="));
    QCOMPARE(ProgressBar::bar(-0.3, 10), std::string(">         "));
    QCOMPARE(ProgressBar::bar(NAN, 10), std::string(">         "));
    QCOMPARE(ProgressBar::bar(0.5, 0), std::string());
  }

  void durations() {
    QCOMPARE(formatDuration(0), std::string("00:00"));
    QCOMPARE(formatDuration(65.4), std::string("01:05"));
    QCOMPARE(formatDuration(3725), std::string("1:02:05"));
    QCOMPARE(formatDuration(-1), std::string("--:--"));
    QCOMPARE(formatDuration(NAN), std::string("--:--"));
    QCOMPARE(formatDuration(INFINITY), std::string("--:--"));
  }

  void remainingTimeExtrapolatesLinearly() {
    QCOMPARE(ProgressBar::remainingSeconds(0.25, 10.0), 30.0);
    QCOMPARE(ProgressBar::remainingSeconds(1.0, 10.0), 0.0);
    QVERIFY(std::isnan(ProgressBar::remainingSeconds(0.0, 10.0)));
    QVERIFY(std::isnan(ProgressBar::remainingSeconds(0.5, NAN)));
  }

  // On a terminal: one line rewritten in place; a message first ends it.
  void terminalRewritesOneStatusLine() {
    const std::string out = capture([](std::FILE* f) {
      ProgressBar bar(f, true);
      ProgressBar::Report r;
      r.label = "step 5/10";
      r.fraction = 0.5;
      r.elapsedSeconds = 10;
      r.terminalDetails = "loss 1.5";
      r.plainDetails = "not on a terminal";
      bar.report(r);
      r.label = "step 10/10";
      r.fraction = 1.0;
      r.elapsedSeconds = 20;
      r.terminalDetails.clear();
      bar.report(r);
      bar.message("checkpoint written");
    });
    const std::string expected =
        "\r\033[Kstep 5/10 [============>           ] loss 1.5 | ETA 00:10"
        "\r\033[Kstep 10/10 [========================] ETA 00:00"
        "\ncheckpoint written\n";
    QVERIFY2(out == expected, qPrintable(show(out)));
  }

  // The destructor ends an open status line, so the shell prompt starts on a line of its own.
  void terminalLineIsEndedAtTheEnd() {
    const std::string out = capture([](std::FILE* f) {
      ProgressBar bar(f, true);
      bar.report({"phase 1/2", 0.5, 1.0, "", ""});
    });
    QVERIFY2(out.size() > 1 && out.back() == '\n', qPrintable(show(out)));
    QCOMPARE(std::count(out.begin(), out.end(), '\n'), 1L);
  }

  // Not a terminal: whole lines, no control characters.
  void plainLinesWhenNotATerminal() {
    const std::string out = capture([](std::FILE* f) {
      ProgressBar bar(f, false);
      bar.report({"step 5/10", 0.5, 10.0, "short", "loss 1.5 acc 0.2"});
      bar.message("done");
    });
    QCOMPARE(out, std::string("step 5/10 loss 1.5 acc 0.2 elapsed 00:10 eta 00:10\ndone\n"));
  }

  // The analysis reporter: in a log, one line per tenth of a phase, and again for a new phase.
  void taskProgressLogsTenths() {
    const std::string out = capture([](std::FILE* f) {
      attnlab::app::TaskProgress progress(f, false);
      for (int i = 0; i <= 200; ++i) progress.update("entropy", i, 200);
      progress.update("pairs", 0, 5);
    });
    QCOMPARE(std::count(out.begin(), out.end(), '\n'), 12L);
    QVERIFY2(out.rfind("entropy 0/200 elapsed ", 0) == 0, out.c_str());
    QVERIFY2(out.find("entropy 200/200 elapsed ") != std::string::npos, out.c_str());
    QVERIFY2(out.find("pairs 0/5 elapsed ") != std::string::npos, out.c_str());
  }

  // On a terminal every update redraws; a new phase starts a new line.
  void taskProgressRedrawsOnATerminal() {
    const std::string out = capture([](std::FILE* f) {
      attnlab::app::TaskProgress progress(f, true);
      progress.update("entropy", 1, 4);
      progress.update("entropy", 2, 4);
      progress.update("pairs", 1, 2);
      progress.finish();
    });
    QCOMPARE(std::count(out.begin(), out.end(), '\r'), 3L);
    QCOMPARE(std::count(out.begin(), out.end(), '\n'), 2L);
    QVERIFY2(out.find("\r\033[Kentropy 2/4 [============>           ] ETA ") != std::string::npos,
             qPrintable(show(out)));
  }

  // The JSON lines of --progress jsonl, read back by Python's json module (the reference
  // parser): quotes, backslashes, control characters and UTF-8 survive; NaN becomes null.
  void jsonLinesReadBackInPython() {
    const std::string tricky =
        "a \"quoted\" \\ path\twith\ttabs\nnew line \x01 \xc3\xbc \xe2\x80\x94";
    const std::string line = attnlab::app::JsonLine()
                                 .add("event", "step")
                                 .add("text", tricky)
                                 .add("step", std::int64_t{1} << 40)
                                 .add("loss", 6.25)
                                 .add("nan", std::nan(""))
                                 .add("world_size", 2)
                                 .str();
    QProcess py;
    py.start(QStringLiteral(ATTNLAB_PYTHON),
             {"-c",
              "import json, sys; e = json.loads(sys.stdin.read()); "
              "print(json.dumps([e['text'], e['step'], e['loss'], e['nan'], e['world_size']]))"});
    QVERIFY(py.waitForStarted());
    py.write(QByteArray::fromStdString(line));
    py.closeWriteChannel();
    QVERIFY(py.waitForFinished(30000));
    const QByteArray out = py.readAllStandardOutput().trimmed();
    QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
    const QByteArray expected =
        "[\"a \\\"quoted\\\" \\\\ path\\twith\\ttabs\\nnew line \\u0001 \\u00fc \\u2014\", "
        "1099511627776, 6.25, null, 2]";
    QCOMPARE(out, expected);
  }

  // A stray byte that is not UTF-8 (a worker's output) still gives valid JSON: U+FFFD.
  void jsonLinesReplaceInvalidUtf8() {
    const std::string line = attnlab::app::JsonLine().add("text", "bad \xff byte").str();
    QCOMPARE(QByteArray::fromStdString(line), QByteArray("{\"text\":\"bad \xef\xbf\xbd byte\"}"));
  }
};

QTEST_APPLESS_MAIN(TestProgressBar)
#include "test_progress_bar.moc"
