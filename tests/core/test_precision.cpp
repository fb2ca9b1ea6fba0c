// train.precision (core/runtime/precision.h): what each setting means on the CPU, the
// refusals, autocast's scope (core/runtime/torch_compat.h), the float16 loss scale, and a
// bfloat16 training step against a float32 one with the same parameters and batch: the
// losses agree to bfloat16's precision and weights and AdamW state stay float32.
#include "core/config/run_config.h"
#include "core/data/mlm_batcher.h"
#include "core/errors/error.h"
#include "core/model/masked_lm.h"
#include "core/runtime/precision.h"
#include "core/runtime/torch_compat.h"
#include "core/train/adamw.h"
#include "core/train/loss_scaler.h"
#include "core/train/objective_composer.h"
#include "core/train/train_step.h"

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <QtTest>

using namespace attnlab::core;

namespace {

const c10::Device kCpu(c10::kCPU);

struct StepRun {
  double loss = 0;
  c10::ScalarType weightType = c10::kFloat;
  std::vector<c10::ScalarType> stateTypes;
};

StepRun oneStep(Precision precision) {
  RunConfig rc;
  rc.model.layers = 2;
  rc.model.hiddenSize = 32;
  rc.model.heads = 2;
  rc.model.ffnSize = 64;
  rc.model.dropout = 0.0;
  rc.model.attentionDropout = 0.0;
  rc.model.maxPositions = 16;
  rc.schedule.steps = 2;
  rc.schedule.warmupSteps = 0;
  rc.train.precision = precision;
  torch::manual_seed(3);
  MaskedLanguageModel model(rc.model, 50, 0);
  model->train();
  std::vector<std::pair<std::string, at::Tensor>> params;
  for (const auto& p : model->named_parameters()) params.emplace_back(p.key(), p.value());
  AdamW optimizer(params, {0.9, 0.98, 1e-6, 0.01});
  const ObjectiveComposer objective(rc, GuidanceTokens{});
  TrainStep step(*model, objective, optimizer, rc, kCpu);
  MlmBatch batch;
  torch::manual_seed(4);
  batch.inputIds = torch::randint(3, 50, {4, 16}, torch::kLong);
  batch.attentionMask = torch::ones({4, 16}, torch::kBool);
  batch.labels = torch::where(torch::rand({4, 16}) < 0.3, batch.inputIds,
                              torch::full_like(batch.inputIds, -100));
  batch.realTokens = 64;
  const auto m = step.run(0, [&](std::int64_t) { return batch; });
  StepRun r;
  r.loss = m.loss.item<double>();
  r.weightType = model->parameters().front().scalar_type();
  for (const auto& [name, t] : optimizer.state()) r.stateTypes.push_back(t.scalar_type());
  return r;
}

}  // namespace

class TestPrecision : public QObject {
  Q_OBJECT
 private slots:
  void float32MeansFloat32() {
    const auto plan = applyPrecision(Precision::Float32, kCpu);
    QVERIFY(!plan.autocast);
    QVERIFY(!plan.lossScaling);
    QVERIFY(!at::globalContext().allowTF32CuBLAS());
  }

  void tf32IsFloat32OnTheCpu() {
    const auto plan = applyPrecision(Precision::Tf32, kCpu);
    QVERIFY(!plan.autocast);
    QVERIFY(QString::fromStdString(plan.note).contains("GPUs only"));
    QVERIFY(!at::globalContext().allowTF32CuBLAS());
  }

  void bf16AutocastsOnTheCpu() {
    if (!torch_compat::cpuBfloat16Autocast()) {
      QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, applyPrecision(Precision::Bf16, kCpu));
      QSKIP("LibTorch 1.13: bf16 on the CPU is refused (checked); the CUDA line runs the rest");
    }
    const auto plan = applyPrecision(Precision::Bf16, kCpu);
    QVERIFY(plan.autocast);
    QCOMPARE(plan.autocastType, c10::kBFloat16);
    QVERIFY(!plan.lossScaling);
  }

  void fp16IsRefusedOnTheCpu() {
    try {
      applyPrecision(Precision::Fp16, kCpu);
      QFAIL("fp16 on the CPU must be refused");
    } catch (const attnlab::ConfigError& e) {
      QCOMPARE(QString::fromStdString(e.where()), QStringLiteral("train.precision"));
      QVERIFY(QString(e.what()).contains("bf16"));
    }
  }

  void autocastScopeRestoresWhatWasThere() {
    const auto a = torch::randn({4, 4});
    QCOMPARE(torch::mm(a, a).scalar_type(), c10::kFloat);
    {
      torch_compat::AutocastScope outer(c10::DeviceType::CPU, c10::kBFloat16);
      QCOMPARE(torch::mm(a, a).scalar_type(), c10::kBFloat16);
    }
    QCOMPARE(torch::mm(a, a).scalar_type(), c10::kFloat);
  }

  void lossScaleHalvesOnOverflowAndGrowsAfterTheInterval() {
    LossScaler scaler(1024.0, 3);
    scaler.update(false);
    QCOMPARE(scaler.scale(), 512.0);
    scaler.update(true);
    scaler.update(true);
    QCOMPARE(scaler.scale(), 512.0);
    scaler.update(true);
    QCOMPARE(scaler.scale(), 1024.0);  // three finite steps in a row
    scaler.update(true);
    scaler.update(false);  // the run of finite steps starts again
    scaler.update(true);
    scaler.update(true);
    QCOMPARE(scaler.scale(), 512.0);
    LossScaler floor(1.0, 10);
    floor.update(false);
    QCOMPARE(floor.scale(), 1.0);
  }

  void bf16StepMatchesFloat32WithinItsPrecision() {
    if (!torch_compat::cpuBfloat16Autocast())
      QSKIP("LibTorch 1.13 cannot train in bf16 on the CPU (refused: bf16AutocastsOnTheCpu)");
    const StepRun f32 = oneStep(Precision::Float32);
    const StepRun bf16 = oneStep(Precision::Bf16);
    // bfloat16 keeps 8 bits of mantissa: a loss near ln(50) = 3.9 agrees to about 1e-2.
    QVERIFY2(std::abs(f32.loss - bf16.loss) < 0.05,
             qPrintable(QString("float32 %1 vs bf16 %2").arg(f32.loss).arg(bf16.loss)));
    QVERIFY(f32.loss != bf16.loss);  // autocast really ran in bfloat16
    QCOMPARE(bf16.weightType, c10::kFloat);
    for (const auto t : bf16.stateTypes) QVERIFY(t == c10::kFloat || t == c10::kLong);
  }
};

QTEST_APPLESS_MAIN(TestPrecision)
#include "test_precision.moc"
