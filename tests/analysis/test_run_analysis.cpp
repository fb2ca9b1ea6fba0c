// Analyses of a real (tiny) trained run end to end: the evaluation set streamed through a
// checkpoint's model, the statistics checked against an independent recomputation in double
// precision, the variants' logged series, snapshots over training, the coreference probe on
// the model, and the reports read back.
#include "analysis/report/report_files.h"
#include "analysis/runs/attention_analysis.h"
#include "analysis/runs/coref_probe_run.h"
#include "analysis/runs/evaluation_set.h"
#include "core/errors/error.h"
#include "core/inspect/attention_inspector.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "core/train/trainer.h"
#include "tests/support/tiny_corpus.h"
#include "tests/support/tiny_run_config.h"

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

using namespace attnlab;
using namespace attnlab::analysis;
namespace fs = std::filesystem;

namespace {

double sortedMedian(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

class TestRunAnalysis : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const fs::path root = m_dir.path().toStdString();
    m_corpus = root / "corpus.txt";
    tests::writeRegularCorpus(m_corpus, 400);
    core::TokenizerTrainOptions t;
    t.inputs = {m_corpus};
    t.modelPrefix = root / "tok";
    t.vocabSize = 50;
    core::SentencePieceTokenizer::train(t);
    m_run = root / "run";
    std::atomic<bool> never{false};
    core::Trainer(config(), m_run).run(never);
  }

  // The pipeline's medians equal medians of entropies and JSDs recomputed here from the
  // model's attention with the formulas, in double precision, padding excluded.
  void statisticsMatchAnIndependentRecomputation() {
    AnalyzeOptions options;
    options.run = m_run;
    options.evaluation.batchSize = 3;  // batches that do not divide the set
    const auto report = analyzeRun(options);
    const auto& s = report.statistics;
    QCOMPARE(s.layers, 3);
    QCOMPARE(s.heads, 2);
    QCOMPARE(report.source.step, std::int64_t{8});
    QCOMPARE(report.evaluationKind, std::string("validation"));
    QVERIFY(report.evaluationSequences > 2);
    QCOMPARE(s.sequences, report.evaluationSequences);

    // Independent: the same blocks through the same checkpoint, statistics by formula.
    core::AttentionInspector inspector(report.source.checkpoint);
    EvaluationSet set(inspector, m_run, {});
    EvaluationBatch batch;
    std::vector<std::vector<double>> entropies(6), jsds(4);
    std::int64_t rows = 0;
    while (set.next(batch)) {
      const auto p = inspector.probabilitiesOf(batch.ids).to(torch::kDouble);  // [L,B,H,T,T]
      for (std::size_t b = 0; b < batch.roles.size(); ++b) {
        const int n = batch.roles[b].length;
        rows += n;
        auto seq = p.select(1, static_cast<std::int64_t>(b)).narrow(-1, 0, n).narrow(-2, 0, n);
        seq = seq / seq.sum(-1, true);
        const auto h = -(seq * seq.clamp_min(1e-300).log()).sum(-1);  // [L,H,n]
        for (int l = 0; l < 3; ++l) {
          for (int hd = 0; hd < 2; ++hd) {
            for (int i = 0; i < n; ++i)
              entropies[static_cast<size_t>(l * 2 + hd)].push_back(h[l][hd][i].item<double>());
            if (l == 0) continue;
            const auto a = seq[l][hd];
            const auto c = seq[l - 1][hd];
            const auto m = 0.5 * (a + c);
            const auto kl = [&m](const torch::Tensor& x) {
              return (x * (x.clamp_min(1e-300) / m.clamp_min(1e-300)).log()).sum(-1);
            };
            const auto jsd = (0.5 * kl(a) + 0.5 * kl(c)) / std::log(2.0);
            for (int i = 0; i < n; ++i)
              jsds[static_cast<size_t>((l - 1) * 2 + hd)].push_back(jsd[i].item<double>());
          }
        }
      }
    }
    QCOMPARE(s.rows, rows);
    for (std::size_t i = 0; i < entropies.size(); ++i) {
      const double expected = sortedMedian(entropies[i]);
      QVERIFY2(
          std::abs(s.entropy[i].median - expected) <= s.entropy[i].resolution + 1e-6,
          qPrintable(
              QString("entropy head %1: %2 vs %3").arg(i).arg(s.entropy[i].median).arg(expected)));
      QCOMPARE(s.entropy[i].count, static_cast<std::int64_t>(entropies[i].size()));
    }
    for (std::size_t i = 0; i < jsds.size(); ++i) {
      const double expected = sortedMedian(jsds[i]);
      QVERIFY2(std::abs(s.adjacentJsd[i].median - expected) <= s.adjacentJsd[i].resolution + 1e-6,
               qPrintable(
                   QString("jsd %1: %2 vs %3").arg(i).arg(s.adjacentJsd[i].median).arg(expected)));
    }
  }

