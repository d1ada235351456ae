#include "core/io/safetensors.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/common/error.h"
#include "core/common/json_depth.h"
#include "core/common/mapped_file.h"
#include "core/io/attention_layers.h"  // naturalLess

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian; this reader maps it without swapping");

namespace headmap {

namespace {

// Not ordered_json: its inserts scan every earlier key, quadratic in a hostile 100 MB header.
using Json = nlohmann::json;

// A safetensors header nests three levels ({name: {shape: [..]}}); deeper JSON is refused
// before parsing so hostile input cannot drive a parser deep.
constexpr int kMaxJsonDepth = 16;

uint64_t readU64Le(const uint8_t* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

std::optional<DType> parseDType(const std::string& s) {
  static const std::map<std::string, DType> kNames = {
      {"F32", DType::F32},   {"F16", DType::F16},         {"BF16", DType::BF16},
      {"F64", DType::F64},   {"I64", DType::I64},         {"I32", DType::I32},
      {"I16", DType::I16},   {"I8", DType::I8},           {"U8", DType::U8},
      {"BOOL", DType::Bool}, {"U16", DType::U16},         {"U32", DType::U32},
      {"U64", DType::U64},   {"F8_E4M3", DType::F8_E4M3}, {"F8_E5M2", DType::F8_E5M2}};
  auto it = kNames.find(s);
  if (it == kNames.end()) return std::nullopt;
  return it->second;
}

std::string jsonText(const Json& j) {
  std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

std::map<std::string, std::string> parseMetadata(const Json& value, const std::string& file) {
  if (!value.is_object()) {
    throw Error(file + ": __metadata__ must be an object of strings, found " + value.type_name());
  }
  std::map<std::string, std::string> metadata;
  for (const auto& [key, entry] : value.items()) {
    if (!entry.is_string()) {
      throw Error(file + ": __metadata__ entry '" + key + "' must be a string, found " +
                  entry.type_name() + " " + jsonText(entry));
    }
    metadata[key] = entry.get<std::string>();
  }
  return metadata;
}

DType parseEntryDType(const Json& value, const std::string& where) {
  if (!value.is_string()) throw Error(where + ": dtype must be a string, found " + jsonText(value));
  auto dtype = parseDType(value.get<std::string>());
  if (!dtype) {
    throw Error(where + " has unknown dtype '" + value.get<std::string>() +
                "' (expected one of F32, F16, BF16, F64, I64, I32, I16, I8, U8, BOOL, U16, "
                "U32, U64, F8_E4M3, F8_E5M2)");
  }
  return *dtype;
}

// Fills shape and returns its byte count, refusing negative, non-integer and overflowing sizes.
uint64_t parseShape(const Json& value, DType dtype, const std::string& where,
                    std::vector<int64_t>& shape) {
  if (!value.is_array()) {
    throw Error(where + ": shape must be an array of integers, found " + jsonText(value));
  }
  uint64_t elements = 1;
  bool overflow = false;
  for (size_t i = 0; i < value.size(); ++i) {
    const Json& d = value[i];
    if (d.is_number_integer() && !d.is_number_unsigned()) {
      throw Error(where + ": shape entry " + std::to_string(i) + " is negative (" + jsonText(d) +
                  ")");
    }
    if (!d.is_number_unsigned()) {
      throw Error(where + ": shape entry " + std::to_string(i) +
                  " must be a non-negative integer, found " + jsonText(d));
    }
    const uint64_t dim = d.get<uint64_t>();
    if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) overflow = true;
    overflow = overflow || __builtin_mul_overflow(elements, dim, &elements);
    shape.push_back(static_cast<int64_t>(dim));
  }
  uint64_t bytes = 0;
  overflow =
      overflow || __builtin_mul_overflow(elements, static_cast<uint64_t>(dtypeSize(dtype)), &bytes);
  if (overflow) {
    throw Error(where + ": shape " + jsonText(value) + " × " + dtypeName(dtype) +
                " overflows 64-bit byte counts");
  }
  return bytes;
}

}  // namespace

std::unique_ptr<SafetensorsFile> SafetensorsFile::open(const std::string& path) {
  auto file = MappedFile::open(path);
  return std::make_unique<SafetensorsFile>(path, file, file->data(), file->size());
}

SafetensorsFile::SafetensorsFile(std::string name, std::shared_ptr<const void> owner,
                                 const uint8_t* data, size_t size)
    : m_name(std::move(name)), m_owner(std::move(owner)) {
  if (size < 8) {
    throw Error(m_name + ": file is " + std::to_string(size) +
                " bytes, shorter than the 8-byte safetensors header length");
  }
  const uint64_t headerLength = readU64Le(data);
  const uint64_t left = size - 8;
  if (headerLength > kMaxSafetensorsHeader) {
    throw Error(m_name + ": safetensors header length is " + std::to_string(headerLength) +
                " bytes, above the limit of " + std::to_string(kMaxSafetensorsHeader) +
                " (the file has " + std::to_string(left) + " bytes after the length)");
  }
  if (headerLength > left) {
    throw Error(m_name + ": safetensors header length is " + std::to_string(headerLength) +
                " bytes, the file has " + std::to_string(left) + " bytes after the length");
  }
  m_dataArea = data + 8 + headerLength;
  m_dataSize = left - headerLength;
  parseHeader(data + 8, static_cast<size_t>(headerLength));
  checkOverlaps();
  sortByName();
}

void SafetensorsFile::parseHeader(const uint8_t* header, size_t length) {
  if (length == 0 || header[0] != '{') {
    throw Error(
        m_name + ": safetensors header must be a JSON object starting with '{', found " +
        (length == 0 ? std::string("an empty header") : "byte " + std::to_string(header[0])));
  }
  if (jsonNestingDepth(std::string_view(reinterpret_cast<const char*>(header), length),
                       kMaxJsonDepth) > kMaxJsonDepth) {
    throw Error(m_name + ": safetensors header nests JSON deeper than " +
                std::to_string(kMaxJsonDepth) + " levels; a valid header nests 3");
  }
  Json root;
  try {
    root = Json::parse(header, header + length);
  } catch (const Json::exception& e) {
    throw Error(m_name + ": safetensors header is not valid JSON: " + e.what());
  }
  if (!root.is_object()) {
    throw Error(m_name + ": safetensors header must be a JSON object, found " + root.type_name());
  }
  for (const auto& [key, value] : root.items()) {
    if (key == "__metadata__") {
      m_metadata = parseMetadata(value, m_name);
      continue;
    }
    const std::string where = m_name + ": tensor '" + key + "'";
    if (!value.is_object()) {
      throw Error(where + " must be an object with dtype, shape and data_offsets, found " +
                  value.type_name());
    }
    for (const char* field : {"dtype", "shape", "data_offsets"}) {
      if (!value.contains(field)) throw Error(where + " has no '" + field + "'");
    }
    TensorInfo info;
    info.name = key;
    info.dtype = parseEntryDType(value["dtype"], where);
    const uint64_t bytes = parseShape(value["shape"], info.dtype, where, info.shape);
    const Json& offsets = value["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned()) {
      throw Error(where + ": data_offsets must be [begin, end] with non-negative integers, found " +
                  jsonText(offsets));
    }
    const Span span{offsets[0].get<uint64_t>(), offsets[1].get<uint64_t>()};
    const std::string spanText =
        "[" + std::to_string(span.begin) + ", " + std::to_string(span.end) + "]";
    if (span.begin > span.end) {
      throw Error(where + ": data_offsets " + spanText + " begin after they end");
    }
    if (span.end > m_dataSize) {
      throw Error(where + ": data_offsets " + spanText + " end beyond the data area of " +
                  std::to_string(m_dataSize) + " bytes");
    }
    if (span.end - span.begin != bytes) {
      throw Error(where + " needs " + std::to_string(bytes) + " bytes (shape " +
                  shapeString(info.shape) + " × " + dtypeName(info.dtype) +
                  "), its data_offsets span " + std::to_string(span.end - span.begin));
    }
    m_infos.push_back(std::move(info));
    m_spans.push_back(span);
  }
}

void SafetensorsFile::checkOverlaps() const {
  std::vector<size_t> order(m_spans.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return m_spans[a].begin != m_spans[b].begin ? m_spans[a].begin < m_spans[b].begin
                                                : m_spans[a].end < m_spans[b].end;
  });
  // Sorted by begin, a span overlaps an earlier one exactly when it begins before the furthest
  // end seen so far. Empty tensors occupy no bytes and overlap nothing.
  size_t furthest = order.size();
  for (size_t i : order) {
    const Span& cur = m_spans[i];
    if (cur.begin == cur.end) continue;
    if (furthest != order.size() && cur.begin < m_spans[furthest].end) {
      const Span& prev = m_spans[furthest];
      throw Error(m_name + ": tensor '" + m_infos[i].name + "' data_offsets [" +
                  std::to_string(cur.begin) + ", " + std::to_string(cur.end) +
                  "] overlap tensor '" + m_infos[furthest].name + "' [" +
                  std::to_string(prev.begin) + ", " + std::to_string(prev.end) + "]");
    }
    if (furthest == order.size() || cur.end > m_spans[furthest].end) furthest = i;
  }
}

void SafetensorsFile::sortByName() {
  std::vector<size_t> order(m_infos.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return naturalLess(m_infos[a].name, m_infos[b].name); });
  std::vector<TensorInfo> infos;
  std::vector<Span> spans;
  m_index.clear();
  for (size_t i : order) {
    m_index[m_infos[i].name] = infos.size();
    infos.push_back(std::move(m_infos[i]));
    spans.push_back(m_spans[i]);
  }
  m_infos = std::move(infos);
  m_spans = std::move(spans);
}

