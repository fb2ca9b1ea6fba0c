// Our AdamW against LibTorch's own torch::optim::AdamW (an independent implementation),
// and the learning-rate schedule against values worked out by hand.
#include "core/errors/error.h"
#include "core/runtime/torch_compat.h"
#include "core/train/adamw.h"

#include <torch/torch.h>

#include <QtTest>

using namespace attnlab::core;

class TestAdamW : public QObject {
  Q_OBJECT
 private slots:
  void matchesLibTorchAdamW() {
    torch::manual_seed(3);
    auto w1 = torch::randn({6, 4}).requires_grad_(true);
    auto b1 = torch::randn({6}).requires_grad_(true);
    auto w2 = w1.detach().clone().requires_grad_(true);
    auto b2 = b1.detach().clone().requires_grad_(true);
    const double lr = 1e-2, wd = 0.1;
    AdamW ours({{"layer.weight", w1}, {"layer.bias", b1}}, {0.9, 0.98, 1e-6, wd});
    // LibTorch's AdamW with two groups: decay on the weight, none on the bias.
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(
        std::vector<torch::Tensor>{w2},
        std::make_unique<torch::optim::AdamWOptions>(
            torch::optim::AdamWOptions(lr).betas({0.9, 0.98}).eps(1e-6).weight_decay(wd)));
    groups.emplace_back(
        std::vector<torch::Tensor>{b2},
        std::make_unique<torch::optim::AdamWOptions>(
            torch::optim::AdamWOptions(lr).betas({0.9, 0.98}).eps(1e-6).weight_decay(0.0)));
    torch::optim::AdamW reference(std::move(groups));
    auto x = torch::randn({5, 4});
    for (int step = 0; step < 20; ++step) {
      ours.zeroGrad();
      reference.zero_grad();
      (torch::matmul(x, w1.t()) + b1).pow(2).sum().backward();
      (torch::matmul(x, w2.t()) + b2).pow(2).sum().backward();
      ours.step(lr);
      reference.step();
    }
    QVERIFY((w1 - w2).abs().max().item<double>() < 1e-6);
    QVERIFY((b1 - b2).abs().max().item<double>() < 1e-6);
    QCOMPARE(ours.stepCount(), int64_t(20));
  }

  void fusedKernelMatchesPerTensor() {
    // LibTorch 2.x's fused AdamW kernel (what a GPU run uses) against the per-tensor loop
    // and LibTorch's own torch::optim::AdamW, here on the CPU (fused there from 2.4 on):
    // twenty steps, one parameter without a gradient on odd steps (its bias correction
    // must still count every step, as the per-tensor loop and the checkpoint do).
    if (!torch_compat::hasFusedAdamW(c10::DeviceType::CPU))
      QSKIP("this LibTorch has no fused AdamW on the CPU (1.13; the kernel needs 2.4)");
    torch::manual_seed(4);
    const auto w0 = torch::randn({6, 4});
    const auto b0 = torch::randn({6});
    const auto x = torch::randn({5, 4});
    auto run = [&](AdamWKernel kernel) {
      auto w = w0.clone().requires_grad_(true);
      auto b = b0.clone().requires_grad_(true);
      AdamW opt({{"layer.weight", w}, {"layer.bias", b}}, {0.9, 0.98, 1e-6, 0.1, kernel});
      for (int step = 0; step < 20; ++step) {
        opt.zeroGrad();
        const auto out = step % 2 == 0 ? torch::matmul(x, w.t()) + b : torch::matmul(x, w.t());
        out.pow(2).sum().backward();
        opt.step(1e-2);
      }
      return std::make_tuple(w.detach(), b.detach(), opt.fused(), opt.state());
    };
    const auto [wf, bf, fused, stateFused] = run(AdamWKernel::Fused);
    const auto [wp, bp, perTensorFused, statePerTensor] = run(AdamWKernel::PerTensor);
    QVERIFY(fused);
    QVERIFY(!perTensorFused);
    QVERIFY2((wf - wp).abs().max().item<double>() < 1e-6, "weights differ");
    QVERIFY2((bf - bp).abs().max().item<double>() < 1e-6, "biases differ");
    for (const auto& [key, value] : statePerTensor)
      QVERIFY2(torch::allclose(stateFused.at(key), value, 1e-5, 1e-7), key.c_str());
  }

  void fusedKernelRefusedWhereMissing() {
    auto w = torch::randn({2, 2}).requires_grad_(true);
    if (torch_compat::hasFusedAdamW(c10::DeviceType::CPU)) {
      QVERIFY(AdamW({{"w", w}}, {0.9, 0.98, 1e-6, 0.0, AdamWKernel::Fused}).fused());
    } else {
      QVERIFY_THROWS_EXCEPTION(attnlab::Error,
                               AdamW({{"w", w}}, {0.9, 0.98, 1e-6, 0.0, AdamWKernel::Fused}));
    }
    // Auto keeps the CPU on the per-tensor loop, whatever the LibTorch.
    QVERIFY(!AdamW({{"w", w}}, {}).fused());
  }

  void decayRule() {
    QVERIFY(AdamW::decays("layers.0.ffn_in.weight", torch::zeros({2, 2})));
    QVERIFY(AdamW::decays("token_embedding.weight", torch::zeros({2, 2})));
    QVERIFY(!AdamW::decays("layers.0.ffn_in.bias", torch::zeros({2})));
    QVERIFY(!AdamW::decays("layers.0.attention_norm.weight", torch::zeros({2})));
    QVERIFY(!AdamW::decays("mlm_bias", torch::zeros({2})));
  }

  void stateRoundTripsByName() {
    auto w = torch::randn({3, 3}).requires_grad_(true);
    AdamW a({{"w", w}}, {});
    w.sum().backward();
    a.step(0.1);
    auto saved = a.state();
    std::map<std::string, at::Tensor> copy;
    for (auto& [k, v] : saved) copy[k] = v.clone();
    auto w2 = w.detach().clone().requires_grad_(true);
    AdamW b({{"w", w2}}, {});
    b.loadState(copy);
    QCOMPARE(b.stepCount(), int64_t(1));
    QVERIFY(torch::equal(b.state()["optimizer/w/exp_avg_sq"], saved["optimizer/w/exp_avg_sq"]));
    copy.erase("optimizer/w/exp_avg");
    QVERIFY_THROWS_EXCEPTION(attnlab::CheckpointError, b.loadState(copy));
  }

  void scheduleByHand() {
    // peak 1, warm-up 4, total 12: 0.25 0.5 0.75 1 | then (12 - s) / 8 from s = 4.
    const std::vector<double> expected = {0.25, 0.5,   0.75, 1.0,   1.0,  0.875,
                                          0.75, 0.625, 0.5,  0.375, 0.25, 0.125};
    for (int s = 0; s < 12; ++s) {
      QVERIFY2(std::abs(learningRateAt(s, 1.0, 4, 12, true) - expected[s]) < 1e-12,
               qPrintable(QString("step %1").arg(s)));
    }
    QCOMPARE(learningRateAt(12, 1.0, 4, 12, true), 0.0);
    QCOMPARE(learningRateAt(9, 2.0, 4, 12, false), 2.0);
    QCOMPARE(learningRateAt(0, 1.0, 0, 10, true), 1.0);
  }
};

QTEST_APPLESS_MAIN(TestAdamW)
#include "test_adamw.moc"
