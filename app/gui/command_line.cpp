#include "app/gui/command_line.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <algorithm>
#include <cstdio>

namespace attnlab::app {

namespace {

void describeOptions(QCommandLineParser& parser) {
  parser.setApplicationDescription(
      QStringLiteral("AttnLab: pretrain BERT-style encoders and study their attention. Opens "
                     "the run folders given as arguments (finished, stopped, or still being "
                     "written by attnlab-cli train, which is then followed live)."));
  parser.addHelpOption();
  // Not addVersionOption(): that prints the application name "AttnLab" (also the settings'
  // folder); the program is called attnlab, as its man page and attnlab-cli --version say.
  parser.addOption({{QStringLiteral("v"), QStringLiteral("version")},
                    QStringLiteral("Displays version information.")});
  parser.addPositionalArgument(QStringLiteral("runs"), QStringLiteral("Run folders to open."),
                               QStringLiteral("[RUN_DIR...]"));
  parser.addOptions({
      {QStringLiteral("train"),
       QStringLiteral("Start training this config (a TOML or JSON file, or a preset name such "
                      "as tiny) in the window, as File > New run does."),
       QStringLiteral("config")},
      {QStringLiteral("run-dir"),
       QStringLiteral("Run folder for --train (default: <runs folder>/<run.name>)."),
       QStringLiteral("dir")},
      {QStringLiteral("set"),
       QStringLiteral("Override a config key for --train, key=value (repeatable)."),
       QStringLiteral("key=value")},
      {QStringLiteral("nproc-per-node"),
       QStringLiteral("With --train: train in this many processes on this machine "
                      "(attnlab-cli train --nproc-per-node, data-parallel), as the New run "
                      "dialog's Processes box does (default 1: inside the app)."),
       QStringLiteral("n"), QStringLiteral("1")},
      {QStringLiteral("screenshot"),
       QStringLiteral("Save the window as a PNG once the opened runs are loaded (or once "
                      "training reaches --screenshot-step), then exit."),
       QStringLiteral("file")},
      {QStringLiteral("screenshot-step"),
       QStringLiteral("With --train and --screenshot: take the screenshot at this step."),
       QStringLiteral("step")},
      {QStringLiteral("view"),
       QStringLiteral("The tab to show first: Curves, Attention, Inspect, Variants, Analysis, "
                      "Probe or Compare; a view inside a tab after a slash, e.g. "
                      "\"Analysis/Head summaries\"."),
       QStringLiteral("tab")},
      {QStringLiteral("figure"),
       QStringLiteral("Open this figure of the Figures menu (a name of attnlab-cli export "
                      "--list) from the opened runs."),
       QStringLiteral("name")},
  });
}

}  // namespace

std::optional<int> printHelpOrVersion(int argc, char** argv, const char* version) {
  // A QCoreApplication needs no display; it lives only for this look at the arguments (help
  // text names the program from it). Qt's own options (-platform ...) are unknown to it: only
  // --help and --version matter here, errors are reported by the second reading.
  QCoreApplication probe(argc, argv);
  QCommandLineParser parser;
  describeOptions(parser);
  parser.parse(QCoreApplication::arguments());
  if (parser.isSet(QStringLiteral("version"))) {
    std::printf("attnlab %s\n", version);
    return 0;
  }
  if (parser.isSet(QStringLiteral("help"))) {
    std::fputs(qPrintable(parser.helpText()), stdout);
    return 0;
  }
  return std::nullopt;
}

GuiCommandLine parseGuiCommandLine() {
  QCommandLineParser parser;
  describeOptions(parser);
  parser.process(*QCoreApplication::instance());
  GuiCommandLine c;
  c.runs = parser.positionalArguments();
  c.trainConfig = parser.value(QStringLiteral("train"));
  c.runDir = parser.value(QStringLiteral("run-dir"));
  c.overrides = parser.values(QStringLiteral("set"));
  c.processes = std::max(1, parser.value(QStringLiteral("nproc-per-node")).toInt());
  c.screenshot = parser.value(QStringLiteral("screenshot"));
  c.screenshotStep = parser.value(QStringLiteral("screenshot-step")).toLongLong();
  c.view = parser.value(QStringLiteral("view"));
  c.figure = parser.value(QStringLiteral("figure"));
  return c;
}

}  // namespace attnlab::app
