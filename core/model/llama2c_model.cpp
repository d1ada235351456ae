#include "core/model/llama2c_model.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/common/mapped_file.h"
#include "core/model/ids_tokenizer.h"
#include "core/model/llama_model.h"
#include "core/model/tokenizer_lookup.h"

namespace headmap {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kHeaderBytes = 7 * 4;

struct Header {
  int dim, hidden, layers, heads, kvHeads, vocab, seqLen;
  bool sharedClassifier;  // vocab_size > 0 in the file
  int headSize() const { return dim / heads; }
  int kvDim() const { return kvHeads * headSize(); }
};

// Float count of every tensor in file order; the classifier only when not shared.
int64_t expectedFloats(const Header& h) {
  const int64_t d = h.dim, L = h.layers, kv = h.kvDim(), f = h.hidden, v = h.vocab;
  int64_t n = v * d;                      // token embedding
  n += L * d;                             // rms_att
  n += L * d * d + 2 * L * kv * d;        // wq, wk, wv
  n += L * d * d;                         // wo
  n += L * d;                             // rms_ffn
  n += 3 * L * f * d;                     // w1, w2, w3
  n += d;                                 // rms_final
  n += int64_t(h.seqLen) * h.headSize();  // freq_cis_real + freq_cis_imag (seq_len, hs/2 each)
  if (!h.sharedClassifier) n += v * d;
  return n;
}

void checkRange(const std::string& path, const char* field, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    throw Error(path + ": llama2.c header field " + field + " = " + std::to_string(value) +
                " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
  }
}

// Parses and checks the 7-int32 header against the file size. Throws headmap::Error naming the
// field, the expected and the actual values.
// The 7 int32 of the header, each within the bounds of a real checkpoint. A file that passes is
// taken for a llama2.c checkpoint, so that a truncated download gets the size message.
Header parseHeader(const std::string& path, const unsigned char* bytes, int64_t fileSize) {
  if (fileSize < kHeaderBytes) {
    throw Error(path + ": llama2.c checkpoint needs a 28-byte header, the file has " +
                std::to_string(fileSize) + " bytes");
  }
  int32_t v[7];
  std::memcpy(v, bytes, sizeof v);  // little-endian int32, as the checkpoint stores them
  checkRange(path, "dim", v[0], 1, 1 << 16);
  checkRange(path, "hidden_dim", v[1], 1, 1 << 20);
  checkRange(path, "n_layers", v[2], 1, 1000);
  checkRange(path, "n_heads", v[3], 1, 1024);
  checkRange(path, "n_kv_heads", v[4], 1, 1024);
  checkRange(path, "|vocab_size|", int64_t(v[5] < 0 ? -int64_t(v[5]) : v[5]), 1, 1 << 22);
  checkRange(path, "seq_len", v[6], 1, 1 << 20);
  // Negated only after the range check: -INT32_MIN does not exist (found by fuzz_llama2c_checkpoint).
  return Header{v[0], v[1], v[2], v[3], v[4], v[5] < 0 ? -v[5] : v[5], v[6], v[5] > 0};
}

// The header's values agree with each other and with the file size; the messages name them.
void checkHeaderConsistency(const std::string& path, const Header& h, int64_t fileSize) {
  if (h.dim % h.heads != 0) {
    throw Error(path + ": llama2.c header dim " + std::to_string(h.dim) +
                " is not divisible by n_heads " + std::to_string(h.heads));
  }
  if (h.heads % h.kvHeads != 0) {
    throw Error(path + ": llama2.c header n_heads " + std::to_string(h.heads) +
                " is not divisible by n_kv_heads " + std::to_string(h.kvHeads));
  }
  if (h.headSize() % 2 != 0) {
    throw Error(path + ": llama2.c head size " + std::to_string(h.headSize()) +
                " (dim / n_heads) must be even for rotary embeddings");
  }
  const int64_t expected = kHeaderBytes + 4 * expectedFloats(h);
  if (fileSize != expected) {
    throw Error(path + ": a llama2.c checkpoint with dim=" + std::to_string(h.dim) +
                " hidden_dim=" + std::to_string(h.hidden) +
                " n_layers=" + std::to_string(h.layers) + " n_heads=" + std::to_string(h.heads) +
                " n_kv_heads=" + std::to_string(h.kvHeads) +
                " vocab_size=" + std::to_string(h.sharedClassifier ? h.vocab : -h.vocab) +
                " seq_len=" + std::to_string(h.seqLen) + " needs " + std::to_string(expected) +
                " bytes, the file has " + std::to_string(fileSize));
  }
}

// Hands out consecutive float32 tensors of the mapped file.
class Cursor {
 public:
  Cursor(std::shared_ptr<const MappedFile> file, std::vector<TensorInfo>& listing)
      : m_file(std::move(file)), m_listing(listing) {}
  // Offsets were checked against the file size by parseHeader.
  FloatTensor take(const std::string& name, std::vector<int64_t> shape) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    const auto* data = reinterpret_cast<const float*>(m_file->data() + m_offset);
    m_offset += 4 * n;
    m_listing.push_back({name, DType::F32, shape});
    return FloatTensor(std::move(shape), data, m_file);
  }
  // Per-layer (rows, cols) slices of a (layers, rows, cols) block.
  std::vector<FloatTensor> takeLayers(const std::string& name, int layers,
                                      std::vector<int64_t> shape) {
    std::vector<FloatTensor> out;
    for (int l = 0; l < layers; ++l) {
      out.push_back(take("layers." + std::to_string(l) + "." + name, shape));
    }
    return out;
  }
  void skip(int64_t floats) { m_offset += 4 * floats; }

