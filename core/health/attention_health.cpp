#include "core/health/attention_health.h"

#include "core/model/hook_points.h"

#include "core/tokenizer/piece_roles.h"

#include <torch/torch.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace attnlab::core {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr auto kDouble = torch::kFloat64;

/// [C, B, T] float64: which real keys belong to each class (First by position).
at::Tensor classMasks(const at::Tensor& classes, const at::Tensor& real) {
  const auto length = classes.size(1);
  const auto positions = torch::arange(length, classes.options()).unsqueeze(0);
  std::vector<at::Tensor> masks;
  const auto first = positions.eq(0).logical_and(real);
  masks.push_back(first);
  for (const auto c : {SinkClass::Cls, SinkClass::Sep, SinkClass::Punctuation})
    masks.push_back(classes.eq(static_cast<std::int64_t>(c)).logical_and(real));
  auto other = real.logical_and(first.logical_not());
  for (int c = 1; c < 4; ++c) other = other.logical_and(masks[size_t(c)].logical_not());
  masks.push_back(other);
  return torch::stack(masks).to(kDouble);
}

/// The class that holds each key for the top-key vote [B, T] int64: First at position 0.
at::Tensor holdingClass(const at::Tensor& classes) {
  auto out = classes.clone();
  out.select(1, 0).fill_(static_cast<std::int64_t>(SinkClass::First));
  return out;
}

/// The layer's map as a distribution over real keys, float64 [B, H, T, T].
at::Tensor distributionOf(const at::Tensor& pattern, const at::Tensor& keys, bool probability) {
  auto a = pattern.to(kDouble) * keys.to(kDouble).view({keys.size(0), 1, 1, keys.size(1)});
  return probability ? a : normalisedMap(a);
}

}  // namespace

const char* sinkClassName(SinkClass c) {
  switch (c) {
    case SinkClass::First:
      return "first";
    case SinkClass::Cls:
      return "cls";
    case SinkClass::Sep:
      return "sep";
    case SinkClass::Punctuation:
      return "punctuation";
    case SinkClass::Other:
      return "other";
  }
  return "?";
}

at::Tensor sinkClassesOf(const std::vector<std::string>& pieces, std::int64_t batch,
                         std::int64_t length) {
  if (static_cast<std::int64_t>(pieces.size()) != batch * length)
    throw std::invalid_argument("sink classes: " + std::to_string(pieces.size()) +
                                " pieces for a batch of " + std::to_string(batch) + " x " +
                                std::to_string(length));
  auto out = torch::empty({batch, length}, torch::kLong);
  auto* c = out.data_ptr<std::int64_t>();
  for (size_t i = 0; i < pieces.size(); ++i) {
    const auto& p = pieces[i];
    const SinkClass k = isSequenceStartPiece(p) ? SinkClass::Cls
                        : isSequenceEndPiece(p) ? SinkClass::Sep
                        : isPunctuationPiece(p) ? SinkClass::Punctuation
                                                : SinkClass::Other;
    c[i] = static_cast<std::int64_t>(k);
  }
  return out;
}

at::Tensor normalisedMap(const at::Tensor& map) {
  auto out = map.clone();
  normaliseMapInPlace(out);
  return out;
}

void normaliseMapInPlace(at::Tensor& map) {
  map.abs_();
  // The floor keeps a row of zeros at zeros; 1e-300 would round to 0 in float32.
  const double floor = map.scalar_type() == torch::kDouble ? 1e-300 : 1e-37;
  map.div_(map.sum(-1, true).clamp_min_(floor));
}

void requestHealthHooks(HookRequest& request) {
  request.capture("blocks.*.attn.pattern")
      .capture("blocks.*.attn.scores")
      .capture("blocks.*.attn.scores2")
      .capture("blocks.*.resid_post");
}

void takeHealthHooks(ActivationCache& cache, int layers, HealthBatch& batch) {
  batch.pattern = cache.takeLayers("attn.pattern", layers);
  batch.scores = cache.takeLayers("attn.scores", layers);
  if (cache.contains("blocks.0.attn.scores2")) {
    const auto second = cache.takeLayers("attn.scores2", layers);
    for (size_t l = 0; l < batch.scores.size(); ++l)
      batch.scores[l] = torch::maximum(batch.scores[l], second[l]);
  }
  batch.residual = cache.takeLayers("resid_post", layers);
}

HealthAccumulator::HealthAccumulator(HealthSettings settings) : m_settings(settings) {}

void HealthAccumulator::add(const HealthBatch& batch) {
  if (batch.pattern.empty() || batch.pattern.size() != batch.residual.size() ||
      batch.pattern.size() != batch.scores.size())
    throw std::invalid_argument(
        "attention health: every layer needs its pattern, scores and "
        "residual stream");
  addAttention(batch);
  addResidual(batch);
  m_sequences += batch.realTokens.size(0);
}

