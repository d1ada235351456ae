#pragma once
// Hugging Face safetensors files: an 8-byte little-endian header length N, N bytes of JSON
// ({"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}}), then
// the raw little-endian tensor data. Every count in the header is checked against the file before
// any byte of data is touched: the file may be truncated, mislabelled or hostile.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/common/float16.h"  // halfToFloat, bfloat16ToFloat (used by callers)
#include "core/io/tensor_source.h"

namespace headmap {

class MappedFile;

// Headers above this size are refused: real ones are a few hundred kB even for 1000-tensor models.
constexpr uint64_t kMaxSafetensorsHeader = 100ull * 1024 * 1024;

class SafetensorsFile : public TensorSource {
 public:
  // Memory-maps path and validates the header. Throws headmap::Error naming the file, the
  // tensor, the expected and the actual value.
  static std::unique_ptr<SafetensorsFile> open(const std::string& path);
  // Parses bytes that stay valid as long as owner lives (tests, fuzzing). name is used in messages.
  SafetensorsFile(std::string name, std::shared_ptr<const void> owner, const uint8_t* data,
                  size_t size);

  std::string path() const override { return m_name; }
  std::string formatName() const override { return "safetensors"; }
  const std::vector<TensorInfo>& tensors() const override { return m_infos; }
  // F32 data 4-byte aligned in the map is borrowed (no copy); F16 and BF16 are converted. Other
  // dtypes are listed by tensors() but refused here with a message.
  FloatTensor load(const std::string& name) const override;
  std::map<std::string, std::string> metadata() const override { return m_metadata; }

 private:
  struct Span {
    uint64_t begin = 0;  // relative to the start of the data area
    uint64_t end = 0;
  };

  void parseHeader(const uint8_t* header, size_t length);
  void checkOverlaps() const;
  void sortByName();  // "layers.2.x" before "layers.10.x"

  std::string m_name;
  std::shared_ptr<const void> m_owner;
  const uint8_t* m_dataArea = nullptr;  // first byte after the header
  uint64_t m_dataSize = 0;
  std::vector<TensorInfo> m_infos;  // naturally sorted by name
  std::vector<Span> m_spans;        // parallel to m_infos
  std::map<std::string, size_t> m_index;
  std::map<std::string, std::string> m_metadata;
};

// True when the first bytes look like a safetensors header: a length that fits the file and '{'.
bool looksLikeSafetensors(const std::string& path);

}  // namespace headmap
