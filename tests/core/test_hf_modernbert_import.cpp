// A Hugging Face ModernBERT folder read and run (issue 43): a ModernBertForMaskedLM that
// transformers made with random weights and small, odd shapes (tests/fixtures/hf-modernbert,
// make_fixture.py), on a padded batch longer than its window: every layer's attention and
// output, the final hidden states and the logits against what transformers computed with
// eager attention (expected.safetensors) within 1e-5 in float32, at every real query; the
// tokenizer.json's ids against AutoTokenizer's; bad folders refused by file and field.
#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "core/model/hook_points.h"
#include "core/pretrained/hf_bert_import.h"
#include "core/pretrained/hf_tokenizer.h"
#include "core/pretrained/pretrained_folder.h"
#include "core/pretrained/safetensors_file.h"
#include "tests/support/expected_tensors.h"

#include <torch/torch.h>

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

using namespace attnlab::core;
namespace fs = std::filesystem;

namespace {

using attnlab::tests::expectedTensor;

const fs::path kFixture = fs::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/hf-modernbert";

/// The largest difference at the real queries (rows where `real` [B, T] is true); `rowDim` is
/// the dimension of a and b that holds the queries.
double realRowsDifference(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& real,
                          int rowDim) {
  auto keep = real;
  for (int d = 2; d <= rowDim; ++d) keep = keep.unsqueeze(1);  // [B, 1.., T]
  while (keep.dim() < a.dim()) keep = keep.unsqueeze(-1);
  const auto diff = (a.to(torch::kDouble) - b.to(torch::kDouble)).abs();
  return diff.masked_select(keep.expand_as(diff)).max().item<double>();
}

/// A copy of the fixture folder whose config.json `edit` changes.
fs::path editedCopy(const QTemporaryDir& dir, const std::string& name,
                    const std::function<void(nlohmann::json&)>& edit) {
  const fs::path out = fs::path(dir.path().toStdString()) / name;
  fs::create_directories(out);
  for (const char* f : {"model.safetensors", "tokenizer.json", "tokenizer_config.json"})
    fs::copy_file(kFixture / f, out / f);
  std::ifstream in(kFixture / "config.json");
  auto config = nlohmann::json::parse(in);
  edit(config);
  std::ofstream(out / "config.json") << config.dump(2);
  return out;
}

QString refusal(const fs::path& folder) {
  try {
    loadHuggingFaceBert(folder);
  } catch (const attnlab::DataError& e) {
    return QString::fromStdString(e.what());
  }
  return QStringLiteral("(accepted)");
}

}  // namespace

