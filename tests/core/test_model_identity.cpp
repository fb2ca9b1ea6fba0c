// modelDifferences: the keys that make a model differ are named with both values; keys a
// run may change between sessions are not. Expected lines written by hand.
#include "core/config/model_identity.h"

#include <QtTest>

using namespace attnlab::core;

class TestModelIdentity : public QObject {
  Q_OBJECT
 private slots:
  void sameModelHasNoDifferences() {
    RunConfig a;
    RunConfig b = a;
    b.schedule.steps = 99999;
    b.optimizer.learningRate = 1e-2;
    b.log.flushSeconds = 3;
    b.tokenizer.model = "/elsewhere/tok.model";
    b.attention.guidance.enabled = true;
    QVERIFY(modelDifferences(a, b).empty());
  }

  void namesEachDifferingKey() {
    RunConfig ours;
    ours.model.layers = 2;
    RunConfig theirs = ours;
    theirs.model.layers = 1;
    theirs.attention.residual = ResidualScores::Sum;
    theirs.tokenizer.vocabSize = 500;
    const auto lines = modelDifferences(theirs, ours);
    QCOMPARE(int(lines.size()), 3);
    QCOMPARE(QString::fromStdString(lines[0]),
             QStringLiteral("attention.residual = \"sum\" (here: \"none\")"));
    QCOMPARE(QString::fromStdString(lines[1]), QStringLiteral("model.layers = 1 (here: 2)"));
    QCOMPARE(QString::fromStdString(lines[2]),
             QStringLiteral("tokenizer.vocab_size = 500 (here: 8000)"));
  }
};

QTEST_APPLESS_MAIN(TestModelIdentity)
#include "test_model_identity.moc"
