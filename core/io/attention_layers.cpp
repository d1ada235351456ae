#include "core/io/attention_layers.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "core/common/error.h"

namespace headmap {

namespace {

const char* const kTutorial = "tutorial";
const char* const kTorchMha = "torch_mha";

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A tensor dimension as d_model; 0 (reported as a bad shape on load) when it cannot be one.
int dimension(int64_t d) { return d > 0 && d <= (1 << 20) ? static_cast<int>(d) : 0; }

std::string displayPrefix(const std::string& prefix) {
  return prefix.empty() ? "(top level)" : "'" + prefix + "'";
}

// A positive head count from metadata text; 0 when the key is absent.
int metadataHeads(const TensorSource& source, const std::map<std::string, std::string>& metadata,
                  const std::string& key) {
  auto it = metadata.find(key);
  if (it == metadata.end()) return 0;
  const std::string& text = it->second;
  bool digits =
      !text.empty() && text.size() <= 6 &&
      std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
  int value = digits ? std::stoi(text) : 0;
  if (value <= 0) {
    throw Error(source.path() + ": __metadata__ '" + key +
                "' must be a positive integer head count, found '" + text + "'");
  }
  return value;
}

std::string shapeOf(const TensorSource& source, const std::string& name) {
  const TensorInfo* info = source.find(name);
  return info ? shapeString(info->shape) : "(missing)";
}

// Loads name and checks it has exactly the expected shape.
FloatTensor loadShaped(const TensorSource& source, const std::string& name,
                       const std::vector<int64_t>& expected, const std::string& why) {
  const TensorInfo* info = source.find(name);
  if (!info) throw Error(source.path() + ": tensor '" + name + "' is missing");
  if (info->shape != expected) {
    throw Error(source.path() + ": tensor '" + name + "' has shape " + shapeString(info->shape) +
                ", expected " + shapeString(expected) + " (" + why + ")");
  }
  FloatTensor t = source.load(name);
  const float* p = t.data();
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (!std::isfinite(p[i])) {
      throw Error(source.path() + ": tensor '" + name + "' holds " +
                  (std::isnan(p[i]) ? "NaN" : "Inf") + " at element " + std::to_string(i) +
                  "; attention weights must be finite");
    }
  }
  return t;
}

// Optional bias of d elements (zeros when the file has none).
VectorXf loadBias(const TensorSource& source, const std::string& name, int64_t d,
                  const std::string& why) {
  if (!source.contains(name)) return VectorXf::Zero(d);
  return loadShaped(source, name, {d}, why).vector();
}

}  // namespace

bool naturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      // Compare digit runs as numbers without converting (runs may be long): strip leading
      // zeros, then the longer run is larger, then lexicographic.
      size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      int cmp = a.compare(is, ie - is, b, js, je - js);
      if (cmp != 0) return cmp < 0;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::vector<AttentionLayerCandidate> findAttentionLayers(const TensorSource& source) {
  const auto metadata = source.metadata();
  // TensorSource::contains scans the list: index the names once (files may hold 100k tensors).
  std::set<std::string> names;
  for (const TensorInfo& info : source.tensors()) names.insert(info.name);
  auto has = [&](const std::string& name) { return names.count(name) > 0; };
  std::vector<AttentionLayerCandidate> layers;
  for (const TensorInfo& info : source.tensors()) {
    AttentionLayerCandidate c;
    if (endsWith(info.name, "w_q.weight")) {
      c.prefix = info.name.substr(0, info.name.size() - 10);
      c.layout = kTutorial;
      if (!has(c.prefix + "w_k.weight") || !has(c.prefix + "w_v.weight") ||
          !has(c.prefix + "w_o.weight")) {
        continue;
      }
      c.dModel = info.shape.empty() ? 0 : dimension(info.shape[0]);
    } else if (endsWith(info.name, "in_proj_weight")) {
      c.prefix = info.name.substr(0, info.name.size() - 14);
      c.layout = kTorchMha;
      if (!has(c.prefix + "out_proj.weight")) continue;
      c.dModel = info.shape.size() == 2 ? dimension(info.shape[1]) : 0;
    } else {
      continue;
    }
    // Prefixes are whole name components: "w_q.weight" alone, or "<something>." before it.
    if (!c.prefix.empty() && c.prefix.back() != '.' && c.prefix.back() != '_') continue;
    c.heads = metadataHeads(source, metadata, c.prefix + "num_heads");
    if (c.heads == 0) c.heads = metadataHeads(source, metadata, "num_heads");
    layers.push_back(std::move(c));
  }
  std::stable_sort(layers.begin(), layers.end(),
                   [](const auto& a, const auto& b) { return naturalLess(a.prefix, b.prefix); });
  return layers;
}