  // The temperature variant's series come from the log; snapshots give points over steps;
  // --over-checkpoints adds one point per checkpoint; --examples caps the set.
  void variantSeriesAndTrainingSeries() {
    AnalyzeOptions options;
    options.run = m_run;
    options.step = 4;
    options.evaluation.maxSequences = 2;
    options.overCheckpoints = true;
    const auto report = analyzeRun(options);
    QCOMPARE(report.source.step, std::int64_t{4});
    QCOMPARE(report.evaluationSequences, std::int64_t{2});
    std::vector<std::string> names;
    for (const auto& v : report.variantSeries) names.push_back(v.name);
    QVERIFY(std::find(names.begin(), names.end(), "temperature/q") != names.end());
    for (const auto& v : report.variantSeries) {
      QCOMPARE(v.innerShape, (std::vector<std::int64_t>{3, 2}));
      QCOMPARE(v.values.size(), v.steps.size() * 6);
    }
    int snapshots = 0, checkpoints = 0;
    for (const auto& p : report.overTraining) {
      (p.source == "snapshot" ? snapshots : checkpoints)++;
      QCOMPARE(p.medianEntropy.size(), std::size_t{6});
      QCOMPARE(p.medianAdjacentJsd.size(), std::size_t{4});
      QCOMPARE(p.headSummaries.size(), std::size_t{6});
      QCOMPARE(p.guidanceDistance.size(), std::size_t{6 * 5});
    }
    QVERIFY(snapshots >= 3);  // steps 0, 1, 2, 4, 8
    QCOMPARE(checkpoints, static_cast<int>(report.availableSteps.size()));
  }

