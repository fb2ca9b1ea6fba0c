// A BertForMaskedLM and a RobertaForMaskedLM made by Hugging Face transformers (random
// weights, 3 layers, 6 heads, hidden 96, a 97-token vocabulary;
// tests/fixtures/hf-bert/make_fixture.py, `roberta` for the second) read by
// loadHuggingFaceBert and run on the padded batch transformers ran: every layer's attention
// probabilities, every hidden state and the MLM logits equal transformers' own (saved in
// expected.safetensors) within 1e-5 in float32. Bad folders are refused by file and field.
#include "core/errors/error.h"
#include "core/inspect/attention_inspector.h"
#include "core/inspect/gated_loss.h"
#include "core/model/hook_points.h"
#include "core/pretrained/hf_bert_import.h"
#include "core/pretrained/safetensors_file.h"
#include "tests/support/expected_tensors.h"

#include <torch/torch.h>

#include <QtTest>

#include <QTemporaryDir>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

using namespace attnlab::core;
namespace fs = std::filesystem;

namespace {

using attnlab::tests::expectedTensor;

const fs::path kFixture = fs::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/hf-bert";
const fs::path kRoberta = fs::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/hf-roberta";

double largestDifference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

/// The output of one pass over `ids` (padding = `padId`) and what it captured: every layer's
/// attention ("blocks.{L}.attn.probs") and output ("blocks.{L}.resid_post").
struct Captured {
  torch::Tensor hidden;
  ActivationCache cache;
};

Captured captured(PretrainedModel& model, const torch::Tensor& ids) {
  torch::NoGradGuard noGrad;
  HookRequest request;
  request.capture("blocks.*.attn.probs").capture("blocks.*.resid_post");
  HookSession hooks(request);
  ForwardOptions options;
  options.hooks = &hooks;
  MlmOutput unused;
  Captured out;
  out.hidden = model.network->encodeWith(ids, ids.ne(model.padId), options, unused);
  out.cache = std::move(hooks.cache());
  return out;
}

std::string layerName(int layer, const char* suffix) {
  return "blocks." + std::to_string(layer) + "." + suffix;
}

/// The first of `layers` layers whose attention or output differs from transformers' (saved
/// in `expected`) by 1e-5 or more, named with the difference; empty when none does.
QString firstLayerDifference(const ActivationCache& cache, const SafetensorsFile& expected,
                             int layers) {
  for (int l = 0; l < layers; ++l) {
    const double d = largestDifference(cache.at(layerName(l, "attn.probs")),
                                       expectedTensor(expected, "attentions." + std::to_string(l)));
    if (!(d < 1e-5)) return QString("attention of layer %1: %2").arg(l).arg(d);
    const double h =
        largestDifference(cache.at(layerName(l, "resid_post")),
                          expectedTensor(expected, "hidden_states." + std::to_string(l + 1)));
    if (!(h < 1e-5)) return QString("hidden state %1: %2").arg(l + 1).arg(h);
  }
  return {};
}

QString refusal(const fs::path& folder) {
  try {
    loadHuggingFaceBert(folder);
  } catch (const attnlab::DataError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestHfBertImport : public QObject {
  Q_OBJECT
 private slots:
  void matchesTransformers() {
    auto model = loadHuggingFaceBert(kFixture);
    QCOMPARE(model.model.layers, 3);
    QCOMPARE(model.model.heads, 6);
    QCOMPARE(model.vocabSize, 97);
    QVERIFY(model.unused.empty());
    const SafetensorsFile expected(kFixture / "expected.safetensors");
    const auto ids = expectedTensor(expected, "input_ids");
    torch::NoGradGuard noGrad;
    const auto [hidden, cache] = captured(model, ids);
    const QString layerDifference = firstLayerDifference(cache, expected, 3);
    QVERIFY2(layerDifference.isEmpty(), qPrintable(layerDifference));
    const double e0 =
        largestDifference(model.network->embed(ids), expectedTensor(expected, "hidden_states.0"));
    QVERIFY2(e0 < 1e-5, qPrintable(QString("embeddings: %1").arg(e0)));
    const auto logits = model.network->logits(hidden.reshape({-1, 96})).view({2, 12, 97});
    const double d = largestDifference(logits, expectedTensor(expected, "logits"));
    QVERIFY2(d < 1e-5, qPrintable(QString("logits: %1").arg(d)));
    // Not vacuous: the padded sequence's real rows differ from the unpadded one's.
    QVERIFY(largestDifference(logits[0], logits[1]) > 1e-2);
  }

  // A BertModel saved alone (tests/fixtures/hf-bertmodel): names without "bert.", no MLM
  // head, a pooler. Its attention and hidden states are transformers'; the head is marked
  // absent; the pooler is listed as unused.
  void readsABertModelWithoutHead() {
    const fs::path folder = kFixture.parent_path() / "hf-bertmodel";
    auto model = loadHuggingFaceBert(folder);
    QVERIFY(!model.hasMlmHead);
    QCOMPARE(model.model.layers, 2);
    QVERIFY(std::find(model.unused.begin(), model.unused.end(), "pooler.dense.weight") !=
            model.unused.end());
    const SafetensorsFile expected(folder / "expected.safetensors");
    const auto ids = expectedTensor(expected, "input_ids");
    torch::NoGradGuard noGrad;
    const QString layerDifference = firstLayerDifference(captured(model, ids).cache, expected, 2);
    QVERIFY2(layerDifference.isEmpty(), qPrintable(layerDifference));
  }

  // The same folder opened as a model (it has a WordPiece vocab.txt): attention, but no logit
  // lens, and what needs the MLM loss refused naming the folder, never AttnLab's random head.
  void aModelWithoutHeadHasNoLens() {
    const fs::path folder = kFixture.parent_path() / "hf-bertmodel";
    AttentionInspector inspector(folder);
    QVERIFY(!inspector.hasMlmHead());
    InspectOptions options;
    options.lensTop = 5;
    const Inspection r = inspector.inspect("The cat chased the bird up the tree.", options);
    // transformers' AutoTokenizer on this folder gives these ids (make_fixture.py's vocab).
    QCOMPARE(r.ids, (std::vector<std::int64_t>{2, 5, 7, 17, 5, 18, 13, 5, 14, 35, 3}));
    QVERIFY(!r.hasMlmHead);
    QVERIFY(!r.lens.has_value());
    QCOMPARE(r.probabilities.size(0), 2);
    const auto ids = torch::tensor(r.ids, torch::kLong).unsqueeze(0);
    BatchRequest lens;
    lens.lensPositions = torch::tensor({3}, torch::kLong);
    lens.lensTargets = torch::tensor({17}, torch::kLong);
    const auto refusedNamingTheFolder = [&](const std::function<void()>& call) {
      try {
        call();
      } catch (const attnlab::DataError& e) {
        const std::string what = e.what();
        return what.find("no MLM head") == std::string::npos
                   ? false
                   : what.find(folder.string()) != std::string::npos;
      }
      return false;
    };
    QVERIFY(refusedNamingTheFolder([&] { inspector.captureBatch(ids, lens); }));
    MaskedTargets masked;
    masked.positions = torch::tensor({3}, torch::kLong);
    masked.targets = torch::tensor({17}, torch::kLong);
    QVERIFY(refusedNamingTheFolder([&] { inspector.gatedLoss(ids, masked, {}, false); }));
    // The attention alone still works in a batch.
    QCOMPARE(inspector.probabilitiesOf(ids).size(0), 2);
  }

  // The same BERT saved in three shards with their index: the same outputs.
  void readsShardedCheckpoints() {
    auto model = loadHuggingFaceBert(kFixture.parent_path() / "hf-bert-sharded");
    QVERIFY(model.unused.empty());
    const SafetensorsFile expected(kFixture / "expected.safetensors");
    const auto ids = expectedTensor(expected, "input_ids");
    torch::NoGradGuard noGrad;
    const auto hidden = model.network->encode(ids, ids.ne(model.padId));
    const auto logits = model.network->logits(hidden.reshape({-1, 96})).view({2, 12, 97});
    QVERIFY(largestDifference(logits, expectedTensor(expected, "logits")) < 1e-5);
  }

  // RoBERTa numbers positions from pad_token_id + 1; AttnLab from 0 with the table shifted,
  // so the real tokens see the same embeddings and the padding (which attention masks) does
  // not: compared at real positions (every key: padded keys get probability 0 in both).
  void robertaMatchesTransformersAtRealTokens() {
    auto model = loadHuggingFaceBert(kRoberta);
    QCOMPARE(QString::fromStdString(model.modelType), QString("roberta"));
    QCOMPARE(model.padId, 1);
    QCOMPARE(model.model.maxPositions, 40);  // 42 rows, the first two never used
    QVERIFY(model.unused.empty());
    const SafetensorsFile expected(kRoberta / "expected.safetensors");
    const auto ids = expectedTensor(expected, "input_ids");
    torch::NoGradGuard noGrad;
    const auto [hidden, cache] = captured(model, ids);
    const auto logits = model.network->logits(hidden.reshape({-1, 96})).view({2, 12, 97});
    for (int b = 0; b < 2; ++b) {
      const auto real = ids[b].ne(model.padId).nonzero().squeeze(1);
      QVERIFY(real.numel() == (b == 0 ? 9 : 12));
      const auto at = [&](const torch::Tensor& t) { return t[b].index_select(-2, real); };
      for (int l = 0; l < 3; ++l) {
        const auto name = std::to_string(l);
        QVERIFY(largestDifference(at(cache.at(layerName(l, "attn.probs"))),
                                  at(expectedTensor(expected, "attentions." + name))) < 1e-5);
        QVERIFY(largestDifference(
                    at(cache.at(layerName(l, "resid_post"))),
                    at(expectedTensor(expected, "hidden_states." + std::to_string(l + 1)))) < 1e-5);
      }
      QVERIFY(largestDifference(at(model.network->embed(ids)),
                                at(expectedTensor(expected, "hidden_states.0"))) < 1e-5);
      const double d = largestDifference(at(logits), at(expectedTensor(expected, "logits")));
      QVERIFY2(d < 1e-5, qPrintable(QString("logits of sequence %1: %2").arg(b).arg(d)));
    }
  }

  void badFoldersAreRefusedByFileAndField() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    QVERIFY(refusal(root).contains("config.json"));
    auto config = [&](const std::string& edit) {
      std::ifstream in(kFixture / "config.json");
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const auto at = text.find(edit.substr(0, edit.find(':') + 1));
      if (at != std::string::npos) {  // the line's own trailing comma kept (or not)
        const auto end = text.find('\n', at);
        text.replace(at, end - at, edit + (text[end - 1] == ',' ? "," : ""));
      }
      std::ofstream(root / "config.json") << text;
    };
    config(R"("hidden_act": "relu")");
    QVERIFY(refusal(root).contains("hidden_act \"relu\""));
    config(R"("model_type": "gpt2")");
    QVERIFY(refusal(root).contains("model_type \"gpt2\""));
    config(R"("hidden_act": "gelu")");
    QVERIFY2(refusal(root).contains("model.safetensors"), qPrintable(refusal(root)));
    std::ofstream(root / "pytorch_model.bin") << "pickle";
    QVERIFY(refusal(root).contains("save_pretrained"));
    fs::copy_file(kFixture / "model.safetensors", root / "model.safetensors");
    config(R"("vocab_size": 98)");
    QVERIFY2(refusal(root).contains("[98, 96]"), qPrintable(refusal(root)));
  }
};

QTEST_APPLESS_MAIN(TestHfBertImport)
#include "test_hf_bert_import.moc"