class TestHfModernBertImport : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void readsTheLayout() {
    const auto m = describeHuggingFaceBert(kFixture);
    QCOMPARE(m.modelType, std::string("modernbert"));
    QCOMPARE(m.model.layers, 4);
    QCOMPARE(m.model.position, PositionEncoding::Rope);
    QCOMPARE(m.model.ropeTheta, 160.0);
    QCOMPARE(m.model.ropeThetaLocal, 10.0);
    QCOMPARE(m.model.attentionWindow, 8);
    QCOMPARE(m.model.globalEvery, 3);
    QCOMPARE(m.model.feedForward, FeedForward::Geglu);
    QVERIFY(!m.model.bias);
    QCOMPARE(m.model.norm, NormPlacement::Pre);
    QVERIFY(!m.model.firstAttentionNorm);
  }

  // What opening the folder (File > Open model) and model.init_from make of it: the run's
  // configuration takes the folder's architecture and passes every rule.
  void aRunTakesTheArchitecture() {
    const auto described = describeHuggingFaceBert(kFixture);
    const RunConfig opened = pretrainedRunConfig(described);
    validateRunConfig(opened);
    QCOMPARE(opened.model.position, PositionEncoding::Rope);
    QVERIFY(!opened.model.positionEmbeddings);
    QCOMPARE(opened.model.norm, NormPlacement::Pre);
    RunConfig fromTiny =
        loadRunConfig(fs::path(ATTNLAB_SOURCE_DIR) / "resources/configs/tiny.toml");
    fromTiny.model.initFrom = kFixture.string();
    adoptPretrainedShapes(fromTiny, described);
    validateRunConfig(fromTiny);
    QCOMPARE(fromTiny.model.attentionWindow, 8);
    QCOMPARE(fromTiny.model.feedForward, FeedForward::Geglu);
    QCOMPARE(fromTiny.tokenizer.vocabSize, 300);
  }

  void attentionAndHiddenStatesEqualTransformers() {
    auto model = loadHuggingFaceBert(kFixture);
    QVERIFY(model.hasMlmHead);
    QVERIFY2(model.unused.empty(), model.unused.empty() ? "" : model.unused.front().c_str());
    const SafetensorsFile expected(kFixture / "expected.safetensors");
    const auto ids = expectedTensor(expected, "input_ids");
    const auto real = expectedTensor(expected, "attention_mask").to(torch::kBool);
    torch::NoGradGuard noGrad;
    HookRequest request;
    request.capture("blocks.*.attn.probs").capture("blocks.*.resid_post").capture("embed");
    HookSession hooks(request);
    const auto hidden = model.network->encode(ids, real, &hooks);
    const auto& cache = hooks.cache();
    // hidden_states.0: the embeddings' output; .L+1: layer L's, and for the last layer after
    // the final norm (transformers' ModernBERT hands the normed output there): that one is
    // last_hidden_state, compared below.
    QVERIFY(realRowsDifference(cache.at("embed"), expectedTensor(expected, "hidden_states.0"), real,
                               1) < 1e-5);
    for (int l = 0; l < 4; ++l) {
      const auto prefix = "blocks." + std::to_string(l) + ".";
      const double a =
          realRowsDifference(cache.at(prefix + "attn.probs"),
                             expectedTensor(expected, "attentions." + std::to_string(l)), real, 2);
      const double h =
          l == 3 ? 0.0
                 : realRowsDifference(
                       cache.at(prefix + "resid_post"),
                       expectedTensor(expected, "hidden_states." + std::to_string(l + 1)), real, 1);
      qInfo("layer %d: attention %.2e, output %.2e", l, a, h);
      QVERIFY2(a < 1e-5 && h < 1e-5, qPrintable(QString("layer %1: %2 %3").arg(l).arg(a).arg(h)));
    }
    QVERIFY(realRowsDifference(hidden, expectedTensor(expected, "last_hidden_state"), real, 1) <
            1e-5);
    QVERIFY(realRowsDifference(hidden, expectedTensor(expected, "hidden_states.4"), real, 1) <
            1e-5);
    const auto logits = model.network->logits(hidden.reshape({-1, hidden.size(-1)}))
                            .view({ids.size(0), ids.size(1), -1});
    const double d = realRowsDifference(logits, expectedTensor(expected, "logits"), real, 1);
    qInfo("logits: %.2e", d);
    QVERIFY(d < 1e-4);
  }

  void windowedLayersAreZeroOutsideTheBand() {
    auto model = loadHuggingFaceBert(kFixture);
    const SafetensorsFile expected(kFixture / "expected.safetensors");
    const auto ids = expectedTensor(expected, "input_ids");
    torch::NoGradGuard noGrad;
    HookRequest request;
    request.capture("blocks.1.attn.probs");
    HookSession hooks(request);
    model.network->encode(ids, ids.ne(model.padId), &hooks);
    const auto probs = hooks.cache().at("blocks.1.attn.probs")[0];  // the unpadded sequence
    const auto t = torch::arange(ids.size(1));
    const auto outside = (t.unsqueeze(1) - t.unsqueeze(0)).abs().gt(4);
    QCOMPARE(probs.masked_select(outside.expand_as(probs)).abs().max().item<float>(), 0.0f);
  }

  void tokenIdsEqualAutoTokenizer() {
    const auto tokenizer = loadHuggingFaceTokenizer(kFixture);
    QCOMPARE(tokenizer->kind(), TokenizerKind::ByteLevelBpe);
    const auto& s = tokenizer->specialIds();
    QCOMPARE(tokenizer->idToPiece(s.bos), std::string("[CLS]"));
    QCOMPARE(tokenizer->idToPiece(s.eos), std::string("[SEP]"));
    QCOMPARE(tokenizer->idToPiece(s.pad), std::string("[PAD]"));
    QCOMPARE(tokenizer->idToPiece(s.mask), std::string("[MASK]"));
    const SafetensorsFile expected(kFixture / "expected.safetensors");
    std::ifstream lines(kFixture / "sentences.txt");
    std::string line;
    for (int i = 0; std::getline(lines, line); ++i) {
      std::vector<std::int64_t> ours = {s.bos};
      for (const int id : tokenizer->encode(line)) ours.push_back(id);
      ours.push_back(s.eos);
      const auto theirs = expectedTensor(expected, "token_ids." + std::to_string(i));
      QCOMPARE(ours, std::vector<std::int64_t>(theirs.data_ptr<std::int64_t>(),
                                               theirs.data_ptr<std::int64_t>() + theirs.numel()));
      // Byte-level BPE loses nothing.
      QCOMPARE(tokenizer->decode(tokenizer->encode(line)), line);
    }
  }

  void badFoldersAreRefusedByField_data() {
    QTest::addColumn<QString>("field");
    QTest::newRow("activation") << "hidden_activation";
    QTest::newRow("rope type") << "rope_type";
    QTest::newRow("layer pattern") << "layer_types";
    QTest::newRow("mixed biases") << "mlp_bias";
    QTest::newRow("shapes") << "layers.0.ffn_in.weight";
  }

  void badFoldersAreRefusedByField() {
    QFETCH(QString, field);
    const std::string name = field.toStdString();
    const auto folder = editedCopy(m_dir, name, [&](nlohmann::json& c) {
      if (name == "hidden_activation") c["hidden_activation"] = "silu";
      if (name == "rope_type") c["rope_parameters"]["sliding_attention"]["rope_type"] = "yarn";
      if (name == "layer_types") c["layer_types"][1] = "full_attention";
      if (name == "mlp_bias") c["mlp_bias"] = true;
      if (name == "layers.0.ffn_in.weight") c["intermediate_size"] = 70;
    });
    const QString message = refusal(folder);
    const QString file = name == "layers.0.ffn_in.weight" ? "model.safetensors" : "config.json";
    QVERIFY2(message.contains(field) && message.contains(file), qPrintable(message));
  }
};

QTEST_GUILESS_MAIN(TestHfModernBertImport)
#include "test_hf_modernbert_import.moc"
