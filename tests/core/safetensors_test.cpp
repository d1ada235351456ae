#include "core/io/safetensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/common/error.h"
#include "tests/safetensors_bytes.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

using test::f32Bytes;
using test::rawSafetensors;
using test::RawTensor;
using test::safetensorsBytes;
using test::u16Bytes;

std::string writeTemp(const std::string& name, const std::string& bytes) {
  std::string path = test::tempPath(name);
  test::writeBytes(path, bytes);
  return path;
}

// Opens bytes as a file and returns the error message ("" when it opened).
std::string openError(const std::string& bytes) {
  std::string path = writeTemp("bad.safetensors", bytes);
  try {
    SafetensorsFile::open(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expectMessage(const std::string& bytes, const std::vector<std::string>& parts) {
  std::string message = openError(bytes);
  ASSERT_FALSE(message.empty()) << "the file opened without an error";
  EXPECT_NE(message.find("bad.safetensors"), std::string::npos) << message;
  for (const auto& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  }
}

std::string entry(const std::string& name, const std::string& dtype, const std::string& shape,
                  const std::string& offsets) {
  return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape +
         ",\"data_offsets\":" + offsets + "}";
}

TEST(Safetensors, ReadsTensorsMetadataAndValues) {
  std::vector<float> w = {1, 2, 3, 4, 5, 6};
  std::string path =
      writeTemp("good.safetensors", safetensorsBytes({{"layer.w", "F32", {2, 3}, f32Bytes(w)},
                                                      {"layer.b", "F32", {3}, f32Bytes({-1, 0, 1})},
                                                      {"steps", "I64", {1}, std::string(8, '\0')}},
                                                     {{"num_heads", "4"}, {"format", "pt"}}));
  auto file = SafetensorsFile::open(path);
  EXPECT_EQ(file->formatName(), "safetensors");
  ASSERT_EQ(file->tensors().size(), 3u);
  EXPECT_EQ(file->tensors()[0].name, "layer.b");  // sorted by name
  EXPECT_EQ(file->tensors()[1].name, "layer.w");
  EXPECT_EQ(file->tensors()[2].dtype, DType::I64);
  EXPECT_EQ(file->metadata().at("num_heads"), "4");
  EXPECT_TRUE(file->contains("layer.b"));
  EXPECT_FALSE(file->contains("layer.c"));

  FloatTensor t = file->load("layer.w");
  ASSERT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.matrix()(1, 2), 6.0f);
  EXPECT_EQ(file->load("layer.b").vector()(0), -1.0f);
}

TEST(Safetensors, BorrowedTensorOutlivesTheFileObject) {
  std::string path =
      writeTemp("good.safetensors", safetensorsBytes({{"w", "F32", {4}, f32Bytes({1, 2, 3, 4})}}));
  FloatTensor t;
  {
    auto file = SafetensorsFile::open(path);
    t = file->load("w");
  }
  EXPECT_EQ(t.vector()(3), 4.0f);  // the mapping lives as long as the tensor
}

TEST(Safetensors, AlignedF32IsBorrowedNotCopied) {
  auto file = SafetensorsFile::open(
      writeTemp("good.safetensors", safetensorsBytes({{"w", "F32", {4}, f32Bytes({1, 2, 3, 4})}})));
  // Two loads of a borrowed tensor point at the same mapped bytes; copies would differ.
  EXPECT_EQ(file->load("w").data(), file->load("w").data());
}

TEST(Safetensors, MisalignedF32IsCopied) {
  // A 3-byte header tail leaves the data area at an odd offset.
  std::string header = "{" + entry("w", "F32", "[2]", "[0,8]") + "}";
  while ((8 + header.size()) % 4 != 1) header += ' ';
  auto file = SafetensorsFile::open(
      writeTemp("odd.safetensors", rawSafetensors(header, f32Bytes({1.5f, -2.5f}))));
  FloatTensor t = file->load("w");
  EXPECT_EQ(t.vector()(0), 1.5f);
  EXPECT_EQ(t.vector()(1), -2.5f);
}

TEST(Safetensors, OtherDtypesAreListedButRefusedOnLoad) {
  auto file = SafetensorsFile::open(
      writeTemp("ints.safetensors", safetensorsBytes({{"ids", "I64", {2}, std::string(16, 'a')}})));
  EXPECT_EQ(file->tensors()[0].shape, (std::vector<int64_t>{2}));
  try {
    file->load("ids");
    FAIL() << "I64 loaded as float";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'ids' has dtype I64"), std::string::npos) << e.what();
  }
  EXPECT_THROW(file->load("missing"), Error);
}

TEST(HalfConversion, KnownValues) {
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0xc000), -2.0f);
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);                  // largest normal
  EXPECT_EQ(halfToFloat(0x0400), 6.103515625e-05f);          // smallest normal, 2^-14
  EXPECT_EQ(halfToFloat(0x0001), 5.9604644775390625e-08f);   // smallest subnormal, 2^-24
  EXPECT_EQ(halfToFloat(0x03ff), 6.097555160522461e-05f);    // largest subnormal
  EXPECT_EQ(halfToFloat(0x8001), -5.9604644775390625e-08f);  // negative subnormal
  EXPECT_EQ(halfToFloat(0x0000), 0.0f);
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
  EXPECT_EQ(halfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(halfToFloat(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7c01)));  // signalling-NaN payload stays a NaN
}

