#include "analysis/runs/run_selection.h"

#include "core/checkpoint/checkpoint_store.h"
#include "core/errors/error.h"
#include "core/pretrained/pretrained_folder.h"

#include <string>
#include <system_error>

namespace attnlab::analysis {

namespace fs = std::filesystem;

namespace {

std::string joinSteps(const std::vector<std::int64_t>& steps) {
  std::string out;
  for (const auto s : steps) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out.empty() ? "none" : out;
}

// A Hugging Face folder: its one "checkpoint" of step 0; reports and the data cache go to
// its work folder (core::pretrainedWorkDir), since a model folder may be read-only.
SelectedCheckpoint selectModelFolder(const fs::path& folder, std::optional<std::int64_t> step) {
  if (step && *step != 0)
    throw CheckpointError(folder.string(),
                          "is a pretrained model folder, whose only step is 0, "
                          "not " +
                              std::to_string(*step));
  SelectedCheckpoint selected;
  selected.runDir = core::pretrainedWorkDir(folder);
  std::error_code ec;
  fs::create_directories(selected.runDir, ec);
  if (ec)
    throw DataError(selected.runDir.string(),
                    "cannot create the model's work folder: " + ec.message());
  selected.checkpoint = folder;
  selected.step = 0;
  selected.availableSteps = {0};
  return selected;
}

}  // namespace

SelectedCheckpoint selectCheckpoint(const fs::path& run, std::optional<std::int64_t> step) {
  std::error_code ec;
  if (!fs::exists(run, ec)) throw CheckpointError(run.string(), "no such run directory or file");
  SelectedCheckpoint selected;
  if (core::isPretrainedModelFolder(run)) return selectModelFolder(run, step);
  if (fs::is_regular_file(run, ec)) {
    // A checkpoint file: <run>/checkpoints/step-N.h5.
    const auto info = core::CheckpointStore::inspect(run);
    if (step && *step != info.step) {
      throw CheckpointError(run.string(), "is the checkpoint of step " + std::to_string(info.step) +
                                              ", not of step " + std::to_string(*step));
    }
    selected.runDir = run.parent_path().parent_path();
    selected.checkpoint = run;
    selected.step = info.step;
    selected.availableSteps = {info.step};
    return selected;
  }
  selected.runDir = run;
  const auto list = core::CheckpointStore(run, 1, false).list();
  for (const auto& c : list) selected.availableSteps.push_back(c.step);
  if (list.empty()) throw CheckpointError(run.string(), "this run directory holds no checkpoint");
  if (!step) {
    selected.checkpoint = list.back().path;
    selected.step = list.back().step;
    return selected;
  }
  for (const auto& c : list) {
    if (c.step == *step) {
      selected.checkpoint = c.path;
      selected.step = c.step;
      return selected;
    }
  }
  throw CheckpointError(run.string(), "has no checkpoint of step " + std::to_string(*step) +
                                          " (checkpoints: " + joinSteps(selected.availableSteps) +
                                          ")");
}

}  // namespace attnlab::analysis
