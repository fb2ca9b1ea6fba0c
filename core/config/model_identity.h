#pragma once

// Whether two configurations describe the same model: the keys that decide the parameters'
// shapes and the forward pass (model.*, attention.* apart from guidance, which only adds a
// loss term, tokenizer.vocab_size, data.sequence_length), not the ones a run may change between
// sessions (steps, learning rate, logging, paths). A checkpoint whose model differs from its run's
// config.toml was copied in from another run; analysing it with the run's tokenizer would be a
// silent mix.

#include "core/config/run_config.h"

#include <string>
#include <vector>

namespace attnlab::core {

/// One line per differing key: "model.layers = 1 (here: 2)". Empty when the models are the
/// same. `theirs` is the configuration being checked, `ours` the reference.
std::vector<std::string> modelDifferences(const RunConfig& theirs, const RunConfig& ours);

}  // namespace attnlab::core
