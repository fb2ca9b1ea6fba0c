#include "analysis/runs/head_comparison.h"

#include "core/data/data_files.h"
#include "core/errors/error.h"
#include "core/inspect/attention_inspector.h"
#include "core/tokenizer/tokenizer.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <span>
#include <stdexcept>

namespace attnlab::analysis {

namespace fs = std::filesystem;

namespace {

ComparedModel describe(const SelectedCheckpoint& selected, const core::AttentionInspector& model) {
  const auto& config = model.config();
  return {{selected.runDir.string(), config.run.name, selected.checkpoint.string(), selected.step},
          model.tokenizer().modelPath(),
          config.model.layers,
          config.model.heads,
          config.model.hiddenSize};
}

/// Where two tokenizers' piece tables first differ; empty when they are the same table.
std::string pieceDifference(const core::Tokenizer& a, const core::Tokenizer& b) {
  if (a.vocabSize() != b.vocabSize())
    return "run A's has " + std::to_string(a.vocabSize()) + " pieces and run B's " +
           std::to_string(b.vocabSize());
  for (int id = 0; id < a.vocabSize(); ++id) {
    const auto pa = a.idToPiece(id), pb = b.idToPiece(id);
    if (pa != pb)
      return "id " + std::to_string(id) + " is \"" + pa + "\" in run A and \"" + pb + "\" in run B";
  }
  return {};
}

/// One input is one text to both models only when they map ids to the same pieces. The
/// files' bytes decide when equal; otherwise the piece tables do, since a .model file also
/// records where it was trained (two runs of one configuration differ there alone).
void requireSameTokenizer(const ComparedModel& a, const core::Tokenizer& ta, const ComparedModel& b,
                          const core::Tokenizer& tb) {
  if (core::readFileBytes(a.tokenizer) == core::readFileBytes(b.tokenizer)) return;
  const std::string difference = pieceDifference(ta, tb);
  if (difference.empty()) return;
  throw DataError("head comparison",
                  "run A reads the tokenizer " + a.tokenizer.string() + " and run B reads " +
                      b.tokenizer.string() + ", which differ (" + difference +
                      "): the same token ids are different texts to the two models, so their "
                      "heads cannot be compared on one input (a --text file does not help: "
                      "each model reads only its own tokenizer's ids)");
}

void requireSameShape(const ComparedModel& a, const ComparedModel& b) {
  if (a.layers == b.layers && a.heads == b.heads) return;
  const auto shape = [](const ComparedModel& m) {
    return std::to_string(m.layers) + " layers x " + std::to_string(m.heads) + " heads";
  };
  throw DataError("head comparison", "needs models of the same shape, but run A has " + shape(a) +
                                         " and run B " + shape(b) +
                                         " (linear CKA alone compares any shapes)");
}

/// The hidden states of the first `cap` real tokens, per representation (embeddings, then
/// each layer), row-major [tokens][width], for CKA.
struct HiddenSample {
  std::vector<std::vector<float>> layers;
  int width = 0;

  /// Rows [0, count) of sequence b of `states` [L + 1, B, T, width].
  void add(const at::Tensor& states, std::int64_t b, std::int64_t count) {
    const auto L = states.size(0), B = states.size(1), T = states.size(2);
    width = static_cast<int>(states.size(3));
    layers.resize(static_cast<std::size_t>(L));
    const float* base = states.data_ptr<float>();
    for (std::int64_t l = 0; l < L; ++l) {
      const float* first = base + ((l * B + b) * T) * width;
      auto& out = layers[static_cast<std::size_t>(l)];
      out.insert(out.end(), first, first + count * width);
    }
  }

