#include "core/model/qkv_split.h"

#include <torch/autograd.h>
#include <torch/torch.h>

namespace attnlab::core {
namespace {

/// [B*T, 3H] viewed as [B, T, 3, heads, d]; part i as [B, heads, T, d].
at::Tensor partView(const at::Tensor& packed, std::int64_t i) {
  return packed.select(2, i).permute({0, 2, 1, 3});
}

struct QkvSplitFunction : public torch::autograd::Function<QkvSplitFunction> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const torch::Tensor& projected, std::int64_t batch,
                                                std::int64_t length, std::int64_t heads) {
    const std::int64_t headSize = projected.size(1) / (3 * heads);
    ctx->saved_data["shape"] = std::vector<std::int64_t>{batch, length, heads, headSize};
    const auto packed = projected.view({batch, length, 3, heads, headSize});
    return {partView(packed, 0), partView(packed, 1), partView(packed, 2)};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto shape = ctx->saved_data["shape"].toIntVector();
    const auto batch = shape[0], length = shape[1], heads = shape[2], headSize = shape[3];
    at::TensorOptions options;
    for (const auto& g : grads)
      if (g.defined()) options = g.options();
    auto packed = torch::empty({batch, length, 3, heads, headSize}, options);
    for (std::int64_t i = 0; i < 3; ++i) {
      auto target = partView(packed, i);
      const auto& g = grads[static_cast<std::size_t>(i)];
      if (g.defined())
        target.copy_(g);
      else
        target.zero_();  // a part the loss did not use
    }
    return {packed.view({batch * length, 3 * heads * headSize}), {}, {}, {}};
  }
};

}  // namespace

std::array<at::Tensor, 3> splitQkv(const at::Tensor& projected, std::int64_t batch,
                                   std::int64_t length, std::int64_t heads) {
  auto parts = QkvSplitFunction::apply(projected, batch, length, heads);
  return {parts[0], parts[1], parts[2]};
}

}  // namespace attnlab::core
