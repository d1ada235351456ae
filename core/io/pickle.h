#pragma once
// A RESTRICTED unpickler for the data.pkl of torch.save archives. It is not a Python unpickler:
// it never calls anything. It understands the protocol-2 opcodes torch.save writes (plus the
// protocol-4 framing opcodes) and builds a tree of plain values. The only globals it accepts are
//   collections.OrderedDict                      -> a dict (REDUCE with no arguments, BUILD
//   ignored) torch._utils._rebuild_tensor_v2              -> a tensor reference (storage, offset,
//   size, stride) torch._utils._rebuild_parameter[_with_state] -> the tensor it wraps
//   torch.<Float|Half|BFloat16|Double|Long|Int|Short|Char|Byte|Bool>Storage -> only inside a
//                                                   persistent id ('storage', type, key, loc,
//                                                   numel)
// Any other global (os.system, builtins.eval, a pickled nn.Module class), any other opcode, or a
// call of an allowed global with unexpected arguments throws headmap::Error naming it and the file.
// Every length is checked against the bytes left; nothing recurses on the input's nesting.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/tensor.h"

namespace headmap {

enum class PickleKind {
  None,
  Bool,
  Int,
  Float,
  String,
  Tuple,
  List,
  Dict,
  Global,
  Storage,
  Tensor
};

// A tensor as _rebuild_tensor_v2 describes it: a view (offset, size, stride, in elements) of a
// storage blob stored in the archive as <prefix>/data/<storageKey>.
struct PickleTensorRef {
  std::string storageKey;
  DType dtype = DType::F32;
  int64_t storageNumel = 0;  // elements the persistent id declares
  int64_t offset = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> stride;
};

struct PickleNode {
  PickleKind kind = PickleKind::None;
  int64_t intValue = 0;       // Int, Bool (0/1)
  double floatValue = 0;      // Float
  std::string text;           // String; Global "module.name"
  std::vector<size_t> items;  // Tuple/List elements; Dict: key0, value0, key1, value1, ...
  bool ordered = false;       // Dict made by collections.OrderedDict
  size_t ref = 0;             // Storage / Tensor: index into PickleTree::refs
};

// All nodes live in one arena and refer to each other by index, so shared (memoized) and even
// self-referencing containers cannot leak or recurse when destroyed.
struct PickleTree {
  std::vector<PickleNode> nodes;
  std::vector<PickleTensorRef> refs;  // storages (key, dtype, storageNumel) and tensors
  size_t root = 0;
  const PickleNode& at(size_t i) const { return nodes.at(i); }
};

// At most this many values per pickle (a real state dict needs ~20 per tensor); bounds memory.
constexpr size_t kMaxPickleNodes = size_t{1} << 22;

// Parses a whole pickle (up to and including STOP). `context` (e.g. "mha.pt: data.pkl") starts
// every error message.
PickleTree unpickleTorch(const uint8_t* data, size_t size, const std::string& context);

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
