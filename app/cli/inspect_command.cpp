#include "app/cli/inspect_command.h"

#include "analysis/attention/attention_rollout.h"
#include "app/cli/command_errors.h"
#include "core/checkpoint/checkpoint_store.h"
#include "core/errors/error.h"
#include "core/health/attention_health.h"
#include "core/inspect/activation_file.h"
#include "core/inspect/attention_inspector.h"
#include "core/pretrained/pretrained_folder.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <system_error>

namespace attnlab::app {

namespace {

bool wants(const InspectOptions& options, const std::string& view) {
  return std::find(options.views.begin(), options.views.end(), view) != options.views.end();
}

std::filesystem::path latestCheckpoint(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec) || core::isPretrainedModelFolder(path)) return path;
  // A run directory: its latest checkpoint.
  const auto latest = core::CheckpointStore(path, 1, false).latest();
  if (!latest) throw CheckpointError(path.string(), "this run directory holds no checkpoint yet");
  return latest->path;
}

/// Abnar & Zuidema's rollout of the inspection's real tokens, [L, n, n].
at::Tensor rolloutOf(const core::Inspection& r) {
  // Maps that are not probabilities enter as |s| / sum |s| per row, as in the analyses.
  const auto p =
      (r.maps == core::AttentionMaps::Probabilities ? r.probabilities
                                                    : core::normalisedMap(r.probabilities))
          .contiguous();
  const analysis::AttentionStack stack{p.data_ptr<float>(), static_cast<int>(p.size(0)),
                                       static_cast<int>(p.size(1)), static_cast<int>(p.size(2))};
  const auto n = static_cast<int>(r.realTokens);
  std::vector<double> rollout = analysis::attentionRollout(stack, n);
  return torch::from_blob(rollout.data(), {p.size(0), n, n}, torch::kDouble).clone();
}

/// --hooks: one line per hook point, its name and its shape.
int listHookPoints(core::AttentionInspector& inspector, const std::filesystem::path& checkpoint) {
  std::printf(
      "%s: step %lld; hook points (B: batch, T: tokens, N: real tokens of the batch; "
      "docs/hook-points.md):\n",
      checkpoint.string().c_str(), static_cast<long long>(inspector.step()));
  for (const auto& point : core::listHookPoints(inspector))
    std::printf("  %-28s %s\n", point.name.c_str(), point.shape.c_str());
  return 0;
}

/// --capture: the hook points the patterns match, for the text.
int writeCapture(core::AttentionInspector& inspector, const InspectOptions& options) {
  const auto activations = core::captureText(inspector, options.text, options.capture);
  core::writeActivations(activations, options.capture, options.out);
  std::printf("%s: step %lld, %lld tokens%s, %zu hook points -> %s\n",
              activations.tokens.checkpoint.string().c_str(),
              static_cast<long long>(activations.tokens.step),
              static_cast<long long>(activations.tokens.realTokens),
              activations.tokens.truncated ? " (truncated)" : "", activations.cache.names().size(),
              options.out.string().c_str());
  return 0;
}

int writeViews(core::AttentionInspector& inspector, const std::filesystem::path& checkpoint,
               const InspectOptions& options) {
  core::InspectOptions what;
  what.scores = what.asaMasks = wants(options, "weights");
  what.norms = wants(options, "norms");
  what.lensTop = wants(options, "lens") ? options.top : 0;
  what.maskPositions = options.masks;
  auto result = inspector.inspect(options.text, what);
  if (wants(options, "rollout")) result.rollout = rolloutOf(result);
  // The weights are computed by every pass; written only when asked for.
  const auto layers = result.probabilities.size(0), heads = result.probabilities.size(1);
  if (!wants(options, "weights")) result.probabilities = at::Tensor();
  core::writeInspection(result, options.out);
  std::printf("%s: step %lld, %lld tokens%s, %lld layers x %lld heads -> %s\n",
              checkpoint.string().c_str(), static_cast<long long>(result.step),
              static_cast<long long>(result.realTokens), result.truncated ? " (truncated)" : "",
              static_cast<long long>(layers), static_cast<long long>(heads),
              options.out.string().c_str());
  return 0;
}

}  // namespace

int runInspect(const InspectOptions& options) {
  return runReportingErrors("inspect", [&] {
    if (!options.listHooks && (options.text.empty() || options.out.empty()))
      throw ConfigError("inspect", "--text and --out are required (unless --hooks)");
    const auto checkpoint = latestCheckpoint(options.checkpoint);
    core::AttentionInspector inspector(checkpoint, options.tokenizer);
    if (options.listHooks) return listHookPoints(inspector, checkpoint);
    if (!options.capture.empty()) return writeCapture(inspector, options);
    return writeViews(inspector, checkpoint, options);
  });
}

}  // namespace attnlab::app
