#include "core/io/torch_file.h"

#include <zip.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <unordered_map>

#include "core/common/error.h"
#include "core/common/float16.h"

namespace headmap {
namespace {

constexpr uint8_t kZipMagic[4] = {'P', 'K', 3, 4};
// Legacy torch.save: pickle PROTO 2, LONG1 of 10 bytes holding 0x1950a86a20f9469cfc6c.
constexpr uint8_t kLegacyMagic[14] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c,
                                      0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
constexpr uint64_t kMaxPickleBytes = uint64_t{1} << 30;
// Deflate cannot expand more than ~1032:1; a larger claim is a zip bomb or a corrupt entry.
constexpr uint64_t kMaxDeflateRatio = 1032;
// A view may repeat storage elements (stride 0); beyond this many elements it must not.
constexpr int64_t kMaxBroadcastNumel = int64_t{1} << 24;
constexpr uint64_t kReadChunk = uint64_t{16} << 20;

std::string legacyMessage(const std::string& path) {
  return path +
         ": legacy torch.save format (PyTorch < 1.6, or _use_new_zipfile_serialization=False) is "
         "not supported; re-save it in Python with a recent PyTorch: "
         "torch.save(torch.load(path), path) (or pass _use_new_zipfile_serialization=True)";
}

struct ZipCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};
using ZipHandle = std::unique_ptr<zip_t, ZipCloser>;

std::string zipErrorText(zip_error_t* error) {
  std::string text = zip_error_strerror(error);
  zip_error_fini(error);
  return text;
}

template <typename T>
float readAs(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return static_cast<float>(v);
}

float elementToFloat(DType dtype, const uint8_t* p) {
  switch (dtype) {
    case DType::F32:
      return readAs<float>(p);
    case DType::F64:
      return readAs<double>(p);
    case DType::F16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return halfToFloat(h);
    }
    case DType::BF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return bfloat16ToFloat(h);
    }
    case DType::I64:
      return readAs<int64_t>(p);
    case DType::I32:
      return readAs<int32_t>(p);
    case DType::I16:
      return readAs<int16_t>(p);
    case DType::I8:
      return readAs<int8_t>(p);
    case DType::U8:
      return readAs<uint8_t>(p);
    case DType::Bool:
      return *p ? 1.0f : 0.0f;
  }
  return 0;
}

bool mulOverflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }
bool addOverflows(int64_t a, int64_t b, int64_t* out) { return __builtin_add_overflow(a, b, out); }

class TorchSource : public TensorSource {
 public:
  TorchSource(std::string path, ZipHandle zip, std::shared_ptr<const std::vector<uint8_t>> bytes,
              uint64_t archiveSize)
      : m_path(std::move(path)),
        m_bytes(std::move(bytes)),
        m_zip(std::move(zip)),
        m_archiveSize(archiveSize) {
    findRecords();
    checkByteOrder();
    std::vector<uint8_t> pkl = readEntry(m_prefix + "data.pkl", kMaxPickleBytes);
    std::string context = m_path + ": " + m_prefix + "data.pkl";
    PickleTree tree = unpickleTorch(pkl.data(), pkl.size(), context);
    for (auto& named : stateDictTensors(tree, context)) {
      checkTensor(named);
      m_index[named.name] = m_infos.size();
      m_infos.push_back({named.name, named.ref.dtype, named.ref.shape});
      m_refs.push_back(std::move(named.ref));
    }
  }

  std::string path() const override { return m_path; }
  std::string formatName() const override { return "torch"; }
  const std::vector<TensorInfo>& tensors() const override { return m_infos; }
  std::map<std::string, std::string> metadata() const override { return m_metadata; }

  FloatTensor load(const std::string& name) const override {
    auto it = m_index.find(name);
    if (it == m_index.end()) throw Error(m_path + ": no tensor named '" + name + "'");
    const PickleTensorRef& ref = m_refs[it->second];
    std::vector<uint8_t> blob;
    {
      std::lock_guard<std::mutex> lock(m_mutex);  // a zip_t is not thread-safe
      blob = readEntry(storageName(ref), UINT64_MAX);
    }
    const int esize = dtypeSize(ref.dtype);
    if (static_cast<uint64_t>(ref.storageNumel) > blob.size() / esize) {
      throw Error(m_path + ": storage '" + ref.storageKey + "' of tensor '" + name +
                  "' changed size while reading");
    }
    int64_t numel = 1;
    for (int64_t d : ref.shape) numel *= d;  // checked in checkTensor
    std::vector<float> values(static_cast<size_t>(numel));
    // Odometer over the multi-index; `src` is offset + sum(index_i * stride_i), checked to stay
    // below storageNumel by checkTensor.
    std::vector<int64_t> index(ref.shape.size(), 0);
    int64_t src = ref.offset;
    for (int64_t out = 0; out < numel; ++out) {
      values[out] = elementToFloat(ref.dtype, blob.data() + src * esize);
      for (size_t dim = ref.shape.size(); dim-- > 0;) {
        if (++index[dim] < ref.shape[dim]) {
          src += ref.stride[dim];
          break;
        }
        src -= ref.stride[dim] * (ref.shape[dim] - 1);
        index[dim] = 0;
      }
    }
    return FloatTensor(ref.shape, std::move(values));
  }

