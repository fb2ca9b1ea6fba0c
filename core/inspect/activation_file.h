#pragma once

// `attnlab-cli inspect --hooks` and `--capture PATTERN --out FILE.h5`: the hook points a
// model offers with their shapes, and any of them for one text written as HDF5 (layout in
// docs/hook-points.md, "Activation files").

#include "core/inspect/attention_inspector.h"
#include "core/model/hook_points.h"

#include <filesystem>
#include <string>
#include <vector>

namespace attnlab::core {

/// One hook point of a model: its name and its shape with the batch, length and selected-row
/// axes written as B, T and N (a 1-D convolved model's fixed length stays a number).
struct HookPointShape {
  std::string name;
  std::string shape;  ///< e.g. "[B, 4, T, 16]"
};

/// Every hook point of the inspector's model, in the order a pass reaches them, found by two
/// passes of different batch and length (so the listing is what the model really does, not
/// a table that could drift from it).
std::vector<HookPointShape> listHookPoints(AttentionInspector& inspector);

/// One text's activations at the hook points `patterns` match.
struct TextActivations {
  Inspection tokens;      ///< the text as the pass saw it (ids, pieces, step, checkpoint)
  ActivationCache cache;  ///< batch axis kept (B = 1)
};

/// Throws DataError naming the patterns when none of them matches a hook point of the model.
TextActivations captureText(AttentionInspector& inspector, const std::string& text,
                            const std::vector<std::string>& patterns);

/// Writes /tokens, /token_ids, /names (capture order) and /activations/<name> per hook point,
/// root attributes format = "attnlab-activations", format_version, checkpoint, step, text,
/// real_tokens, truncated, patterns. Atomic (tmp + rename).
void writeActivations(const TextActivations& activations, const std::vector<std::string>& patterns,
                      const std::filesystem::path& out);

}  // namespace attnlab::core
