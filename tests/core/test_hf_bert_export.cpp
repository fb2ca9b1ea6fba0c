// The export of a run to a Hugging Face folder (core/pretrained/hf_bert_export.h), checked
// against the import (hf_bert_import.h): an AttnLab encoder with random weights (biases and
// LayerNorms too) exported and read back gives every parameter bitwise equal and the same
// logits; the safetensors writer's files read back by SafetensorsFile (dtypes, shapes,
// metadata, 8-byte alignment); the SentencePiece .model reader gives the pieces and ids the
// SentencePiece library gives, and refuses a truncated file; settings a BERT cannot compute
// are refused with their config keys, all of them in one message. transformers itself loads
// the export in tests/app/test_cli_export_model.cpp.
#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "core/model/masked_lm.h"
#include "core/pretrained/hf_bert_export.h"
#include "core/pretrained/hf_bert_import.h"
#include "core/pretrained/hf_model_export.h"
#include "core/pretrained/hf_tokenizer_export.h"
#include "core/pretrained/safetensors_file.h"
#include "core/pretrained/safetensors_writer.h"
#include "core/pretrained/sentencepiece_model_file.h"
#include "tests/support/tiny_run_setup.h"

#include <torch/torch.h>

#include <QtTest>

#include <QTemporaryDir>

#include <unistd.h>
#include <fstream>

using namespace attnlab::core;
namespace fs = std::filesystem;

