#pragma once
// torch.save zip archives (PyTorch >= 1.6) read through a restricted unpickler.
#include <memory>
#include <string>
#include <vector>

#include "core/io/pickle.h"
#include "core/io/tensor_source.h"

namespace headmap {

// True when the file starts with the zip magic or the legacy torch.save pickle magic.
bool looksLikeTorchFile(const std::string& path);
// Throws headmap::Error naming the file and the refused global / bad record.
// Legacy (pre-1.6, non-zip) files are refused with a message saying how to re-save them.
std::unique_ptr<TensorSource> openTorchFile(const std::string& path);
// The same over an archive held in memory (fuzzing, tests); `name` stands for the file in messages.
std::unique_ptr<TensorSource> openTorchBytes(std::vector<uint8_t> bytes, const std::string& name);

struct NamedTensorRef {
  std::string name;
  PickleTensorRef ref;
};

// The tensors of a state dict, named by their dotted path in the pickled tree (dict keys, integer
// keys and list indices joined with '.'), with these rules for training checkpoints:
//  1. When the root is a dict with no tensor of its own but one of the wrapper keys
//     state_dict, model_state_dict, model_state, model, module, net, network, params
//     (first present in that order) holds tensors, only that entry is read and its key is dropped:
//     {"model": sd, "optimizer": ..., "epoch": 3} gives sd's names, optimizer moments are ignored.
//     Otherwise every tensor of the tree is listed under its full path.
//  2. When every name then starts with "module." (nn.DataParallel / DDP), that prefix is dropped.
// Non-tensor leaves are ignored. Nesting beyond 64 levels, more than 4 visits per pickled value
// (memo entries shared in a loop) or a name given twice throws headmap::Error.
std::vector<NamedTensorRef> stateDictTensors(const PickleTree& tree, const std::string& context);

}  // namespace headmap