TEST(HalfConversion, Bfloat16KnownValues) {
  EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(bfloat16ToFloat(0x4049), 3.140625f);
  EXPECT_EQ(bfloat16ToFloat(0xc2f7), -123.5f);
  EXPECT_EQ(bfloat16ToFloat(0x0001), 9.183549615799121e-41f);  // subnormal
  EXPECT_EQ(bfloat16ToFloat(0xff80), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(0x7fc0)));
}

TEST(Safetensors, F16AndBF16TensorsAreConverted) {
  auto file = SafetensorsFile::open(writeTemp(
      "half.safetensors", safetensorsBytes({{"h", "F16", {3}, u16Bytes({0x3c00, 0x0001, 0xc000})},
                                            {"b", "BF16", {2}, u16Bytes({0x4049, 0xc2f7})}})));
  FloatTensor h = file->load("h");
  EXPECT_EQ(h.vector()(0), 1.0f);
  EXPECT_EQ(h.vector()(1), 5.9604644775390625e-08f);
  EXPECT_EQ(h.vector()(2), -2.0f);
  FloatTensor b = file->load("b");
  EXPECT_EQ(b.vector()(0), 3.140625f);
  EXPECT_EQ(b.vector()(1), -123.5f);
}

// ---- One malformed file per check ----

TEST(SafetensorsMalformed, EmptyFile) { expectMessage("", {"0 bytes", "8-byte"}); }

TEST(SafetensorsMalformed, ShorterThanTheLengthField) {
  expectMessage("abc", {"3 bytes", "shorter than the 8-byte"});
}

TEST(SafetensorsMalformed, HeaderLengthBeyondTheFile) {
  expectMessage(test::u64Le(1000) + "{}", {"header length is 1000 bytes", "has 2 bytes"});
}

TEST(SafetensorsMalformed, HeaderAboveTheSizeLimit) {
  expectMessage(test::u64Le(200ull * 1024 * 1024) + "{}",
                {"209715200", "above the limit of 104857600"});
}

TEST(SafetensorsMalformed, HugeHeaderLengthDoesNotWrap) {
  expectMessage(test::u64Le(~0ull) + "{}", {"18446744073709551615"});
}

TEST(SafetensorsMalformed, EmptyHeader) { expectMessage(rawSafetensors("", ""), {"empty header"}); }

TEST(SafetensorsMalformed, HeaderNotAnObject) {
  expectMessage(rawSafetensors("[1,2]", ""), {"starting with '{'"});
}

TEST(SafetensorsMalformed, InvalidJson) {
  expectMessage(rawSafetensors("{\"w\": {\"dtype\": ", ""), {"not valid JSON"});
}

TEST(SafetensorsMalformed, TrailingGarbageAfterJson) {
  expectMessage(rawSafetensors("{} xyz", ""), {"not valid JSON"});
}

TEST(SafetensorsMalformed, DeepNestingIsRefusedBeforeParsing) {
  std::string deep = "{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  expectMessage(rawSafetensors(deep, ""), {"nests JSON deeper"});
}

TEST(SafetensorsMalformed, EntryNotAnObject) {
  expectMessage(rawSafetensors("{\"w\": 3}", ""), {"tensor 'w'", "must be an object", "number"});
}

TEST(SafetensorsMalformed, MissingField) {
  expectMessage(rawSafetensors("{\"w\": {\"dtype\":\"F32\",\"shape\":[1]}}", std::string(4, 0)),
                {"tensor 'w'", "no 'data_offsets'"});
}

TEST(SafetensorsMalformed, UnknownDtype) {
  expectMessage(rawSafetensors("{" + entry("w", "F31", "[1]", "[0,4]") + "}", std::string(4, 0)),
                {"tensor 'w'", "unknown dtype 'F31'", "expected one of F32"});
}

TEST(SafetensorsMalformed, DtypeNotAString) {
  expectMessage(rawSafetensors("{\"w\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}",
                               std::string(4, 0)),
                {"tensor 'w'", "dtype must be a string"});
}

TEST(SafetensorsMalformed, NegativeShapeEntry) {
  expectMessage(rawSafetensors("{" + entry("w", "F32", "[2,-3]", "[0,4]") + "}", std::string(4, 0)),
                {"tensor 'w'", "shape entry 1 is negative (-3)"});
}

