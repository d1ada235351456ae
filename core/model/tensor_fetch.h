#pragma once
// Named, shape-checked access to a checkpoint's tensors for the model builders.
#include <string>
#include <vector>

#include "core/io/tensor_source.h"

namespace headmap {

class TensorFetcher {
 public:
  // prefix is prepended to every name (e.g. "transformer.", "bert.", "model.", or "").
  TensorFetcher(const TensorSource& source, std::string prefix)
      : m_source(source), m_prefix(std::move(prefix)) {}

  // Throws headmap::Error naming the file and the tensor when it is missing or its shape differs.
  FloatTensor get(const std::string& name, const std::vector<int64_t>& shape) const;
  // As get, but an empty FloatTensor when the tensor is absent.
  FloatTensor optional(const std::string& name, const std::vector<int64_t>& shape) const;
  // The first of several names checkpoints use for the same tensor (e.g. LayerNorm gamma/weight).
  FloatTensor getAny(const std::vector<std::string>& names,
                     const std::vector<int64_t>& shape) const;
  bool has(const std::string& name) const { return m_source.contains(m_prefix + name); }
  // Without the prefix (heads such as lm_head sit outside it).
  FloatTensor getUnprefixed(const std::string& name, const std::vector<int64_t>& shape) const;
  bool hasUnprefixed(const std::string& name) const { return m_source.contains(name); }

 private:
  FloatTensor load(const std::string& fullName, const std::vector<int64_t>& shape) const;

  const TensorSource& m_source;
  std::string m_prefix;
};

// Throws headmap::Error "<what> has shape [..], expected [..]" when they differ.
void checkShape(const std::vector<int64_t>& actual, const std::vector<int64_t>& expected,
                const std::string& what);

}  // namespace headmap
