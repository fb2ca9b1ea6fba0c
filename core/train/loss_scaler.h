#pragma once

#include <cstdint>

namespace attnlab::core {

/// The dynamic loss scale of float16 training (train.precision = fp16), as PyTorch's
/// GradScaler keeps it: the loss is multiplied by scale() before backward so that small
/// gradients survive float16; the gradients are divided by it before clipping. A step whose
/// gradients overflowed is skipped and halves the scale; `growthInterval` finite steps in a
/// row double it.
class LossScaler {
 public:
  explicit LossScaler(double initialScale = 65536.0, int growthInterval = 2000);

  double scale() const { return m_scale; }

  /// After a step's finiteness read: false means the step was skipped.
  void update(bool gradientsFinite);

  /// Finite steps since the scale last changed (what a checkpoint keeps with the scale).
  int goodSteps() const { return m_goodSteps; }
  /// Continues from a checkpoint's scale and count, so a resumed float16 run scales as the
  /// uninterrupted one would.
  void restore(double scale, int goodSteps);

 private:
  double m_scale;
  int m_growthInterval;
  int m_goodSteps = 0;
};

}  // namespace attnlab::core
