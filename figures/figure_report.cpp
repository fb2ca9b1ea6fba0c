#include "figures/figure_report.h"

#include "figures/figure_builder.h"
#include "figures/figure_errors.h"
#include "figures/run_inputs.h"
#include "figures/run_summary.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

namespace attnlab::figures {
namespace fs = std::filesystem;

namespace {

constexpr widgets::ExportFormat kFormats[] = {
    widgets::ExportFormat::Png, widgets::ExportFormat::Svg, widgets::ExportFormat::Pdf};

// A Markdown table cell: no line breaks, no column separators.
std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

template <typename T>
std::string joined(const std::vector<FigureProvenance>& p, T field) {
  std::string out;
  for (const auto& one : p) out += (out.empty() ? "" : "; ") + field(one);
  return out;
}

void writeAtomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    f.flush();
    if (!f) throw FigureError(tmp.string(), "could not write it");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw FigureError(path.string(), "could not write it: " + ec.message());
}

struct Exported {
  const FigureSpec* spec = nullptr;
  std::vector<std::string> files;  // names inside the bundle
  std::vector<FigureProvenance> provenance;
  widgets::ExportOptions options;
};

// The figures that do not apply, with the reason.
using SkippedFigures = std::vector<std::pair<const FigureSpec*, std::string>>;

// A data file copied into the bundle, with what it holds.
struct DataFile {
  std::string name;  // inside the bundle
  std::string checkpoint;
  std::string what;
};

// What each report file holds, in the index's words.
std::string describeReportFile(const std::string& file) {
  static const std::pair<const char*, const char*> known[] = {
      {"analysis.json", "the whole analysis (format attnlab-analysis; docs/analysis.md)"},
      {"analysis.md", "the analysis as a readable report"},
      {"entropy_heads.csv", "per-head row entropy distribution summaries (nats)"},
      {"guidance_conformity.csv", "per-head distance to the guidance patterns (total variation)"},
      {"head_summaries.csv", "Clark et al.'s head summaries (fraction of attention)"},
      {"jsd_adjacent_layers.csv", "per-head JSD to the layer below (the report's JSD unit)"},
      {"jsd_pairwise_heads.csv", "mean JSD between every two heads (the report's JSD unit)"},
      {"over_training.csv", "per-head median entropy and JSD per logged step"},
      {"coref.json", "the coreference probe (format attnlab-coref-probe; docs/analysis.md)"},
      {"coref.md", "the coreference probe as a readable report"},
      {"coref_examples.json",
       "per example: each head's picked word and word-level attention row (format "
       "attnlab-coref-examples; the first examples only, docs/analysis.md)"},
      {"coref_accuracy.csv", "antecedent accuracy per head (fraction of mentions)"},
      {"coref_baselines.csv", "the probe's attention-free baselines (fraction of mentions)"},
  };
  for (const auto& [name, what] : known)
    if (file == name) return what;
  return "report file";
}

// Copies the report folder's files (JSON, CSV, Markdown) into <outDir>/<sub>/.
void copyReports(const fs::path& reportFile, const fs::path& outDir, const std::string& sub,
                 const std::string& checkpoint, std::vector<DataFile>& files) {
  const fs::path folder = reportFile.parent_path();
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".json" || ext == ".csv" || ext == ".md"))
      found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  std::error_code ec;
  fs::create_directories(outDir / sub, ec);
  for (const auto& from : found) {
    const fs::path to = outDir / sub / from.filename();
    const fs::path tmp = to.string() + ".tmp";
    fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::rename(tmp, to, ec);
    if (ec) throw FigureError(to.string(), "could not copy " + from.string() + ": " + ec.message());
    files.push_back({sub + "/" + from.filename().string(), checkpoint,
                     describeReportFile(from.filename().string())});
  }
}

std::string indexText(const FigureReportOptions& o, const std::string& runName,
                      const std::vector<Exported>& done, const std::vector<DataFile>& data,
                      const SkippedFigures& skipped, double dpi) {
  std::ostringstream md;
  md << "# Figures of run " << runName << "\n\n";
  md << "Run folder: `" << o.run.string() << "`. Written by `attnlab-cli export " << o.run.string()
     << " --report " << o.outDir.string()
     << "`: every figure comes from AttnLab's figure catalog (docs/figures.md), the code the "
        "app draws its figures with. PNG at "
     << dpi << " dpi; sizes in logical pixels (PDF points).\n\n";
  md << "| figure | files | reproduces | run | checkpoint / steps | data source | units | size |\n";
  md << "|---|---|---|---|---|---|---|---|\n";
  for (const auto& e : done) {
    md << "| " << e.spec->name << " |";
    for (const auto& f : e.files) md << " [" << f << "](" << f << ")";
    md << " | " << cell(e.spec->reproduces) << " | "
       << cell(
              joined(e.provenance,
                     [](const FigureProvenance& p) { return p.runName + " (`" + p.runDir + "`)"; }))
       << " | " << cell(joined(e.provenance, [](const FigureProvenance& p) { return p.steps; }))
       << " | " << cell(joined(e.provenance, [](const FigureProvenance& p) { return p.source; }))
       << " | " << cell(e.spec->units) << " | " << e.options.widthPx << " x " << e.options.heightPx
       << " |\n";
  }
  md << "\n## Data files\n\n| file | checkpoint / steps | what it holds |\n|---|---|---|\n";
  for (const auto& f : data)
    md << "| [" << f.name << "](" << f.name << ") | " << cell(f.checkpoint) << " | " << cell(f.what)
       << " |\n";
  md << "\n## Figures that do not apply to this run\n\n";
  if (skipped.empty()) {
    md << "None: every figure of the catalog applies.\n";
  } else {
    md << "| figure | reproduces | reason |\n|---|---|---|\n";
    for (const auto& [spec, why] : skipped)
      md << "| " << spec->name << " | " << cell(spec->reproduces) << " | " << cell(why) << " |\n";
  }
  return md.str();
}

