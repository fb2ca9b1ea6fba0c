#pragma once

// Random state of a training run, kept apart from LibTorch's global generator.
//
// A run inside the desktop app shares its process with other work that may draw random
// numbers (building a model for an inspection, a BLAS speed probe). If the run drew its
// dropout masks from LibTorch's global CPU generator, any such draw on another thread would
// change the run's results. So a run owns a generator of its own, installed on the engine
// thread (ScopedThreadGenerator): dropout and checkpointed RNG state use it. Model
// initialisation still consumes the global generator (module constructors draw from it),
// but only inside seededConstruction(), which holds the global-generator lock, seeds it,
// and afterwards hands the state it reached to the run and puts the global state back. The
// numbers a run sees are therefore exactly those of `torch::manual_seed(seed)` followed by
// construction, and during training TrainStep reseeds the run's generator before each
// micro-batch from (run.seed, global micro-batch index) (core/train/train_step.h), so a
// micro-batch's dropout is the same whichever rank of a data-parallel run draws it: the CLI,
// the app and any number of ranks give the same bits.

#include <ATen/core/Generator.h>

#include <cstdint>
#include <functional>
#include <mutex>

namespace attnlab::core {

/// Held by anything that seeds or draws from LibTorch's global CPU generator outside a
/// run's own generator (seededConstruction() does; an inspection building a model should).
std::mutex& globalGeneratorMutex();

/// Runs `construct` with the global CPU generator seeded with `seed` (under
/// globalGeneratorMutex()), and returns a new generator in the state the global one
/// reached; the global generator's previous state is restored.
at::Generator seededConstruction(std::uint64_t seed, const std::function<void()>& construct);

/// Makes `generator` the calling thread's engine generator for the scope's lifetime.
class ScopedThreadGenerator {
 public:
  explicit ScopedThreadGenerator(at::Generator generator);
  ~ScopedThreadGenerator();
  ScopedThreadGenerator(const ScopedThreadGenerator&) = delete;
  ScopedThreadGenerator& operator=(const ScopedThreadGenerator&) = delete;

 private:
  at::Generator m_generator;
  at::Generator m_previous;
};

/// The calling thread's engine generator, or LibTorch's default CPU generator when none is
/// installed (tests and tools that call the model directly).
at::Generator threadGenerator();

}  // namespace attnlab::core
