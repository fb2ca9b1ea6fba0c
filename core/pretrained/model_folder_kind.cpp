#include "core/pretrained/model_folder_kind.h"

#include <system_error>

namespace attnlab::core {

namespace fs = std::filesystem;

bool isPretrainedModelFolder(const fs::path& path) {
  std::error_code ec;
  // config.json without a run's files: a model folder even when its weights are missing,
  // so that loadHuggingFaceBert says which file is (a run folder has run.h5, checkpoints/).
  return fs::is_directory(path, ec) && fs::is_regular_file(path / "config.json", ec) &&
         !fs::exists(path / "run.h5", ec) && !fs::exists(path / "checkpoints", ec);
}

}  // namespace attnlab::core