 private:
  // torch.save puts everything under one top folder: <name>/data.pkl, <name>/data/<key>.
  void findRecords() {
    zip_int64_t count = zip_get_num_entries(m_zip.get(), 0);
    bool torchScript = false;
    for (zip_int64_t i = 0; i < count; ++i) {
      const char* raw = zip_get_name(m_zip.get(), i, 0);
      if (!raw) continue;
      std::string name = raw;
      size_t slash = name.find('/');
      if (slash == std::string::npos) continue;
      std::string rest = name.substr(slash + 1);
      if (rest == "constants.pkl" || rest.rfind("code/", 0) == 0) torchScript = true;
      if (rest == "data.pkl" && m_prefix.empty()) m_prefix = name.substr(0, slash + 1);
    }
    if (m_prefix.empty()) {
      throw Error(m_path + ": a zip archive without <name>/data.pkl, so not a torch.save file" +
                  (torchScript ? " (it looks like TorchScript: save model.state_dict() with "
                                 "torch.save instead)"
                               : ""));
    }
    if (zip_name_locate(m_zip.get(), (m_prefix + "version").c_str(), 0) >= 0) {
      std::vector<uint8_t> v = readEntry(m_prefix + "version", 64);
      std::string text(v.begin(), v.end());
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
      m_metadata["torch.format_version"] = text;
    }
  }

  void checkByteOrder() {
    if (zip_name_locate(m_zip.get(), (m_prefix + "byteorder").c_str(), 0) < 0) return;
    std::vector<uint8_t> v = readEntry(m_prefix + "byteorder", 64);
    std::string order(v.begin(), v.end());
    if (order != "little") {
      throw Error(m_path + ": byteorder is '" + order +
                  "', only 'little' is supported; re-save it on a little-endian machine");
    }
  }

  std::string storageName(const PickleTensorRef& ref) const {
    return m_prefix + "data/" + ref.storageKey;
  }

