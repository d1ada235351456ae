// libFuzzer target for the restricted unpickler and the state-dict walk over its tree.
// Seeds: the data.pkl records of tests/fixtures/torch/*.pt (see scripts in fuzz/README or the
// report): any input must end in a tree or a headmap::Error, never a crash or a leak.
#include <cstddef>
#include <cstdint>

#include "core/common/error.h"
#include "core/io/pickle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    headmap::PickleTree tree = headmap::unpickleTorch(data, size, "fuzz.pkl");
    headmap::stateDictTensors(tree, "fuzz.pkl");
  } catch (const headmap::Error&) {
  }
  return 0;
}