namespace {

ModelConfig smallModel() {
  ModelConfig m;
  m.layers = 2;
  m.hiddenSize = 24;
  m.heads = 3;
  m.ffnSize = 40;
  m.maxPositions = 20;
  return m;
}

/// Every parameter drawn from N(0, 0.5), biases and LayerNorms included, so each one matters.
std::map<std::string, at::Tensor> randomise(MaskedLanguageModel& model) {
  torch::NoGradGuard noGrad;
  torch::manual_seed(7);
  std::map<std::string, at::Tensor> out;
  for (auto& p : model->named_parameters()) {
    p.value().normal_(0.0, 0.5);
    out[p.key()] = p.value().detach().clone();
  }
  return out;
}

std::string fileBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Saves `model`'s parameters as step 5 of a run in `runDir` with `config` and `tokenizer`.
fs::path saveRun(const fs::path& runDir, const RunConfig& config, MaskedLanguageModel& model,
                 const fs::path& tokenizer) {
  fs::create_directories(runDir);
  fs::copy_file(tokenizer, runDir / "tokenizer.model", fs::copy_options::overwrite_existing);
  std::map<std::string, at::Tensor> tensors;
  for (const auto& [name, t] : randomise(model)) tensors["model/" + name] = t;
  CheckpointMetadata meta;
  meta.configToml = toToml(config);
  return CheckpointStore(runDir, 1, false).save(5, std::nullopt, tensors, meta);
}

template <class E, class F>
QString messageOf(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestHfBertExport : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  RunConfig m_tiny;  // over a 50-piece unigram tokenizer, m_dir/tok.model

  fs::path dir() const { return fs::path(m_dir.path().toStdString()); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_tiny = attnlab::tests::prepareTinyRun(dir());
  }

  void exportReadsBackBitwise() {
    const ModelConfig m = smallModel();
    MaskedLanguageModel model(m, 37, 0);
    const auto params = randomise(model);
    std::vector<std::string> leftOut;
    const auto bert = hfBertTensorsOf(params, m, leftOut);
    QVERIFY(leftOut.empty());
    QVERIFY(!bert.count("cls.predictions.decoder.weight"));  // tied, as save_pretrained omits it
    const fs::path folder = dir() / "bitwise";
    fs::create_directories(folder);
    writeHfBertModel(folder, bert, m, 37, 0);
    auto back = loadHuggingFaceBert(folder);
    QVERIFY(back.unused.empty());
    QCOMPARE(back.vocabSize, 37);
    QCOMPARE(back.model.layers, 2);
    QCOMPARE(back.model.heads, 3);
    QCOMPARE(back.model.ffnSize, 40);
    QCOMPARE(back.model.maxPositions, 20);
    int compared = 0;
    for (const auto& p : back.network->named_parameters()) {
      QVERIFY2(params.count(p.key()), p.key().c_str());
      QVERIFY2(torch::equal(p.value(), params.at(p.key())), p.key().c_str());
      ++compared;
    }
    QCOMPARE(compared, static_cast<int>(params.size()));
    torch::NoGradGuard noGrad;
    model->eval();
    const auto ids = torch::tensor({{1, 5, 9, 30, 2, 0}, {1, 7, 2, 0, 0, 0}}, torch::kLong);
    const auto a = model->logits(model->encode(ids, ids.ne(0)).reshape({-1, 24}));
    const auto b = back.network->logits(back.network->encode(ids, ids.ne(0)).reshape({-1, 24}));
    QVERIFY(torch::equal(a, b));
  }

  void trainingOnlyParametersLeftOut() {
    RunConfig c;
    c.model = smallModel();
    c.attention.asa.enabled = true;
    c.attention.guidance.enabled = true;
    QVERIFY(hfBertRefusals(c).empty());
    MaskedLanguageModel model(c.model, c.attention, 16, 37, 0);
    std::vector<std::string> leftOut;
    const auto bert = hfBertTensorsOf(randomise(model), c.model, leftOut);
    QVERIFY(!leftOut.empty());
    for (const auto& name : leftOut) QVERIFY2(name.rfind("adversaries.", 0) == 0, name.c_str());
    QVERIFY(bert.count("bert.encoder.layer.1.attention.self.value.bias"));
  }

  void positionsOffExportAsZeros() {
    ModelConfig m = smallModel();
    m.positionEmbeddings = false;
    MaskedLanguageModel model(m, 37, 0);
    std::vector<std::string> leftOut;
    const auto bert = hfBertTensorsOf(randomise(model), m, leftOut);
    const auto positions = bert.at("bert.embeddings.position_embeddings.weight");
    QCOMPARE(positions.size(0), 20);
    QVERIFY(positions.eq(0).all().item<bool>());
  }

  void safetensorsRoundTrip();
  void safetensorsRefusals();
  void sentencePieceReader();
  void sentencePieceTruncated();
  void refusalsNameEveryKey();
  void bpeTokenizerRefused();
  void wholeRunExported();
};

void TestHfBertExport::safetensorsRoundTrip() {
  const std::vector<float> f32 = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -1e-20f};
  const std::vector<std::int64_t> i64 = {1, -2, 1LL << 40};
  const std::vector<std::uint16_t> f16 = {0x3c00, 0xc000};  // 1, -2
  const std::vector<double> f64 = {3.14};
  const auto span = [](const auto& v) { return std::as_bytes(std::span(v)); };
  const std::vector<SafetensorsTensorView> tensors = {
      {"b.weights", SafetensorsDtype::F32, {2, 3}, span(f32)},
      {"a.ids", SafetensorsDtype::I64, {3}, span(i64)},
      {"c.half", SafetensorsDtype::F16, {1, 2}, span(f16)},
      {"d.double", SafetensorsDtype::F64, {}, span(f64)},
      {"e.empty", SafetensorsDtype::F32, {0, 4}, {}}};
  const fs::path file = dir() / "round.safetensors";
  writeSafetensors(file, tensors, {{"format", "pt"}, {"note", "x"}});
  QVERIFY(!fs::exists(dir() / "round.safetensors.tmp"));
  const std::string raw = fileBytes(file);
  std::uint64_t headerLength = 0;
  for (int i = 7; i >= 0; --i)
    headerLength = (headerLength << 8) | static_cast<std::uint8_t>(raw[i]);
  QCOMPARE(headerLength % 8, 0u);
  QVERIFY(raw.substr(8, 30).rfind("{\"__metadata__\":", 0) == 0);
  const SafetensorsFile read(file);
  QCOMPARE(read.metadata().at("format"), std::string("pt"));
  QCOMPARE(read.entries().size(), size_t(5));
  QCOMPARE(read.entries()[0].name, std::string("a.ids"));  // 8-byte dtypes first, by name
  for (const auto& t : tensors) {
    const auto* e = read.find(t.name);
    QVERIFY2(e != nullptr, t.name.c_str());
    QVERIFY(e->dtype == t.dtype);
    QCOMPARE(e->shape, t.shape);
    const auto bytes = read.bytes(*e);
    QCOMPARE(bytes.size(), t.bytes.size());
    QVERIFY(std::equal(bytes.begin(), bytes.end(), t.bytes.begin()));
    QCOMPARE(e->begin % dtypeSize(e->dtype), 0u);
  }
}