void HealthAccumulator::addAttention(const HealthBatch& batch) {
  torch::NoGradGuard noGrad;
  const auto L = static_cast<std::int64_t>(batch.pattern.size());
  const auto H = batch.pattern[0].size(1);
  const auto real = batch.realTokens.to(torch::kCPU);
  const auto realD = real.to(kDouble);
  const auto queries = realD.sum(1).clamp_min(1);                      // [B]
  const auto masks = classMasks(batch.classes.to(torch::kCPU), real);  // [C, B, T]
  const auto counts = masks.sum(2);                                    // [C, B]
  const auto present = counts.gt(0).to(kDouble);                       // [C, B]
  const auto holders = holdingClass(batch.classes.to(torch::kCPU));
  const auto pairs = real.unsqueeze(2).logical_and(real.unsqueeze(1)).unsqueeze(1);  // [B,1,T,T]
  if (!m_classMassSum.defined()) {
    m_classMassSum = torch::zeros({L, H, kSinkClasses}, kDouble);
    m_classCount = torch::zeros({kSinkClasses}, kDouble);
    m_topMassSum = torch::zeros({L, H}, kDouble);
    m_topClassVotes = torch::zeros({L, H, kSinkClasses}, kDouble);
    m_entropySum = torch::zeros({L, H}, kDouble);
    m_collapsed = torch::zeros({L, H}, kDouble);
    m_entropyMin = torch::full({L, H}, kInf, kDouble);
    m_logitMax = torch::full({L, H}, -kInf, kDouble);
  }
  const auto rowMask = realD.unsqueeze(1);  // [B, 1, T] real query rows
  for (std::int64_t l = 0; l < L; ++l) {
    const auto a = distributionOf(batch.pattern[size_t(l)].to(torch::kCPU), real,
                                  m_settings.probabilityMaps);  // [B, H, T, T]
    // alpha_k: the mass key k receives, averaged over the real queries.
    const auto alpha = (a * rowMask.unsqueeze(-1)).sum(2) / queries.view({-1, 1, 1});  // [B,H,T]
    const auto perClass = torch::einsum("bhk,cbk->cbh", {alpha, masks}) /
                          counts.clamp_min(1).unsqueeze(-1);  // [C, B, H]
    m_classMassSum[l] += (perClass * present.unsqueeze(-1)).sum(1).transpose(0, 1);
    const auto [top, where] = alpha.masked_fill(real.logical_not().unsqueeze(1), -1.0).max(-1);
    m_topMassSum[l] += top.sum(0);
    const auto votes = holders.gather(1, where.view({where.size(0), -1})).view(where.sizes());
    m_topClassVotes[l] += torch::one_hot(votes, kSinkClasses).to(kDouble).sum(0);
    // Row entropies in nats (0 log 0 = 0), over real query rows.
    const auto entropy = -torch::xlogy(a, a).sum(-1);  // [B, H, T]
    const auto realRows = real.unsqueeze(1).expand_as(entropy);
    m_entropySum[l] += (entropy * rowMask).sum(at::IntArrayRef{0, 2});
    m_entropyMin[l] = torch::minimum(
        m_entropyMin[l], entropy.masked_fill(realRows.logical_not(), kInf).amin({0, 2}));
    m_collapsed[l] +=
        entropy.lt(m_settings.collapseNats).logical_and(realRows).sum(at::IntArrayRef{0, 2});
    const auto scores = batch.scores[size_t(l)].to(torch::kCPU, kDouble);
    m_logitMax[l] = torch::maximum(m_logitMax[l],
                                   scores.masked_fill(pairs.logical_not(), -kInf).amax({0, 2, 3}));
  }
  m_classCount += present.sum(1);
  m_rows += static_cast<std::int64_t>(realD.sum().item<double>());
}

namespace {

/// ||X - 1 mean(X)^T||_F / ||X||_F and the mean pairwise cosine of the rows of X [n, D]
/// (n >= 2): with unit rows u_i, sum_(i != j) u_i . u_j = ||sum_i u_i||^2 - n.
std::pair<double, double> rankCollapse(const at::Tensor& x) {
  const auto n = static_cast<double>(x.size(0));
  const double residual =
      (x - x.mean(0, true)).norm().item<double>() / std::max(x.norm().item<double>(), 1e-300);
  const auto unit = x / x.norm(2, 1, true).clamp_min(1e-300);
  const double pairs = unit.sum(0).pow(2).sum().item<double>() - n;
  return {residual, pairs / (n * (n - 1))};
}

/// Keeps the three largest entries of `into` and `candidates` together, largest first.
void mergeTop(std::array<MassiveEntry, 3>& into, const std::vector<MassiveEntry>& candidates) {
  std::vector<MassiveEntry> all(into.begin(), into.end());
  all.insert(all.end(), candidates.begin(), candidates.end());
  std::stable_sort(all.begin(), all.end(), [](const MassiveEntry& a, const MassiveEntry& b) {
    return a.magnitude > b.magnitude;
  });
  for (size_t i = 0; i < into.size(); ++i) into[i] = i < all.size() ? all[i] : MassiveEntry{};
}

}  // namespace

