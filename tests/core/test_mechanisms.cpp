// The mechanism registry (core/mechanisms): every descriptor is complete, names its docs
// section (which must exist), and what the enabled mechanisms log is exactly what a run
// log of that configuration declares and fills.
#include "core/config/config_loader.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/runlog/run_log_reader.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "core/train/trainer.h"
#include "tests/support/tiny_corpus.h"
#include "tests/support/tiny_run_config.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

using namespace attnlab::core;
namespace fs = std::filesystem;

namespace {

/// GitHub's anchor for a Markdown heading: lowercase, spaces to hyphens, punctuation other
/// than '-' and '_' dropped.
std::string slug(const std::string& heading) {
  std::string out;
  for (const unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_') {
      out += static_cast<char>(std::tolower(c));
    } else if (c == ' ') {
      out += '-';
    }
  }
  return out;
}

std::set<std::string> anchorsOf(const fs::path& markdown) {
  std::ifstream in(markdown);
  std::set<std::string> anchors;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) != 0) continue;
    const auto text = line.find_first_not_of('#');
    if (text == std::string::npos) continue;
    anchors.insert(slug(line.substr(text + 1)));
  }
  return anchors;
}

/// Every mechanism on, as a composed run would have it.
RunConfig allMechanisms(RunConfig c) {
  c.model.positionEmbeddings = false;
  c.attention.position.mode = PositionMode::Relative;
  c.attention.guidance.enabled = true;
  c.attention.temperature = true;
  c.attention.conv = ConvAttention::TwoD;
  c.attention.residual = ResidualScores::Sum;
  c.attention.asa.enabled = true;
  c.attention.blur.target = BlurTarget::Context;
  c.attention.squeeze.enabled = true;
  c.attention.outputGate = OutputGate::Element;
  c.attention.qkNorm = QkNorm::Layer;
  // Not a valid run (differential attention refuses another normalizer): the registry only.
  c.attention.normalizer = Normalizer::Softmax1;
  c.attention.differential = true;
  return c;
}

}  // namespace

class TestMechanisms : public QObject {
  Q_OBJECT
 private slots:
  void descriptorsAreCompleteAndDocumented() {
    const auto anchors = anchorsOf(fs::path(ATTNLAB_SOURCE_DIR) / "docs" / "variants.md");
    QVERIFY(anchors.count("realformer-residual-attention") == 1);  // the slug rule itself
    std::set<std::string> ids;
    QCOMPARE(attentionMechanisms().size(), std::size_t(12));
    for (const auto* m : attentionMechanisms()) {
      const std::string id(m->id());
      QVERIFY2(ids.insert(id).second, ("duplicate id " + id).c_str());
      QVERIFY2(!m->title().empty(), id.c_str());
      const std::string anchor(m->docsAnchor());
      QVERIFY2(anchor.rfind("docs/variants.md#", 0) == 0, anchor.c_str());
      QVERIFY2(anchors.count(anchor.substr(anchor.find('#') + 1)) == 1,
               ("no such section in docs/variants.md: " + anchor).c_str());
      QVERIFY2(!m->enabled(RunConfig{}), ("on by default: " + id).c_str());
    }
    QCOMPARE(describeMechanisms(RunConfig{}), std::string("baseline attention (no variants)"));
    QVERIFY(enabledMechanisms(RunConfig{}).empty());
    // The torch-free name table (what the app's form shows) lists exactly the registry.
    QCOMPARE(kMechanismNames.size(), attentionMechanisms().size());
    for (const auto& name : kMechanismNames)
      QVERIFY2(ids.count(std::string(name.id)) == 1, std::string(name.id).c_str());
  }

  void eachMechanismIsSwitchedOnByItsOwnSettings() {
    const RunConfig all = allMechanisms(RunConfig{});
    QCOMPARE(enabledMechanisms(all).size(), attentionMechanisms().size());
    const std::string summary = describeMechanisms(all);
    for (const char* part :
         {"guidance (loss frobenius", "position interactions relative", "learnable temperature",
          "convolved attention 2d", "residual attention (running sum)",
          "adversarial self-attention", "Gaussian blur on context",
          "squeeze-excitation (weighted_average)", "output gate (element)", "QK-norm (layer)",
          "softmax1 (learned sink logit)", "differential attention"}) {
      QVERIFY2(summary.find(part) != std::string::npos, (summary + " lacks " + part).c_str());
    }
  }

  void loggedQuantitiesAreUniqueAndDescribed() {
    const auto quantities = loggedQuantities(allMechanisms(RunConfig{}));
    std::set<std::string> names;
    for (const auto& q : quantities) {
      QVERIFY2(names.insert(q.name).second, ("logged twice: " + q.name).c_str());
      QVERIFY2(!q.unit.empty() && !q.meaning.empty(), q.name.c_str());
    }
    // Guidance's per-pattern losses follow the heads in use (head_fraction 0.5 of 4 heads:
    // next and prev).
    QVERIFY(names.count("guidance/next") == 1 && names.count("guidance/prev") == 1);
    QVERIFY(names.count("guidance/first") == 0);
    QCOMPARE(innerShapeOf(LoggedShape::PerLayerHead, 3, 4), std::vector<std::int64_t>({3, 4}));
  }

  // A composed run's log declares and fills exactly the registry's quantities.
  void aRunLogsWhatTheRegistryDeclares() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    attnlab::tests::writeRegularCorpus(root / "corpus.txt", 200);
    TokenizerTrainOptions t;
    t.inputs = {root / "corpus.txt"};
    t.modelPrefix = root / "tok";
    t.vocabSize = 50;
    SentencePieceTokenizer::train(t);
    const RunConfig all =
        allMechanisms(attnlab::tests::tinyRunConfig(root / "corpus.txt", root / "tok.model"));
    // Every mechanism at once cannot run (guidance needs probability rows, differential
    // attention two softmax maps): three runs cover the registry between them.
    RunConfig seeds = all;
    seeds.attention.normalizer = Normalizer::Softmax;
    seeds.attention.differential = false;
    RunConfig sinks = all;
    sinks.attention.guidance.enabled = false;
    sinks.attention.differential = false;
    RunConfig differential = sinks;
    differential.attention.normalizer = Normalizer::Softmax;
    differential.attention.differential = true;
    differential.attention.residual = ResidualScores::None;
    int run = 0;
    for (RunConfig c : {seeds, sinks, differential}) {
      c.attention.conv = ConvAttention::None;  // keep the run small
      c.schedule.steps = 2;
      validateRunConfig(c);
      const fs::path dir = root / ("run" + std::to_string(run++));
      std::atomic<bool> never{false};
      Trainer(c, dir).run(never);
      checkLogged(c, dir);
    }
  }

 private:
  static void checkLogged(const RunConfig& c, const fs::path& dir) {
    RunLogReader log(runLogPath(dir).string());
    const auto scalars = log.scalarNames();
    const auto series = log.seriesNames();
    for (const auto& q : loggedQuantities(c)) {
      const bool isScalar = q.shape == LoggedShape::Scalar;
      const auto& names = isScalar ? scalars : series;
      QVERIFY2(std::find(names.begin(), names.end(), q.name) != names.end(),
               ("not declared: " + q.name).c_str());
      const auto steps = isScalar ? log.scalar(q.name).steps : log.series(q.name).steps;
      QVERIFY2(steps == std::vector<std::int64_t>({1, 2}), ("not filled: " + q.name).c_str());
    }
    QVERIFY(std::find(scalars.begin(), scalars.end(), "train/total_loss") != scalars.end());
  }
};

QTEST_APPLESS_MAIN(TestMechanisms)
#include "test_mechanisms.moc"