void TestHfBertExport::safetensorsRefusals() {
  const std::vector<float> three = {1, 2, 3};
  const auto bytes = std::as_bytes(std::span(three));
  const auto refused = [&](const std::vector<SafetensorsTensorView>& t) {
    return messageOf<attnlab::DataError>([&] { (void)safetensorsBytes(t, {}, "f"); });
  };
  QVERIFY(refused({{"w", SafetensorsDtype::F32, {2, 2}, bytes}}).contains("12 bytes"));
  QVERIFY(
      refused({{"w", SafetensorsDtype::F32, {3}, bytes}, {"w", SafetensorsDtype::F32, {3}, bytes}})
          .contains("twice"));
  QVERIFY(refused({{"__metadata__", SafetensorsDtype::F32, {3}, bytes}}).contains("reserved"));
}

void TestHfBertExport::sentencePieceReader() {
  const fs::path modelPath = dir() / "tok.model";
  const auto model = readSentencePieceModel(modelPath);
  const auto sp = SentencePieceTokenizer::load(modelPath);
  QCOMPARE(static_cast<int>(model.pieces.size()), sp.vocabSize());
  for (int id = 0; id < sp.vocabSize(); ++id)
    QCOMPARE(model.pieces[static_cast<size_t>(id)].piece, sp.idToPiece(id));
  QVERIFY(model.algorithm == SentencePieceAlgorithm::Unigram);
  QCOMPARE(model.unkId, sp.specialIds().unk);
  QVERIFY(model.pieces[0].type == SentencePieceType::Control);
  QVERIFY(model.pieces[static_cast<size_t>(sp.specialIds().unk)].type ==
          SentencePieceType::Unknown);
  QVERIFY(model.pieces[static_cast<size_t>(sp.specialIds().mask)].type ==
          SentencePieceType::UserDefined);
  QVERIFY(model.pieces[10].score < 0.0f);
  QCOMPARE(model.normalizerName, std::string("nmt_nfkc"));
  QVERIFY(!model.precompiledCharsmap.empty());
  QVERIFY(model.addDummyPrefix && model.removeExtraWhitespaces && model.escapeWhitespaces);
  QVERIFY(!model.byteFallback && !model.whitespaceAsSuffix);
}

void TestHfBertExport::sentencePieceTruncated() {
  const std::string bytes = fileBytes(dir() / "tok.model");
  for (const size_t keep :
       {size_t(0), size_t(1), size_t(3), size_t(40), bytes.size() / 2, bytes.size() - 1}) {
    const auto m = messageOf<attnlab::DataError>([&] {
      (void)parseSentencePieceModel(std::string_view(bytes).substr(0, keep), "cut.model");
    });
    QVERIFY2(m.startsWith("cut.model: "), qPrintable(QString("%1 bytes: %2").arg(keep).arg(m)));
  }
  const fs::path cut = dir() / "cut.model";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 3);
  const auto m = messageOf<attnlab::DataError>([&] { (void)readSentencePieceModel(cut); });
  QVERIFY2(m.contains(QString::fromStdString(cut.string())) && m.contains("truncated"),
           qPrintable(m));
}

