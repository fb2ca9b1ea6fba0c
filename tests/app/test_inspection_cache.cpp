// InspectionCache, the frames the Inspect tab keeps: a look-up answers only a frame of the
// same checkpoint and text that holds what the request asks for (scores, ASA keep-masks);
// frames go least recently used first once their tensors exceed the budget, counted from the
// frame's shape by hand here; a budget of 0 keeps nothing.
#include "app/gui/inspection_cache.h"

#include <QtTest>

using namespace attnlab;

namespace {

/// A frame of `layers` x `heads` x T x T probabilities (and scores / keep-masks if asked).
app::InspectionFrame frameOf(const QString& checkpoint, const QString& text, int layers, int heads,
                             int length, bool scores = false, bool asa = false) {
  app::InspectionFrame f;
  f.checkpoint = checkpoint;
  f.text = text;
  f.layers = layers;
  f.heads = heads;
  f.length = length;
  f.hasAsa = asa;
  const std::size_t cells = static_cast<std::size_t>(heads) * length * length;
  for (int l = 0; l < layers; ++l) {
    f.probabilities.push_back(
        std::shared_ptr<const float>(new float[cells](), std::default_delete<float[]>()));
    if (scores)
      f.scores.push_back(
          std::shared_ptr<const float>(new float[cells](), std::default_delete<float[]>()));
  }
  if (asa)
    f.asaMasks = std::shared_ptr<const float>(
        new float[static_cast<std::size_t>(layers) * length * length](),
        std::default_delete<float[]>());
  return f;
}

}  // namespace

class TestInspectionCache : public QObject {
  Q_OBJECT
 private slots:
  void bytesFollowTheShape() {
    // 2 layers x 3 heads x 4 x 4 floats = 384 bytes; scores double it; masks add 2 x 16 x 4.
    QCOMPARE(app::InspectionCache::frameBytes(frameOf("a", "t", 2, 3, 4)), std::size_t{384});
    QCOMPARE(app::InspectionCache::frameBytes(frameOf("a", "t", 2, 3, 4, true)), std::size_t{768});
    QCOMPARE(app::InspectionCache::frameBytes(frameOf("a", "t", 2, 3, 4, false, true)),
             std::size_t{384 + 128});
  }

  void findsOnlyWhatAnswersTheRequest() {
    app::InspectionCache cache(1 << 20);
    cache.insert(frameOf("step-4", "the cat", 2, 2, 3));
    QVERIFY(cache.find("step-4", "the cat", {}).has_value());
    QVERIFY(!cache.find("step-8", "the cat", {}).has_value());
    QVERIFY(!cache.find("step-4", "the dog", {}).has_value());
    app::InspectionRequestOptions scores;
    scores.scores = true;
    QVERIFY(!cache.find("step-4", "the cat", scores).has_value());  // captured without scores
    cache.insert(frameOf("step-4", "the cat", 2, 2, 3, true));      // replaces the first
    QCOMPARE(cache.size(), std::size_t{1});
    QVERIFY(cache.find("step-4", "the cat", scores).has_value());
    QVERIFY(cache.find("step-4", "the cat", {}).has_value());  // more than asked is fine
    // A run without ASA answers a keep-mask request (there is nothing to capture).
    app::InspectionRequestOptions masks;
    masks.asaMasks = true;
    QVERIFY(cache.find("step-4", "the cat", masks).has_value());
    cache.insert(frameOf("asa-step-4", "the cat", 2, 2, 3, false, false));
    app::InspectionFrame asa = frameOf("asa-step-4", "the cat", 2, 2, 3);
    asa.hasAsa = true;  // an ASA run inspected without its masks
    cache.insert(asa);
    QVERIFY(!cache.find("asa-step-4", "the cat", masks).has_value());
  }

  void leastRecentlyUsedGoFirst() {
    const std::size_t one = app::InspectionCache::frameBytes(frameOf("a", "t", 1, 1, 10));
    app::InspectionCache cache(3 * one);
    cache.insert(frameOf("a", "t", 1, 1, 10));
    cache.insert(frameOf("b", "t", 1, 1, 10));
    cache.insert(frameOf("c", "t", 1, 1, 10));
    QCOMPARE(cache.bytes(), 3 * one);
    QVERIFY(cache.find("a", "t", {}).has_value());  // a is now the most recent
    cache.insert(frameOf("d", "t", 1, 1, 10));      // b, the least recent, goes
    QCOMPARE(cache.size(), std::size_t{3});
    QVERIFY(cache.contains("a", "t", {}));
    QVERIFY(!cache.contains("b", "t", {}));
    QVERIFY(cache.contains("c", "t", {}));
    QVERIFY(cache.contains("d", "t", {}));
    cache.setBudget(one);  // shrinking evicts down to the budget
    QCOMPARE(cache.size(), std::size_t{1});
    QVERIFY(cache.contains("d", "t", {}));
    cache.setBudget(0);
    QCOMPARE(cache.size(), std::size_t{0});
    QCOMPARE(cache.bytes(), std::size_t{0});
    cache.insert(frameOf("e", "t", 1, 1, 10));  // a budget of 0 keeps nothing
    QVERIFY(!cache.contains("e", "t", {}));
  }
};

QTEST_APPLESS_MAIN(TestInspectionCache)
#include "test_inspection_cache.moc"
