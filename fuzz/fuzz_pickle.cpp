// libFuzzer target for the restricted unpickler and the state-dict walk over its tree.
// Any input must end in a tree or a headmap::Error, never a crash, a leak or a slow unit.
// Seeds: the data.pkl records of the fixture archives, e.g.
//   mkdir seeds && cd seeds && for f in ../tests/fixtures/torch/*.pt; do
//     unzip -p "$f" '*/data.pkl' > "$(basename "$f").pkl" 2>/dev/null; done
//   build-fuzz/fuzz/fuzz_pickle -max_total_time=600 corpus seeds
#include <cstddef>
#include <cstdint>

#include "core/common/error.h"
#include "core/io/pickle.h"
#include "core/io/torch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    headmap::PickleTree tree = headmap::unpickleTorch(data, size, "fuzz.pkl");
    headmap::stateDictTensors(tree, "fuzz.pkl");
  } catch (const headmap::Error&) {
  }
  return 0;
}
