// .npy v1/v2/v3 reader (float16/32/64, little-endian, C order) and float32 writer.
// Format: "\x93NUMPY", major, minor, header length (u16 for v1, u32 for v2/3), a Python dict
// literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces and '\n',
// then the raw data.
#include "core/io/npy.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "core/common/float16.h"
#include "core/common/limits.h"
#include "core/common/tensor.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.cpp reads and writes little-endian data by reinterpreting memory"
#endif

namespace headmap {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(path + ": " + what);
}

// Position right after "'key':" in the header dict, or fail.
size_t valueStart(const std::string& path, const std::string& header, const std::string& key) {
  for (const char quote : {'\'', '"'}) {
    const std::string quoted = std::string(1, quote) + key + quote;
    size_t p = header.find(quoted);
    if (p == std::string::npos) continue;
    p += quoted.size();
    while (p < header.size() && std::isspace(static_cast<unsigned char>(header[p]))) ++p;
    if (p >= header.size() || header[p] != ':')
      fail(path, "npy header: no ':' after '" + key + "'");
    ++p;
    while (p < header.size() && std::isspace(static_cast<unsigned char>(header[p]))) ++p;
    return p;
  }
  fail(path, "npy header has no '" + key + "' entry: " + header);
}

std::string parseDescr(const std::string& path, const std::string& header) {
  size_t p = valueStart(path, header, "descr");
  if (p >= header.size() || (header[p] != '\'' && header[p] != '"')) {
    fail(path, "npy header: 'descr' is not a string");
  }
  const size_t end = header.find(header[p], p + 1);
  if (end == std::string::npos) fail(path, "npy header: unterminated 'descr' string");
  return header.substr(p + 1, end - p - 1);
}

bool parseFortranOrder(const std::string& path, const std::string& header) {
  size_t p = valueStart(path, header, "fortran_order");
  if (header.compare(p, 4, "True") == 0) return true;
  if (header.compare(p, 5, "False") == 0) return false;
  fail(path, "npy header: 'fortran_order' is neither True nor False");
}

std::vector<int64_t> parseShape(const std::string& path, const std::string& header) {
  size_t p = valueStart(path, header, "shape");
  if (p >= header.size() || header[p] != '(') fail(path, "npy header: 'shape' is not a tuple");
  const size_t end = header.find(')', p);
  if (end == std::string::npos) fail(path, "npy header: unterminated 'shape' tuple");
  std::vector<int64_t> shape;
  size_t i = p + 1;
  while (i < end) {
    const char c = header[i];
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',') {
      ++i;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      fail(path, "npy header: bad dimension in shape " + header.substr(p, end - p + 1));
    }
    int64_t dim = 0;
    while (i < end && std::isdigit(static_cast<unsigned char>(header[i]))) {
      const int digit = header[i] - '0';
      if (dim > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        fail(path, "npy header: dimension too large in shape " + header.substr(p, end - p + 1));
      }
      dim = dim * 10 + digit;
      ++i;
    }
    shape.push_back(dim);
  }
  return shape;
}

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) fail(path, "read error");
  return buffer.str();
}

}  // namespace

NpyArray readNpy(const std::string& path) {
  requireRegularFile(path, "a .npy file");
  return parseNpy(readWholeFile(path), path);
}

NpyArray parseNpy(const std::string& bytes, const std::string& path) {
  static const char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) {
    fail(path, "not a .npy file (missing the \\x93NUMPY magic)");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = static_cast<unsigned char>(bytes[8]) |
                   (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) fail(path, "truncated .npy header");
    headerLength = 0;
    for (int b = 0; b < 4; ++b) {
      headerLength |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + b])) << (8 * b);
    }
    headerStart = 12;
  } else {
    fail(path, "unsupported .npy version " + std::to_string(major));
  }
  if (headerLength > bytes.size() - headerStart) {
    fail(path, "npy header length " + std::to_string(headerLength) + " runs past the end of the " +
                   std::to_string(bytes.size()) + "-byte file");
  }
  const std::string header = bytes.substr(headerStart, headerLength);
  const std::string descr = parseDescr(path, header);
  int elementSize;
  if (descr == "<f4") {
    elementSize = 4;
  } else if (descr == "<f8") {
    elementSize = 8;
  } else if (descr == "<f2") {
    elementSize = 2;
  } else {
    fail(path, "unsupported npy dtype '" + descr + "' (expected '<f4', '<f8' or '<f2')");
  }
  if (parseFortranOrder(path, header)) {
    fail(path, "Fortran-order arrays are not supported (save with C order)");
  }
  NpyArray array;
  array.shape = parseShape(path, header);
  const size_t available = bytes.size() - headerStart - headerLength;
  // Product with overflow guard; the data size must then match the file exactly.
  uint64_t count = 1, needed = 0;
  for (int64_t d : array.shape) {
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count)) {
      fail(path, "shape " + shapeString(array.shape) + " overflows 64 bits (the file has " +
                     std::to_string(available) + " bytes of data)");
    }
  }
  if (__builtin_mul_overflow(count, static_cast<uint64_t>(elementSize), &needed)) {
    fail(path, "shape " + shapeString(array.shape) + " overflows 64 bits in bytes");
  }
  if (needed != available) {
    fail(path, "shape " + shapeString(array.shape) + " of " + descr + " needs " +
                   std::to_string(needed) + " bytes of data, the file has " +
                   std::to_string(available));
  }
  const char* data = bytes.data() + headerStart + headerLength;
  array.values.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    if (elementSize == 4) {
      std::memcpy(&array.values[i], data + 4 * i, 4);
    } else if (elementSize == 8) {
      double v;
      std::memcpy(&v, data + 8 * i, 8);
      array.values[i] = static_cast<float>(v);
    } else {
      uint16_t h;
      std::memcpy(&h, data + 2 * i, 2);
      array.values[i] = halfToFloat(h);
    }
  }
  return array;
}

void writeNpy(const std::string& path, const std::vector<int64_t>& shape, const float* data) {
  uint64_t count = 1;
  std::string dims;
  for (int64_t d : shape) {
    if (d < 0) fail(path, "cannot write negative dimension in shape " + shapeString(shape));
    count *= static_cast<uint64_t>(d);
    dims += std::to_string(d) + ", ";
  }
  if (shape.size() > 1) dims.erase(dims.size() - 2);  // "(2, 3)" but "(5,)" for 1-D
  if (shape.size() == 1) dims.erase(dims.size() - 1);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Pad so the data starts on a 64-byte boundary; the header ends with '\n'.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  writeFileAtomic(path, [&](std::ostream& out) {
    out.write("\x93NUMPY\x01\x00", 8);
    const uint16_t length = static_cast<uint16_t>(header.size());
    const char lengthBytes[2] = {static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
    out.write(lengthBytes, 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(count * 4));
  });
}

}  // namespace headmap
