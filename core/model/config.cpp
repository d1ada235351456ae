#include "core/model/config.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/common/error.h"

namespace headmap {

using nlohmann::json;

namespace {

class ConfigReader {
 public:
  ConfigReader(const json& j, std::string file) : m_json(j), m_file(std::move(file)) {}

  bool has(const std::string& key) const {
    return m_json.contains(key) && !m_json.at(key).is_null();
  }

  // First key of `keys` present; throws naming all of them when none is.
  int positiveInt(std::initializer_list<const char*> keys, int upper = 1 << 30) const {
    for (const char* key : keys) {
      if (!has(key)) continue;
      const json& v = m_json.at(key);
      if (!v.is_number_integer()) fail(key, "must be an integer, got " + v.dump());
      const auto value = v.get<int64_t>();
      if (value <= 0 || value > upper) {
        fail(key,
             "must be between 1 and " + std::to_string(upper) + ", got " + std::to_string(value));
      }
      return static_cast<int>(value);
    }
    std::string names;
    for (const char* key : keys)
      names += std::string(names.empty() ? "" : " or ") + "'" + key + "'";
    throw Error(m_file + ": missing key " + names);
  }

  int optionalInt(const char* key, int fallback) const {
    return has(key) ? positiveInt({key}) : fallback;
  }

  float positiveFloat(const char* key, float fallback) const {
    if (!has(key)) return fallback;
    const json& v = m_json.at(key);
    if (!v.is_number()) fail(key, "must be a number, got " + v.dump());
    const auto value = v.get<double>();
    if (!(value > 0.0) || value > 1e12) fail(key, "must be positive, got " + v.dump());
    return static_cast<float>(value);
  }

  bool boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& v = m_json.at(key);
    if (!v.is_boolean()) fail(key, "must be true or false, got " + v.dump());
    return v.get<bool>();
  }

  std::string string(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    const json& v = m_json.at(key);
    if (!v.is_string()) fail(key, "must be a string, got " + v.dump());
    return v.get<std::string>();
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw Error(m_file + ": key '" + key + "' " + what);
  }

 private:
  const json& m_json;
  std::string m_file;
};

Activation parseActivation(const ConfigReader& r, const char* key, const std::string& fallback) {
  const std::string name = r.string(key, fallback);
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") {
    return Activation::GeluTanh;
  }
  if (name == "gelu") return Activation::GeluErf;
  if (name == "silu" || name == "swish") return Activation::Silu;
  if (name == "relu") return Activation::Relu;
  r.fail(key, "names an unsupported activation '" + name +
                  "' (supported: gelu, gelu_new, gelu_pytorch_tanh, silu, relu)");
}

void readGpt2(const ConfigReader& r, ModelConfig& c) {
  c.vocab = r.positiveInt({"vocab_size"});
  c.dModel = r.positiveInt({"n_embd", "hidden_size"});
  c.layers = r.positiveInt({"n_layer", "num_hidden_layers"}, 1000);
  c.heads = r.positiveInt({"n_head", "num_attention_heads"}, 4096);
  c.kvHeads = c.heads;
  c.maxPositions = r.positiveInt({"n_positions", "n_ctx", "max_position_embeddings"});
  c.dFf = r.optionalInt("n_inner", 4 * c.dModel);
  c.eps = r.positiveFloat("layer_norm_epsilon", 1e-5f);
  c.act = parseActivation(r, "activation_function", "gelu_new");
  c.tieEmbeddings = true;
  if (r.boolean("scale_attn_by_inverse_layer_idx", false)) {
    r.fail("scale_attn_by_inverse_layer_idx", "is true, which headmap does not support");
  }
}

void readBert(const ConfigReader& r, ModelConfig& c) {
  c.vocab = r.positiveInt({"vocab_size"});
  c.dModel = r.positiveInt({"hidden_size"});
  c.layers = r.positiveInt({"num_hidden_layers"}, 1000);
  c.heads = r.positiveInt({"num_attention_heads"}, 4096);
  c.kvHeads = c.heads;
  c.maxPositions = r.positiveInt({"max_position_embeddings"});
  c.dFf = r.positiveInt({"intermediate_size"});
  c.typeVocab = r.optionalInt("type_vocab_size", 2);
  c.eps = r.positiveFloat("layer_norm_eps", 1e-12f);
  c.act = parseActivation(r, "hidden_act", "gelu");
  const std::string posType = r.string("position_embedding_type", "absolute");
  if (posType != "absolute") {
    r.fail("position_embedding_type", "is '" + posType + "'; only 'absolute' is supported");
  }
}