  zip_stat_t statEntry(const std::string& name) const {
    zip_int64_t index = zip_name_locate(m_zip.get(), name.c_str(), 0);
    zip_stat_t st;
    zip_stat_init(&st);
    if (index < 0 || zip_stat_index(m_zip.get(), index, 0, &st) != 0 ||
        !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_INDEX)) {
      throw Error(m_path + ": the archive has no record '" + name + "'");
    }
    return st;
  }

  // Sizes in zip headers are claims: a record cannot be stored in more bytes than the archive
  // has, nor inflate beyond deflate's ratio, and memory grows only with bytes actually read.
  std::vector<uint8_t> readEntry(const std::string& name, uint64_t maxBytes) const {
    zip_stat_t st = statEntry(name);
    if (st.size > maxBytes) {
      throw Error(m_path + ": record '" + name + "' is " + std::to_string(st.size) +
                  " bytes, more than the " + std::to_string(maxBytes) + " expected");
    }
    uint64_t stored = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : st.size;
    if (stored > m_archiveSize) {
      throw Error(m_path + ": record '" + name + "' claims " + std::to_string(stored) +
                  " stored bytes, the archive has " + std::to_string(m_archiveSize) +
                  " (truncated or corrupt archive?)");
    }
    if (stored < st.size && st.size > stored * kMaxDeflateRatio + 1024) {
      throw Error(m_path + ": record '" + name + "' claims " + std::to_string(st.size) +
                  " bytes from " + std::to_string(stored) + " compressed");
    }
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> file(
        zip_fopen_index(m_zip.get(), st.index, 0), zip_fclose);
    if (!file) {
      throw Error(m_path + ": cannot read record '" + name +
                  "' (libzip: " + zip_strerror(m_zip.get()) + ")");
    }
    std::vector<uint8_t> data;
    zip_int64_t got = 0;
    while (static_cast<uint64_t>(got) < st.size) {
      size_t chunk = static_cast<size_t>(std::min<uint64_t>(st.size - got, kReadChunk));
      data.resize(got + chunk);
      zip_int64_t n = zip_fread(file.get(), data.data() + got, chunk);
      if (n <= 0) {
        if (n < 0) got = -1;
        break;
      }
      got += n;
    }
    if (got != static_cast<zip_int64_t>(st.size)) {
      throw Error(m_path + ": record '" + name + "' should hold " + std::to_string(st.size) +
                  " bytes, " +
                  (got < 0 ? std::string("reading failed (") + zip_file_strerror(file.get()) + ")"
                           : "read " + std::to_string(got)) +
                  " (truncated or corrupt archive?)");
    }
    return data;
  }

  // Every element the view can reach must lie inside the storage, and the storage must be as
  // long in the archive as the pickle declares.
  void checkTensor(const NamedTensorRef& named) const {
    const PickleTensorRef& ref = named.ref;
    const std::string what = m_path + ": tensor '" + named.name + "'";
    zip_stat_t st = statEntry(storageName(ref));
    const int esize = dtypeSize(ref.dtype);
    if (static_cast<uint64_t>(ref.storageNumel) > st.size / esize) {
      throw Error(what + ": storage '" + ref.storageKey + "' declares " +
                  std::to_string(ref.storageNumel) + " " + dtypeName(ref.dtype) +
                  " elements, the archive holds " + std::to_string(st.size) + " bytes (" +
                  std::to_string(st.size / esize) + " elements)");
    }
    int64_t numel = 1;
    int64_t last = ref.offset;  // highest storage element the view reaches
    bool overflow = false;
    for (size_t d = 0; d < ref.shape.size(); ++d) {
      int64_t reach = 0;
      overflow = overflow || mulOverflows(numel, ref.shape[d], &numel);
      if (ref.shape[d] > 0) {
        overflow = overflow || mulOverflows(ref.shape[d] - 1, ref.stride[d], &reach) ||
                   addOverflows(last, reach, &last);
      }
    }
    if (overflow) throw Error(what + ": shape " + shapeString(ref.shape) + " overflows");
    if (numel > 0 && last >= ref.storageNumel) {
      throw Error(what + " of shape " + shapeString(ref.shape) + ", stride " +
                  shapeString(ref.stride) + " and offset " + std::to_string(ref.offset) +
                  " reaches element " + std::to_string(last) + " of storage '" + ref.storageKey +
                  "', which has " + std::to_string(ref.storageNumel) + " elements");
    }
    if (numel > ref.storageNumel && numel > kMaxBroadcastNumel) {
      throw Error(what + ": a view of " + std::to_string(numel) + " elements over a storage of " +
                  std::to_string(ref.storageNumel) + " is too large to expand");
    }
  }

  std::string m_path;
  // Declared before m_zip so an in-memory archive's buffer outlives the zip handle reading it.
  std::shared_ptr<const std::vector<uint8_t>> m_bytes;
  ZipHandle m_zip;
  uint64_t m_archiveSize;
  std::string m_prefix;
  std::vector<TensorInfo> m_infos;
  std::vector<PickleTensorRef> m_refs;
  std::unordered_map<std::string, size_t> m_index;
  std::map<std::string, std::string> m_metadata;
  mutable std::mutex m_mutex;
};

std::array<uint8_t, 14> readHead(const std::string& path, size_t* got) {
  std::array<uint8_t, 14> head{};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(head.data()), head.size());
  *got = in ? head.size() : static_cast<size_t>(in.gcount());
  return head;
}

bool isLegacy(const uint8_t* head, size_t n) {
  return n >= sizeof kLegacyMagic && std::memcmp(head, kLegacyMagic, sizeof kLegacyMagic) == 0;
}

}  // namespace

bool looksLikeTorchFile(const std::string& path) {
  size_t n = 0;
  std::array<uint8_t, 14> head = readHead(path, &n);
  return (n >= 4 && std::memcmp(head.data(), kZipMagic, 4) == 0) || isLegacy(head.data(), n);
}

std::unique_ptr<TensorSource> openTorchFile(const std::string& path) {
  size_t n = 0;
  std::array<uint8_t, 14> head = readHead(path, &n);
  if (isLegacy(head.data(), n)) throw Error(legacyMessage(path));
  int code = 0;
  zip_t* zip = zip_open(path.c_str(), ZIP_RDONLY, &code);
  if (!zip) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    throw Error(path + ": not a readable zip archive (libzip: " + zipErrorText(&error) +
                "); a truncated download or not a torch.save file?");
  }
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(path, ec);
  return std::make_unique<TorchSource>(path, ZipHandle(zip), nullptr, ec ? 0 : size);
}

