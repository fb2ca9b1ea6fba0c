#include "core/objectives/attention_guidance.h"

#include "core/tokenizer/piece_roles.h"

#include "core/errors/error.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace attnlab::core {

namespace {

constexpr const char* kPatternNames = "expected next, prev, first, delim, period or none";

std::string trimmed(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return {};
  const auto end = s.find_last_not_of(" \t");
  return s.substr(begin, end - begin + 1);
}

// [B, T] float: 1 on real positions. Any dtype of attention mask is accepted (bool from the
// batcher, 0/1 integers or floats from tests and callers).
torch::Tensor realPositions(const torch::Tensor& attentionMask) {
  return attentionMask.ne(0).to(torch::kFloat32);
}

// [B, T] float: 1 on real positions whose id is one of `ids`.
torch::Tensor matchingPositions(const torch::Tensor& inputIds, const torch::Tensor& real,
                                const std::vector<std::int64_t>& ids) {
  auto hit = torch::zeros(inputIds.sizes(), inputIds.options().dtype(torch::kBool));
  for (const auto id : ids) hit = hit.logical_or(inputIds.eq(id));
  return hit.to(torch::kFloat32) * real;
}

}  // namespace

GuidancePattern parseGuidancePattern(std::string_view name) {
  if (const auto pattern = parseChoice<GuidancePattern>(name)) return *pattern;
  throw ConfigError("attention.guidance.heads",
                    "unknown pattern '" + std::string(name) + "' (" + kPatternNames + ")");
}

const char* guidancePatternName(GuidancePattern pattern) {
  return choiceName(pattern).data();  // the table's literals are NUL-terminated
}

std::vector<GuidancePattern> assignGuidanceHeads(const GuidanceConfig& config, int heads) {
  if (heads <= 0) return {};
  std::vector<GuidancePattern> out;
  if (!config.heads.empty()) {
    if (static_cast<int>(config.heads.size()) != heads) {
      throw ConfigError("attention.guidance.heads", "lists " + std::to_string(config.heads.size()) +
                                                        " patterns but the layer has " +
                                                        std::to_string(heads) + " heads");
    }
    return config.heads;
  }
  // std::lround rounds halves away from zero (2.5 -> 3), unlike Python's round; the
  // paper's settings (lambda * H whole) are unaffected.
  const long k = std::clamp<long>(std::lround(config.headFraction * heads), 0, heads);
  out.assign(static_cast<std::size_t>(heads), GuidancePattern::None);
  for (long h = 0; h < k; ++h) {
    out[static_cast<std::size_t>(h)] = h == 0   ? GuidancePattern::Next
                                       : h == 1 ? GuidancePattern::Prev
                                                : GuidancePattern::First;
  }
  return out;
}

