#pragma once

// The bitwise check the app tests share: the newest checkpoint of a run equals a reference
// run's newest, tensor by tensor (parameters, optimiser state, RNG state), at one step.
// QVERIFY-style: a failure is recorded and the helper returns.

#include <torch/torch.h>

#include "core/checkpoint/checkpoint_store.h"

#include <QtTest>

#include <cstdint>
#include <filesystem>

namespace attnlab::tests {

inline void compareLatestCheckpoints(const std::filesystem::path& reference,
                                     const std::filesystem::path& dir, std::int64_t step) {
  const auto la = core::CheckpointStore(reference, 2, true).latest();
  const auto lb = core::CheckpointStore(dir, 2, true).latest();
  QVERIFY(la && lb);
  const auto ca = core::CheckpointStore::load(la->path);
  const auto cb = core::CheckpointStore::load(lb->path);
  QCOMPARE(ca.step, step);
  QCOMPARE(cb.step, step);
  QCOMPARE(ca.tensors.size(), cb.tensors.size());
  for (const auto& [key, t] : ca.tensors) {
    QVERIFY2(cb.tensors.count(key) == 1, key.c_str());
    QVERIFY2(torch::equal(t, cb.tensors.at(key)), ("differs from the reference: " + key).c_str());
  }
}

}  // namespace attnlab::tests
