#include "core/io/npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "tests/test_support.h"

namespace fs = std::filesystem;

namespace headmap {
namespace {

// A .npy v1 file with the given header dict and raw data bytes.
std::string writeRaw(const std::string& name, const std::string& dict, const std::string& data,
                     int major = 1) {
  const std::string path = test::tempPath(name);
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY", 6);
  out.put(static_cast<char>(major));
  out.put(0);
  const uint32_t len = dict.size();
  out.put(static_cast<char>(len & 0xff));
  out.put(static_cast<char>((len >> 8) & 0xff));
  if (major >= 2) {
    out.put(static_cast<char>((len >> 16) & 0xff));
    out.put(static_cast<char>(len >> 24));
  }
  out << dict << data;
  return path;
}

template <typename T>
std::string bytesOf(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

void expectMessage(const std::string& path, const std::string& part) {
  try {
    readNpy(path);
    FAIL() << "no error for " << path;
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(part), std::string::npos) << "message: " << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << "message lacks the path: " << msg;
  }
}

TEST(Npy, RoundTripShapes) {
  const std::vector<float> values = {1.5f, -2.0f, 3.25f, 0.0f, 1e-30f, 7.0f};
  for (const auto& shape : std::vector<std::vector<int64_t>>{{2, 3}, {6}, {1, 2, 3, 1}}) {
    const std::string path = test::tempPath("round.npy");
    writeNpy(path, shape, values.data());
    NpyArray a = readNpy(path);
    EXPECT_EQ(a.shape, shape);
    EXPECT_EQ(a.values, values);
    EXPECT_EQ(fs::file_size(path) % 64, (values.size() * 4) % 64);  // data 64-byte aligned
  }
  const std::string empty = test::tempPath("empty.npy");
  writeNpy(empty, {0, 4}, nullptr);
  EXPECT_EQ(readNpy(empty).shape, (std::vector<int64_t>{0, 4}));
}

TEST(Npy, ReadsTorchFixture) {
  NpyArray a = readNpy(test::fixture("attention/d64_h4_n5_output.npy"));
  EXPECT_EQ(a.shape, (std::vector<int64_t>{5, 64}));
}

TEST(Npy, ConvertsF8AndF2) {
  const std::string f8 =
      writeRaw("f8.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }\n",
               bytesOf(std::vector<double>{0.5, -1.25, 1e10}));
  EXPECT_EQ(readNpy(f8).values, (std::vector<float>{0.5f, -1.25f, 1e10f}));
  // Half: 1.0 = 0x3c00, -2.0 = 0xc000, 65504 = 0x7bff, smallest subnormal 2^-24 = 0x0001.
  const std::string f2 =
      writeRaw("f2.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }\n",
               bytesOf(std::vector<uint16_t>{0x3c00, 0xc000, 0x7bff, 0x0001}));
  EXPECT_EQ(readNpy(f2).values, (std::vector<float>{1.0f, -2.0f, 65504.0f, std::ldexp(1.0f, -24)}));
  const std::string v2 =
      writeRaw("v2.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n",
               bytesOf(std::vector<float>{4.0f}), 2);
  EXPECT_EQ(readNpy(v2).values, (std::vector<float>{4.0f}));
}

TEST(Npy, MalformedFilesNameTheProblem) {
  const std::string f4 = bytesOf(std::vector<float>{1, 2, 3, 4});
  auto dict = [](const std::string& descr, const std::string& order, const std::string& shape) {
    return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }\n";
  };
  expectMessage(test::tempPath("missing.npy"), "cannot open");
  {
    const std::string p = test::tempPath("magic.npy");
    std::ofstream(p) << "PK\x03\x04 not numpy at all";
    expectMessage(p, "magic");
  }
  {
    const std::string p = test::tempPath("short.npy");
    std::ofstream(p) << "\x93NUM";
    expectMessage(p, "magic");
  }
  {
    const std::string good = writeRaw("trunc.npy", dict("<f4", "False", "(4,)"), f4);
    fs::resize_file(good, 30);  // cut inside the header
    expectMessage(good, "header length");
  }
  expectMessage(writeRaw("be.npy", dict(">f4", "False", "(4,)"), f4), "'>f4'");
  expectMessage(writeRaw("int.npy", dict("<i4", "False", "(4,)"), f4), "'<i4'");
  expectMessage(writeRaw("fortran.npy", dict("<f4", "True", "(2, 2)"), f4), "Fortran");
  expectMessage(writeRaw("shape.npy", dict("<f4", "False", "(2, 3)"), f4), "needs 24 bytes");
  expectMessage(writeRaw("extra.npy", dict("<f4", "False", "(3,)"), f4), "the file has 16");
  expectMessage(writeRaw("huge.npy", dict("<f4", "False", "(4294967296, 4294967296, 16)"), f4),
                "overflows");
  expectMessage(writeRaw("big.npy", dict("<f4", "False", "(4611686018427387904,)"), f4),
                "overflows 64 bits in bytes");
  expectMessage(writeRaw("digits.npy", dict("<f4", "False", "(99999999999999999999999,)"), f4),
                "too large");
  expectMessage(writeRaw("neg.npy", dict("<f4", "False", "(-4,)"), f4), "bad dimension");
  expectMessage(writeRaw("noshape.npy", "{'descr': '<f4', 'fortran_order': False}\n", f4),
                "'shape'");
  expectMessage(writeRaw("v9.npy", dict("<f4", "False", "(4,)"), f4, 9), "version 9");
}

std::vector<std::string> folderEntries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
  return names;
}

TEST(AtomicFile, ThrowingWriterLeavesNothing) {
  const std::string path = test::tempPath("out.npy");
  const std::string dir = fs::path(path).parent_path();
  EXPECT_THROW(writeFileAtomic(path,
                               [](std::ostream& out) {
                                 out << "half written";
                                 throw Error("boom");
                               }),
               Error);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(folderEntries(dir).empty()) << "temporary file left behind";

  std::ofstream(path) << "old";
  EXPECT_THROW(writeFileAtomic(path, [](std::ostream&) { throw std::runtime_error("late"); }),
               Error);
  std::ifstream in(path);
  std::string kept;
  in >> kept;
  EXPECT_EQ(kept, "old");
  EXPECT_EQ(folderEntries(dir).size(), 1u);
}

TEST(AtomicFile, ReplacesAndReportsBadFolder) {
  const std::string path = test::tempPath("out.txt");
  writeFileAtomic(path, [](std::ostream& out) { out << "new"; });
  std::string got;
  std::ifstream(path) >> got;
  EXPECT_EQ(got, "new");
  try {
    writeFileAtomic("/nonexistent-headmap-dir/x.npy", [](std::ostream& out) { out << "x"; });
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-headmap-dir/x.npy"), std::string::npos);
  }
  const float v = 1.0f;
  EXPECT_THROW(writeNpy("/nonexistent-headmap-dir/x.npy", {1}, &v), Error);
}

}  // namespace
}  // namespace headmap
