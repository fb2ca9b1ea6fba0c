#pragma once

namespace attnlab::core {

/// Whether a batch has padding positions (attentionMask false somewhere). The caller knows
/// it on the host (MlmBatch::realTokens); the model could only learn it by a device read.
enum class BatchPadding { Some, None };

}  // namespace attnlab::core
