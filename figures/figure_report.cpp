#include "figures/figure_report.h"

#include "figures/figure_builder.h"
#include "figures/figure_errors.h"
#include "figures/run_inputs.h"

#include <fstream>
#include <sstream>
#include <system_error>

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
    if (!f) throw FigureError(tmp.string(), "could not write the index");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw FigureError(path.string(), "could not write the index: " + ec.message());
}

struct Exported {
  const FigureSpec* spec = nullptr;
  std::vector<std::string> files;  // names inside the bundle
  std::vector<FigureProvenance> provenance;
  widgets::ExportOptions options;
};

std::string indexText(const FigureReportOptions& o, const std::string& runName,
                      const std::vector<Exported>& done,
                      const std::vector<std::pair<const FigureSpec*, std::string>>& skipped,
                      double dpi) {
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

}  // namespace

FigureReport writeFigureReport(const FigureReportOptions& given) {
  FigureReportOptions o = given;
  o.run = normaliseRunPath(o.run);
  // The run must be one before anything is written: a typo makes no empty bundle.
  const std::string runName = openRunLog(o.run).runName;
  std::error_code ec;
  fs::create_directories(o.outDir, ec);
  if (ec || !fs::is_directory(o.outDir)) {
    throw FigureError(o.outDir.string(), "cannot create the report folder" +
                                             (ec ? ": " + ec.message() : std::string()));
  }

  FigureReport report;
  std::vector<Exported> done;
  std::vector<std::pair<const FigureSpec*, std::string>> skipped;
  const double dpi = o.dpi.value_or(widgets::ExportOptions{}.dpi);
  for (const FigureSpec& spec : figureCatalog()) {
    FigureReportEntry entry{spec.name, {}, {}};
    Figure figure;
    try {
      figure = buildFigure({spec.name, {o.run}, o.step});
    } catch (const FigureInputError& e) {
      // Said about this run, the run's name is noise; about another file, keep the file.
      entry.notApplicable = e.where() == o.run.string() ? e.reason() : e.what();
      skipped.emplace_back(&spec, entry.notApplicable);
      report.entries.push_back(entry);
      continue;
    }
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
    done.push_back(std::move(exported));
    report.entries.push_back(entry);
  }
  report.index = o.outDir / "index.md";
  writeAtomically(report.index, indexText(o, runName, done, skipped, dpi));
  return report;
}

}  // namespace attnlab::figures
