// `attnlab-cli compare RUN_A RUN_B --heads` (cross-run head JSD after Clark et al. 2019, the
// Hungarian matching, linear CKA after Kornblith et al. 2019) on real tiny runs: a checkpoint
// against itself gives JSD 0 under the identity pairing and a CKA diagonal of 1; two
// checkpoints of one run differ; a run of another tokenizer and a model of another shape are
// refused with messages that name them; without --heads the command says what it needs.
#include "tests/support/cli_process.h"
#include "tests/support/json_file.h"
#include "tests/support/small_run_toml.h"
#include "tests/support/tiny_corpus.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

using attnlab::tests::runCli;

using attnlab::tests::readJson;

namespace {

/// The regular corpus with every word spelt backwards: as many distinct characters, so a
/// 50-piece tokenizer fits, but other pieces.
QByteArray reversedCorpus(int lines) {
  QByteArray out;
  for (const auto& line : QString::fromStdString(attnlab::tests::regularCorpusText(lines))
                              .split('\n', Qt::SkipEmptyParts)) {
    QStringList words;
    for (const auto& w : line.split(' ')) {
      QString r = w;
      std::reverse(r.begin(), r.end());
      words << r;
    }
    out += words.join(' ').toUtf8() + '\n';
  }
  return out;
}

}  // namespace

class TestCliCompareHeads : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;

  /// Trains `name` from `corpus` for 20 steps (checkpoints at 10 and 20) with `extra` args.
  bool train(const QString& name, const QString& corpus, const QStringList& extra = {}) {
    const QString toml = m_dir.filePath(name + ".toml");
    if (!attnlab::tests::writeBytes(toml, attnlab::tests::smallRunToml(name, corpus, 20, 10)))
      return false;
    const auto r = runCli(
        QStringList{"train", "--config", toml, "--run-dir", m_dir.filePath(name), "--plain"} +
        extra);
    if (r.exitCode != 0) qWarning("%s", qPrintable(r.out + r.err));
    return r.exitCode == 0;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("corpus.txt"),
        QByteArray::fromStdString(attnlab::tests::regularCorpusText(400))));
    QVERIFY(attnlab::tests::writeBytes(m_dir.filePath("reversed.txt"), reversedCorpus(400)));
    // A large learning rate: at the default, 20 steps barely move the near-uniform attention
    // of a fresh model (JSD ~1e-7 bits, the statistics' own precision).
    QVERIFY(train("run", m_dir.filePath("corpus.txt"), {"--set", "optimizer.learning_rate=0.01"}));
    m_run = m_dir.filePath("run");
  }

  void sameCheckpointTwiceIsIdentical() {
    const QString out = m_dir.filePath("self");
    QElapsedTimer timer;
    timer.start();
    const auto r = runCli({"compare", m_run, m_run, "--heads", "--out", out, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    qInfo("compare of the tiny run with itself: %lld ms", static_cast<long long>(timer.elapsed()));
    QVERIFY2(r.out.contains("layer 1: mean matched JSD") && r.out.contains("CKA diagonal"),
             qPrintable(r.out));
    for (const char* f :
         {"heads_comparison.json", "heads_matching.csv", "cka_layers.csv", "heads_comparison.md"})
      QVERIFY2(QFile::exists(out + "/" + f), f);
    const auto json = readJson(out + "/heads_comparison.json");
    QCOMPARE(json["units"].toObject()["jsd"].toString(), QString("bits"));
    const QString source = json["source"].toString();
    QVERIFY2(source.contains("Clark et al. 2019") && source.contains("Kuhn 1955") &&
                 source.contains("Kornblith et al. 2019"),
             qPrintable(source));
    QCOMPARE(json["a"].toObject()["step"].toInt(), 20);
    QVERIFY(json["evaluation"].toObject()["tokens"].toInt() > 0);
    const auto layers = json["heads"].toObject()["per_layer"].toArray();
    QCOMPARE(layers.size(), 2);
    for (const auto& layer : layers) {
      const auto l = layer.toObject();
      QVERIFY2(l["mean_matched_jsd"].toDouble() < 1e-6,
               qPrintable(QString::number(l["mean_matched_jsd"].toDouble())));
      const auto matching = l["matching"].toArray();
      for (int h = 0; h < matching.size(); ++h) QCOMPARE(matching[h].toInt(), h);
    }
    const auto diagonal = json["cka"].toObject()["diagonal"].toArray();
    QCOMPARE(diagonal.size(), 3);  // embeddings and 2 layers
    for (const auto& v : diagonal)
      QVERIFY2(std::abs(v.toDouble() - 1.0) < 1e-6, qPrintable(QString::number(v.toDouble())));
  }

  void twoCheckpointsOfOneRunDiffer() {
    const auto r =
        runCli({"compare", m_run, m_run, "--step-a", "10", "--step-b", "20", "--heads", "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    // The default folder: <run A>/analysis/compare-step-SA-vs-<run B>-step-SB.
    const auto json =
        readJson(m_run + "/analysis/compare-step-10-vs-run-step-20/heads_comparison.json");
    QCOMPARE(json["b"].toObject()["step"].toInt(), 20);
    double identity = 0;
    for (const auto& layer : json["heads"].toObject()["per_layer"].toArray())
      identity += layer.toObject()["mean_identity_jsd"].toDouble();
    QVERIFY2(identity > 1e-4, qPrintable(QString::number(identity)));
    const auto diagonal = json["cka"].toObject()["diagonal"].toArray();
    QVERIFY2(diagonal.last().toDouble() < 1 - 1e-4,
             qPrintable(QString::number(diagonal.last().toDouble())));
  }

  void withoutHeadsSaysWhatItNeeds() {
    const auto r = runCli({"compare", m_run, m_run});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("--heads"), qPrintable(r.err));
  }

  void anotherTokenizerIsRefused() {
    QVERIFY(train("reversed", m_dir.filePath("reversed.txt")));
    const auto r = runCli({"compare", m_run, m_dir.filePath("reversed"), "--heads", "--plain"});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains(m_run + "/tokenizer.model") &&
                 r.err.contains(m_dir.filePath("reversed") + "/tokenizer.model") &&
                 r.err.contains("--text file does not help"),
             qPrintable(r.err));
  }

  void anotherShapeIsRefused() {
    // The same corpus gives the same pieces: only the shape stands in the way.
    QVERIFY(train("three", m_dir.filePath("corpus.txt"), {"--set", "model.layers=3"}));
    const auto r = runCli({"compare", m_run, m_dir.filePath("three"), "--heads", "--plain"});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("2 layers x 2 heads") && r.err.contains("3 layers x 2 heads"),
             qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestCliCompareHeads)
#include "test_cli_compare_heads.moc"
