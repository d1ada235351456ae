#include "core/model/tensor_fetch.h"

#include "core/common/error.h"

namespace headmap {

void checkShape(const std::vector<int64_t>& actual, const std::vector<int64_t>& expected,
                const std::string& what) {
  if (actual != expected) {
    throw Error(what + " has shape " + shapeString(actual) + ", expected " + shapeString(expected));
  }
}

FloatTensor TensorFetcher::load(const std::string& fullName,
                                const std::vector<int64_t>& shape) const {
  const TensorInfo* info = m_source.find(fullName);
  if (!info) throw Error(m_source.path() + ": missing tensor '" + fullName + "'");
  checkShape(info->shape, shape, m_source.path() + ": tensor '" + fullName + "'");
  FloatTensor t = m_source.load(fullName);
  checkShape(t.shape(), shape, m_source.path() + ": tensor '" + fullName + "'");
  return t;
}

FloatTensor TensorFetcher::get(const std::string& name, const std::vector<int64_t>& shape) const {
  return load(m_prefix + name, shape);
}

FloatTensor TensorFetcher::optional(const std::string& name,
                                    const std::vector<int64_t>& shape) const {
  if (!has(name)) return {};
  return get(name, shape);
}

FloatTensor TensorFetcher::getAny(const std::vector<std::string>& names,
                                  const std::vector<int64_t>& shape) const {
  for (const std::string& name : names) {
    if (has(name)) return get(name, shape);
  }
  std::string list;
  for (const std::string& name : names)
    list += (list.empty() ? "'" : " or '") + m_prefix + name + "'";
  throw Error(m_source.path() + ": missing tensor " + list);
}

FloatTensor TensorFetcher::getUnprefixed(const std::string& name,
                                         const std::vector<int64_t>& shape) const {
  return load(name, shape);
}

}  // namespace headmap
