// The typed-FFI attribute dictionary of backend_config (ffi_attributes.h).
#include "backend_cpu/ffi_attributes.h"

#include "gtest/gtest.h"

namespace hlo::cpu {
namespace {

TEST(FfiAttributes, ParsesTypedScalarsAndNestedValues) {
  absl::StatusOr<FfiAttributes> a =
      ParseFfiAttributes(R"({mode = 86 : ui8, uplo = 76 : ui8, s = "a, b = c", d = dense<[1, 2]> : tensor<2xi64>, flag = true, unit})");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_EQ(a->size(), 6u);
  EXPECT_EQ(a->at("mode").value, "86");
  EXPECT_EQ(a->at("mode").type, "ui8");
  EXPECT_EQ(a->at("s").value, R"("a, b = c")");
  EXPECT_EQ(a->at("s").type, "");
  EXPECT_EQ(a->at("d").value, "dense<[1, 2]>");
  EXPECT_EQ(a->at("d").type, "tensor<2xi64>");
  EXPECT_EQ(a->at("flag").value, "true");
  EXPECT_EQ(a->at("unit").value, "");
  absl::StatusOr<int64_t> v = FfiIntAttribute(a->at("uplo"), "uplo");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 76);
  EXPECT_FALSE(FfiIntAttribute(a->at("flag"), "flag").ok());
}

TEST(FfiAttributes, EmptyAndMalformed) {
  absl::StatusOr<FfiAttributes> e = ParseFfiAttributes(" { } ");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->empty());
  EXPECT_FALSE(ParseFfiAttributes("mode = 86 : ui8").ok());
  EXPECT_FALSE(ParseFfiAttributes("{mode = }").ok());
  EXPECT_FALSE(ParseFfiAttributes("{= 1}").ok());
}

}  // namespace
}  // namespace hlo::cpu
