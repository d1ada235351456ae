// libFuzzer target: the .npy reader on arbitrary bytes. Every input must parse or throw
// headmap::Error. Seeds: tests/fixtures/**/*.npy (scripts/fuzz/seed_corpora.sh).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/common/error.h"
#include "core/io/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    headmap::parseNpy(std::string(reinterpret_cast<const char*>(data), size), "fuzz.npy");
  } catch (const headmap::Error&) {
  }
  return 0;
}
