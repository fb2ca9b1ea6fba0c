// HDF5 files opened as checkpoints: CheckpointStore::inspect() (what scan() and the resume
// read of every file in checkpoints/) and CheckpointStore::load(), then the stored
// configuration through parseRunConfig(), the steps AttentionInspector takes (the app's
// Inspector, `attnlab-cli inspect` and `analyze`) before it loads the tokenizer, which this
// build cannot (the SentencePiece bridge needs RTLD_DEEPBIND). Documented errors:
// CheckpointError naming the file, and ConfigError for the stored configuration. Tensors
// come back CPU, of the element count their shape says.

#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "tests/fuzz/fuzz_support.h"

#include <hdf5.h>

#include <ATen/ATen.h>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const auto path = fuzz::writeScratchFile("step-0000002.h5", data, size);
  try {
    (void)core::CheckpointStore::inspect(path);
  } catch (const CheckpointError& e) {
    fuzz::checkClearError(e);
  } catch (const std::exception& e) {
    fuzz::reportUndocumented(e);
  }
  try {
    const core::CheckpointData loaded = core::CheckpointStore::load(path);
    for (const auto& [key, tensor] : loaded.tensors) {
      if (!tensor.defined() || !tensor.device().is_cpu()) {
        fuzz::reportFinding("tensor '" + key + "' is undefined or not on the CPU");
      }
      std::int64_t n = 1;
      for (const auto d : tensor.sizes()) n *= d;
      if (n != tensor.numel()) fuzz::reportFinding("tensor '" + key + "': shape and size differ");
      (void)tensor.sum();  // reads every element
    }
    (void)core::parseRunConfig(loaded.metadata.configToml,
                               path.string() + " (stored configuration)");
  } catch (const CheckpointError& e) {
    fuzz::checkClearError(e);
  } catch (const ConfigError& e) {
    fuzz::checkClearError(e);
  } catch (const std::exception& e) {
    fuzz::reportUndocumented(e);
  }
  // HDF5 keeps freed blocks on its own free lists; a damaged file can make it allocate
  // hundreds of MB at a time, and without this the process would keep it all and end at the
  // memory limit some inputs later, blamed on an innocent one.
  H5garbage_collect();
  return 0;
}
