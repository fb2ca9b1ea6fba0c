// LibTorch before Qt: Qt's `slots` keyword macro would break LibTorch's headers.
#include <torch/torch.h>

#include "app/gui/inspection_extras.h"

#include "analysis/attention/attention_rollout.h"
#include "app/gui/inspection_views.h"
#include "core/inspect/attention_inspector.h"
#include "core/tokenizer/tokenizer.h"
#include "widgets/plots/head_grid.h"

#include <algorithm>
#include <cmath>

namespace attnlab::app {

namespace {

// Adds one head's T x T map to `sum`: as it is for probabilities, as |s| / sum_k |s| per row
// for maps that are not (core/model/attention_maps.h; the analyses' normalisation).
void addHead(std::vector<double>& sum, const float* head, std::size_t T, bool probabilities) {
  for (std::size_t i = 0; i < T; ++i) {
    const float* row = head + i * T;
    double norm = 1.0;
    if (!probabilities) {
      norm = 0.0;
      for (std::size_t k = 0; k < T; ++k) norm += std::abs(row[k]);
      if (norm == 0.0) continue;  // a row of zeros stays zeros
    }
    for (std::size_t k = 0; k < T; ++k)
      sum[i * T + k] += (probabilities ? row[k] : std::abs(row[k])) / norm;
  }
}

// The rollout of the frame's weights over its real tokens, as [L, T, T] (padding 0). The
// heads' mean is taken here in double (one [L, T, T] array instead of a 150 MB copy of the
// [L, H, T, T] stack at 512 tokens); rollout of one mean "head" is the rollout of the heads.
std::shared_ptr<const std::vector<float>> rolloutOf(const InspectionFrame& frame) {
  const std::size_t T = static_cast<std::size_t>(frame.length), cells = T * T;
  std::vector<float> mean(static_cast<std::size_t>(frame.layers) * cells);
  std::vector<double> sum(cells);
  for (int l = 0; l < frame.layers; ++l) {
    std::fill(sum.begin(), sum.end(), 0.0);
    const bool probabilities = frame.maps == core::AttentionMaps::Probabilities;
    for (int h = 0; h < frame.heads; ++h) addHead(sum, frame.headData(l, h), T, probabilities);
    for (std::size_t c = 0; c < cells; ++c)
      mean[static_cast<std::size_t>(l) * cells + c] = static_cast<float>(sum[c] / frame.heads);
  }
  const int n = frame.realTokens;
  const std::vector<double> r =
      analysis::attentionRollout({mean.data(), frame.layers, 1, frame.length}, n);
  auto out = std::make_shared<std::vector<float>>(static_cast<std::size_t>(frame.layers) * cells);
  for (int l = 0; l < frame.layers; ++l)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        (*out)[static_cast<std::size_t>(l) * cells + i * T + j] = static_cast<float>(
            r[(static_cast<std::size_t>(l) * n + i) * static_cast<std::size_t>(n) + j]);
  return out;
}

std::shared_ptr<const LensFrame> lensOf(const core::LensPredictions& p,
                                        const core::Tokenizer& tokenizer) {
  auto lens = std::make_shared<LensFrame>();
  const auto sizes = p.topIds.sizes();  // [R, T, K]
  lens->rows = static_cast<int>(sizes[0]);
  lens->length = static_cast<int>(sizes[1]);
  lens->top = static_cast<int>(sizes[2]);
  lens->outputRow = p.outputRow;
  const at::Tensor ids = p.topIds.to(torch::kCPU, torch::kLong).contiguous();
  lens->topIds.assign(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + ids.numel());
  const at::Tensor probs = p.topProbabilities.to(torch::kCPU, torch::kFloat32).contiguous();
  lens->topProbability.assign(probs.data_ptr<float>(), probs.data_ptr<float>() + probs.numel());
  const at::Tensor rank = p.targetRank.to(torch::kCPU, torch::kLong).contiguous();
  lens->targetRank.assign(rank.data_ptr<int64_t>(), rank.data_ptr<int64_t>() + rank.numel());
  const at::Tensor own = p.targetProbability.to(torch::kCPU, torch::kFloat32).contiguous();
  lens->targetProbability.assign(own.data_ptr<float>(), own.data_ptr<float>() + own.numel());
  lens->topPieces.reserve(static_cast<qsizetype>(lens->topIds.size()));
  for (const qint64 id : lens->topIds)
    lens->topPieces << QString::fromStdString(tokenizer.displayPiece(static_cast<int>(id)));
  return lens;
}

std::shared_ptr<const std::vector<widgets::Matrix>> thumbnailsOf(const InspectionFrame& frame,
                                                                 InspectView view) {
  const std::vector<const float*> pointers = viewPointers(frame, view);
  if (pointers.empty()) return {};
  return std::make_shared<const std::vector<widgets::Matrix>>(
      widgets::headThumbnails(pointers, frame.length, frame.length));
}

}  // namespace

std::shared_ptr<const float> shareTensor(const at::Tensor& t) {
  if (!t.defined()) return {};
  at::Tensor c = t.to(torch::kCPU, torch::kFloat32).contiguous();
  const float* data = c.data_ptr<float>();
  return std::shared_ptr<const float>(
      data, [keep = std::move(c)](const float*) mutable { keep.reset(); });
}

void addBeyondWeights(InspectionFrame& frame, const core::Inspection& inspection,
                      const core::Tokenizer& tokenizer) {
  frame.realTokens = static_cast<int>(inspection.realTokens);
  for (const auto& n : inspection.norms) {
    frame.headNorms.push_back(shareTensor(n.headNorms));
    frame.valueNorms.push_back(shareTensor(n.valueNorms));
    frame.layerNorms.push_back(shareTensor(n.layerNorms));
  }
  if (inspection.lens) frame.lens = lensOf(*inspection.lens, tokenizer);
  for (const auto p : inspection.maskedPositions) frame.maskedPositions << static_cast<int>(p);
  frame.originalPieces = frame.pieces;
  for (const int p : frame.maskedPositions)
    if (p < static_cast<int>(inspection.originalIds.size()))
      frame.originalPieces[p] = QString::fromStdString(tokenizer.displayPiece(
          static_cast<int>(inspection.originalIds[static_cast<std::size_t>(p)])));
  frame.rollout = rolloutOf(frame);
}

void addViewThumbnails(InspectionFrame& frame) {
  for (const InspectView view :
       {InspectView::Scores, InspectView::Rollout, InspectView::HeadNorms, InspectView::LayerNorms})
    frame.viewThumbnails[static_cast<std::size_t>(view)] = thumbnailsOf(frame, view);
}

}  // namespace attnlab::app
