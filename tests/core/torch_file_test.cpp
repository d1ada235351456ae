// torch.save archives against references written by scripts/fixtures/make_torch_fixtures.py
// (PyTorch 1.13): every tensor must equal its .npy exactly, every hostile file must be refused
// with a message that names what is wrong.
#include "core/io/torch_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/common/error.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

namespace fs = std::filesystem;

std::string torchFixture(const std::string& name) { return test::fixture("torch/" + name); }

std::vector<uint8_t> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Minimal reader for the '<f4' C-order references numpy.save wrote (kept here so these tests do
// not depend on the .npy loader under test elsewhere).
struct Reference {
  std::vector<int64_t> shape;
  std::vector<float> values;
};
Reference readReference(const std::string& path) {
  std::vector<uint8_t> bytes = readBytes(path);
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) {
    ADD_FAILURE() << path << " is not a .npy file";
    return {};
  }
  size_t headerLen = bytes[8] | (bytes[9] << 8);
  std::string header(bytes.begin() + 10, bytes.begin() + 10 + headerLen);
  EXPECT_NE(header.find("'<f4'"), std::string::npos) << path << ": " << header;
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << path;
  Reference ref;
  std::string dims = header.substr(header.find('(') + 1);
  dims = dims.substr(0, dims.find(')'));
  size_t pos = 0;
  while (pos < dims.size()) {
    size_t comma = dims.find(',', pos);
    std::string item =
        dims.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item.find_first_of("0123456789") != std::string::npos)
      ref.shape.push_back(std::stoll(item));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  size_t data = 10 + headerLen;
  ref.values.resize((bytes.size() - data) / 4);
  std::memcpy(ref.values.data(), bytes.data() + data, ref.values.size() * 4);
  return ref;
}

// Every tensor of `file` equals ref/<refDir>/<name>.npy bit for bit, and the names are exactly the
// reference files.
void expectMatchesReferences(const std::string& file, const std::string& refDir) {
  auto source = openTorchFile(torchFixture(file));
  ASSERT_TRUE(source);
  EXPECT_EQ(source->formatName(), "torch");
  std::vector<std::string> expected;
  for (const auto& entry : fs::directory_iterator(torchFixture("ref/" + refDir))) {
    expected.push_back(entry.path().stem().string());
  }
  std::vector<std::string> names;
  for (const auto& info : source->tensors()) names.push_back(info.name);
  std::sort(expected.begin(), expected.end());
  std::sort(names.begin(), names.end());
  ASSERT_EQ(names, expected) << file;
  for (const auto& info : source->tensors()) {
    Reference ref = readReference(torchFixture("ref/" + refDir + "/" + info.name + ".npy"));
    FloatTensor t = source->load(info.name);
    EXPECT_EQ(t.shape(), ref.shape) << file << ": " << info.name;
    EXPECT_EQ(info.shape, ref.shape) << file << ": " << info.name;
    ASSERT_EQ(static_cast<size_t>(t.numel()), ref.values.size()) << file << ": " << info.name;
    float maxDiff = 0;
    for (size_t i = 0; i < ref.values.size(); ++i) {
      maxDiff = std::max(maxDiff, std::abs(t.data()[i] - ref.values[i]));
    }
    EXPECT_EQ(std::memcmp(t.data(), ref.values.data(), ref.values.size() * 4), 0)
        << file << ": " << info.name << " differs, max |diff| " << maxDiff;
  }
}

TEST(TorchFile, RecognisesZipAndLegacyMagicOnly) {
  EXPECT_TRUE(looksLikeTorchFile(torchFixture("mha.pt")));
  EXPECT_TRUE(looksLikeTorchFile(torchFixture("legacy.pt")));
  EXPECT_FALSE(looksLikeTorchFile(torchFixture("mha.safetensors")));
  EXPECT_FALSE(looksLikeTorchFile(torchFixture("does-not-exist.pt")));
}