  std::vector<std::span<const float>> spans() const { return {layers.begin(), layers.end()}; }
};

/// What the batches accumulate.
struct Accumulators {
  std::optional<CrossHeadJsd> jsd;
  HiddenSample hiddenA, hiddenB;
  std::int64_t ckaTokens = 0, tokens = 0, sequences = 0;
};

void addBatch(const EvaluationBatch& batch, const core::BatchCapture& a,
              const core::BatchCapture& b, int ckaCap, Accumulators& acc) {
  const auto B = batch.ids.size(0), T = batch.ids.size(1);
  at::Tensor pa, pb;
  if (acc.jsd) {
    // [L, B, H, T, T] -> [B, L, H, T, T]: one sequence's stack is contiguous.
    pa = a.probabilities.transpose(0, 1).contiguous();
    pb = b.probabilities.transpose(0, 1).contiguous();
  }
  for (std::int64_t s = 0; s < B; ++s) {
    const int valid = batch.roles[static_cast<std::size_t>(s)].length;
    if (acc.jsd) {
      const int L = acc.jsd->layers(), H = acc.jsd->heads();
      const auto stride = static_cast<std::int64_t>(L) * H * T * T;
      const AttentionStack sa{pa.data_ptr<float>() + s * stride, L, H, static_cast<int>(T)};
      const AttentionStack sb{pb.data_ptr<float>() + s * stride, L, H, static_cast<int>(T)};
      acc.jsd->add(sa, sb, valid);
    }
    const auto take = std::min<std::int64_t>(valid, ckaCap - acc.ckaTokens);
    if (take > 0) {
      acc.hiddenA.add(a.hiddenStates, s, take);
      acc.hiddenB.add(b.hiddenStates, s, take);
      acc.ckaTokens += take;
    }
    acc.tokens += valid;
    ++acc.sequences;
  }
}

/// Streams the evaluation set through both models.
void accumulate(core::AttentionInspector& a, core::AttentionInspector& b, EvaluationSet& set,
                int ckaCap, Accumulators& acc, const AnalysisProgress& progress,
                const std::atomic<bool>* cancel) {
  core::BatchRequest request;
  request.probabilities = acc.jsd.has_value();
  EvaluationBatch batch;
  set.rewind();
  if (progress) progress(kPhaseCompareHeads, 0, set.size());
  while (true) {
    // Appended, not concatenated: GCC 12 warns falsely (-Warray-bounds) on the + chain here.
    std::string where = kPhaseCompareHeads;
    throwIfCancelled(
        cancel,
        where.append(", after ").append(std::to_string(acc.sequences)).append(" sequences"));
    // Without the head JSD, the set is read only while CKA still takes tokens.
    if ((!acc.jsd && acc.ckaTokens >= ckaCap) || !set.next(batch)) break;
    // Hidden states only while CKA still takes tokens: they cost L + 1 copies of the batch.
    request.hiddenStates = acc.ckaTokens < ckaCap;
    const auto captureA = a.captureBatch(batch.ids, request);
    const auto captureB = b.captureBatch(batch.ids, request);
    addBatch(batch, captureA, captureB, ckaCap, acc);
    if (progress) progress(kPhaseCompareHeads, acc.sequences, set.size());
  }
  // CKA alone may stop early: the phase still ends at its total.
  if (progress && acc.sequences < set.size()) progress(kPhaseCompareHeads, set.size(), set.size());
}

/// JSD, matching and CKA from what the batches gave.
void finish(Accumulators& acc, HeadComparison& out) {
  try {
    if (acc.jsd) {
      out.jsd = acc.jsd->mean();
      out.matching = matchHeads(out.jsd, acc.jsd->layers(), acc.jsd->heads());
    }
    if (acc.ckaTokens > 0) {
      if (acc.ckaTokens < 2)
        throw DataError("head comparison",
                        "linear CKA needs at least 2 tokens, the evaluation set has " +
                            std::to_string(acc.ckaTokens));
      const auto a = acc.hiddenA.spans(), b = acc.hiddenB.spans();
      out.cka = linearCkaMatrix(a, acc.hiddenA.width, b, acc.hiddenB.width,
                                static_cast<int>(acc.ckaTokens));
      out.ckaTokens = acc.ckaTokens;
    }
  } catch (const std::invalid_argument& e) {
    throw DataError("head comparison", e.what());
  }
  out.sequences = acc.sequences;
  out.tokens = acc.tokens;
}

}  // namespace

HeadComparison compareHeads(const CompareHeadsOptions& options, const AnalysisProgress& progress,
                            const std::atomic<bool>* cancel) {
  const auto started = std::chrono::steady_clock::now();
  const auto selectedA = selectCheckpoint(options.runA, options.stepA);
  const auto selectedB = selectCheckpoint(options.runB, options.stepB);
  if (progress) progress(kPhaseLoadCheckpoint, 0, 2);
  throwIfCancelled(cancel, "loading " + selectedA.checkpoint.string());
  core::AttentionInspector inspectorA(selectedA.checkpoint);
  if (progress) progress(kPhaseLoadCheckpoint, 1, 2);
  throwIfCancelled(cancel, "loading " + selectedB.checkpoint.string());
  core::AttentionInspector inspectorB(selectedB.checkpoint);
  if (progress) progress(kPhaseLoadCheckpoint, 2, 2);

  HeadComparison out;
  out.a = describe(selectedA, inspectorA);
  out.b = describe(selectedB, inspectorB);
  requireSameTokenizer(out.a, inspectorA.tokenizer(), out.b, inspectorB.tokenizer());
  if (options.heads) requireSameShape(out.a, out.b);

  EvaluationSet set(inspectorA, selectedA.runDir, options.evaluation, progress, cancel);
  if (set.maxLength() > inspectorB.maxLength())
    throw DataError("head comparison", "run A's evaluation set has sequences of " +
                                           std::to_string(set.maxLength()) +
                                           " tokens, longer than run B's model takes (" +
                                           std::to_string(inspectorB.maxLength()) + ")");
  out.evaluationKind = set.kind();
  out.evaluationDescription = set.description();

  Accumulators acc;
  if (options.heads) acc.jsd.emplace(out.a.layers, out.a.heads, LogBase::Bits);
  accumulate(inspectorA, inspectorB, set, std::max(0, options.ckaTokens), acc, progress, cancel);
  finish(acc, out);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace attnlab::analysis
