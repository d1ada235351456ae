// libFuzzer target: a Hugging Face config.json (gpt2, bert, llama families). Every input must
// parse or throw headmap::Error. Seeds: tests/fixtures/**/config.json and the malformed corpus.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/common/error.h"
#include "core/model/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    headmap::parseModelConfig(std::string(reinterpret_cast<const char*>(data), size),
                              "config.json");
  } catch (const headmap::Error&) {
  }
  return 0;
}
