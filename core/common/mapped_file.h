#pragma once
// A read-only memory map of a whole file. Loaders hold it in a shared_ptr so that tensors
// borrowing F32 data from it (FloatTensor's owner) keep the mapping alive after the loader is gone.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace headmap {

class MappedFile {
 public:
  // Throws headmap::Error naming the file and the system's reason (errno text) on failure.
  // An empty file maps to size() == 0 and data() == nullptr.
  static std::shared_ptr<const MappedFile> open(const std::string& path);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return m_path; }
  const uint8_t* data() const { return m_data; }
  size_t size() const { return m_size; }

 private:
  MappedFile() = default;

  std::string m_path;
  const uint8_t* m_data = nullptr;
  size_t m_size = 0;
};

}  // namespace headmap