TEST(SafetensorsMalformed, NonIntegerShapeEntry) {
  expectMessage(rawSafetensors("{" + entry("w", "F32", "[2.5]", "[0,4]") + "}", std::string(4, 0)),
                {"tensor 'w'", "shape entry 0 must be a non-negative integer, found 2.5"});
  expectMessage(
      rawSafetensors("{" + entry("w", "F32", "[\"4\"]", "[0,4]") + "}", std::string(4, 0)),
      {"shape entry 0"});
}

TEST(SafetensorsMalformed, ShapeNotAnArray) {
  expectMessage(rawSafetensors("{" + entry("w", "F32", "4", "[0,4]") + "}", std::string(4, 0)),
                {"tensor 'w'", "shape must be an array"});
}

TEST(SafetensorsMalformed, ShapeProductOverflow) {
  expectMessage(rawSafetensors("{" + entry("w", "F32", "[4294967296,4294967296]", "[0,4]") + "}",
                               std::string(4, 0)),
                {"tensor 'w'", "overflows"});
  // The element count fits in 64 bits, the byte count does not.
  expectMessage(rawSafetensors("{" + entry("w", "F32", "[4611686018427387904]", "[0,4]") + "}",
                               std::string(4, 0)),
                {"tensor 'w'", "overflows"});
  // One dimension beyond int64.
  expectMessage(rawSafetensors("{" + entry("w", "U8", "[9223372036854775808]", "[0,4]") + "}",
                               std::string(4, 0)),
                {"tensor 'w'", "overflows"});
}

TEST(SafetensorsMalformed, ShapeBytesDisagreeWithOffsets) {
  std::string data(1024, 0);
  std::string header = "{" + entry("w_q.weight", "F32", "[64,64]", "[0,1024]") + "}";
  std::string message = openError(rawSafetensors(header, data));
  EXPECT_NE(message.find("bad.safetensors: tensor 'w_q.weight' needs 16384 bytes (shape [64, 64] "
                         "× F32), its data_offsets span 1024"),
            std::string::npos)
      << message;
}

TEST(SafetensorsMalformed, OffsetsBeyondTheDataArea) {
  expectMessage(rawSafetensors("{" + entry("w", "F32", "[4]", "[0,16]") + "}", std::string(10, 0)),
                {"tensor 'w'", "[0, 16]", "beyond the data area of 10 bytes"});
}

TEST(SafetensorsMalformed, HugeOffsetsBeyondTheDataArea) {
  expectMessage(
      rawSafetensors(
          "{" + entry("w", "U8", "[0]", "[18446744073709551615,18446744073709551615]") + "}", ""),
      {"tensor 'w'", "beyond the data area of 0 bytes"});
}

TEST(SafetensorsMalformed, BeginAfterEnd) {
  expectMessage(rawSafetensors("{" + entry("w", "F32", "[1]", "[8,4]") + "}", std::string(8, 0)),
                {"tensor 'w'", "[8, 4] begin after they end"});
}

TEST(SafetensorsMalformed, OffsetsNotTwoIntegers) {
  expectMessage(rawSafetensors("{" + entry("w", "F32", "[1]", "[0]") + "}", std::string(4, 0)),
                {"tensor 'w'", "data_offsets must be [begin, end]"});
  expectMessage(rawSafetensors("{" + entry("w", "F32", "[1]", "[-4,0]") + "}", std::string(4, 0)),
                {"tensor 'w'", "data_offsets must be [begin, end]"});
}

TEST(SafetensorsMalformed, OverlappingTensors) {
  std::string header =
      "{" + entry("a", "F32", "[2]", "[0,8]") + "," + entry("b", "F32", "[2]", "[4,12]") + "}";
  expectMessage(rawSafetensors(header, std::string(12, 0)),
                {"tensor 'b'", "[4, 12]", "overlap tensor 'a' [0, 8]"});
}

TEST(SafetensorsMalformed, OverlapFoundWhateverTheHeaderOrder) {
  std::string header = "{" + entry("z", "F32", "[1]", "[8,12]") + "," +
                       entry("a", "F32", "[3]", "[0,12]") + "," +
                       entry("m", "F32", "[1]", "[12,16]") + "}";
  expectMessage(rawSafetensors(header, std::string(16, 0)), {"overlap"});
}

TEST(SafetensorsMalformed, OverlapHiddenBehindAnEmptyTensor) {
  std::string header = "{" + entry("big", "F32", "[4]", "[0,16]") + "," +
                       entry("empty", "F32", "[0]", "[5,5]") + "," +
                       entry("inner", "F32", "[1]", "[8,12]") + "}";
  expectMessage(rawSafetensors(header, std::string(16, 0)),
                {"tensor 'inner'", "overlap tensor 'big'"});
}

