#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <vector>

namespace attnlab::core {

/// Squeeze-and-Excitation over the encoder layers (SesameBERT):
///   squeeze:    z_l = mean of U_l over real (non-padding) tokens and all features   [B, L]
///   excitation: s = sigmoid(W2 ReLU(W1 z + b1) + b2), W1: L -> max(1, L / r), W2: -> L
/// Modules "fc1" and "fc2" (torch::nn::Linear).
class LayerSqueezeExcitationImpl : public torch::nn::Module {
 public:
  LayerSqueezeExcitationImpl(int layers, int ratio, double biasInit);
  /// layerOutputs: L tensors [B, T, H]; attentionMask [B, T] bool (true = real token).
  /// Returns s [B, L] in (0, 1).
  torch::Tensor forward(const std::vector<torch::Tensor>& layerOutputs,
                        const torch::Tensor& attentionMask);
  /// Weights ~ N(0, initStd), biases = biasInit (the official code initialises them to 0.8).
  void resetParameters(double initStd);

  /// Combines the layers with the weights s [B, L]:
  ///   weightedAverage (paper): sum_l s_l U_l / sum_l s_l
  ///   otherwise (official code): s_L * U_L (the scaled last layer)
  static torch::Tensor combine(const std::vector<torch::Tensor>& layerOutputs,
                               const torch::Tensor& weights, bool weightedAverage);

 private:
  double m_biasInit;
  torch::nn::Linear m_fc1{nullptr};
  torch::nn::Linear m_fc2{nullptr};
};
TORCH_MODULE(LayerSqueezeExcitation);

}  // namespace attnlab::core
