#include "app/cli/export_command.h"

#include "figures/figure_catalog.h"

#include <CLI/CLI.hpp>

#include <cstdio>

#ifdef ATTNLAB_CLI_HAS_FIGURES
#include "app/cli/figure_export.h"
#endif

namespace attnlab::app {

namespace {
// The catalog needs no rendering: every build lists it.
int listFigures() {
  for (const auto& spec : figures::figureCatalog()) {
    std::printf(
        "%s\n  title: %s\n  reproduces: %s\n  inputs: %s (%s, from the %s)\n  units: %s\n\n",
        spec.name.c_str(), spec.title.c_str(), spec.reproduces.c_str(), spec.inputs.c_str(),
        figures::runCountText(spec).c_str(), figures::sourceText(spec.source).c_str(),
        spec.units.c_str());
  }
  return 0;
}
}  // namespace

CLI::App* addExportCommand(CLI::App& cli, ExportCommandOptions& o) {
  auto* cmd = cli.add_subcommand(
      "export",
      "The papers' figures from runs (loss curves, guidance Fig. 3, ASA Fig. 5, SesameBERT "
      "Fig. 4, RealFormer's violins, coreference heads) as PNG, SVG or PDF");
  cmd->add_option("runs", o.runs, "Run directories");
  cmd->add_flag("--list", o.list, "List the figures: name, title, what it reproduces, inputs");
  cmd->add_option("--figure", o.figure, "The figure to export (see --list)");
  cmd->add_option("--format", o.format, "png, svg or pdf (default: from --out's extension)")
      ->check(CLI::IsMember({"png", "svg", "pdf"}, CLI::ignore_case));
  cmd->add_option("--out", o.out, "The file to write");
  cmd->add_option("--report", o.reportDir,
                  "Write every figure that applies to RUN as PNG, SVG and PDF into this folder, "
                  "with an index.md");
  cmd->add_option("--step", o.step,
                  "Checkpoint step of the analysis or probe report (default: the latest)");
  cmd->add_option("--width", o.width, "Width in logical pixels (default: the figure's)")
      ->check(CLI::Range(16, 20000));
  cmd->add_option("--height", o.height, "Height in logical pixels (default: the figure's)")
      ->check(CLI::Range(16, 20000));
  cmd->add_option("--dpi", o.dpi, "PNG pixel density (default 150; 96 = screen size)")
      ->check(CLI::Range(10.0, 2400.0));
  return cmd;
}

int runExport(const ExportCommandOptions& o) {
  if (o.list) return listFigures();
#ifdef ATTNLAB_CLI_HAS_FIGURES
  return runFigureExport(o);
#else
  static_cast<void>(o);
  std::fprintf(stderr,
               "attnlab-cli export: error: this build has no figure rendering (--list works): it "
               "was configured "
               "with ATTNLAB_GUI=OFF, and figures are drawn by the plot widgets (Qt Widgets, Qt "
               "Svg, QCustomPlot), which a headless build leaves out; use a build configured "
               "with -DATTNLAB_GUI=ON (the release preset)\n");
  return 1;
#endif
}

}  // namespace attnlab::app
