#include "core/model/sharded_source.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/common/error.h"

namespace headmap {

namespace fs = std::filesystem;

namespace {

class ShardedSource : public TensorSource {
 public:
  ShardedSource(std::string indexPath, std::vector<std::unique_ptr<TensorSource>> shards,
                std::map<std::string, const TensorSource*> owner)
      : m_path(std::move(indexPath)), m_shards(std::move(shards)), m_owner(std::move(owner)) {
    for (const auto& shard : m_shards) {
      for (const TensorInfo& t : shard->tensors()) {
        if (m_owner.count(t.name) && m_owner.at(t.name) == shard.get()) m_tensors.push_back(t);
      }
    }
  }

  std::string path() const override { return m_path; }
  std::string formatName() const override {
    return "sharded " + (m_shards.empty() ? std::string("?") : m_shards.front()->formatName());
  }
  const std::vector<TensorInfo>& tensors() const override { return m_tensors; }
  FloatTensor load(const std::string& name) const override {
    auto it = m_owner.find(name);
    if (it == m_owner.end()) throw Error(m_path + ": no tensor '" + name + "' in the weight_map");
    return it->second->load(name);
  }
  std::map<std::string, std::string> metadata() const override {
    return m_shards.empty() ? std::map<std::string, std::string>{} : m_shards.front()->metadata();
  }

 private:
  std::string m_path;
  std::vector<std::unique_ptr<TensorSource>> m_shards;
  std::map<std::string, const TensorSource*> m_owner;  // tensor name -> its shard
  std::vector<TensorInfo> m_tensors;
};

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::unique_ptr<TensorSource> openShardedTensors(const std::string& indexPath) {
  using nlohmann::json;
  const json index = json::parse(readText(indexPath), nullptr, false);
  if (index.is_discarded() || !index.is_object()) throw Error(indexPath + ": not a JSON object");
  if (!index.contains("weight_map") || !index.at("weight_map").is_object()) {
    throw Error(indexPath + ": missing object 'weight_map'");
  }
  const fs::path dir = fs::path(indexPath).parent_path();
  std::map<std::string, std::unique_ptr<TensorSource>> opened;  // shard file -> source
  std::map<std::string, std::string> shardOf;                   // tensor -> shard file
  for (const auto& [tensor, file] : index.at("weight_map").items()) {
    if (!file.is_string()) {
      throw Error(indexPath + ": weight_map entry '" + tensor + "' is not a file name");
    }
    const std::string shard = file.get<std::string>();
    if (shard.empty() || shard.find('/') != std::string::npos ||
        shard.find('\\') != std::string::npos || shard == "..") {
      throw Error(indexPath + ": shard name '" + shard + "' for tensor '" + tensor +
                  "' must be a plain file name beside the index");
    }
    shardOf[tensor] = shard;
    if (!opened.count(shard)) {
      const fs::path p = dir / shard;
      if (!fs::is_regular_file(p)) {
        throw Error(indexPath + ": shard '" + shard + "' (for tensor '" + tensor + "') is missing");
      }
      opened[shard] = openTensorFile(p.string());
    }
  }
  if (shardOf.empty()) throw Error(indexPath + ": the weight_map is empty");
  std::map<std::string, const TensorSource*> owner;
  for (const auto& [tensor, shard] : shardOf) {
    const TensorSource* source = opened.at(shard).get();
    if (!source->contains(tensor)) {
      throw Error(indexPath + ": shard '" + shard + "' has no tensor '" + tensor +
                  "' although the weight_map puts it there");
    }
    owner[tensor] = source;
  }
  std::vector<std::unique_ptr<TensorSource>> shards;
  for (auto& [name, source] : opened) shards.push_back(std::move(source));
  return std::make_unique<ShardedSource>(indexPath, std::move(shards), std::move(owner));
}

}  // namespace headmap
