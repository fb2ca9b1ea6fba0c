#include "core/runtime/engine_random.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Tensor.h>

namespace attnlab::core {

namespace {
// An undefined Generator means "none installed".
thread_local at::Generator t_generator;
}  // namespace

std::mutex& globalGeneratorMutex() {
  static std::mutex mutex;
  return mutex;
}

at::Generator seededConstruction(std::uint64_t seed, const std::function<void()>& construct) {
  std::lock_guard<std::mutex> lock(globalGeneratorMutex());
  at::Generator global = at::detail::getDefaultCPUGenerator();
  at::Tensor saved;
  {
    std::lock_guard<std::mutex> genLock(global.mutex());
    saved = global.get_state();
    global.set_current_seed(seed);
  }
  // Restore the global state even when construction throws.
  struct Restore {
    at::Generator& g;
    at::Tensor& state;
    ~Restore() {
      std::lock_guard<std::mutex> genLock(g.mutex());
      g.set_state(state);
    }
  } restore{global, saved};
  construct();
  std::lock_guard<std::mutex> genLock(global.mutex());
  return global.clone();
}

ScopedThreadGenerator::ScopedThreadGenerator(at::Generator generator)
    : m_generator(std::move(generator)), m_previous(t_generator) {
  t_generator = m_generator;
}

ScopedThreadGenerator::~ScopedThreadGenerator() {
  t_generator = m_previous;
}

at::Generator threadGenerator() {
  return t_generator.defined() ? t_generator : at::detail::getDefaultCPUGenerator();
}

}  // namespace attnlab::core
