#pragma once
// Storage types shared by loaders and compute. Everything on disk is row-major, and so is
// everything here: say it once, in these aliases.
#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace headmap {

using RowMatrixXf = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatrixMap = Eigen::Map<RowMatrixXf>;
using ConstRowMatrixMap = Eigen::Map<const RowMatrixXf>;
using VectorXf = Eigen::VectorXf;

// U16..F8_E5M2 exist so loaders can list such tensors; they cannot be loaded as float32.
enum class DType { F32, F16, BF16, F64, I64, I32, I16, I8, U8, Bool,
                   U16, U32, U64, F8_E4M3, F8_E5M2 };

std::string dtypeName(DType dtype);
int dtypeSize(DType dtype);

// A float32 tensor that either borrows memory (e.g. a memory-mapped F32 tensor; m_owner keeps the
// mapping alive) or owns a converted copy (F16/BF16 -> F32).
class FloatTensor {
 public:
  FloatTensor() = default;
  FloatTensor(std::vector<int64_t> shape, std::vector<float> values);
  FloatTensor(std::vector<int64_t> shape, const float* data, std::shared_ptr<const void> owner);

  const std::vector<int64_t>& shape() const { return m_shape; }
  int64_t numel() const;
  int rank() const { return static_cast<int>(m_shape.size()); }
  const float* data() const { return m_data; }

  // View as (rows, cols); a 1-D tensor is (1, n). Throws headmap::Error for rank > 2.
  ConstRowMatrixMap matrix() const;
  Eigen::Map<const VectorXf> vector() const;

 private:
  std::vector<int64_t> m_shape;
  const float* m_data = nullptr;
  std::shared_ptr<const void> m_owner;
};

std::string shapeString(const std::vector<int64_t>& shape);

}  // namespace headmap
