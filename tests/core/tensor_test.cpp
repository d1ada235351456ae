#include "core/common/tensor.h"

#include <gtest/gtest.h>

#include "core/common/error.h"

namespace headmap {

TEST(FloatTensor, MatrixViewIsRowMajor) {
  FloatTensor t({2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5});
  auto m = t.matrix();
  EXPECT_EQ(m.rows(), 2);
  EXPECT_EQ(m.cols(), 3);
  EXPECT_EQ(m(1, 0), 3.0f);
  EXPECT_EQ(m(0, 2), 2.0f);
}

TEST(FloatTensor, RankThreeMatrixViewIsAnError) {
  FloatTensor t({1, 1, 2}, std::vector<float>{0, 1});
  EXPECT_THROW(t.matrix(), Error);
}

}  // namespace headmap
