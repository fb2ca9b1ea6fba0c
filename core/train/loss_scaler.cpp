#include "core/train/loss_scaler.h"

#include <algorithm>

namespace attnlab::core {

LossScaler::LossScaler(double initialScale, int growthInterval)
    : m_scale(initialScale), m_growthInterval(growthInterval) {}

void LossScaler::update(bool gradientsFinite) {
  if (!gradientsFinite) {
    // Never below 1: a scale that small means the loss itself overflows float16.
    m_scale = std::max(1.0, m_scale * 0.5);
    m_goodSteps = 0;
    return;
  }
  if (++m_goodSteps >= m_growthInterval) {
    m_scale *= 2.0;
    m_goodSteps = 0;
  }
}

void LossScaler::restore(double scale, int goodSteps) {
  m_scale = scale;
  m_goodSteps = goodSteps;
}

}  // namespace attnlab::core