  void missingStepNamesTheStepsThatExist() {
    AnalyzeOptions options;
    options.run = m_run;
    options.step = 5;
    try {
      analyzeRun(options);
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("step 5") && QString(e.what()).contains("4, 8"),
               e.what());
    }
  }

  // A text file: each line a sequence; a line that is not UTF-8 is reported with file:line.
  void textFileEvaluationReportsBadLines() {
    const fs::path text = fs::path(m_dir.path().toStdString()) / "eval.txt";
    std::ofstream(text, std::ios::binary) << "the cat watched the river .\n\n"
                                          << "bad \xff\xfe line\n"
                                          << "a dog admired an empty house near the harbour .\n";
    AnalyzeOptions options;
    options.run = m_run;
    options.evaluation.textFile = text;
    options.overSnapshots = false;
    const auto report = analyzeRun(options);
    QCOMPARE(report.evaluationSequences, std::int64_t{2});
    QCOMPARE(report.skipped.size(), std::size_t{1});
    QCOMPARE(report.skipped[0].where, text.string() + ":3");
  }

  // The synthetic probe on the model: every sentence scored or skipped with a reason, the
  // previous-word baseline 0.
  void corefProbeOnTheModel() {
    CorefProbeOptions options;
    options.run = m_run;
    options.syntheticSize = 40;
    const auto report = probeCoreference(options);
    // A 50-piece vocabulary splits words into many pieces: sentences that do not fit the
    // 48 positions are skipped, each counted with its reason.
    QCOMPARE(report.result.items + static_cast<std::int64_t>(report.skipped.size()),
             std::int64_t{40});
    QVERIFY(report.result.items > 0);
    for (const auto& k : report.skipped) {
      QVERIFY2(k.reason.find("longer than the model's maximum of 32") != std::string::npos,
               k.reason.c_str());
      QVERIFY2(k.where.rfind("synthetic:", 0) == 0, k.where.c_str());
    }
    QCOMPARE(report.result.accuracy.size(), std::size_t{6});
    double mean = 0;
    for (const auto a : report.result.accuracy) {
      QVERIFY(a >= 0 && a <= 1);
      mean += a / 6;
    }
    QVERIFY(std::abs(mean - report.result.meanAccuracy) < 1e-12);
    const auto best =
        *std::max_element(report.result.accuracy.begin(), report.result.accuracy.end());
    QCOMPARE(report.result.bestAccuracy, best);
    bool sawPrevious = false;
    for (const auto& b : report.result.baselines) {
      if (b.name == "previous_word") {
        sawPrevious = true;
        QCOMPARE(b.accuracy, 0.0);
      }
    }
    QVERIFY(sawPrevious);
  }

  // Padding through the real model: lines of different lengths share padded batches, and
  // the entropies equal those of each line run alone (unpadded, inspect()), by formula.
  void paddedBatchesEqualEachLineAlone() {
    const fs::path text = fs::path(m_dir.path().toStdString()) / "lengths.txt";
    const std::vector<std::string> lines = {
        "the cat watched the river .", "a dog admired an empty house near the harbour .",
        "our prince", "the old teacher followed a bright star near the mountains ."};
    {
      std::ofstream out(text, std::ios::binary);
      for (const auto& l : lines) out << l << "\n";
    }
    AnalyzeOptions options;
    options.run = m_run;
    options.evaluation.textFile = text;
    options.evaluation.batchSize = 4;
    options.overSnapshots = false;
    const auto report = analyzeRun(options);

    core::AttentionInspector inspector(report.source.checkpoint);
    std::vector<std::vector<double>> entropies(6);
    for (const auto& line : lines) {
      const auto p = inspector.inspect(line).probabilities.to(torch::kDouble);  // [L,H,n,n]
      const auto h = -(p * p.clamp_min(1e-300).log()).sum(-1);
      for (int lh = 0; lh < 6; ++lh) {
        for (std::int64_t i = 0; i < h.size(2); ++i) {
          entropies[static_cast<size_t>(lh)].push_back(h[lh / 2][lh % 2][i].item<double>());
        }
      }
    }
    for (std::size_t i = 0; i < entropies.size(); ++i) {
      QCOMPARE(report.statistics.entropy[i].count, static_cast<std::int64_t>(entropies[i].size()));
      const double expected = sortedMedian(entropies[i]);
      QVERIFY2(std::abs(report.statistics.entropy[i].median - expected) <=
                   report.statistics.entropy[i].resolution + 1e-6,
               qPrintable(QString("head %1: %2 vs %3")
                              .arg(i)
                              .arg(report.statistics.entropy[i].median)
                              .arg(expected)));
    }
  }

  // CoNLL-2012 data through the model: windows packed by pieces fit the model, every
  // mention with an antecedent is scored or its sentence reported.
  void corefProbeOnConllData() {
    CorefProbeOptions options;
    options.run = m_run;
    options.dataset =
        std::string("conll:") + ATTNLAB_SOURCE_DIR + "/tests/fixtures/coref/sample.conll";
    options.scope = coref::ArgmaxScope::ExcludeSelfAndSpecials;
    const auto report = probeCoreference(options);
    QVERIFY2(report.result.items > 0, report.datasetDescription.c_str());
    QVERIFY(report.datasetDescription.find("pieces") != std::string::npos);
    QCOMPARE(report.result.baselines.size(), std::size_t{4});
    for (const auto& b : report.result.baselines) QCOMPARE(b.items, report.result.items);
  }

  // Lin et al.'s released format through the model: the reader's bad lines reach the report
  // with file:line, and every head's accuracy equals the share of reflexives whose word-level
  // argmax, recomputed here from the model's attention in double precision, is any word of the
  // antecedent group (the fixture parsed here by its own split, not by the reader). Both
  // argmax scopes: the official one over all words, and the one without the reflexive itself
  // and the specials, where a small model's heads pick more varied words.
  void corefProbeOnLinData() {
    const std::string fixture =
        std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/coref/lin_reflexives.tsv";
    const std::vector<int> badLines = {4, 7, 10, 12, 13, 15};
    const std::vector<coref::ArgmaxScope> scopes = {coref::ArgmaxScope::AllWords,
                                                    coref::ArgmaxScope::ExcludeSelfAndSpecials};
    std::vector<CorefProbeReport> reports;
    for (const auto scope : scopes) {
      CorefProbeOptions options;
      options.run = m_run;
      options.dataset = "lin:" + fixture;
      options.scope = scope;
      options.batchSize = 3;  // padded batches; the recomputation runs each sentence alone
      reports.push_back(probeCoreference(options));
      const auto& report = reports.back();
      QVERIFY2(report.datasetDescription.find("8 sentences (6 with distractor noun phrases)") !=
                   std::string::npos,
               report.datasetDescription.c_str());
      QVERIFY(report.skipped.size() >= badLines.size());
      for (std::size_t i = 0; i < badLines.size(); ++i)
        QCOMPARE(report.skipped[i].where, fixture + ":" + std::to_string(badLines[i]));
    }

    core::AttentionInspector inspector(reports[0].source.checkpoint);
    const auto& tokenizer = inspector.tokenizer();
    const auto& specials = tokenizer.specialIds();
    const int heads = 6;  // 3 layers x 2 heads, layer-major as the report
    // [scope][head]: items surely right, and items whose right and wrong best words tie.
    std::vector<std::vector<std::int64_t>> sure(2, std::vector<std::int64_t>(heads, 0));
    auto ambiguous = sure;
    std::int64_t items = 0, tooLong = 0;
    std::ifstream in(fixture);
    std::string line;
    for (int lineNo = 1; std::getline(in, line); ++lineNo) {
      if (line.empty() || std::find(badLines.begin(), badLines.end(), lineNo) != badLines.end())
        continue;
      std::vector<std::string> fields;
      std::stringstream tabs(line);
      for (std::string f; std::getline(tabs, f, '\t');) fields.push_back(f);
      std::vector<std::string> words;
      std::stringstream spaces(fields[0]);
      for (std::string w; spaces >> w;) words.push_back(w);
      const int reflexive = std::stoi(fields[1]);
      std::vector<int> group;
      std::stringstream indices(fields[2]);
      for (int i; indices >> i;) group.push_back(i);

      // <s> word pieces... </s>; span[w] = [first piece, end) of layout word w.
      std::vector<std::int64_t> ids = {specials.bos};
      std::vector<std::pair<int, int>> span = {{0, 1}};
      for (const auto& w : words) {
        auto pieces = tokenizer.encode(w);
        if (pieces.empty()) pieces.push_back(specials.unk);
        span.emplace_back(static_cast<int>(ids.size()),
                          static_cast<int>(ids.size() + pieces.size()));
        ids.insert(ids.end(), pieces.begin(), pieces.end());
      }
      span.emplace_back(static_cast<int>(ids.size()), static_cast<int>(ids.size()) + 1);
      ids.push_back(specials.eos);
      if (static_cast<int>(ids.size()) > inspector.maxLength()) {
        ++tooLong;
        continue;
      }
      ++items;
      const auto p = inspector.probabilitiesOf(torch::tensor(ids).unsqueeze(0))
                         .to(torch::kDouble)
                         .contiguous();  // [L, 1, H, T, T]
      const auto a = p.accessor<double, 5>();
      const std::size_t query = static_cast<std::size_t>(reflexive) + 1;
      const auto [q0, q1] = span[query];
      for (int lh = 0; lh < heads; ++lh) {
        // The reflexive's row at word level: mean over its pieces, sum over each word's.
        std::vector<double> row(span.size(), 0.0);
        for (int q = q0; q < q1; ++q)
          for (std::size_t w = 0; w < span.size(); ++w)
            for (int k = span[w].first; k < span[w].second; ++k)
              row[w] += a[lh / 2][0][lh % 2][q][k] / (q1 - q0);
        for (std::size_t s = 0; s < scopes.size(); ++s) {
          // Best word of the antecedent group against the best of the other words the scope
          // allows: a head is right when the former wins.
          double bestIn = -1, bestOut = -1;
          for (std::size_t w = 0; w < row.size(); ++w) {
            const bool special = w == 0 || w + 1 == row.size();
            if (s == 1 && (special || w == query)) continue;
            const bool inGroup =
                std::find(group.begin(), group.end(), static_cast<int>(w) - 1) != group.end();
            double& best = inGroup ? bestIn : bestOut;
            best = std::max(best, row[w]);
          }
          const auto h = static_cast<std::size_t>(lh);
          if (std::abs(bestIn - bestOut) < 1e-5) {
            ++ambiguous[s][h];  // float vs double may break this tie either way
          } else if (bestIn > bestOut) {
            ++sure[s][h];
          }
        }
      }
    }
    QVERIFY2(items > 0, "no fixture sentence fits the tiny model");
    for (std::size_t s = 0; s < scopes.size(); ++s) {
      const auto& report = reports[s];
      QCOMPARE(report.result.items, items);
      QCOMPARE(static_cast<std::int64_t>(report.skipped.size()),
               static_cast<std::int64_t>(badLines.size()) + tooLong);
      for (std::size_t h = 0; h < static_cast<std::size_t>(heads); ++h) {
        const auto got = report.result.correct[h];
        QVERIFY2(got >= sure[s][h] && got <= sure[s][h] + ambiguous[s][h],
                 qPrintable(QString("scope %1 head %2: %3 correct, recomputed %4 (+%5 ties)")
                                .arg(s)
                                .arg(h)
                                .arg(got)
                                .arg(sure[s][h])
                                .arg(ambiguous[s][h])));
        QCOMPARE(report.result.accuracy[h], static_cast<double>(got) / static_cast<double>(items));
      }
    }
  }

  // The reports name the run, step, data and units; JSON parses; CSVs have a row per head.
  void reportsAreCompleteAndConsistent() {
    AnalyzeOptions options;
    options.run = m_run;
    const auto report = analyzeRun(options);
    const fs::path out = fs::path(m_dir.path().toStdString()) / "report";
    // A table an older report left, and a file of the user's, in the same folder.
    fs::create_directories(out);
    std::ofstream(out / "series_asa_mask_proportion.csv") << "stale\n";
    std::ofstream(out / "notes.txt") << "mine\n";
    const auto files = writeAnalysisReport(report, out);
    QVERIFY(!fs::exists(out / "series_asa_mask_proportion.csv"));
    QVERIFY(fs::exists(out / "notes.txt"));
    QVERIFY(files.size() >= 6);
    const auto doc = nlohmann::json::parse(readText(out / "analysis.json"));
    QCOMPARE(doc["run"]["step"].get<int>(), 8);
    QCOMPARE(doc["units"]["entropy"].get<std::string>(), std::string("nats"));
    QCOMPARE(doc["units"]["jsd"].get<std::string>(), std::string("bits"));
    QCOMPARE(doc["evaluation"]["sequences"].get<std::int64_t>(), report.evaluationSequences);
    QCOMPARE(doc["per_head"].size(), std::size_t{6});
    QCOMPARE(doc["per_head"][3]["entropy"]["median"].get<double>(),
             report.statistics.entropy[3].median);
    const auto csv = readText(out / "entropy_heads.csv");
    QCOMPARE(static_cast<int>(std::count(csv.begin(), csv.end(), '\n')), 7);  // header + 6 heads
    QVERIFY(csv.rfind("layer,head,rank_in_layer,count,mean_nats", 0) == 0);
    const auto md = readText(out / "analysis.md");
    QVERIFY(md.find("step 8") != std::string::npos);
    QVERIFY(md.find("nats") != std::string::npos);
    QVERIFY(md.find(report.evaluationDescription) != std::string::npos);
  }

 private:
  core::RunConfig config() const {
    auto c = tests::tinyRunConfig(m_corpus, fs::path(m_dir.path().toStdString()) / "tok.model");
    c.run.name = "analysed";
    c.run.seed = 5;
    c.model.layers = 3;
    c.model.maxPositions = 48;
    c.attention.temperature = true;  // a variant whose series the log carries
    c.train.keepLast = 5;
    return c;
  }

  QTemporaryDir m_dir;
  fs::path m_corpus;
  fs::path m_run;
};

QTEST_APPLESS_MAIN(TestRunAnalysis)
#include "test_run_analysis.moc"