std::vector<bool> guidedLayers(const GuidanceConfig& config, int layers) {
  const int n = std::max(layers, 0);
  const std::string spec = trimmed(config.layers);
  if (spec == "all") return std::vector<bool>(static_cast<std::size_t>(n), true);
  std::vector<bool> out(static_cast<std::size_t>(n), false);
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = spec.find(',', start);
    const std::string item =
        trimmed(spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    char* end = nullptr;
    const long layer = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || end == item.c_str() || *end != '\0') {
      throw ConfigError(
          "attention.guidance.layers",
          "expected `all` or comma-separated layer indices, got '" + config.layers + "'");
    }
    if (layer < 0 || layer >= n) {
      throw ConfigError("attention.guidance.layers",
                        "layer " + item + " does not exist (" + std::to_string(n) + " layers)");
    }
    out[static_cast<std::size_t>(layer)] = true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

at::Tensor guidancePattern(GuidancePattern pattern, const at::Tensor& inputIds,
                           const at::Tensor& attentionMask, const GuidanceTokens& tokens,
                           bool uniformEdges) {
  TORCH_CHECK(inputIds.dim() == 2, "guidancePattern: inputIds must be [B, T]");
  TORCH_CHECK(attentionMask.sizes() == inputIds.sizes(),
              "guidancePattern: attentionMask must match inputIds");
  const auto T = inputIds.size(1);
  const auto fopts = torch::TensorOptions().dtype(torch::kFloat32).device(inputIds.device());
  const auto real = realPositions(attentionMask);               // [B, T]
  const auto realPair = real.unsqueeze(2) * real.unsqueeze(1);  // [B, T, T]
  // Sequences without real tokens divide by 1 instead of 0: their rows are all zero anyway.
  const auto realCount = real.sum(1).clamp_min(1.0).view({-1, 1, 1});

  switch (pattern) {
    case GuidancePattern::Next:
    case GuidancePattern::Prev:
    case GuidancePattern::First: {
      torch::Tensor base;
      if (pattern == GuidancePattern::First) {
        base = torch::zeros({T, T}, fopts);
        base.select(1, 0).fill_(1.0);
      } else if (T > 1) {
        base = torch::diag(torch::ones({T - 1}, fopts), pattern == GuidancePattern::Next ? 1 : -1);
      } else {
        base = torch::zeros({T, T}, fopts);
      }
      // Excluding padding removes the target of a row whose neighbour is padding (Next at
      // the last real token) or missing (Prev at 0); those are the edge rows.
      auto p = base.unsqueeze(0) * realPair;
      if (uniformEdges && pattern != GuidancePattern::First) {
        const auto edge = real * p.sum(2).eq(0).to(torch::kFloat32);  // [B, T]
        p = p + edge.unsqueeze(2) * real.unsqueeze(1) / realCount;
      }
      return p;
    }
    case GuidancePattern::Delim:
    case GuidancePattern::Period: {
      const auto& ids = pattern == GuidancePattern::Delim ? tokens.delimiterIds : tokens.periodIds;
      const auto hits = matchingPositions(inputIds, real, ids);  // [B, T]
      const auto row = hits / hits.sum(1, true).clamp_min(1.0);
      return real.unsqueeze(2) * row.unsqueeze(1);
    }
    case GuidancePattern::None:
      break;
  }
  // A None head has no target; an all-zero one would silently pull its attention to zero.
  throw std::invalid_argument("guidancePattern: the pattern 'none' has no target matrix");
}

GuidanceLoss guidanceLoss(const std::vector<at::Tensor>& probabilities,
                          const std::vector<std::vector<GuidancePattern>>& headPatterns,
                          const at::Tensor& inputIds, const at::Tensor& attentionMask,
                          const GuidanceTokens& tokens, bool uniformEdges, bool frobenius) {
  GuidanceLoss result;
  const auto real = realPositions(attentionMask);
  const auto realPair = (real.unsqueeze(2) * real.unsqueeze(1)).unsqueeze(1);  // [B,1,T,T]
  const double batch = static_cast<double>(inputIds.size(0));
  // Kept on the device: the engine's only per-step host read is its finiteness check.
  const auto realCells = realPair.sum();
  std::map<GuidancePattern, torch::Tensor> targets;
  torch::Tensor total;

  for (std::size_t layer = 0; layer < headPatterns.size(); ++layer) {
    const auto& heads = headPatterns[layer];
    if (heads.empty()) continue;
    if (layer >= probabilities.size() || !probabilities[layer].defined()) {
      throw std::invalid_argument("guidanceLoss: guided layer " + std::to_string(layer) +
                                  " has no attention probabilities");
    }
    const auto& a = probabilities[layer];
    TORCH_CHECK(a.dim() == 4 && a.size(1) == static_cast<std::int64_t>(heads.size()),
                "guidanceLoss: layer ", layer, " has ", a.dim() == 4 ? a.size(1) : -1,
                " heads but ", heads.size(), " patterns");
    // Group heads by pattern so each (layer, pattern) is one tensor expression: the mean
    // form needs the group anyway, and it keeps the graph small.
    std::map<GuidancePattern, std::vector<std::int64_t>> groups;
    for (std::size_t h = 0; h < heads.size(); ++h) {
      if (heads[h] != GuidancePattern::None)
        groups[heads[h]].push_back(static_cast<std::int64_t>(h));
    }
    for (const auto& [pattern, idx] : groups) {
      auto it = targets.find(pattern);
      if (it == targets.end()) {
        it = targets
                 .emplace(pattern,
                          guidancePattern(pattern, inputIds, attentionMask, tokens, uniformEdges))
                 .first;
      }
      const auto target = it->second.to(a.options()).unsqueeze(1);  // [B,1,T,T]
      const auto index =
          torch::tensor(idx, torch::TensorOptions().dtype(torch::kLong)).to(a.device());
      const auto diff = (a.index_select(1, index) - target) * realPair.to(a.options());
      const auto squares = diff.pow(2).sum();
      // frobenius: per head the batch mean of ||.||_F^2, summed over heads = sum / B.
      // mean: MSE over the real cells of the group's heads (count clamped so an all-padding
      // batch gives 0 rather than NaN).
      const auto part =
          frobenius
              ? squares / std::max(batch, 1.0)
              : squares /
                    (realCells.to(a.options()) * static_cast<double>(idx.size())).clamp_min(1.0);
      total = total.defined() ? total + part : part;
      auto& logged = result.perPattern[pattern];
      logged = logged.defined() ? logged + part.detach() : part.detach();
    }
  }
  result.total = total.defined() ? total : torch::zeros({}, real.options());
  return result;
}

double guidanceWeight(const GuidanceConfig& config, std::int64_t step, std::int64_t totalSteps) {
  const double alpha = config.weight;
  const double s = static_cast<double>(step);
  const double total = static_cast<double>(totalSteps);
  switch (config.schedule) {
    case GuidanceSchedule::Linear:
      // A run of 0 steps never asks; guard the division rather than return NaN.
      return alpha * std::max(0.0, 1.0 - s / std::max(total, 1.0));
    case GuidanceSchedule::Hold: {
      if (step < config.holdSteps) return alpha;
      const double span = std::max(1.0, total - static_cast<double>(config.holdSteps));
      return alpha * std::max(0.0, (total - s) / span);
    }
  }
  return alpha;
}

ProbeGuidance probeGuidance(const RunConfig& config,
                            const std::vector<std::vector<std::string>>& probePieces) {
  ProbeGuidance out;
  const GuidanceConfig& g = config.attention.guidance;
  if (!g.enabled || probePieces.empty() || probePieces.front().empty()) return out;
  const auto B = static_cast<std::int64_t>(probePieces.size());
  const auto T = static_cast<std::int64_t>(probePieces.front().size());
  // Stand-in ids: only padding, delimiters and periods matter to the patterns.
  enum : std::int64_t { kPad = 0, kBos, kEos, kDot, kWordDot, kOther };
  auto ids = torch::full({B, T}, kPad, torch::kLong);
  auto mask = torch::zeros({B, T}, torch::kLong);
  for (std::int64_t b = 0; b < B; ++b) {
    const auto& row = probePieces[static_cast<std::size_t>(b)];
    for (std::int64_t t = 0; t < T && t < static_cast<std::int64_t>(row.size()); ++t) {
      const std::string& piece = row[static_cast<std::size_t>(t)];
      std::int64_t id = kOther;
      if (isPaddingPiece(piece))
        id = kPad;
      else if (isSequenceStartPiece(piece))
        id = kBos;
      else if (isSequenceEndPiece(piece))
        id = kEos;
      else if (piece == ".")
        id = kDot;
      else if (isPeriodPiece(piece))
        id = kWordDot;
      ids[b][t] = id;
      mask[b][t] = id == kPad ? 0 : 1;
    }
  }
  const GuidanceTokens tokens{{kBos, kEos}, {kDot, kWordDot}};
  const bool uniformEdges = g.edgeRows == GuidanceEdgeRows::Uniform;
  const std::vector<GuidancePattern> heads = assignGuidanceHeads(g, config.model.heads);
  const std::vector<bool> layers = guidedLayers(g, config.model.layers);
  std::map<GuidancePattern, int> index;
  out.length = static_cast<int>(T);
  for (std::size_t l = 0; l < layers.size(); ++l) {
    std::vector<int> ofHead(heads.size(), -1);
    for (std::size_t h = 0; l < layers.size() && layers[l] && h < heads.size(); ++h) {
      const GuidancePattern p = heads[h];
      if (p == GuidancePattern::None) continue;
      auto it = index.find(p);
      if (it == index.end()) {
        it = index.emplace(p, static_cast<int>(out.patternNames.size())).first;
        out.patternNames.emplace_back(guidancePatternName(p));
        const at::Tensor target = guidancePattern(p, ids, mask, tokens, uniformEdges).contiguous();
        std::vector<std::vector<float>> perSequence;
        for (std::int64_t b = 0; b < B; ++b) {
          const float* data = target[b].data_ptr<float>();
          perSequence.emplace_back(data, data + T * T);
        }
        out.targets.push_back(std::move(perSequence));
      }
      ofHead[h] = it->second;
    }
    out.patternOfHead.push_back(std::move(ofHead));
  }
  return out;
}

}  // namespace attnlab::core
