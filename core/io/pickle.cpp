#include "core/io/pickle.h"

#include <cstring>
#include <unordered_map>
#include <utility>

#include "core/common/error.h"

namespace headmap {
namespace {

constexpr size_t kMaxGlobalLength = 256;  // "module\nname\n": real ones are < 64 characters
constexpr size_t kMaxRank = 32;
constexpr size_t kMaxStorageKey = 64;

std::string hex2(uint8_t b) {
  const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

// Names for the error message of an opcode this reader does not accept.
const char* opcodeName(uint8_t op) {
  switch (op) {
    case 'I':
      return "INT";
    case 'L':
      return "LONG";
    case 'F':
      return "FLOAT";
    case 'S':
      return "STRING";
    case 'T':
      return "BINSTRING";
    case 'U':
      return "SHORT_BINSTRING";
    case 'V':
      return "UNICODE";
    case 'B':
      return "BINBYTES";
    case 'C':
      return "SHORT_BINBYTES";
    case 'P':
      return "PERSID";
    case 'd':
      return "DICT";
    case 'l':
      return "LIST";
    case 'i':
      return "INST";
    case 'o':
      return "OBJ";
    case 'p':
      return "PUT";
    case 'g':
      return "GET";
    case 0x81:
      return "NEWOBJ";
    case 0x82:
      return "EXT1";
    case 0x83:
      return "EXT2";
    case 0x84:
      return "EXT4";
    case 0x8e:
      return "BINBYTES8";
    case 0x8f:
      return "EMPTY_SET";
    case 0x90:
      return "ADDITEMS";
    case 0x91:
      return "FROZENSET";
    case 0x92:
      return "NEWOBJ_EX";
    case 0x96:
      return "BYTEARRAY8";
    case 0x97:
      return "NEXT_BUFFER";
    case 0x98:
      return "READONLY_BUFFER";
    default:
      return "unknown";
  }
}

bool storageDType(const std::string& global, DType* dtype) {
  static const std::pair<const char*, DType> kTypes[] = {
      {"torch.FloatStorage", DType::F32},     {"torch.HalfStorage", DType::F16},
      {"torch.BFloat16Storage", DType::BF16}, {"torch.DoubleStorage", DType::F64},
      {"torch.LongStorage", DType::I64},      {"torch.IntStorage", DType::I32},
      {"torch.ShortStorage", DType::I16},     {"torch.CharStorage", DType::I8},
      {"torch.ByteStorage", DType::U8},       {"torch.BoolStorage", DType::Bool}};
  for (const auto& [name, type] : kTypes) {
    if (global == name) {
      *dtype = type;
      return true;
    }
  }
  return false;
}

bool allowedGlobal(const std::string& global) {
  DType unused;
  return global == "collections.OrderedDict" || global == "torch._utils._rebuild_tensor_v2" ||
         global == "torch._utils._rebuild_parameter" ||
         global == "torch._utils._rebuild_parameter_with_state" || storageDType(global, &unused);
}

std::string refusalHint(const std::string& module) {
  if (module.rfind("__torch__", 0) == 0) {
    return "this looks like a TorchScript archive (torch.jit.save); save the weights with "
           "torch.save(model.state_dict(), path) instead";
  }
  if (module == "__main__" || module.rfind("torch.nn", 0) == 0 || module.rfind("torch.", 0) == 0) {
    return "the file holds a pickled Python object (e.g. a whole nn.Module), which only Python "
           "can rebuild; re-save it with torch.save(model.state_dict(), path)";
  }
  return "headmap reads only state-dict tensors, dicts, lists and plain values and never runs "
         "code from a file";
}

class Unpickler {
 public:
  Unpickler(const uint8_t* data, size_t size, const std::string& context)
      : m_data(data), m_size(size), m_context(context) {}

  PickleTree run() {
    while (true) {
      m_opPos = m_pos;
      uint8_t op = u8("an opcode (the pickle ends without STOP: truncated?)");
      if (op == '.') {
        if (m_stack.empty()) fail("STOP with an empty stack");
        m_tree.root = m_stack.back();
        return std::move(m_tree);
      }
      step(op);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(m_context + ": " + what + " (pickle byte " + std::to_string(m_opPos) + ")");
  }

  const uint8_t* take(uint64_t n, const char* what) {
    if (n > m_size - m_pos) {
      fail(std::string("needs ") + std::to_string(n) + " bytes for " + what + ", " +
           std::to_string(m_size - m_pos) + " left");
    }
    const uint8_t* p = m_data + m_pos;
    m_pos += static_cast<size_t>(n);
    return p;
  }
  uint64_t littleEndian(int bytes, const char* what) {
    const uint8_t* p = take(bytes, what);
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
  }
  uint8_t u8(const char* what) { return *take(1, what); }

  size_t add(PickleNode node) {
    if (m_tree.nodes.size() >= kMaxPickleNodes) {
      fail("more than " + std::to_string(kMaxPickleNodes) + " pickle values");
    }
    m_tree.nodes.push_back(std::move(node));
    return m_tree.nodes.size() - 1;
  }
  void push(PickleNode node) { m_stack.push_back(add(std::move(node))); }
  void pushKind(PickleKind kind) {
    PickleNode n;
    n.kind = kind;
    push(std::move(n));
  }
  void pushInt(int64_t v) {
    PickleNode n;
    n.kind = PickleKind::Int;
    n.intValue = v;
    push(std::move(n));
  }
  size_t pop(const char* opname) {
    if (stackFloor() >= m_stack.size()) fail(std::string(opname) + " on an empty stack");
    size_t v = m_stack.back();
    m_stack.pop_back();
    return v;
  }
  size_t top(const char* opname) {
    if (stackFloor() >= m_stack.size()) fail(std::string(opname) + " on an empty stack");
    return m_stack.back();
  }
  // Items above the last MARK may be popped; the MARK itself protects the ones below it.
  size_t stackFloor() const { return m_marks.empty() ? 0 : m_marks.back(); }
  std::vector<size_t> popMark(const char* opname) {
    if (m_marks.empty()) fail(std::string(opname) + " without a MARK");
    size_t mark = m_marks.back();
    m_marks.pop_back();
    std::vector<size_t> items(m_stack.begin() + mark, m_stack.end());
    m_stack.resize(mark);
    return items;
  }
  PickleNode& node(size_t i) { return m_tree.nodes[i]; }

  void pushTuple(std::vector<size_t> items) {
    PickleNode n;
    n.kind = PickleKind::Tuple;
    n.items = std::move(items);
    push(std::move(n));
  }
  void pushString(uint64_t length) {
    const uint8_t* p = take(length, "a string");
    PickleNode n;
    n.kind = PickleKind::String;
    n.text.assign(reinterpret_cast<const char*>(p), static_cast<size_t>(length));
    push(std::move(n));
  }
  // LONG1/LONG4: little-endian two's complement; only what fits in int64 is accepted.
  void pushLong(uint64_t bytes) {
    if (bytes > 8) fail("integer of " + std::to_string(bytes) + " bytes (at most 8 are read)");
    const uint8_t* p = take(bytes, "an integer");
    uint64_t v = 0;
    for (size_t i = bytes; i-- > 0;) v = (v << 8) | p[i];
    if (bytes > 0 && bytes < 8 && (p[bytes - 1] & 0x80)) v |= ~uint64_t{0} << (8 * bytes);
    int64_t s;
    std::memcpy(&s, &v, sizeof s);
    pushInt(s);
  }
  void memoPut(uint64_t key) { m_memo[key] = top("PUT"); }
  void memoGet(uint64_t key) {
    auto it = m_memo.find(key);
    if (it == m_memo.end()) fail("memo key " + std::to_string(key) + " was never stored");
    m_stack.push_back(it->second);
  }

  std::string readLine(const char* what) {
    size_t limit = std::min(kMaxGlobalLength, m_size - m_pos);
    const void* nl = std::memchr(m_data + m_pos, '\n', limit);
    if (!nl)
      fail(std::string("no end of line in ") + what + " within " + std::to_string(limit) +
           " bytes");
    size_t n = static_cast<const uint8_t*>(nl) - (m_data + m_pos);
    std::string s(reinterpret_cast<const char*>(m_data + m_pos), n);
    m_pos += n + 1;
    return s;
  }
  void pushGlobal(const std::string& module, const std::string& name) {
    std::string global = module + "." + name;
    if (!allowedGlobal(global)) {
      fail("refused pickle global '" + global + "': " + refusalHint(module));
    }
    PickleNode n;
    n.kind = PickleKind::Global;
    n.text = global;
    push(std::move(n));
  }

  void step(uint8_t op);
  void reduce();
  void rebuildTensor(const std::vector<size_t>& args);
  void persistentLoad();
  void build();
  std::vector<int64_t> intTuple(size_t i, const char* what);
  const PickleNode& expect(size_t i, PickleKind kind, const std::string& what) {
    const PickleNode& n = m_tree.nodes[i];
    if (n.kind != kind) fail(what);
    return n;
  }

  const uint8_t* m_data;
  size_t m_size;
  size_t m_pos = 0;
  size_t m_opPos = 0;
  std::string m_context;
  PickleTree m_tree;
  std::vector<size_t> m_stack;  // node indices
  std::vector<size_t> m_marks;  // stack sizes at each MARK
  std::unordered_map<uint64_t, size_t> m_memo;
};

void Unpickler::step(uint8_t op) {
  switch (op) {
    case 0x80: {  // PROTO
      uint8_t proto = u8("the protocol number");
      if (proto > 5) fail("pickle protocol " + std::to_string(proto) + " is not supported");
      return;
    }
    case 0x95:
      take(8, "the FRAME length");
      return;  // FRAME: framing only, no content
    case '}': {
      pushKind(PickleKind::Dict);
      return;
    }
    case ']':
      pushKind(PickleKind::List);
      return;
    case ')':
      pushTuple({});
      return;
    case '(':
      m_marks.push_back(m_stack.size());
      return;
    case 't':
      pushTuple(popMark("TUPLE"));
      return;
    case 0x85:
    case 0x86:
    case 0x87: {  // TUPLE1..3
      size_t n = op - 0x84;
      if (m_stack.size() - stackFloor() < n)
        fail("TUPLE" + std::to_string(n) + " on a short stack");
      std::vector<size_t> items(m_stack.end() - n, m_stack.end());
      m_stack.resize(m_stack.size() - n);
      pushTuple(std::move(items));
      return;
    }
    case 'X':
      pushString(littleEndian(4, "a string length"));
      return;
    case 0x8c:
      pushString(u8("a string length"));
      return;
    case 0x8d:
      pushString(littleEndian(8, "a string length"));
      return;
    case 'J': {
      uint32_t v = static_cast<uint32_t>(littleEndian(4, "BININT"));
      int32_t s;
      std::memcpy(&s, &v, sizeof s);
      pushInt(s);
      return;
    }
    case 'K':
      pushInt(u8("BININT1"));
      return;
    case 'M':
      pushInt(static_cast<int64_t>(littleEndian(2, "BININT2")));
      return;
    case 0x8a:
      pushLong(u8("the LONG1 length"));
      return;
    case 0x8b:
      pushLong(littleEndian(4, "the LONG4 length"));
      return;
    case 'G': {  // BINFLOAT: big-endian IEEE double
      const uint8_t* p = take(8, "BINFLOAT");
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];
      PickleNode n;
      n.kind = PickleKind::Float;
      std::memcpy(&n.floatValue, &bits, sizeof bits);
      push(std::move(n));
      return;
    }
    case 0x88:
    case 0x89: {  // NEWTRUE, NEWFALSE
      PickleNode n;
      n.kind = PickleKind::Bool;
      n.intValue = op == 0x88;
      push(std::move(n));
      return;
    }
    case 'N':
      pushKind(PickleKind::None);
      return;
    case 'q':
      memoPut(u8("BINPUT"));
      return;
    case 'r':
      memoPut(littleEndian(4, "LONG_BINPUT"));
      return;
    case 0x94:
      memoPut(m_memo.size());
      return;  // MEMOIZE
    case 'h':
      memoGet(u8("BINGET"));
      return;
    case 'j':
      memoGet(littleEndian(4, "LONG_BINGET"));
      return;
    case '0':
      pop("POP");
      return;
    case '2':
      m_stack.push_back(top("DUP"));
      return;
    case 's': {  // SETITEM
      size_t value = pop("SETITEM");
      size_t key = pop("SETITEM");
      size_t dict = top("SETITEM");
      if (node(dict).kind != PickleKind::Dict) fail("SETITEM on something that is not a dict");
      node(dict).items.push_back(key);
      node(dict).items.push_back(value);
      return;
    }
    case 'u': {  // SETITEMS
      std::vector<size_t> items = popMark("SETITEMS");
      if (items.size() % 2) fail("SETITEMS with an odd number of items");
      size_t dict = top("SETITEMS");
      if (node(dict).kind != PickleKind::Dict) fail("SETITEMS on something that is not a dict");
      auto& dst = node(dict).items;
      dst.insert(dst.end(), items.begin(), items.end());
      return;
    }
    case 'a': {  // APPEND
      size_t value = pop("APPEND");
      size_t list = top("APPEND");
      if (node(list).kind != PickleKind::List) fail("APPEND on something that is not a list");
      node(list).items.push_back(value);
      return;
    }
    case 'e': {  // APPENDS
      std::vector<size_t> items = popMark("APPENDS");
      size_t list = top("APPENDS");
      if (node(list).kind != PickleKind::List) fail("APPENDS on something that is not a list");
      auto& dst = node(list).items;
      dst.insert(dst.end(), items.begin(), items.end());
      return;
    }
    case 'c': {  // GLOBAL "module\nname\n"
      std::string module = readLine("a GLOBAL module");
      std::string name = readLine("a GLOBAL name");
      pushGlobal(module, name);
      return;
    }
    case 0x93: {  // STACK_GLOBAL
      size_t name = pop("STACK_GLOBAL");
      size_t module = pop("STACK_GLOBAL");
      expect(name, PickleKind::String, "STACK_GLOBAL needs two strings");
      expect(module, PickleKind::String, "STACK_GLOBAL needs two strings");
      pushGlobal(node(module).text, node(name).text);
      return;
    }
    case 'R':
      reduce();
      return;
    case 'Q':
      persistentLoad();
      return;
    case 'b':
      build();
      return;
    default:
      fail("unsupported pickle opcode " + std::string(opcodeName(op)) + " (" + hex2(op) +
           "); only the opcodes torch.save writes for a state dict are read");
  }
}

void Unpickler::reduce() {
  size_t args = pop("REDUCE");
  size_t callable = pop("REDUCE");
  const PickleNode& fn = expect(callable, PickleKind::Global, "REDUCE of something not a global");
  std::string global = fn.text;
  const PickleNode& a = expect(args, PickleKind::Tuple, "REDUCE of " + global + " without a tuple");
  std::vector<size_t> items = a.items;
  if (global == "collections.OrderedDict") {
    if (!items.empty()) fail("collections.OrderedDict called with arguments");
    PickleNode n;
    n.kind = PickleKind::Dict;
    n.ordered = true;
    push(std::move(n));
  } else if (global == "torch._utils._rebuild_tensor_v2") {
    rebuildTensor(items);
  } else if (global == "torch._utils._rebuild_parameter" ||
             global == "torch._utils._rebuild_parameter_with_state") {
    // (data, requires_grad, backward_hooks[, state]): the parameter is its tensor.
    if (items.size() != 3 && items.size() != 4)
      fail(global + " with " + std::to_string(items.size()) + " arguments");
    expect(items[0], PickleKind::Tensor, global + " of something not a tensor");
    m_stack.push_back(items[0]);
  } else {
    fail("refused call of pickle global '" + global + "'");
  }
}

std::vector<int64_t> Unpickler::intTuple(size_t i, const char* what) {
  const PickleNode& t = expect(i, PickleKind::Tuple, std::string(what) + " is not a tuple");
  if (t.items.size() > kMaxRank) fail(std::string(what) + " has more than 32 dimensions");
  std::vector<int64_t> values;
  for (size_t item : t.items) {
    const PickleNode& v = node(item);
    if (v.kind != PickleKind::Int || v.intValue < 0) {
      fail(std::string(what) + " holds something other than a non-negative integer");
    }
    values.push_back(v.intValue);
  }
  return values;
}

// _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks
//                    [, metadata])
void Unpickler::rebuildTensor(const std::vector<size_t>& args) {
  if (args.size() != 6 && args.size() != 7) {
    fail("_rebuild_tensor_v2 with " + std::to_string(args.size()) + " arguments, expected 6 or 7");
  }
  const PickleNode& storage =
      expect(args[0], PickleKind::Storage, "_rebuild_tensor_v2 of something not a storage");
  const PickleNode& offset =
      expect(args[1], PickleKind::Int, "_rebuild_tensor_v2 with a non-integer offset");
  if (offset.intValue < 0) fail("_rebuild_tensor_v2 with a negative offset");
  PickleTensorRef ref = m_tree.refs[storage.ref];
  ref.offset = offset.intValue;
  ref.shape = intTuple(args[2], "a tensor size");
  ref.stride = intTuple(args[3], "a tensor stride");
  if (ref.shape.size() != ref.stride.size()) {
    fail("a tensor of rank " + std::to_string(ref.shape.size()) + " with " +
         std::to_string(ref.stride.size()) + " strides");
  }
  m_tree.refs.push_back(std::move(ref));
  PickleNode n;
  n.kind = PickleKind::Tensor;
  n.ref = m_tree.refs.size() - 1;
  push(std::move(n));
}

// BINPERSID with ('storage', torch.<Type>Storage, key, location, numel) -> a storage reference.
void Unpickler::persistentLoad() {
  size_t pid = pop("BINPERSID");
  const PickleNode& t = expect(pid, PickleKind::Tuple, "a persistent id that is not a tuple");
  if (t.items.size() != 5 || node(t.items[0]).kind != PickleKind::String ||
      node(t.items[0]).text != "storage") {
    fail("a persistent id that is not ('storage', type, key, location, numel)");
  }
  const PickleNode& type = expect(t.items[1], PickleKind::Global, "a storage type not a global");
  const PickleNode& key = expect(t.items[2], PickleKind::String, "a storage key not a string");
  expect(t.items[3], PickleKind::String, "a storage location not a string");
  const PickleNode& numel = expect(t.items[4], PickleKind::Int, "a storage size not an integer");
  PickleTensorRef ref;
  if (!storageDType(type.text, &ref.dtype)) fail("'" + type.text + "' is not a storage type");
  if (key.text.empty() || key.text.size() > kMaxStorageKey) fail("a storage key of bad length");
  for (char c : key.text) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '_' || c == '.' || c == '-';
    if (!ok) fail("a storage key with character " + hex2(static_cast<uint8_t>(c)));
  }
  if (numel.intValue < 0) fail("a storage of negative size");
  ref.storageKey = key.text;
  ref.storageNumel = numel.intValue;
  m_tree.refs.push_back(std::move(ref));
  PickleNode n;
  n.kind = PickleKind::Storage;
  n.ref = m_tree.refs.size() - 1;
  push(std::move(n));
}

// BUILD sets attributes; state dicts only BUILD their OrderedDict's `_metadata` (module versions),
// which headmap does not need, so the state is checked for shape and dropped.
void Unpickler::build() {
  size_t state = pop("BUILD");
  size_t target = top("BUILD");
  if (node(target).kind != PickleKind::Dict || !node(target).ordered) {
    fail("BUILD on something other than an OrderedDict");
  }
  PickleKind k = node(state).kind;
  if (k != PickleKind::None && k != PickleKind::Dict) fail("BUILD with a state that is not a dict");
}

}  // namespace

PickleTree unpickleTorch(const uint8_t* data, size_t size, const std::string& context) {
  return Unpickler(data, size, context).run();
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