void readLlama(const ConfigReader& r, const json& j, ModelConfig& c) {
  c.vocab = r.positiveInt({"vocab_size"});
  c.dModel = r.positiveInt({"hidden_size"});
  c.layers = r.positiveInt({"num_hidden_layers"}, 1000);
  c.heads = r.positiveInt({"num_attention_heads"}, 4096);
  c.kvHeads = r.optionalInt("num_key_value_heads", c.heads);
  c.dHead = r.optionalInt("head_dim", 0);
  c.dFf = r.positiveInt({"intermediate_size"});
  c.maxPositions = r.positiveInt({"max_position_embeddings"});
  c.eps = r.positiveFloat("rms_norm_eps", 1e-6f);
  c.ropeTheta = r.positiveFloat("rope_theta", 10000.0f);
  c.tieEmbeddings = r.boolean("tie_word_embeddings", false);
  c.act = parseActivation(r, "hidden_act", "silu");
  if (c.act != Activation::Silu) r.fail("hidden_act", "must be 'silu' for a Llama-family model");
  // Sliding-window attention (Mistral; Qwen2 when use_sliding_window) only differs from full
  // attention beyond the window: cap the positions there rather than compute something else.
  const bool windowed = c.modelType == "mistral" || r.boolean("use_sliding_window", false);
  if (windowed && r.has("sliding_window")) {
    c.maxPositions = std::min(c.maxPositions, r.positiveInt({"sliding_window"}));
  }
  if (r.has("rope_scaling")) {
    r.fail("rope_scaling", "is " + j.at("rope_scaling").dump() +
                               "; scaled rotary embeddings are not supported yet");
  }
  if (c.heads % c.kvHeads != 0) {
    r.fail("num_key_value_heads", "(" + std::to_string(c.kvHeads) +
                                      ") must divide num_attention_heads (" +
                                      std::to_string(c.heads) + ")");
  }
}

}  // namespace

std::string familyName(Family family) {
  switch (family) {
    case Family::Gpt2:
      return "gpt2";
    case Family::Bert:
      return "bert";
    case Family::Llama:
      return "llama";
  }
  return "?";
}

ModelConfig parseModelConfig(const std::string& text, const std::string& file) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw Error(file + ": not valid JSON");
  if (!j.is_object()) throw Error(file + ": expected a JSON object, got " + j.type_name());
  ConfigReader r(j, file);
  ModelConfig c;
  if (!r.has("model_type")) throw Error(file + ": missing key 'model_type'");
  c.modelType = r.string("model_type", "");
  if (c.modelType == "gpt2") {
    c.family = Family::Gpt2;
    readGpt2(r, c);
  } else if (c.modelType == "bert") {
    c.family = Family::Bert;
    readBert(r, c);
  } else if (c.modelType == "llama" || c.modelType == "qwen2" || c.modelType == "mistral") {
    c.family = Family::Llama;
    readLlama(r, j, c);
  } else {
    r.fail("model_type",
           "is '" + c.modelType + "'; supported model types: gpt2, bert, llama, qwen2, mistral");
  }
  if (c.dHead == 0) {
    if (c.dModel % c.heads != 0) {
      throw Error(file + ": hidden size " + std::to_string(c.dModel) +
                  " is not divisible by the number of attention heads " + std::to_string(c.heads));
    }
    c.dHead = c.dModel / c.heads;
  }
  if (c.family == Family::Llama && c.dHead % 2 != 0) {
    throw Error(file + ": head size " + std::to_string(c.dHead) +
                " must be even for rotary embeddings");
  }
  return c;
}

ModelInfo modelInfo(const ModelConfig& config, const std::string& name) {
  ModelInfo info;
  info.family = familyName(config.family);
  info.name = name;
  info.layers = config.layers;
  info.heads = config.heads;
  info.kvHeads = config.kvHeads;
  info.dModel = config.dModel;
  info.vocab = config.vocab;
  info.maxPositions = config.maxPositions;
  info.causalBuiltIn = config.family != Family::Bert;
  return info;
}

}  // namespace headmap
