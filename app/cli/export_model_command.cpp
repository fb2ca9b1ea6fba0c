#include "app/cli/export_model_command.h"

#include "analysis/runs/run_selection.h"
#include "app/cli/command_errors.h"
#include "core/pretrained/hf_model_export.h"

#include <cstdio>

namespace attnlab::app {

int runExportModel(const ExportModelCommandOptions& o) {
  return runReportingErrors("export-model", [&] {
    const auto selected = analysis::selectCheckpoint(o.run, o.step);
    core::HfExportOptions options;
    options.checkpoint = selected.checkpoint;
    options.out = o.out;
    options.overwrite = o.force;
    const auto result = core::exportHuggingFaceModel(options);
    std::printf("%s: step %lld -> %s (%s and its tokenizer)\n",
                selected.checkpoint.string().c_str(), static_cast<long long>(result.step),
                result.folder.string().c_str(), core::hfArchitectureName(result.architecture));
    for (const auto& f : result.files) std::printf("  wrote %s\n", f.c_str());
    if (!result.leftOut.empty()) {
      std::printf(
          "left out (training only, not part of the model's forward pass): %zu "
          "parameters\n",
          result.leftOut.size());
      for (const auto& p : result.leftOut) std::printf("  %s\n", p.c_str());
    }
    std::printf(
        "load with: AutoModelForMaskedLM.from_pretrained(\"%s\"), "
        "AutoTokenizer.from_pretrained(\"%s\")\n",
        result.folder.string().c_str(), result.folder.string().c_str());
    return 0;
  });
}

}  // namespace attnlab::app
