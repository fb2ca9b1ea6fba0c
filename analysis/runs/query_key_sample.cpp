#include "analysis/runs/query_key_sample.h"

#include "analysis/runs/evaluation_set.h"
#include "core/errors/error.h"
#include "core/inspect/attention_inspector.h"
#include "core/tokenizer/tokenizer.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>

namespace attnlab::analysis {

void checkQueryKeyRequest(const core::AttentionInspector& inspector, int layer, int head,
                          int maxTokens) {
  const auto& model = inspector.config().model;
  const std::string shape = "the model has " + std::to_string(model.layers) + " layers x " +
                            std::to_string(model.heads) + " heads (layers 0.." +
                            std::to_string(model.layers - 1) + ", heads 0.." +
                            std::to_string(model.heads - 1) + ")";
  if (layer < 0 || layer >= model.layers)
    throw DataError("layer " + std::to_string(layer), "out of range: " + shape);
  if (head < -1 || head >= model.heads)
    throw DataError("head " + std::to_string(head), "out of range: " + shape);
  if (maxTokens < 1)
    throw DataError("query-key map",
                    "needs at least 1 token, asked for " + std::to_string(maxTokens));
}

namespace {

bool isSpecial(std::int64_t id, const core::SpecialTokenIds& s) {
  return id == s.pad || id == s.bos || id == s.eos || id == s.mask || id == s.unk;
}

/// Appends `word` without its outer spaces (a block cut after a "▁" piece decodes to a
/// trailing space), one space apart from what precedes it.
void appendWord(std::string& text, const std::string& word) {
  const auto first = word.find_first_not_of(' ');
  if (first == std::string::npos) return;
  if (!text.empty()) text += ' ';
  text.append(word, first, word.find_last_not_of(' ') - first + 1);
}

/// The sequence as a reader sees it: runs of ordinary pieces decoded; the leading <s> and
/// the closing </s> dropped; special pieces inside (a packed block's </s> between its lines,
/// <unk>) kept as written, since they show where the model's input was not plain text.
std::string sequenceText(const core::Tokenizer& tokenizer, const std::int64_t* ids, int length) {
  const auto& s = tokenizer.specialIds();
  std::string text;
  std::vector<int> run;
  const auto flush = [&] {
    if (!run.empty()) appendWord(text, tokenizer.decode(run));
    run.clear();
  };
  for (int i = 0; i < length; ++i) {
    const auto id = ids[i];
    if (!isSpecial(id, s)) {
      run.push_back(static_cast<int>(id));
      continue;
    }
    flush();
    const bool edge = (i == 0 && id == s.bos) || (i == length - 1 && id == s.eos);
    if (!edge) appendWord(text, tokenizer.idToPiece(static_cast<int>(id)));
  }
  flush();
  return text;
}

/// Every asked head's query and key rows, [tokens][d] each.
struct Vectors {
  std::vector<int> heads;
  std::vector<std::vector<float>> queries, keys;
};

/// Sequence b's first `count` tokens of layer `layer` from a capture's [L, B, H, T, d].
void addVectors(const core::BatchCapture& capture, int layer, std::int64_t b, std::int64_t count,
                Vectors& v) {
  const auto B = capture.queries.size(1), H = capture.queries.size(2);
  const auto T = capture.queries.size(3), d = capture.queries.size(4);
  const float* q = capture.queries.data_ptr<float>();
  const float* k = capture.keys.data_ptr<float>();
  for (std::size_t i = 0; i < v.heads.size(); ++i) {
    const auto offset = ((layer * B + b) * H + v.heads[i]) * T * d;
    v.queries[i].insert(v.queries[i].end(), q + offset, q + offset + count * d);
    v.keys[i].insert(v.keys[i].end(), k + offset, k + offset + count * d);
  }
}

/// The tokens of sequence b (its first `count`), and its text.
void addTokens(const core::Tokenizer& tokenizer, const EvaluationBatch& batch, std::int64_t b,
               std::int64_t count, QueryKeySample& out) {
  const auto T = batch.ids.size(1);
  const std::int64_t* ids = batch.ids.data_ptr<std::int64_t>() + b * T;
  const auto index = static_cast<std::int64_t>(out.sentences.size());
  out.sentences.push_back(
      sequenceText(tokenizer, ids, batch.roles[static_cast<std::size_t>(b)].length));
  for (std::int64_t t = 0; t < count; ++t) {
    out.sequence.push_back(index);
    out.position.push_back(t);
    out.tokenIds.push_back(ids[t]);
    out.special.push_back(isSpecial(ids[t], tokenizer.specialIds()) ? 1 : 0);
    out.pieces.push_back(tokenizer.displayPiece(static_cast<int>(ids[t])));
  }
}

void collect(core::AttentionInspector& inspector, EvaluationSet& set, int maxTokens, Vectors& v,
             QueryKeySample& out, const AnalysisProgress& progress,
             const std::atomic<bool>* cancel) {
  core::BatchRequest request;
  request.probabilities = false;
  request.queryKeys = true;
  EvaluationBatch batch;
  set.rewind();
  if (progress) progress(kPhaseQueryKeys, 0, maxTokens);
  while (out.tokens() < maxTokens) {
    // Appended, not concatenated: GCC 12 warns falsely (-Warray-bounds) on the + chain here.
    std::string where = kPhaseQueryKeys;
    throwIfCancelled(
        cancel, where.append(", after ").append(std::to_string(out.tokens())).append(" tokens"));
    if (!set.next(batch)) break;
    const auto capture = inspector.captureBatch(batch.ids, request);
    out.headDim = static_cast<int>(capture.queries.size(4));
    for (std::int64_t b = 0; b < batch.ids.size(0) && out.tokens() < maxTokens; ++b) {
      const std::int64_t count = std::min<std::int64_t>(
          batch.roles[static_cast<std::size_t>(b)].length, maxTokens - out.tokens());
      addVectors(capture, out.layer, b, count, v);
      addTokens(inspector.tokenizer(), batch, b, count, out);
    }
    if (progress) progress(kPhaseQueryKeys, out.tokens(), maxTokens);
  }
  // A set with fewer tokens ends the phase at what it had.
  if (progress && out.tokens() < maxTokens) progress(kPhaseQueryKeys, out.tokens(), out.tokens());
}

}  // namespace

QueryKeySample sampleQueryKeys(core::AttentionInspector& inspector, EvaluationSet& set, int layer,
                               int head, int maxTokens, const AnalysisProgress& progress,
                               const std::atomic<bool>* cancel) {
  checkQueryKeyRequest(inspector, layer, head, maxTokens);
  QueryKeySample out;
  out.layer = layer;
  out.head = head;
  Vectors v;
  const int heads = inspector.config().model.heads;
  for (int h = 0; h < heads; ++h)
    if (head < 0 || h == head) v.heads.push_back(h);
  v.queries.resize(v.heads.size());
  v.keys.resize(v.heads.size());
  collect(inspector, set, maxTokens, v, out, progress, cancel);
  if (out.tokens() == 0)
    throw DataError("query-key map", "the evaluation set has no token to place");
  const auto n = static_cast<int>(out.tokens());
  const int dims = std::min(2, out.headDim);
  try {
    for (std::size_t i = 0; i < v.heads.size(); ++i)
      out.maps.push_back(
          {layer, v.heads[i], queryKeyMap(v.queries[i], n, v.keys[i], n, out.headDim, dims)});
  } catch (const std::invalid_argument& e) {
    throw DataError("query-key map of layer " + std::to_string(layer), e.what());
  }
  return out;
}

}  // namespace attnlab::analysis
