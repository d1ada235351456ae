#include "core/common/tensor.h"

#include "core/common/error.h"

namespace headmap {

std::string dtypeName(DType dtype) {
  switch (dtype) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::F64: return "F64";
    case DType::I64: return "I64";
    case DType::I32: return "I32";
    case DType::I16: return "I16";
    case DType::I8: return "I8";
    case DType::U8: return "U8";
    case DType::Bool: return "BOOL";
    case DType::U16: return "U16";
    case DType::U32: return "U32";
    case DType::U64: return "U64";
    case DType::F8_E4M3: return "F8_E4M3";
    case DType::F8_E5M2: return "F8_E5M2";
  }
  return "?";
}

int dtypeSize(DType dtype) {
  switch (dtype) {
    case DType::F64:
    case DType::I64:
    case DType::U64: return 8;
    case DType::F32:
    case DType::I32:
    case DType::U32: return 4;
    case DType::F16:
    case DType::BF16:
    case DType::I16:
    case DType::U16: return 2;
    case DType::I8:
    case DType::U8:
    case DType::Bool:
    case DType::F8_E4M3:
    case DType::F8_E5M2: return 1;
  }
  return 1;
}

FloatTensor::FloatTensor(std::vector<int64_t> shape, std::vector<float> values)
    : m_shape(std::move(shape)) {
  auto owned = std::make_shared<std::vector<float>>(std::move(values));
  m_data = owned->data();
  m_owner = owned;
}

FloatTensor::FloatTensor(std::vector<int64_t> shape, const float* data,
                         std::shared_ptr<const void> owner)
    : m_shape(std::move(shape)), m_data(data), m_owner(std::move(owner)) {}

int64_t FloatTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : m_shape) n *= d;
  return n;
}

ConstRowMatrixMap FloatTensor::matrix() const {
  if (m_shape.size() == 1) return ConstRowMatrixMap(m_data, 1, m_shape[0]);
  if (m_shape.size() == 2) return ConstRowMatrixMap(m_data, m_shape[0], m_shape[1]);
  if (m_shape.empty()) return ConstRowMatrixMap(m_data, 1, 1);
  throw Error("expected a 1-D or 2-D tensor, got shape " + shapeString(m_shape));
}

Eigen::Map<const VectorXf> FloatTensor::vector() const {
  return Eigen::Map<const VectorXf>(m_data, numel());
}

std::string shapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace headmap