 private:
  std::shared_ptr<const MappedFile> m_file;
  std::vector<TensorInfo>& m_listing;  // what inspect shows, in file order
  int64_t m_offset = kHeaderBytes;
};

std::shared_ptr<const Tokenizer> findTokenizer(const std::string& path, const Header& h,
                                               const LoadOptions& options) {
  if (!options.tokenizerPath.empty()) return tokenizerFromFile(options.tokenizerPath, h.vocab);
  const fs::path dir = fs::path(path).parent_path();
  for (const std::string& name :
       {std::string("tokenizer.bin"), "tok" + std::to_string(h.vocab) + ".bin"}) {
    const fs::path p = dir / name;
    if (fs::is_regular_file(p)) return tokenizerFromFile(p.string(), h.vocab);
  }
  return std::make_shared<IdsOnlyTokenizer>(
      h.vocab, path + ": no tokenizer found (looked for tokenizer.bin and tok" +
                   std::to_string(h.vocab) +
                   ".bin beside it); pass the llama2.c tokenizer with --tokenizer FILE, or give "
                   "token ids with --ids");
}

}  // namespace

bool looksLikeLlama2c(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  const auto size = static_cast<int64_t>(fs::file_size(path, ec));
  if (ec || size < kHeaderBytes) return false;
  unsigned char header[kHeaderBytes];
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(header), kHeaderBytes)) return false;
  try {
    parseHeader(path, header, size);  // ranges only: consistency errors belong to the loader
    return true;
  } catch (const Error&) {
    return false;
  }
}

LoadedModel loadLlama2c(const std::string& path, const LoadOptions& options) {
  const std::shared_ptr<const MappedFile> file = MappedFile::open(path);
  const Header h = parseHeader(path, file->data(), static_cast<int64_t>(file->size()));
  checkHeaderConsistency(path, h, static_cast<int64_t>(file->size()));
  const int64_t d = h.dim, kv = h.kvDim(), f = h.hidden, v = h.vocab;

  LoadedModel loaded;
  Cursor c(file, loaded.tensors);
  LlamaWeights w;
  w.embed = c.take("token_embedding", {v, d});
  auto rmsAtt = c.takeLayers("rms_att", h.layers, {d});
  auto wq = c.takeLayers("wq", h.layers, {d, d});
  auto wk = c.takeLayers("wk", h.layers, {kv, d});
  auto wv = c.takeLayers("wv", h.layers, {kv, d});
  auto wo = c.takeLayers("wo", h.layers, {d, d});
  auto rmsFfn = c.takeLayers("rms_ffn", h.layers, {d});
  auto w1 = c.takeLayers("w1", h.layers, {f, d});
  auto w2 = c.takeLayers("w2", h.layers, {d, f});
  auto w3 = c.takeLayers("w3", h.layers, {f, d});
  w.finalNorm = c.take("rms_final", {d});
  c.skip(int64_t(h.seqLen) * h.headSize());  // freq_cis: recomputed, not read
  w.classifier = h.sharedClassifier ? w.embed : c.take("wcls", {v, d});
  for (int l = 0; l < h.layers; ++l) {
    LlamaLayerWeights lw;
    lw.attnNorm = rmsAtt[l];
    lw.wq = wq[l];
    lw.wk = wk[l];
    lw.wv = wv[l];
    lw.wo = wo[l];
    lw.ffnNorm = rmsFfn[l];
    lw.gate = w1[l];
    lw.down = w2[l];
    lw.up = w3[l];
    w.layers.push_back(std::move(lw));
  }

  LlamaSettings s;
  s.info.family = "llama2c";
  s.info.name = fs::path(path).filename().string();
  s.info.layers = h.layers;
  s.info.heads = h.heads;
  s.info.kvHeads = h.kvHeads;
  s.info.dModel = h.dim;
  s.info.vocab = h.vocab;
  s.info.maxPositions = h.seqLen;
  s.dHead = h.headSize();
  s.dFf = h.hidden;
  s.eps = 1e-5f;
  s.ropeTheta = 10000.0f;
  s.ropeLayout = RopeLayout::AdjacentPairs;

  loaded.model = std::make_shared<LlamaModel>(std::move(s), std::move(w));
  loaded.tokenizer = findTokenizer(path, h, options);
  loaded.sourcePath = path;
  loaded.format = "llama2c";
  return loaded;
}

}  // namespace headmap