TEST(TorchFile, TutorialModuleStateDict) { expectMatchesReferences("mha.pt", "mha"); }
TEST(TorchFile, TorchMultiheadAttentionStateDict) {
  expectMatchesReferences("torch_mha.pt", "torch_mha");
}
TEST(TorchFile, HalfBFloat16DoubleLongAndScalar) {
  expectMatchesReferences("dtypes.pt", "dtypes");
  auto source = openTorchFile(torchFixture("dtypes.pt"));
  std::map<std::string, DType> dtypes;
  for (const auto& info : source->tensors()) dtypes[info.name] = info.dtype;
  EXPECT_EQ(dtypes["half"], DType::F16);
  EXPECT_EQ(dtypes["bf16"], DType::BF16);
  EXPECT_EQ(dtypes["double"], DType::F64);
  EXPECT_EQ(dtypes["long"], DType::I64);
}
TEST(TorchFile, NonContiguousViewsAreGathered) {
  expectMatchesReferences("noncontig.pt", "noncontig");
}
TEST(TorchFile, CheckpointWithOptimizerReadsTheModelOnly) {
  expectMatchesReferences("checkpoint.pt", "small");
}
TEST(TorchFile, StateDictWrapper) { expectMatchesReferences("wrapped.pt", "small"); }
TEST(TorchFile, DataParallelPrefixIsDropped) {
  expectMatchesReferences("data_parallel.pt", "small");
}
TEST(TorchFile, ParametersAreRead) { expectMatchesReferences("parameters.pt", "small"); }

TEST(TorchFile, InMemoryArchiveReadsTheSame) {
  auto source = openTorchBytes(readBytes(torchFixture("mha.pt")), "mha.pt");
  ASSERT_EQ(source->tensors().size(), 8u);
  auto fromFile = openTorchFile(torchFixture("mha.pt"));
  FloatTensor a = source->load("w_v.weight");
  FloatTensor b = fromFile->load("w_v.weight");
  ASSERT_EQ(a.numel(), 64 * 64);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), 64 * 64 * 4), 0);
}

TEST(TorchFile, MissingTensorNamesFileAndTensor) {
  auto source = openTorchFile(torchFixture("mha.pt"));
  try {
    source->load("w_x.weight");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("w_x.weight"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mha.pt"), std::string::npos) << e.what();
  }
}

// Each hostile file is refused (an Error, never a crash) with all the given parts in its message.
void expectRefused(const std::string& file, const std::vector<std::string>& parts) {
  try {
    auto source = openTorchFile(torchFixture(file));
    for (const auto& info : source->tensors()) source->load(info.name);
    FAIL() << file << " was accepted";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find(file), std::string::npos) << message;
    for (const auto& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    }
  }
}

TEST(TorchFileHostile, OsSystemReduceIsRefusedByName) {
  expectRefused("hostile_os_system.pt",
                {"refused pickle global 'posix.system'", "never runs code"});
}
TEST(TorchFileHostile, BuiltinsEvalIsRefusedByName) {
  expectRefused("hostile_eval.pt", {"refused pickle global 'builtins.eval'"});
}
TEST(TorchFileHostile, PickledModuleIsRefusedWithAHint) {
  expectRefused("hostile_module.pt",
                {"'__main__.MultiHeadAttention'", "torch.save(model.state_dict(), path)"});
}
TEST(TorchFileHostile, TextOpcodeIsRefusedByName) {
  expectRefused("hostile_opcode.pt", {"unsupported pickle opcode INT (0x49)"});
}
TEST(TorchFileHostile, TruncatedZip) {
  expectRefused("hostile_truncated.pt", {"not a readable zip archive", "truncated"});
}
TEST(TorchFileHostile, StorageShorterThanDeclared) {
  expectRefused("hostile_short_storage.pt",
                {"tensor 'w_q.weight'", "declares 4096 F32 elements", "holds 100 bytes"});
}
TEST(TorchFileHostile, TensorReachingPastItsStorage) {
  expectRefused("hostile_tensor_past_storage.pt",
                {"tensor 't'", "[10, 10]", "reaches element 99", "which has 4 elements"});
}
TEST(TorchFileHostile, LegacyFormatSaysHowToResave) {
  expectRefused("legacy.pt", {"legacy torch.save format", "_use_new_zipfile_serialization=True"});
}
TEST(TorchFileHostile, SafetensorsIsNotATorchArchive) {
  expectRefused("mha.safetensors", {"not a readable zip archive"});
}

}  // namespace
}  // namespace headmap

namespace headmap {
namespace {

// Inputs the fuzzers found (tests/fixtures/torch/fuzz/), each now refused quickly with a message.
TEST(TorchFileFuzzRegression, StoredRecordClaimingMoreThanTheArchive) {
  // A 282-byte archive whose data.pkl header claims 671 MB: was allocated before reading (slow
  // unit, 1.1 GB RSS under ASan).
  expectRefused("fuzz/zip_stored_size_claim.pt",
                {"record 'archive/data.pkl' claims 738197548 stored bytes", "archive has 282"});
}

}  // namespace
}  // namespace headmap
