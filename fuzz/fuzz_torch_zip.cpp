// libFuzzer target for whole torch.save archives: zip layout, records, pickle, storage checks and
// the strided gather of every tensor. Seeds: tests/fixtures/torch/*.pt.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/common/error.h"
#include "core/io/torch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto source = headmap::openTorchBytes(std::vector<uint8_t>(data, data + size), "fuzz.pt");
    for (const auto& info : source->tensors()) source->load(info.name);
  } catch (const headmap::Error&) {
  }
  return 0;
}
