#pragma once
// A sharded checkpoint (model.safetensors.index.json or pytorch_model.bin.index.json plus its
// shards) seen as one TensorSource.
#include <memory>
#include <string>

#include "core/io/tensor_source.h"

namespace headmap {

// Opens every shard the index's weight_map names (files beside the index, no directories).
// Throws headmap::Error naming the index, the shard and the tensor when the index is malformed,
// a shard is missing, or a shard lacks a tensor the index puts in it.
std::unique_ptr<TensorSource> openShardedTensors(const std::string& indexPath);

}  // namespace headmap
