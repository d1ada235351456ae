// libFuzzer target: llama2.c checkpoints through loadModel (header plausibility, size checks,
// weight views) and, when one loads, a forward pass over two token ids. The loader takes a path:
// each input is written to a per-process temporary file first.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/common/error.h"
#include "core/model/load.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A private folder: the loader looks for tokenizer.bin beside the checkpoint.
  static const std::string dir = "/tmp/headmap_fuzz_llama2c_" + std::to_string(::getpid());
  static const std::string path = (::mkdir(dir.c_str(), 0700), dir + "/model.bin");
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    headmap::LoadedModel loaded = headmap::loadModel(path);
    const headmap::ModelInfo info = loaded.model->info();
    // Keep runs cheap: a forward pass only for small models.
    if (info.dModel <= 256 && info.layers <= 4 && info.vocab >= 2) {
      headmap::ModelInput input;
      input.tokens = loaded.tokenizer->fromIds({1, info.vocab - 1});
      loaded.model->run(input, {});
    }
  } catch (const headmap::Error&) {
  }
  return 0;
}
