// --random-inputs: narrow floats are the draws rounded once from double,
// exactly as Literal::SetDouble rounds them (the fast integer path must not
// change any value a user has seen before).
#include "tools/run_inputs.h"

#include "gtest/gtest.h"
#include "ir/shape.h"

namespace hlo {
namespace {

TEST(RandomInputsTest, NarrowFloatsAreTheDrawsRoundedLikeSetDouble) {
  for (PrimitiveType t : {PrimitiveType::BF16, PrimitiveType::F16}) {
    SCOPED_TRACE(PrimitiveTypeName(t));
    const int64_t n = 200000;  // f16 draws below 2^-14 (the SetDouble path) come up about 12 times
    for (uint64_t seed : {0u, 7u, 12345u}) {
      // The f64 literal of a seed holds the same draws, one per element.
      const Literal draws = RandomLiteral(Shape::Array(PrimitiveType::F64, {n}), seed);
      const Literal got = RandomLiteral(Shape::Array(t, {n}), seed);
      Literal want = Literal::Uninitialized(Shape::Array(t, {n}));
      for (int64_t i = 0; i < n; ++i) want.SetDouble(i, draws.GetDouble(i));
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(got.GetRaw<uint16_t>(i), want.GetRaw<uint16_t>(i))
            << "element " << i << " draw " << draws.GetDouble(i);
    }
  }
}

}  // namespace
}  // namespace hlo
