// Data-parallel training steps over c10d Gloo on loopback, two ranks as two threads of this
// process sharing a FileStore, in double precision:
// - equivalence: 2 ranks x 1 micro-batch per step end with the parameters of 1 process x 2
//   micro-batches per step (the same global micro-batches, dropout on: each micro-batch's
//   dropout is seeded by its global index), within 1e-12 after several AdamW steps, and the
//   two ranks hold bitwise the same parameters; a parameter no forward pass uses keeps no
//   gradient on any rank and stays where it was;
// - the same with 2 ranks x 2 micro-batches against 1 process x 4;
// - 2 ranks against 1 process whose one micro-batch holds both ranks' sequences (the doubled
//   batch; dropout off, since dropout is drawn per micro-batch), within 1e-9: the MLM loss is
//   normalised by the step's whole count of predicted tokens;
// - gradient sums worked out by hand: a parameter with a gradient on one rank only is summed
//   with zero there; one without a gradient on either rank keeps none;
// - a config that differs between ranks is refused naming both values;
// - the launch environment: torchrun's variables, defaults, and malformed values refused by name.
#include "core/data/mlm_batcher.h"
#include "core/distributed/distributed_context.h"
#include "core/distributed/gradient_reducer.h"
#include "core/distributed/launch_environment.h"
#include "core/errors/error.h"
#include "core/model/masked_lm.h"
#include "core/runtime/engine_random.h"
#include "core/train/adamw.h"
#include "core/train/objective_composer.h"
#include "core/train/train_step.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <map>
#include <thread>

using namespace attnlab;
using namespace attnlab::core;