const AttentionLayerCandidate& chooseAttentionLayer(
    const std::vector<AttentionLayerCandidate>& layers, const std::string& choice,
    const std::string& file) {
  if (layers.empty()) {
    throw Error(file +
                ": no attention layer found (expected w_q/w_k/w_v/w_o.weight or "
                "in_proj_weight + out_proj.weight under some prefix)");
  }
  if (choice.empty()) return layers.front();
  const bool isIndex =
      choice.size() <= 9 &&
      std::all_of(choice.begin(), choice.end(), [](unsigned char c) { return std::isdigit(c); });
  if (isIndex) {
    size_t index = std::stoul(choice);
    if (index < layers.size()) return layers[index];
  }
  for (const auto& layer : layers) {
    if (layer.prefix == choice || layer.prefix == choice + ".") return layer;
  }
  std::string available;
  for (size_t i = 0; i < layers.size(); ++i) {
    available += "\n  " + std::to_string(i) + ": " + displayPrefix(layers[i].prefix);
  }
  throw Error(file + ": no attention layer '" + choice + "'; choose an index 0.." +
              std::to_string(layers.size() - 1) + " or a prefix:" + available);
}

AttentionLayerWeights loadAttentionLayer(const TensorSource& source,
                                         const AttentionLayerCandidate& c, int requestedHeads) {
  const std::string& p = c.prefix;
  const std::string file = source.path();
  AttentionLayerWeights w;
  if (c.heads > 0 && requestedHeads > 0 && c.heads != requestedHeads) {
    throw Error(file + ": the file's metadata says num_heads " + std::to_string(c.heads) +
                " for layer " + displayPrefix(p) + ", but " + std::to_string(requestedHeads) +
                " heads were requested");
  }
  w.nHeads = c.heads > 0 ? c.heads : requestedHeads;
  if (w.nHeads <= 0) {
    throw Error(file + ": the head count of layer " + displayPrefix(p) +
                " is not stored in the file (no __metadata__ num_heads); pass --heads N");
  }
  if (c.dModel <= 0) {
    const std::string first = c.layout == kTutorial ? p + "w_q.weight" : p + "in_proj_weight";
    throw Error(file + ": tensor '" + first + "' has shape " + shapeOf(source, first) +
                ", expected a 2-D weight matrix");
  }
  const int64_t d = c.dModel;
  w.dModel = c.dModel;
  if (d % w.nHeads != 0) {
    throw Error(file + ": d_model " + std::to_string(d) + " of layer " + displayPrefix(p) +
                " is not divisible by " + std::to_string(w.nHeads) + " heads");
  }
  if (c.layout == kTutorial) {
    const std::string why = "d_model " + std::to_string(d) + " from '" + p + "w_q.weight'";
    w.wq = loadShaped(source, p + "w_q.weight", {d, d}, why).matrix();
    w.wk = loadShaped(source, p + "w_k.weight", {d, d}, why).matrix();
    w.wv = loadShaped(source, p + "w_v.weight", {d, d}, why).matrix();
    w.wo = loadShaped(source, p + "w_o.weight", {d, d}, why).matrix();
    w.bq = loadBias(source, p + "w_q.bias", d, why);
    w.bk = loadBias(source, p + "w_k.bias", d, why);
    w.bv = loadBias(source, p + "w_v.bias", d, why);
    w.bo = loadBias(source, p + "w_o.bias", d, why);
    return w;
  }
  // nn.MultiheadAttention packs W_q, W_k, W_v as row blocks of in_proj_weight (3d, d).
  const std::string why = "d_model " + std::to_string(d) + " from '" + p + "in_proj_weight'";
  FloatTensor in = loadShaped(source, p + "in_proj_weight", {3 * d, d}, why);
  auto m = in.matrix();
  w.wq = m.topRows(d);
  w.wk = m.middleRows(d, d);
  w.wv = m.bottomRows(d);
  w.wo = loadShaped(source, p + "out_proj.weight", {d, d}, why).matrix();
  VectorXf inBias = loadBias(source, p + "in_proj_bias", 3 * d, why);
  w.bq = inBias.segment(0, d);
  w.bk = inBias.segment(d, d);
  w.bv = inBias.segment(2 * d, d);
  w.bo = loadBias(source, p + "out_proj.bias", d, why);
  return w;
}

}  // namespace headmap
