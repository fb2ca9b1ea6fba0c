#!/usr/bin/env python3
"""What norm-based attention costs when written straight from Kobayashi et al.'s formula in
PyTorch, as a researcher would in a notebook: the weighted vectors alpha_ij,h f_h(x_j) of one
layer materialised as a [heads, T, T, hidden] tensor, then their norms per head and the norm of
their sum over heads. One BERT-base-shaped layer (12 heads of 64, hidden 768), random inputs.
Prints milliseconds per layer (median of R) and the tensor's size, for bench_beyond_weights to
print beside its own figure. Usage: norms_explicit_pytorch.py T [R] [THREADS]
"""
import sys
import time

import torch


def main():
    length = int(sys.argv[1])
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 2)
    heads, d, hidden = 12, 64, 768
    gigabytes = heads * length * length * hidden * 4 / 1e9
    if gigabytes > 4:
        print(f"explicit pytorch: T={length}: the [12, T, T, 768] tensor needs {gigabytes:.1f} GB: not run")
        return
    torch.manual_seed(0)
    alpha = torch.softmax(torch.randn(heads, length, length), -1)
    v = torch.randn(heads, length, d)
    w_o = torch.randn(hidden, hidden) / hidden ** 0.5
    times = []
    with torch.no_grad():
        for _ in range(repeats + 1):
            start = time.perf_counter()
            f = torch.einsum("htd,ohd->hto", v, w_o.view(hidden, heads, d))
            weighted = alpha[..., None] * f[:, None, :, :]  # [heads, T, T, hidden]
            head_norms = weighted.norm(dim=-1)
            layer_norms = weighted.sum(0).norm(dim=-1)
            times.append((time.perf_counter() - start) * 1000)
            del weighted, head_norms, layer_norms
    times = sorted(times[1:])
    print(f"explicit pytorch {torch.__version__}: T={length}: {times[len(times) // 2]:.0f} ms per layer "
          f"({gigabytes:.2f} GB tensor)")


if __name__ == "__main__":
    main()
