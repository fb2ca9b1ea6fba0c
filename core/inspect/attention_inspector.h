#pragma once

#include "core/config/run_config.h"
#include "core/inspect/attention_norms.h"
#include "core/inspect/gated_loss.h"
#include "core/inspect/logit_lens.h"
#include "core/model/attention_maps.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::core {

class Tokenizer;
class ActivationCache;
class HookRequest;

/// Attention of one input text under a checkpoint, as `attnlab-cli inspect` writes it.
struct Inspection {
  std::filesystem::path checkpoint;
  std::int64_t step = 0;
  std::string text;
  std::vector<std::string> pieces;  ///< including <s> and </s> (and padding for 1-D conv)
  std::vector<std::int64_t> ids;
  std::int64_t realTokens = 0;  ///< pieces that are not padding
  bool truncated = false;       ///< the text was longer than the model's positions
  /// What `probabilities` / `probabilityLayers` hold (attentionMapsOf the checkpoint's
  /// config): softmax rows, weights whose rows need not sum to 1, or differential attention's
  /// signed p1 - lambda p2. They are kept raw, for display; the analyses' distributions come
  /// from probabilitiesOf / captureBatch (|s| / sum |s| rows for the last two).
  AttentionMaps maps = AttentionMaps::Probabilities;
  at::Tensor probabilities;  ///< [L, H, T, T] float32 (undefined unless `stacked`)
  at::Tensor scores;         ///< [L, H, T, T] float32: pre-softmax (raw or residual)
  /// Without `stacked`: per layer [H, T, T] float32 contiguous, the model's own tensors (the
  /// stack would copy 150 MB at 12 x 12 x 512); `probabilities` and `scores` stay undefined.
  std::vector<at::Tensor> probabilityLayers;
  std::vector<at::Tensor> scoreLayers;
  at::Tensor asaMasks;  ///< [L, T, T] keep-masks, ASA runs only (else undefined)
  /// Gated attention (attention.output_gate head or element): per layer [H, T] float32, the
  /// sigmoid gate that scaled each head's context at each token (for `element`, the mean over
  /// the head's d channels), from the same pass; empty for a model without output gate.
  std::vector<at::Tensor> gateLayers;
  /// softmax1 with a learned sink (attention.sink_logit = learned): each layer's sink logits
  /// [L, H] float32 (parameters, the same for any text); undefined otherwise.
  at::Tensor sinkLogits;
  /// Attention rollout over the real tokens [L, n, n] float64, when a caller computed it
  /// (analysis::attentionRollout; core does not link the analyses).
  at::Tensor rollout;
  /// Norm-based attention per layer (InspectOptions::norms), the batch axis removed:
  /// valueNorms [H, T], headNorms [H, T, T], layerNorms [T, T].
  std::vector<LayerNorms> norms;
  /// The logit lens at every position (InspectOptions::lensTop > 0); the target of a
  /// position is its token before masking. Never made for a model without MLM head.
  std::optional<LensPredictions> lens;
  /// False for a Hugging Face BertModel / RobertaModel saved without its MLM head
  /// (AttentionInspector::hasMlmHead): `lens` stays empty whatever was asked.
  bool hasMlmHead = true;
  /// Positions replaced by <mask> (InspectOptions::maskPositions, those inside the input),
  /// and the tokens they held: `ids` holds <mask> there.
  std::vector<std::int64_t> maskedPositions;
  std::vector<std::int64_t> originalIds;
  std::string configToml;
};

/// What inspect() captures beyond the probabilities. Both cost time on a large model: the
/// scores are a second [L, H, T, T] tensor (150 MB at 12 x 12 x 512), the keep-masks a second
/// forward pass; an interactive view asks for them only when it shows them.
struct InspectOptions {
  bool scores = true;    ///< the pre-softmax scores
  bool asaMasks = true;  ///< ASA runs: the adversary's keep-masks
  /// One [L, H, T, T] tensor each (a copy), or the layers as the model made them.
  bool stacked = true;
  bool norms = false;  ///< norm-based attention (Inspection::norms)
  int lensTop = 0;     ///< > 0: the logit lens with this many best tokens per cell
  /// Token positions (0 = <s>) to replace by <mask> before the pass; outside the input or
  /// on <s> / </s>: ignored.
  std::vector<std::int64_t> maskPositions;
};

/// What captureBatch() should capture of a batch.
struct BatchRequest {
  bool probabilities = true;
  bool norms = false;
  /// The logit lens at these flat positions of [B, T] (int64 [N]) with these true tokens
  /// ([N]); undefined: no lens. The caller masks the input ids itself.
  at::Tensor lensPositions;
  at::Tensor lensTargets;
  /// Every layer's queries and keys (the query-key map).
  bool queryKeys = false;
  /// Every layer's output (linear CKA between layers).
  bool hiddenStates = false;
};

/// One batch's capture, cut back to the input's length T.
struct BatchCapture {
  /// [L, B, H, T, T] float32 contiguous (when asked): rows as probabilitiesOf gives them
  at::Tensor probabilities;
  std::vector<LayerNorms> norms;  ///< per layer, batch first (when asked)
  std::optional<LensRows> lens;
  at::Tensor queries;  ///< [L, B, H, T, d] float32 contiguous (queryKeys)
  at::Tensor keys;     ///< [L, B, H, T, d] float32 contiguous (queryKeys)
  /// [L + 1, B, T, hidden] float32 contiguous (hiddenStates): the embeddings' output (the
  /// first layer's input), then every layer's output.
  at::Tensor hiddenStates;
};