void createReportFolder(const fs::path& outDir) {
  std::error_code ec;
  fs::create_directories(outDir, ec);
  if (ec || !fs::is_directory(outDir)) {
    throw FigureError(outDir.string(), "cannot create the report folder" +
                                           (ec ? ": " + ec.message() : std::string()));
  }
}

// The catalog's figures of one run: those that apply written, the others with the reason.
struct CatalogExport {
  std::vector<FigureReportEntry> entries;  // catalog order
  std::vector<Exported> done;
  SkippedFigures skipped;
};

// Writes `figure` as PNG, SVG and PDF into the bundle, at the size asked for or its own.
Exported exportInEveryFormat(const FigureSpec& spec, Figure& figure, const FigureReportOptions& o,
                             double dpi, FigureReportEntry& entry) {
  Exported exported{&spec, {}, figure.provenance, defaultExportOptions(figure)};
  if (o.widthPx) exported.options.widthPx = *o.widthPx;
  if (o.heightPx) exported.options.heightPx = *o.heightPx;
  exported.options.dpi = dpi;
  for (const auto format : kFormats) {
    const std::string name = spec.name + "." + formatExtension(format);
    exportFigure(figure, o.outDir / name, format, exported.options);
    exported.files.push_back(name);
    entry.files.push_back(o.outDir / name);
  }
  return exported;
}

CatalogExport exportCatalogFigures(const FigureReportOptions& o, double dpi) {
  CatalogExport result;
  for (const FigureSpec& spec : figureCatalog()) {
    FigureReportEntry entry{spec.name, {}, {}};
    if (spec.minRuns > 1) {
      // A bundle is one run's: a figure that compares runs is made for them together.
      entry.notApplicable = "compares " + runCountText(spec) +
                            ": attnlab-cli export RUN_A RUN_B "
                            "--figure " +
                            spec.name;
      result.skipped.emplace_back(&spec, entry.notApplicable);
      result.entries.push_back(entry);
      continue;
    }
    Figure figure;
    try {
      figure = buildFigure({spec.name, {o.run}, o.step});
    } catch (const FigureInputError& e) {
      // Said about this run, the run's name is noise; about another file, keep the file.
      entry.notApplicable = e.where() == o.run.string() ? e.reason() : e.what();
      result.skipped.emplace_back(&spec, entry.notApplicable);
      result.entries.push_back(entry);
      continue;
    }
    result.done.push_back(exportInEveryFormat(spec, figure, o, dpi, entry));
    result.entries.push_back(entry);
  }
  return result;
}

// The resolved configuration and the run's one-row summary (the Compare tab's table).
std::vector<DataFile> writeRunDataFiles(const FigureReportOptions& o) {
  std::vector<DataFile> data;
  const RunLogInput log = openRunLog(o.run);
  writeAtomically(o.outDir / "config.toml", log.reader.configToml());
  data.push_back({"config.toml", "the whole run",
                  "the resolved configuration the run trained with (docs/configuration.md)"});
  const std::vector<RunSummary> summary{summariseRun(o.run)};
  writeAtomically(o.outDir / "summary.md", runSummaryMarkdown(summary));
  writeAtomically(o.outDir / "summary.csv", runSummaryCsv(summary));
  data.push_back({"summary.md", "last logged step",
                  "final eval loss (nats) and accuracy, probe best head, median entropy per "
                  "layer (nats)"});
  data.push_back({"summary.csv", "last logged step", "the same as CSV"});
  return data;
}

// The analysis and coreference reports the figures read, where the run has them.
void copyRunReports(const FigureReportOptions& o, std::vector<DataFile>& data) {
  try {
    const ReportLocation a = findAnalysisReport(o.run, o.step);
    copyReports(a.file, o.outDir, "analysis", "checkpoint step " + std::to_string(a.step), data);
  } catch (const FigureInputError&) {
    // The figures list the missing analysis under "do not apply", with its command.
  }
  try {
    const ReportLocation c = findCorefReport(o.run, o.step);
    copyReports(c.file, o.outDir, "coref", "checkpoint step " + std::to_string(c.step), data);
  } catch (const FigureInputError&) {
  }
}

}  // namespace

FigureReport writeFigureReport(const FigureReportOptions& given) {
  FigureReportOptions o = given;
  o.run = normaliseRunPath(o.run);
  // The run must be one before anything is written: a typo makes no empty bundle.
  const std::string runName = openRunLog(o.run).runName;
  createReportFolder(o.outDir);
  const double dpi = o.dpi.value_or(widgets::ExportOptions{}.dpi);
  CatalogExport figures = exportCatalogFigures(o, dpi);
  // The data behind the figures: the run's own files, then the reports the figures read.
  std::vector<DataFile> data = writeRunDataFiles(o);
  copyRunReports(o, data);
  FigureReport report;
  report.entries = std::move(figures.entries);
  report.index = o.outDir / "index.md";
  writeAtomically(report.index, indexText(o, runName, figures.done, data, figures.skipped, dpi));
  return report;
}

}  // namespace attnlab::figures