std::unique_ptr<TensorSource> openTorchBytes(std::vector<uint8_t> bytes, const std::string& name) {
  if (isLegacy(bytes.data(), bytes.size())) throw Error(legacyMessage(name));
  auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(owned->data(), owned->size(), 0, &error);
  if (!source)
    throw Error(name + ": cannot read the buffer (libzip: " + zipErrorText(&error) + ")");
  zip_t* zip = zip_open_from_source(source, ZIP_RDONLY, &error);
  if (!zip) {
    zip_source_free(source);
    throw Error(name + ": not a readable zip archive (libzip: " + zipErrorText(&error) + ")");
  }
  zip_error_fini(&error);
  uint64_t size = owned->size();
  return std::make_unique<TorchSource>(name, ZipHandle(zip), std::move(owned), size);
}

}  // namespace headmap

namespace headmap {
namespace {

constexpr int kMaxDepth = 64;

class TensorWalker {
 public:
  TensorWalker(const PickleTree& tree, const std::string& context)
      : m_tree(tree), m_context(context) {}

  void walk(size_t index, const std::string& path, int depth) {
    if (depth > kMaxDepth) throw Error(m_context + ": values nested deeper than 64 levels");
    // A tree visits each value once; memo sharing may repeat some (the same state dict under two
    // keys), but 2^depth repeats is a crafted file. The budget keeps the walk linear in the input.
    if (++m_visits > 4 * m_tree.nodes.size() + 1024) {
      throw Error(m_context + ": more than " + std::to_string(4 * m_tree.nodes.size() + 1024) +
                  " values visited for " + std::to_string(m_tree.nodes.size()) +
                  " pickled (shared containers nested in a loop?)");
    }
    const PickleNode& n = m_tree.nodes[index];
    switch (n.kind) {
      case PickleKind::Tensor:
        found.push_back({path.empty() ? "tensor" : path, m_tree.refs[n.ref]});
        return;
      case PickleKind::Dict:
        for (size_t i = 0; i + 1 < n.items.size(); i += 2) {
          std::string key;
          if (keyText(n.items[i], &key)) walk(n.items[i + 1], join(path, key), depth + 1);
        }
        return;
      case PickleKind::List:
      case PickleKind::Tuple:
        for (size_t i = 0; i < n.items.size(); ++i) {
          walk(n.items[i], join(path, std::to_string(i)), depth + 1);
        }
        return;
      default:
        return;  // plain values: epoch numbers, hyper-parameters...
    }
  }

  bool keyText(size_t index, std::string* key) const {
    const PickleNode& k = m_tree.nodes[index];
    if (k.kind == PickleKind::String) {
      *key = k.text;
    } else if (k.kind == PickleKind::Int) {
      *key = std::to_string(k.intValue);
    } else {
      return false;  // tuple or float keys hold no state-dict entry
    }
    return true;
  }

  std::vector<NamedTensorRef> found;

 private:
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  const PickleTree& m_tree;
  const std::string& m_context;
  size_t m_visits = 0;
};

bool dictHasDirectTensor(const PickleTree& tree, const PickleNode& dict) {
  for (size_t i = 1; i < dict.items.size(); i += 2) {
    if (tree.nodes[dict.items[i]].kind == PickleKind::Tensor) return true;
  }
  return false;
}

}  // namespace

std::vector<NamedTensorRef> stateDictTensors(const PickleTree& tree, const std::string& context) {
  static const char* kWrappers[] = {
      "state_dict", "model_state_dict", "model_state", "model", "module",
      "net",        "network",          "params"};
  std::vector<NamedTensorRef> tensors;
  const PickleNode& root = tree.nodes.at(tree.root);
  if (root.kind == PickleKind::Dict && !dictHasDirectTensor(tree, root)) {
    for (const char* wrapper : kWrappers) {
      for (size_t i = 0; i + 1 < root.items.size() && tensors.empty(); i += 2) {
        const PickleNode& key = tree.nodes[root.items[i]];
        if (key.kind != PickleKind::String || key.text != wrapper) continue;
        TensorWalker walker(tree, context);
        walker.walk(root.items[i + 1], "", 1);
        tensors = std::move(walker.found);
      }
      if (!tensors.empty()) break;
    }
  }
  if (tensors.empty()) {
    TensorWalker walker(tree, context);
    walker.walk(tree.root, "", 0);
    tensors = std::move(walker.found);
  }
  const std::string kParallel = "module.";
  bool allParallel = !tensors.empty();
  for (const auto& t : tensors) allParallel = allParallel && t.name.rfind(kParallel, 0) == 0;
  if (allParallel) {
    for (auto& t : tensors) t.name.erase(0, kParallel.size());
  }
  std::unordered_map<std::string, size_t> seen;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!seen.emplace(tensors[i].name, i).second) {
      throw Error(context + ": tensor name '" + tensors[i].name + "' appears twice");
    }
  }
  return tensors;
}

}  // namespace headmap
