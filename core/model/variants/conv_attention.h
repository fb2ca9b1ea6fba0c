#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace attnlab::core {

/// 1-D convolved attention (Dufter et al. 2020, the official code's Conv1D): applied to
/// the softmax output A [B, H, T, T] per head, a convolution along the *query* axis with the
/// key axis as input channels and T filters of width 3, bias, ReLU, zero padding, no
/// renormalisation:
///   out[b,h,i,f] = ReLU(bias[h,f] + sum_{k=-1..1} sum_j W[h,f,j,k+1] * A[b,h,i+k,j])
/// with A[...,i+k,...] = 0 outside [0, T). The filter count equals the length the module
/// was built for; other lengths are refused (TORCH_CHECK naming both).
/// Parameters "weight" [H*T, T, 3] (grouped conv1d layout, group h = head h) and "bias" [H*T].
class ConvAttention1dImpl : public torch::nn::Module {
 public:
  ConvAttention1dImpl(int heads, int length);
  torch::Tensor forward(const torch::Tensor& probabilities);
  /// Keras' default initialisation in the official code: glorot-uniform kernel, zero bias.
  void resetParameters();
  int length() const { return m_length; }

 private:
  int m_heads;
  int m_length;
  torch::Tensor m_weight;
  torch::Tensor m_bias;
};
TORCH_MODULE(ConvAttention1d);

/// 2-D convolved attention: per head one 3x3 filter over A as a single-channel image, bias,
/// ReLU, zero padding, no renormalisation:
///   out[b,h,i,j] = ReLU(bias[h] + sum_{di,dj in -1..1} W[h,di+1,dj+1] * A[b,h,i+di,j+dj])
/// Parameters "weight" [H, 1, 3, 3] and "bias" [H].
class ConvAttention2dImpl : public torch::nn::Module {
 public:
  explicit ConvAttention2dImpl(int heads);
  torch::Tensor forward(const torch::Tensor& probabilities);
  void resetParameters();

 private:
  int m_heads;
  torch::Tensor m_weight;
  torch::Tensor m_bias;
};
TORCH_MODULE(ConvAttention2d);

}  // namespace attnlab::core