/// Loads a checkpoint (its configuration, parameters and the run's tokenizer) once and
/// runs texts through the model in evaluation mode, capturing every layer's attention in
/// the same forward pass.
class AttentionInspector {
 public:
  /// `tokenizerModel` empty: the checkpoint's recorded tokenizer, else
  /// <run dir>/tokenizer.model (the checkpoint lives in <run dir>/checkpoints/), or for a
  /// run started from a pretrained model <run dir>/tokenizer/. `checkpoint` may also be a
  /// Hugging Face model folder (isPretrainedModelFolder): its model and tokenizer, step 0.
  /// Throws CheckpointError / TokenizerError / DataError naming the file.
  explicit AttentionInspector(const std::filesystem::path& checkpoint,
                              const std::filesystem::path& tokenizerModel = {});
  ~AttentionInspector();
  AttentionInspector(AttentionInspector&&) noexcept;
  AttentionInspector& operator=(AttentionInspector&&) noexcept;

  /// Encodes `text` as <s> pieces </s> (truncated to the model's length) and captures the
  /// attention. Throws DataError for an empty text.
  Inspection inspect(const std::string& text, const InspectOptions& options = {});

  /// <s> pieces </s> of `text` as inspect() runs it (ids, pieces, realTokens, truncated, the
  /// checkpoint's step and config); no forward pass. Throws DataError for an empty text.
  Inspection tokenize(const std::string& text) const;
  /// Any named activations of a batch (hook_points.h, docs/hook-points.md): `ids` [B, T]
  /// int64 padded with <pad>. With an MLM head the pass runs it over every real position
  /// ("mlm.logits" [real tokens, V]); an ASA model's "blocks.{L}.asa.keep" come from a second,
  /// adversarial pass. Replacement hooks in `request` apply too.
  ActivationCache captureActivations(const at::Tensor& ids, const HookRequest& request);
  /// Attention probabilities of a batch in one forward pass, for analyses that stream an
  /// evaluation set: `ids` is [B, T] int64 padded with <pad> (T <= the model's positions),
  /// the result [L, B, H, T, T] float32, contiguous. A 1-D convolved model is run at its
  /// fixed length and the result cut back to T. Rows are distributions whatever the model:
  /// maps that are not probabilities (maps()) become |s| / sum |s| per row (normalisedMap);
  /// softmax maps are the hook's values unchanged.
  at::Tensor probabilitiesOf(const at::Tensor& ids);
  /// The same pass with what `request` asks for (norms, the logit lens) as well; its
  /// probabilities are rows as probabilitiesOf gives them.
  BatchCapture captureBatch(const at::Tensor& ids, const BatchRequest& request);
  /// The MLM loss of `ids` [B, T] (holding <mask> at `masked`) with head gates [L, H]
  /// (undefined: none), and with `gradient` each sequence's d loss / d gate (gated_loss.h).
  /// Throws DataError for a model without MLM head (hasMlmHead).
  GatedLoss gatedLoss(const at::Tensor& ids, const MaskedTargets& masked, const at::Tensor& gates,
                      bool gradient);

  std::int64_t step() const;
  const std::filesystem::path& checkpoint() const;
  /// The configuration stored in the checkpoint.
  const RunConfig& config() const;
  const std::string& configToml() const;
  const Tokenizer& tokenizer() const;
  /// What the model's attention maps are (attentionMapsOf its configuration).
  AttentionMaps maps() const;
  /// True when the model has ASA adversaries (inspect() can give keep-masks).
  bool hasAsaMasks() const;
  /// False for a model folder holding a BertModel / RobertaModel without its MLM head: the
  /// head would be AttnLab's random initialisation, so inspect() makes no logit lens, and
  /// captureBatch() with lens positions and gatedLoss() throw DataError naming the folder.
  bool hasMlmHead() const;
  /// Throws DataError naming the folder and `what` when the model has no MLM head.
  void requireMlmHead(const std::string& what) const;
  /// The longest input the model takes (<s> and </s> included).
  int maxLength() const;

 private:
  /// A Hugging Face folder (core/pretrained): its model, tokenizer and a configuration
  /// describing it (pretrainedRunConfig); step 0.
  void openModelFolder(const std::filesystem::path& folder);
  /// <s> pieces </s>, cut to the model's length (and padded to a 1-D convolution's).
  std::vector<std::int64_t> encodeForInspection(const std::string& text, Inspection& result) const;
  /// What `request` asked of the pass's cache, cut back from a 1-D convolution's fixed length
  /// to the input's.
  BatchCapture cutBack(ActivationCache& cache, const BatchRequest& request,
                       std::int64_t length) const;
  /// Each layer's learned sink logits stacked [L, H], or undefined (Inspection::sinkLogits).
  at::Tensor sinkLogits() const;
  /// ASA's keep-masks [L, T, T] of a one-sequence input (a second, adversarial pass).
  at::Tensor asaMasksOf(const at::Tensor& input, const at::Tensor& mask);

  struct State;
  std::unique_ptr<State> m_state;
};

/// Writes an inspection as HDF5 (layout in docs/run-log.md, "Inspection files"):
/// /tokens, /token_ids, /probabilities, /scores, /asa_masks, /config; root attributes
/// format = "attnlab-inspect", format_version, checkpoint, step, text. Atomic (tmp + rename).
void writeInspection(const Inspection& inspection, const std::filesystem::path& out);

}  // namespace attnlab::core