void TestHfBertExport::refusalsNameEveryKey() {
  RunConfig c;
  c.model.norm = NormPlacement::Pre;
  c.attention.residual = ResidualScores::Sum;
  c.attention.temperature = true;
  c.attention.conv = ConvAttention::TwoD;
  c.attention.position.mode = PositionMode::Relative;
  c.attention.blur.target = BlurTarget::Values;
  c.attention.squeeze.enabled = true;
  c.attention.outputGate = OutputGate::Head;
  c.attention.qkNorm = QkNorm::Rms;
  c.attention.normalizer = Normalizer::Softpick;
  c.attention.differential = true;
  const auto lines = hfBertRefusals(c);
  QCOMPARE(lines.size(), size_t(11));
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  for (const char* key :
       {"model.norm = pre", "attention.residual = sum", "attention.temperature",
        "attention.conv = 2d", "attention.position.mode", "attention.blur.target",
        "attention.squeeze.enabled", "attention.output_gate = head", "attention.qk_norm = rms",
        "attention.normalizer = softpick", "attention.differential = true"})
    QVERIFY2(all.find(key) != std::string::npos, all.c_str());
  QVERIFY(hfBertRefusals(RunConfig{}).empty());
}

void TestHfBertExport::bpeTokenizerRefused() {
  TokenizerTrainOptions t;
  t.inputs = {dir() / "corpus.txt"};
  t.modelPrefix = dir() / "bpe";
  t.vocabSize = 50;
  t.algorithm = TokenizerAlgorithm::Bpe;
  SentencePieceTokenizer::train(t);
  const auto model = readSentencePieceModel(dir() / "bpe.model");
  QVERIFY(model.algorithm == SentencePieceAlgorithm::Bpe);
  const auto m = messageOf<attnlab::DataError>([&] { (void)hfTokenizerJson(model, "bpe.model"); });
  QVERIFY2(m.contains("tokenizer.algorithm = bpe"), qPrintable(m));
}

void TestHfBertExport::wholeRunExported() {
  RunConfig c = m_tiny;
  c.attention.asa.enabled = true;
  MaskedLanguageModel model(c.model, c.attention, c.data.sequenceLength, 50, 0);
  const fs::path checkpoint = saveRun(dir() / "run", c, model, dir() / "tok.model");
  const fs::path out = dir() / "exported";
  const auto result = exportHuggingFaceModel({checkpoint, {}, out, false});
  QCOMPARE(result.step, 5);
  const std::vector<std::string> files = {
      "config.json",    "model.safetensors", "special_tokens_map.json",
      "tokenizer.json", "tokenizer.model",   "tokenizer_config.json"};
  QCOMPARE(result.files, files);
  QVERIFY(!result.leftOut.empty());
  QCOMPARE(fileBytes(out / "tokenizer.model"), fileBytes(dir() / "tok.model"));
  const auto back = loadHuggingFaceBert(out);
  const auto params = model->named_parameters();
  for (const auto& p : back.network->named_parameters())
    QVERIFY2(torch::equal(p.value(), params[p.key()]), p.key().c_str());
  // An existing folder is kept unless replacing it is asked for.
  const auto again = messageOf<attnlab::DataError>([&] {
    (void)exportHuggingFaceModel({checkpoint, {}, out, false});
  });
  QVERIFY2(again.contains("not empty") && again.contains("--force"), qPrintable(again));
  QVERIFY(exportHuggingFaceModel({checkpoint, {}, out, true}).files == files);
  QVERIFY(!fs::exists(dir() / ("exported.tmp-" + std::to_string(::getpid()))));
  // A model BERT cannot compute: every offending key in one message, nothing written.
  c.attention.residual = ResidualScores::Mean;
  c.attention.temperature = true;
  MaskedLanguageModel realformer(c.model, c.attention, c.data.sequenceLength, 50, 0);
  const fs::path rf = saveRun(dir() / "realformer", c, realformer, dir() / "tok.model");
  const auto refused = messageOf<attnlab::ConfigError>([&] {
    (void)exportHuggingFaceModel({rf, {}, dir() / "rf-out", false});
  });
  QVERIFY2(refused.contains("attention.residual = mean") &&
               refused.contains("attention.temperature = true"),
           qPrintable(refused));
  QVERIFY(!fs::exists(dir() / "rf-out"));
}

QTEST_GUILESS_MAIN(TestHfBertExport)
#include "test_hf_bert_export.moc"
