#pragma once
// Builds safetensors files byte by byte for tests, so every malformed variant is explicit in the
// test that uses it (header-only; shared by the core and CLI test executables).
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace headmap::test {

struct RawTensor {
  std::string name;
  std::string dtype;  // "F32", "F16", ...
  std::vector<int64_t> shape;
  std::string bytes;
};

inline std::string u64Le(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// 8-byte little-endian length, the header text as given, then data.
inline std::string rawSafetensors(const std::string& header, const std::string& data) {
  return u64Le(header.size()) + header + data;
}

inline std::string f32Bytes(const std::vector<float>& values) {
  std::string s(values.size() * 4, '\0');
  if (!values.empty()) std::memcpy(&s[0], values.data(), s.size());
  return s;
}

inline std::string u16Bytes(const std::vector<uint16_t>& values) {
  std::string s(values.size() * 2, '\0');
  if (!values.empty()) std::memcpy(&s[0], values.data(), s.size());
  return s;
}

inline std::string jsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// A well-formed file: tensors laid out back to back in the given order.
inline std::string safetensorsBytes(const std::vector<RawTensor>& tensors,
                                    const std::map<std::string, std::string>& metadata = {}) {
  std::string header = "{";
  std::string data;
  bool first = true;
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool firstMeta = true;
    for (const auto& [k, v] : metadata) {
      if (!firstMeta) header += ",";
      header += "\"" + jsonEscape(k) + "\":\"" + jsonEscape(v) + "\"";
      firstMeta = false;
    }
    header += "}";
    first = false;
  }
  for (const RawTensor& t : tensors) {
    if (!first) header += ",";
    first = false;
    std::string shape = "[";
    for (size_t i = 0; i < t.shape.size(); ++i) {
      shape += (i ? "," : "") + std::to_string(t.shape[i]);
    }
    shape += "]";
    header += "\"" + jsonEscape(t.name) + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":" + shape +
              ",\"data_offsets\":[" + std::to_string(data.size()) + "," +
              std::to_string(data.size() + t.bytes.size()) + "]}";
    data += t.bytes;
  }
  header += "}";
  // Pad the header with spaces so the data area starts 8-byte aligned, as real writers do.
  while ((8 + header.size()) % 8) header += ' ';
  return rawSafetensors(header, data);
}

inline void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace headmap::test