namespace {

constexpr int kVocab = 40;
constexpr int kLength = 12;

RunConfig smallConfig(int accumulation) {
  RunConfig c;
  c.run.seed = 7;
  c.model.layers = 2;
  c.model.hiddenSize = 16;
  c.model.heads = 2;
  c.model.ffnSize = 32;
  c.model.maxPositions = kLength;
  c.model.dropout = 0.1;  // on: the test checks the per-micro-batch seeding too
  c.model.attentionDropout = 0.1;
  c.data.sequenceLength = kLength;
  c.train.batchSize = 3;
  c.train.gradientAccumulation = accumulation;
  c.schedule.steps = 10;
  c.schedule.warmupSteps = 2;
  return c;
}

/// Global micro-batch `index`: random ids, a padded tail, about a third of the positions
/// predicted; a function of the index alone, like the engine's batchers.
MlmBatch microBatch(std::int64_t index) {
  auto gen = at::detail::createCPUGenerator(1000 + static_cast<std::uint64_t>(index));
  MlmBatch b;
  b.inputIds = torch::randint(4, kVocab, {3, kLength}, gen, torch::kLong);
  b.attentionMask = torch::ones({3, kLength}, torch::kBool);
  b.attentionMask.index_put_({2, torch::indexing::Slice(8, kLength)}, false);
  const auto selected = torch::rand({3, kLength}, gen, torch::kDouble).lt(0.35) & b.attentionMask;
  b.labels = torch::where(selected, torch::randint(4, kVocab, {3, kLength}, gen, torch::kLong),
                          torch::full({3, kLength}, kIgnoreLabel, torch::kLong));
  b.realTokens = b.attentionMask.sum().item<std::int64_t>();
  b.selectedTokens = selected.sum().item<std::int64_t>();
  return b;
}

struct Replica {
  MaskedLanguageModel model{nullptr};
  std::unique_ptr<ObjectiveComposer> objective;
  std::unique_ptr<AdamW> optimizer;
};

/// The same initial parameters every time (seeded construction), in double.
Replica makeReplica(const RunConfig& c) {
  Replica r;
  seededConstruction(static_cast<std::uint64_t>(c.run.seed), [&] {
    r.model = MaskedLanguageModel(c.model, c.attention, kLength, kVocab, 0);
  });
  // A parameter no forward pass uses (like a layer a variant skips): it has no gradient on
  // any rank, so the reduction must leave it without one and AdamW must leave it alone.
  r.model->register_parameter("never_used", torch::full({3}, 0.5));
  r.model->to(torch::kDouble);
  r.model->train();
  r.objective = std::make_unique<ObjectiveComposer>(c, GuidanceTokens{});
  std::vector<std::pair<std::string, at::Tensor>> named;
  for (const auto& p : r.model->named_parameters()) named.emplace_back(p.key(), p.value());
  r.optimizer = std::make_unique<AdamW>(named, AdamWOptions{0.9, 0.999, 1e-8, 0.01});
  return r;
}

/// Runs `steps` steps on the calling thread with its own generator; returns the parameters.
std::map<std::string, at::Tensor> train(const RunConfig& c, int steps,
                                        DistributedContext* distributed,
                                        const MicroBatchSource& batches = microBatch) {
  ScopedThreadGenerator generator(at::detail::createCPUGenerator(1));
  Replica r = makeReplica(c);
  TrainStep step(*r.model, *r.objective, *r.optimizer, c, torch::Device(torch::kCPU), distributed);
  for (int s = 0; s < steps; ++s) {
    const StepMeasurements m = step.run(s, batches);
    if (!m.nonFinite.empty()) throw std::runtime_error(m.nonFinite);
  }
  std::map<std::string, at::Tensor> out;
  for (const auto& p : r.model->named_parameters()) out[p.key()] = p.value().detach().clone();
  return out;
}

double largestDifference(const std::map<std::string, at::Tensor>& a,
                         const std::map<std::string, at::Tensor>& b) {
  double worst = 0;
  for (const auto& [name, t] : a)
    worst = std::max(worst, (t - b.at(name)).abs().max().item<double>());
  return worst;
}

/// Runs `body(rank, context)` on two threads joined over a FileStore in `dir`.
template <typename Body>
void onTwoRanks(const QString& dir, Body body) {
  const std::string store = (dir + "/store").toStdString();
  std::exception_ptr failure[2];
  std::thread threads[2];
  for (int rank = 0; rank < 2; ++rank) {
    threads[rank] = std::thread([&, rank] {
      try {
        auto context =
            DistributedContext::connectWithFileStore(store, rank, 2, std::chrono::seconds(30));
        body(rank, *context);
      } catch (...) {
        failure[rank] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& f : failure)
    if (f) std::rethrow_exception(f);
}

}  // namespace

class TestDistributedStep : public QObject {
  Q_OBJECT
 private slots:
  void twoRanksEqualOneProcessWithTwiceTheAccumulation_data() {
    QTest::addColumn<int>("perRank");
    QTest::newRow("1 micro-batch per rank") << 1;
    QTest::newRow("2 micro-batches per rank") << 2;
  }
  void twoRanksEqualOneProcessWithTwiceTheAccumulation() {
    QFETCH(int, perRank);
    constexpr int kSteps = 4;
    const auto reference = train(smallConfig(2 * perRank), kSteps, nullptr);
    std::map<std::string, at::Tensor> ranks[2];
    QTemporaryDir dir;
    onTwoRanks(dir.path(), [&](int rank, DistributedContext& context) {
      ranks[rank] = train(smallConfig(perRank), kSteps, &context);
    });
    QCOMPARE(largestDifference(ranks[0], ranks[1]), 0.0);  // every rank steps identically
    for (const auto& rank : ranks)
      QVERIFY(torch::equal(rank.at("never_used"), torch::full({3}, 0.5, torch::kDouble)));
    const double difference = largestDifference(ranks[0], reference);
    qInfo("largest parameter difference to one process: %g", difference);
    QVERIFY2(difference <= 1e-12, qPrintable(QString::number(difference)));
    // Not trivially equal: the parameters moved away from their initial values.
    const auto initial = train(smallConfig(perRank), 0, nullptr);
    QVERIFY(largestDifference(initial, reference) > 1e-3);
  }

  void twoRanksEqualOneProcessWithTheDoubledBatch() {
    constexpr int kSteps = 4;
    const auto withoutDropout = [](int batchSize) {
      RunConfig c = smallConfig(1);
      c.model.dropout = 0;
      c.model.attentionDropout = 0;
      c.train.batchSize = batchSize;
      return c;
    };
    // Step s of one process: global micro-batches 2s and 2s+1 (those of ranks 0 and 1) in one.
    const auto doubled = [](std::int64_t index) {
      const MlmBatch a = microBatch(2 * index);
      const MlmBatch b = microBatch(2 * index + 1);
      MlmBatch both;
      both.inputIds = torch::cat({a.inputIds, b.inputIds});
      both.attentionMask = torch::cat({a.attentionMask, b.attentionMask});
      both.labels = torch::cat({a.labels, b.labels});
      both.realTokens = a.realTokens + b.realTokens;
      both.selectedTokens = a.selectedTokens + b.selectedTokens;
      return both;
    };
    // The two halves predict different numbers of tokens, so a mean of the two micro-batch
    // means would differ from the doubled batch's mean: the test can see the normalisation.
    QVERIFY(microBatch(0).selectedTokens != microBatch(1).selectedTokens);
    const auto reference = train(withoutDropout(6), kSteps, nullptr, doubled);
    std::map<std::string, at::Tensor> ranks[2];
    QTemporaryDir dir;
    onTwoRanks(dir.path(), [&](int rank, DistributedContext& context) {
      ranks[rank] = train(withoutDropout(3), kSteps, &context);
    });
    QCOMPARE(largestDifference(ranks[0], ranks[1]), 0.0);
    const double difference = largestDifference(ranks[0], reference);
    qInfo("largest parameter difference to the doubled batch: %g", difference);
    QVERIFY2(difference <= 1e-9, qPrintable(QString::number(difference)));
    QVERIFY(largestDifference(train(withoutDropout(3), 0, nullptr), reference) > 1e-3);
  }

  void overlappedReductionEqualsSumAfterBackward() {
    // GradientReducer (the sum started during backward) against sumGradients (started
    // after it) on the same two backward passes per rank: the second pass armed, the
    // first accumulated before it; parameter 3 has a gradient on rank 1 only and parameter 4
    // on neither. Bitwise equal gradients; buckets of 64 bytes: parameters 4 and 3 share the
    // first, the others have one each.
    QTemporaryDir dir;
    std::vector<at::Tensor> overlapped[2], afterwards[2];
    int startedInBackward[2] = {}, buckets[2] = {};
    onTwoRanks(dir.path(), [&](int rank, DistributedContext& context) {
      const auto makeParams = [] {
        const auto opts = torch::TensorOptions().dtype(torch::kDouble);
        return std::vector<at::Tensor>{
            torch::linspace(-1, 1, 12, opts).view({4, 3}).requires_grad_(true),
            torch::linspace(0, 0.3, 4, opts).requires_grad_(true),
            torch::linspace(1, -0.5, 8, opts).view({2, 4}).requires_grad_(true),
            torch::full({3}, 0.5, opts).requires_grad_(true),
            torch::zeros({2}, opts).requires_grad_(true)};
      };
      const auto loss = [rank](const std::vector<at::Tensor>& p, int micro) {
        const auto x = torch::linspace(0.1 * (rank + 1), 0.7 + micro, 3, torch::kDouble);
        auto out = torch::matmul(p[2], torch::tanh(torch::matmul(p[0], x) + p[1])).pow(2).sum();
        return rank == 1 ? out + (p[3] * x).pow(2).sum() : out;
      };
      auto a = makeParams();
      GradientReducer reducer(context, a, /*bucketBytes=*/64);
      loss(a, 0).backward();
      reducer.arm();
      loss(a, 1).backward();
      reducer.finish();
      auto b = makeParams();
      loss(b, 0).backward();
      loss(b, 1).backward();
      context.sumGradients(b);
      for (std::size_t i = 0; i < a.size(); ++i) {
        overlapped[rank].push_back(a[i].grad());
        afterwards[rank].push_back(b[i].grad());
      }
      startedInBackward[rank] = reducer.bucketsStartedInBackward();
      buckets[rank] = reducer.bucketCount();
    });
    for (int rank = 0; rank < 2; ++rank) {
      QCOMPARE(buckets[rank], 4);
      for (std::size_t i = 0; i < 5; ++i) {
        const auto& o = overlapped[rank][i];
        const auto& r = afterwards[rank][i];
        QCOMPARE(o.defined(), r.defined());
        if (o.defined())
          QVERIFY2(torch::equal(o, r),
                   qPrintable(QString("parameter %1 rank %2").arg(i).arg(rank)));
      }
      QVERIFY(!overlapped[rank][4].defined());  // no gradient anywhere: none after the sum
      QVERIFY(torch::equal(overlapped[rank][0], overlapped[1 - rank][0]));
    }
    // Buckets start in order, the last parameters first: bucket 0 (parameter 4 is unused
    // everywhere) completes only in finish(), so nothing could start during backward. The
    // order is what keeps the ranks' collectives matched; the overlap in a real model comes
    // from parameters that all get gradients (the next test).
    QCOMPARE(startedInBackward[0], 0);
    QCOMPARE(startedInBackward[1], 0);
  }

  void overlappedReductionStartsDuringBackward() {
    QTemporaryDir dir;
    int started[2] = {}, buckets[2] = {};
    onTwoRanks(dir.path(), [&](int rank, DistributedContext& context) {
      std::vector<at::Tensor> p;
      for (int i = 0; i < 4; ++i)
        p.push_back(torch::full({8}, 0.1 * (i + 1), torch::kDouble).requires_grad_(true));
      GradientReducer reducer(context, p, /*bucketBytes=*/64);
      reducer.arm();
      auto x = torch::full({8}, 1.0 + rank, torch::kDouble);
      for (const auto& w : p) x = torch::tanh(x * w);  // backward reaches p[3] first
      x.sum().backward();
      started[rank] = reducer.bucketsStartedInBackward();
      buckets[rank] = reducer.bucketCount();
      reducer.finish();
    });
    for (int rank = 0; rank < 2; ++rank) {
      QCOMPARE(buckets[rank], 4);
      QCOMPARE(started[rank], 4);  // every bucket's sum began inside backward
    }
  }

  void summingByHand() {
    QTemporaryDir dir;
    at::Tensor results[2][3];
    bool hasGrad[2][3] = {};
    onTwoRanks(dir.path(), [&](int rank, DistributedContext& context) {
      std::vector<at::Tensor> params;
      for (int i = 0; i < 3; ++i) params.push_back(torch::zeros({2}, torch::kDouble));
      // Parameter 0: grads 1,2 on rank 0 and 3,4 on rank 1 -> sum 4,6.
      params[0].mutable_grad() = rank == 0 ? torch::tensor({1.0, 2.0}, torch::kDouble)
                                           : torch::tensor({3.0, 4.0}, torch::kDouble);
      // Parameter 1: a gradient on rank 1 only (8, -2): summed with rank 0's zero -> 8, -2.
      if (rank == 1) params[1].mutable_grad() = torch::tensor({8.0, -2.0}, torch::kDouble);
      // Parameter 2: no gradient anywhere.
      context.sumGradients(params, /*bucketBytes=*/16);  // one parameter per bucket
      for (int i = 0; i < 3; ++i) {
        hasGrad[rank][i] = params[i].grad().defined();
        if (hasGrad[rank][i]) results[rank][i] = params[i].grad().clone();
      }
    });
    for (int rank = 0; rank < 2; ++rank) {
      QVERIFY(hasGrad[rank][0] && hasGrad[rank][1] && !hasGrad[rank][2]);
      QVERIFY(torch::equal(results[rank][0], torch::tensor({4.0, 6.0}, torch::kDouble)));
      QVERIFY(torch::equal(results[rank][1], torch::tensor({8.0, -2.0}, torch::kDouble)));
    }
  }

  void aConfigThatDiffersIsRefused() {
    QTemporaryDir dir;
    QString messages[2];
    onTwoRanks(dir.path(), [&](int rank, DistributedContext& context) {
      context.requireSameAsRoot("model hash", "cccc3333");  // equal: passes on both
      try {
        context.requireSameAsRoot("config hash", rank == 0 ? "aaaa1111" : "bbbb2222");
      } catch (const DistributedError& e) {
        messages[rank] = e.what();
      }
    });
    for (const QString& message : messages)  // both ranks refuse, with the same message
      QVERIFY2(message.contains("aaaa1111 on rank 0") && message.contains("bbbb2222 on rank 1"),
               qPrintable(message));
  }

  void launchEnvironment() {
    std::map<std::string, std::string> vars;
    const auto lookup = [&](const std::string& name) -> std::optional<std::string> {
      const auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
    QVERIFY(!readLaunchEnvironment(lookup).has_value());  // no WORLD_SIZE: one process
    vars = {{"WORLD_SIZE", "4"},
            {"RANK", "3"},
            {"LOCAL_RANK", "1"},
            {"LOCAL_WORLD_SIZE", "2"},
            {"MASTER_ADDR", "10.1.2.3"},
            {"MASTER_PORT", "29511"},
            {"TORCHELASTIC_USE_AGENT_STORE", "True"},
            {"TORCHELASTIC_RESTART_COUNT", "2"}};
    const auto env = readLaunchEnvironment(lookup);
    QVERIFY(env.has_value());
    QCOMPARE(env->rank, 3);
    QCOMPARE(env->localRank, 1);
    QCOMPARE(env->worldSize, 4);
    QCOMPARE(env->localWorldSize, 2);
    QVERIFY(env->multiMachine());
    QCOMPARE(env->masterAddr, std::string("10.1.2.3"));
    QCOMPARE(env->masterPort, 29511);
    QCOMPARE(env->storePrefix(), std::string("/worker/attempt_2/"));
    const auto refused = [&](std::map<std::string, std::string> v, const char* needle) {
      vars = std::move(v);
      try {
        readLaunchEnvironment(lookup);
      } catch (const ConfigError& e) {
        return QString(e.what()).contains(needle);
      }
      return false;
    };
    QVERIFY(refused({{"WORLD_SIZE", "2"}, {"RANK", "2"}}, "RANK"));
    QVERIFY(refused({{"WORLD_SIZE", "2"}}, "RANK"));
    QVERIFY(refused({{"WORLD_SIZE", "two"}}, "WORLD_SIZE"));
    QVERIFY(refused({{"WORLD_SIZE", "2"}, {"RANK", "0"}, {"MASTER_PORT", "70000"}}, "MASTER_PORT"));
    QVERIFY(refused({{"WORLD_SIZE", "4"}, {"RANK", "0"}, {"LOCAL_WORLD_SIZE", "3"}},
                    "LOCAL_WORLD_SIZE"));
    QVERIFY(
        refused({{"WORLD_SIZE", "4"}, {"RANK", "0"}, {"LOCAL_WORLD_SIZE", "2"}}, "MASTER_ADDR"));
  }
};

QTEST_APPLESS_MAIN(TestDistributedStep)
#include "test_distributed_step.moc"