FloatTensor SafetensorsFile::load(const std::string& name) const {
  auto it = m_index.find(name);
  if (it == m_index.end()) throw Error(m_name + ": no tensor named '" + name + "'");
  const TensorInfo& info = m_infos[it->second];
  const Span& span = m_spans[it->second];
  const uint8_t* bytes = m_dataArea + span.begin;
  const size_t count = static_cast<size_t>((span.end - span.begin) / dtypeSize(info.dtype));
  switch (info.dtype) {
    case DType::F32: {
      if (reinterpret_cast<uintptr_t>(bytes) % alignof(float) == 0) {
        return FloatTensor(info.shape, reinterpret_cast<const float*>(bytes), m_owner);
      }
      std::vector<float> values(count);
      if (count) std::memcpy(values.data(), bytes, count * 4);
      return FloatTensor(info.shape, std::move(values));
    }
    case DType::F16:
    case DType::BF16: {
      std::vector<float> values(count);
      const bool half = info.dtype == DType::F16;
      for (size_t i = 0; i < count; ++i) {
        uint16_t h;
        std::memcpy(&h, bytes + 2 * i, 2);
        values[i] = half ? halfToFloat(h) : bfloat16ToFloat(h);
      }
      return FloatTensor(info.shape, std::move(values));
    }
    default:
      throw Error(m_name + ": tensor '" + name + "' has dtype " + dtypeName(info.dtype) +
                  "; headmap loads F32, F16 and BF16 weights only");
  }
}

bool looksLikeSafetensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  uint8_t head[9];
  if (!in.read(reinterpret_cast<char*>(head), sizeof head)) return false;
  in.seekg(0, std::ios::end);
  const auto size = static_cast<uint64_t>(in.tellg());
  const uint64_t headerLength = readU64Le(head);
  return head[8] == '{' && headerLength >= 2 && headerLength <= size - 8 &&
         headerLength <= kMaxSafetensorsHeader;
}

}  // namespace headmap