void HealthAccumulator::addResidual(const HealthBatch& batch) {
  torch::NoGradGuard noGrad;
  const auto L = static_cast<std::int64_t>(batch.residual.size());
  const auto real = batch.realTokens.to(torch::kCPU);
  const auto B = real.size(0), T = real.size(1);
  const auto flatReal = real.reshape({-1}).nonzero().squeeze(1);  // real tokens of [B*T]
  if (m_massive.empty()) {
    m_massive.resize(size_t(L));
    m_rankSum = torch::zeros({L}, kDouble);
    m_cosineSum = torch::zeros({L}, kDouble);
  }
  std::vector<at::Tensor> magnitudes;
  for (std::int64_t l = 0; l < L; ++l) {
    const auto x = batch.residual[size_t(l)].to(torch::kCPU, torch::kFloat);  // [B, T, D]
    const auto D = x.size(2);
    const auto rows = x.reshape({B * T, D}).index_select(0, flatReal).abs();  // [n, D]
    magnitudes.push_back(rows.reshape({-1}));
    const auto [values, flat] = rows.reshape({-1}).topk(std::min<std::int64_t>(3, rows.numel()));
    std::vector<MassiveEntry> top;
    for (std::int64_t i = 0; i < values.size(0); ++i) {
      const auto cell = flat[i].item<std::int64_t>();
      const auto token = flatReal[cell / D].item<std::int64_t>();
      top.push_back({values[i].item<double>(), m_sequences + token / T, token % T, cell % D});
    }
    mergeTop(m_massive[size_t(l)], top);
    for (std::int64_t b = 0; b < B; ++b) {
      const auto seq = x[b].index_select(0, real[b].nonzero().squeeze(1)).to(kDouble);
      if (seq.size(0) < 2) continue;
      const auto [residual, cosine] = rankCollapse(seq);
      m_rankSum[l] += residual;
      m_cosineSum[l] += cosine;
    }
  }
  m_magnitudes.push_back(torch::stack(magnitudes));  // [L, n * D]
}

AttentionHealth HealthAccumulator::result() const {
  if (!m_classMassSum.defined()) throw std::logic_error("attention health: no batch added");
  AttentionHealth r;
  r.sequences = m_sequences;
  r.rows = m_rows;
  // A class no sequence holds has no mean: NaN, which no epsilon exceeds.
  const auto count = m_classCount.view({1, 1, -1});
  r.classMass = torch::where(count.gt(0), m_classMassSum / count.clamp_min(1),
                             torch::full({}, std::numeric_limits<double>::quiet_NaN(), kDouble));
  const auto sink = r.classMass.gt(m_settings.sinkEpsilon).to(kDouble);  // [L, H, C]
  r.sinkRateByLayer = sink.mean(1);
  r.sinkRate = sink.mean(at::IntArrayRef{0, 1});
  r.topKeyMass = m_topMassSum / double(std::max<std::int64_t>(m_sequences, 1));
  r.topKeyClass = m_topClassVotes.argmax(-1);
  r.entropyMean = m_entropySum / double(std::max<std::int64_t>(m_rows, 1));
  r.entropyMin = m_entropyMin.clone();
  r.collapsedShare = m_collapsed / double(std::max<std::int64_t>(m_rows, 1));
  r.logitMax = m_logitMax.clone();
  r.massive = m_massive;
  const auto all = torch::cat(m_magnitudes, 1);  // [L, every real |h|]
  // The lower median, as torch::median gives it (numpy's median averages the middle two).
  r.medianAbs = std::get<0>(all.median(1)).to(kDouble);
  std::vector<double> top;
  for (const auto& m : m_massive) top.push_back(m[0].magnitude);
  r.massiveRatio = torch::tensor(top, kDouble) / r.medianAbs.clamp_min(1e-300);
  const double sequences = double(std::max<std::int64_t>(m_sequences, 1));
  r.rankResidual = m_rankSum / sequences;
  r.meanCosine = m_cosineSum / sequences;
  return r;
}

}  // namespace attnlab::core
