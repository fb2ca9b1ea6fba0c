#include "app/cli/inspect_command.h"

#include "app/cli/command_errors.h"
#include "core/checkpoint/checkpoint_store.h"
#include "core/errors/error.h"
#include "core/inspect/attention_inspector.h"

#include <cstdio>
#include <system_error>

namespace attnlab::app {

int runInspect(const InspectOptions& options) {
  namespace fs = std::filesystem;
  return runReportingErrors("inspect", [&] {
    fs::path checkpoint = options.checkpoint;
    std::error_code ec;
    if (fs::is_directory(checkpoint, ec)) {
      // A run directory: its latest checkpoint.
      const auto latest = core::CheckpointStore(checkpoint, 1, false).latest();
      if (!latest) {
        throw CheckpointError(checkpoint.string(), "this run directory holds no checkpoint yet");
      }
      checkpoint = latest->path;
    }
    core::AttentionInspector inspector(checkpoint, options.tokenizer);
    const auto result = inspector.inspect(options.text);
    core::writeInspection(result, options.out);
    std::printf("%s: step %lld, %lld tokens%s, %lld layers x %lld heads -> %s\n",
                checkpoint.string().c_str(), static_cast<long long>(result.step),
                static_cast<long long>(result.realTokens), result.truncated ? " (truncated)" : "",
                static_cast<long long>(result.probabilities.size(0)),
                static_cast<long long>(result.probabilities.size(1)), options.out.string().c_str());
    return 0;
  });
}

}  // namespace attnlab::app
