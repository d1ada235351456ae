#pragma once
// One entry point that turns a path the user gave into a LoadedModel, deciding by content:
//   folder with config.json           -> Hugging Face model (gpt2, bert, llama family)
//   llama2.c checkpoint (.bin header) -> llama2c model (tokenizer from LoadOptions or beside it)
//   safetensors / torch.save file     -> bare attention layer (one of the layers it holds)
#include <string>
#include <vector>

#include "core/io/attention_layers.h"  // AttentionLayerCandidate
#include "core/model/model.h"

namespace headmap {

struct LoadOptions {
  int heads = 0;              // head count for a bare layer when the file does not store it
  std::string layer;          // which attention layer of a bare file: prefix or index; "" = first
  std::string tokenizerPath;  // explicit tokenizer file (e.g. tok512.bin for a llama2.c model)
};

// Bare attention layers a tensor file holds (empty for full models and unknown files).
std::vector<AttentionLayerCandidate> listAttentionLayers(const std::string& path);

// Throws headmap::Error with a message naming the file, what was expected and what was found.
LoadedModel loadModel(const std::string& path, const LoadOptions& options = {});

// A random attention layer (the tutorial's experiment), whitespace-tokenized.
LoadedModel makeRandomLayer(int dModel, int nHeads, unsigned seed);

}  // namespace headmap
