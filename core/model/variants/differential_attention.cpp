#include "core/model/variants/differential_attention.h"

#include <torch/torch.h>

#include <cmath>

namespace attnlab::core {

DifferentialAttentionImpl::DifferentialAttentionImpl(int headSize, int layerIndex)
    : m_lambdaInit(0.8 - 0.6 * std::exp(-0.3 * double(layerIndex))) {
  const int half = headSize / 2;
  m_lq1 = register_parameter("lambda_q1", torch::zeros({half}));
  m_lk1 = register_parameter("lambda_k1", torch::zeros({half}));
  m_lq2 = register_parameter("lambda_q2", torch::zeros({half}));
  m_lk2 = register_parameter("lambda_k2", torch::zeros({half}));
  m_norm = register_module("norm", HeadNorm(QkNorm::Rms, headSize, 1e-5, false));
  resetParameters();
}

void DifferentialAttentionImpl::resetParameters() {
  torch::NoGradGuard noGrad;
  for (auto* p : {&m_lq1, &m_lk1, &m_lq2, &m_lk2}) p->normal_(0.0, 0.1);
  m_norm->resetParameters();
}

torch::Tensor DifferentialAttentionImpl::lambda() const {
  return torch::exp((m_lq1 * m_lk1).sum()) - torch::exp((m_lq2 * m_lk2).sum()) + m_lambdaInit;
}

torch::Tensor DifferentialAttentionImpl::finish(const torch::Tensor& context) {
  return m_norm(context) * (1.0 - m_lambdaInit);
}

}  // namespace attnlab::core