TEST(SafetensorsMalformed, MetadataNotAnObject) {
  expectMessage(rawSafetensors("{\"__metadata__\": [1]}", ""), {"__metadata__ must be an object"});
}

TEST(SafetensorsMalformed, MetadataValueNotAString) {
  expectMessage(rawSafetensors("{\"__metadata__\": {\"num_heads\": 4}}", ""),
                {"__metadata__ entry 'num_heads' must be a string", "number 4"});
}

TEST(Safetensors, EmptyTensorsAndAdjacentSpansAreFine) {
  std::string header = "{" + entry("e", "F32", "[0,5]", "[4,4]") + "," +
                       entry("a", "F32", "[1]", "[0,4]") + "," + entry("b", "F32", "[1]", "[4,8]") +
                       "}";
  EXPECT_EQ(openError(rawSafetensors(header, std::string(8, 0))), "");
}

// Every prefix of a valid file is refused with a message (never read past the end, never crash).
TEST(SafetensorsMalformed, TruncatedAtEveryLength) {
  const std::string good = safetensorsBytes(
      {{"a", "F32", {2, 2}, f32Bytes({1, 2, 3, 4})}, {"b", "F16", {3}, u16Bytes({1, 2, 3})}},
      {{"num_heads", "2"}});
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_NE(openError(good.substr(0, n)), "") << "a " << n << "-byte prefix opened";
  }
  EXPECT_EQ(openError(good), "");
}

// Random byte edits of a valid file: each either opens (and then every tensor loads or is refused
// with an Error) or is refused with an Error. Under the sanitizer build this is a small fuzz run.
TEST(SafetensorsMalformed, RandomByteEditsNeverCrash) {
  const std::string good =
      safetensorsBytes({{"x.w_q.weight", "F32", {2, 2}, f32Bytes({1, 2, 3, 4})},
                        {"b", "BF16", {3}, u16Bytes({1, 2, 3})}},
                       {{"num_heads", "2"}});
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  const char alphabet[] = "{}[]\",:0123456789-.eE \\\x00\xff";
  int opened = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bytes = good;
    for (int edits = 1 + next() % 3; edits > 0; --edits) {
      size_t pos = next() % bytes.size();
      bytes[pos] =
          next() % 2 ? alphabet[next() % (sizeof alphabet - 1)] : static_cast<char>(next() & 0xff);
    }
    try {
      SafetensorsFile file("mutated", nullptr, reinterpret_cast<const uint8_t*>(bytes.data()),
                           bytes.size());
      ++opened;
      for (const auto& info : file.tensors()) {
        try {
          file.load(info.name);
        } catch (const Error&) {
        }
      }
    } catch (const Error&) {
    }
  }
  EXPECT_GT(opened, 0);  // some edits (e.g. inside float data) leave a valid file
}

TEST(Safetensors, TensorsSortedNaturally) {
  std::vector<RawTensor> tensors;
  for (int i : {10, 2, 1})
    tensors.push_back({"layers." + std::to_string(i) + ".w", "U8", {1}, "x"});
  auto file = SafetensorsFile::open(writeTemp("n.safetensors", safetensorsBytes(tensors)));
  ASSERT_EQ(file->tensors().size(), 3u);
  EXPECT_EQ(file->tensors()[0].name, "layers.1.w");
  EXPECT_EQ(file->tensors()[2].name, "layers.10.w");
}

// A header with many entries parses in about linear time (a hostile file cannot hang the reader).
TEST(Safetensors, ManyTensorsOpenQuickly) {
  std::vector<RawTensor> tensors;
  for (int i = 0; i < 100000; ++i) tensors.push_back({"t" + std::to_string(i), "U8", {1}, "x"});
  auto file = SafetensorsFile::open(writeTemp("many.safetensors", safetensorsBytes(tensors)));
  EXPECT_EQ(file->tensors().size(), 100000u);
  EXPECT_TRUE(file->contains("t99999"));
}

TEST(Safetensors, LooksLikeSafetensors) {
  EXPECT_TRUE(looksLikeSafetensors(
      writeTemp("a.bin", safetensorsBytes({{"w", "F32", {1}, f32Bytes({1})}}))));
  EXPECT_FALSE(looksLikeSafetensors(writeTemp("b.bin", "PK\x03\x04 not safetensors")));
  EXPECT_FALSE(looksLikeSafetensors(writeTemp("c.bin", test::u64Le(1000) + "{}")));
  EXPECT_FALSE(looksLikeSafetensors(test::tempPath("does-not-exist")));
}

TEST(MappedFile, MissingFileNamesFileAndReason) {
  try {
    SafetensorsFile::open("/nonexistent/dir/x.safetensors");
    FAIL();
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("/nonexistent/dir/x.safetensors"), std::string::npos) << m;
    EXPECT_NE(m.find("No such file"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace headmap
