// libFuzzer target: the safetensors reader and the attention-layer finder on arbitrary bytes.
// Every input must either parse or throw headmap::Error; loads of every tensor and of every
// layer found must do the same. Seeds: tests/fixtures/**/*.safetensors.
#include <cstddef>
#include <cstdint>

#include "core/common/error.h"
#include "core/io/attention_layers.h"
#include "core/io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    headmap::SafetensorsFile file("fuzz.safetensors", nullptr, data, size);
    for (const auto& info : file.tensors()) {
      try {
        file.load(info.name);
      } catch (const headmap::Error&) {
      }
    }
    for (const auto& layer : headmap::findAttentionLayers(file)) {
      try {
        headmap::loadAttentionLayer(file, layer, 1);
      } catch (const headmap::Error&) {
      }
    }
  } catch (const headmap::Error&) {
  }
  return 0;
}
