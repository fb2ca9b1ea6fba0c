#pragma once

// What one inspection is (a text through a checkpoint's model: every layer's attention and
// the views beyond the weights) and what a request for one asks for: plain data, shared by
// the inspection thread (InspectionController), the frames kept in memory (InspectionCache)
// and the Inspect tab's views. Floats only, so views need no LibTorch.

#include "core/model/attention_maps.h"
#include "widgets/plots/plot_data.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <array>
#include <cstddef>
#include <memory>
#include <vector>

namespace attnlab::app {

/// What the Inspect tab's maps show: the attention weights, the pre-softmax scores, the
/// rollout after each layer (Abnar & Zuidema 2020), the norm of each head's weighted value
/// vectors ||alpha_ij,h f_h(x_j)|| and the layer's ||sum_h alpha_ij,h f_h(x_j)|| (Kobayashi et
/// al. 2020). Rollout and layer norms have one map per layer, the others one per head.
enum class InspectView { Weights, Scores, Rollout, HeadNorms, LayerNorms };
constexpr int kInspectViews = 5;

/// What a request asks for beyond the probabilities (each costs time on a large model).
struct InspectionRequestOptions {
  bool scores = false;    ///< the pre-softmax scores
  bool asaMasks = false;  ///< ASA runs: the keep-masks (a second forward pass)
  /// Norms, rollout and the logit lens, made in the same job so that switching views redraws.
  bool beyondWeights = false;
  int lensTop = 5;  ///< the lens's best tokens per cell (0: no lens)
  /// Token positions (0 = <s>) replaced by <mask> before the pass, ascending; part of the key
  /// under which a frame is kept.
  QList<int> maskPositions;
};

/// The logit lens of one inspection (core::LensPredictions as plain arrays, with the pieces
/// of the predicted tokens), rows = layers (+ the combined output when `outputRow`).
struct LensFrame {
  int rows = 0, length = 0, top = 0;
  bool outputRow = false;
  std::vector<qint64> topIds;            ///< [rows, length, top], most probable first
  std::vector<float> topProbability;     ///< [rows, length, top]
  QStringList topPieces;                 ///< [rows, length, top]: the tokenizer's pieces of topIds
  std::vector<qint64> targetRank;        ///< [rows, length]: rank of the position's own token
  std::vector<float> targetProbability;  ///< [rows, length]
  std::size_t at(int row, int position, int k = 0) const {
    return (static_cast<std::size_t>(row) * length + position) * top + k;
  }
  std::size_t cell(int row, int position) const {
    return static_cast<std::size_t>(row) * length + position;
  }
};

/// One inspection: probabilities and pre-softmax scores, per layer [H, T, T] row-major; ASA
/// keep-masks [L, T, T].
struct InspectionFrame {
  QString checkpoint;
  qint64 step = 0;
  QString text;
  QStringList pieces;  ///< <s> ... </s>, T of them
  int layers = 0, heads = 0, length = 0;
  bool truncated = false;       ///< the text was longer than the model takes
  int maxLength = 0;            ///< the longest input the model takes (<s> and </s> included)
  bool residualScores = false;  ///< RealFormer: the scores are the running residual ones
  bool hasAsa = false;          ///< the run uses ASA (keep-masks can be asked for)
  bool hasMlmHead = true;       ///< false: a model folder without MLM head (no lens ever)
  /// Per layer, the keys either side a windowed layer's query sees (core::bandHalfWidth);
  /// -1 for a global layer. The heatmaps frame the band.
  std::vector<int> bandHalfWidths;
  /// Layer `layer`'s band half-width, -1 when global or unknown.
  int bandHalfWidth(int layer) const {
    return layer >= 0 && layer < static_cast<int>(bandHalfWidths.size())
               ? bandHalfWidths[static_cast<std::size_t>(layer)]
               : -1;
  }
  /// What the weights are (core::Inspection::maps): the tab draws signed maps on a diverging
  /// scale and says when rows are not distributions.
  core::AttentionMaps maps = core::AttentionMaps::Probabilities;
  /// Engine time of the request (model load included when the checkpoint changed).
  double inspectMs = 0;
  /// Answered from the frames kept in memory (no model ran for this request).
  bool cached = false;
  /// The weights of a request that also asked for the views beyond them, shown while those
  /// are made: the frame with every view follows for the same request.
  bool extrasPending = false;
  /// Shared, not copied: a 12 x 12 inspection of 512 tokens is 150 MB a tensor, and the frame
  /// passes from the engine to the thread, the panel and its history. The pointers keep the
  /// model's own per-layer tensors alive: nothing is copied or stacked after the forward pass.
  std::vector<std::shared_ptr<const float>> probabilities;  ///< per layer [H, T, T]
  std::vector<std::shared_ptr<const float>> scores;         ///< per layer; empty when not captured
  std::shared_ptr<const float> asaMasks;  ///< [L, T, T]; null when not captured or not ASA
  /// Gated attention: per layer [H, T], each head's output gate at each token (the mean over
  /// d for element gates); empty for a model without output gate.
  std::vector<std::shared_ptr<const float>> gates;
  /// softmax1's learned sink logits [L, H] row-major; empty unless the model learns them.
  std::vector<float> sinkLogits;
  /// The probabilities' grid thumbnails (widgets::headThumbnails, layer-major), made on the
  /// inspection thread so showing a frame does no block means on the GUI thread.
  std::shared_ptr<const std::vector<widgets::Matrix>> thumbnails;

  // Beyond the weights (InspectionRequestOptions::beyondWeights): empty or null otherwise.
  std::vector<std::shared_ptr<const float>> headNorms;   ///< per layer [H, T, T]
  std::vector<std::shared_ptr<const float>> valueNorms;  ///< per layer [H, T]: ||f_h(x_j)||
  std::vector<std::shared_ptr<const float>> layerNorms;  ///< per layer [T, T]
  /// Rollout after each layer, [L, T, T] (padding rows and columns 0).
  std::shared_ptr<const std::vector<float>> rollout;
  std::shared_ptr<const LensFrame> lens;
  int realTokens = 0;  ///< positions that are not padding
  /// Grid thumbnails of the views other than the weights (null where not made), by view.
  std::array<std::shared_ptr<const std::vector<widgets::Matrix>>, kInspectViews> viewThumbnails;
  /// Positions replaced by <mask>, and the pieces before masking (T of them).
  QList<int> maskedPositions;
  QStringList originalPieces;
  /// The positions the request asked to mask (the key under which the frame is kept).
  QList<int> maskRequest;
  bool hasBeyondWeights() const { return rollout != nullptr; }
  /// The T x T matrix of (layer, head): probabilities, or the scores when `scores` is set.
  widgets::Matrix head(int layer, int head, bool scores = false) const;
  /// The first cell of (layer, head)'s T x T block (nullptr when out of range or absent).
  const float* headData(int layer, int head, bool scores = false) const;
  /// The first cell of every head, layer-major (for HeadGrid); empty when absent.
  std::vector<const float*> headPointers(bool scores = false) const;
  /// Layer `layer`'s T x T ASA keep-mask (1 = kept, 0 = masked); empty when not captured.
  widgets::Matrix asaMask(int layer) const;
};

}  // namespace attnlab::app

Q_DECLARE_METATYPE(attnlab::app::InspectionFrame)
