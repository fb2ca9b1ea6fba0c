#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace attnlab::widgets {

/// A dense row-major matrix as plots receive it (an attention head: rows = queries,
/// columns = keys). Plain data: widgets copy what they need and keep no reference.
struct Matrix {
  int rows = 0;
  int cols = 0;
  std::vector<float> values;  ///< rows * cols entries, row-major

  Matrix() = default;
  Matrix(int r, int c, std::vector<float> v) : rows(r), cols(c), values(std::move(v)) {}
  Matrix(int r, int c, float fill = 0.0f)
      : rows(r), cols(c), values(static_cast<std::size_t>(r) * c, fill) {}

  bool isValid() const {
    return rows > 0 && cols > 0 && values.size() == static_cast<std::size_t>(rows) * cols;
  }
  float at(int r, int c) const { return values[static_cast<std::size_t>(r) * cols + c]; }
  float& at(int r, int c) { return values[static_cast<std::size_t>(r) * cols + c]; }
};

}  // namespace attnlab::widgets
