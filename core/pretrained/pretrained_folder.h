#pragma once

// A Hugging Face model folder used as a run (issue 29): recognising one, the run
// configuration that describes it, where AttnLab keeps what it derives from it (the data
// cache, analysis reports: a model folder may be read-only, such as a download cache), and
// starting a new run's weights from it (model.init_from).

#include "core/config/run_config.h"
#include "core/model/masked_lm.h"
#include "core/pretrained/model_folder_kind.h"  // isPretrainedModelFolder, for its callers

#include <cstdint>
#include <filesystem>

namespace attnlab::core {

struct PretrainedModel;

/// The folder's absolute, normal form (how model.init_from records it).
std::filesystem::path canonicalModelFolder(const std::filesystem::path& folder);

/// FNV-1a 64 over the tokenizer files of a model folder that exist (tokenizer.json,
/// vocab.txt, vocab.json, merges.txt, tokenizer_config.json, special_tokens_map.json,
/// tokenizer.model), each name and its bytes: a token store built with one tokenizer is never read
/// with another.
std::uint64_t pretrainedTokenizerFingerprint(const std::filesystem::path& folder);

/// The tokenizer files of a model folder that exist, copied into `into` (created), so a
/// run started from the folder keeps the tokenizer it used.
void copyPretrainedTokenizer(const std::filesystem::path& folder,
                             const std::filesystem::path& into);

/// Replaces the shapes of `config.model` by the pretrained model's (layers, hidden size,
/// heads, feed-forward size, positions, LayerNorm epsilon), keeping the rest. Throws
/// ConfigError when data.sequence_length exceeds the model's positions, or model.norm is
/// pre (BERT and RoBERTa are post-LN).
void adoptPretrainedShapes(RunConfig& config, const PretrainedModel& model);

/// A run configuration describing the folder's model as it is: its shapes, model.init_from
/// = the folder, the baseline attention, data.sequence_length = min(128, its positions)
/// (analyses over WordNet or a text file), run.name = the folder's name.
RunConfig pretrainedRunConfig(const PretrainedModel& model);

/// Where AttnLab keeps what it derives from a model folder: $XDG_DATA_HOME/attnlab/models/
/// <folder name>-<hash of its absolute path> (~/.local/share when XDG_DATA_HOME is unset).
std::filesystem::path pretrainedWorkDir(const std::filesystem::path& folder);

/// Copies every parameter of the pretrained network into `target`'s parameter of the same
/// name. `target` may have more (a mechanism's own, initialised as its paper says); a
/// parameter of the pretrained model that `target` lacks, or has in another shape, throws
/// ConfigError naming it.
void initialiseFromPretrained(MaskedLanguageModel& target, const PretrainedModel& source);

}  // namespace attnlab::core
