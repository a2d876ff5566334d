#include "parser/lexer.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hlo {
namespace {

std::vector<Token> LexAll(absl::string_view text, std::vector<std::string>* strs = nullptr) {
  Lexer lx(text);
  std::vector<Token> out;
  for (int i = 0; i < 1000; ++i) {
    const Token& t = lx.Lex();
    out.push_back(t);
    if (strs) strs->push_back(lx.str());
    if (t.kind == TokKind::kEof || t.kind == TokKind::kError) break;
  }
  return out;
}

std::vector<TokKind> Kinds(absl::string_view text) {
  std::vector<TokKind> k;
  for (const Token& t : LexAll(text)) k.push_back(t.kind);
  return k;
}

TEST(LexerTest, Punctuation) {
  using K = TokKind;
  EXPECT_EQ(Kinds("= , : * ? # + ~ [ ] { } ( ) -> <= ..."),
            (std::vector<K>{K::kEqual, K::kComma, K::kColon, K::kStar, K::kQuestion, K::kHash,
                            K::kPlus, K::kTilde, K::kLbracket, K::kRbracket, K::kLbrace,
                            K::kRbrace, K::kLparen, K::kRparen, K::kArrow, K::kLeq, K::kDots,
                            K::kEof}));
}

TEST(LexerTest, NamesAttrNamesParamNames) {
  auto toks = LexAll("%a.b-c x= y: z %w:");
  ASSERT_GE(toks.size(), 6u);
  EXPECT_EQ(toks[0].kind, TokKind::kName);
  EXPECT_EQ(toks[0].text, "a.b-c");
  EXPECT_EQ(toks[1].kind, TokKind::kAttrName);
  EXPECT_EQ(toks[1].text, "x");
  EXPECT_EQ(toks[2].kind, TokKind::kParamName);
  EXPECT_EQ(toks[2].text, "y");
  EXPECT_EQ(toks[3].kind, TokKind::kIdent);
  EXPECT_EQ(toks[4].kind, TokKind::kName);  // %w does not swallow ':'
  EXPECT_EQ(toks[5].kind, TokKind::kColon);
}

TEST(LexerTest, LineAndColumn) {
  auto toks = LexAll("a\n  b /* c\n d */ e");
  ASSERT_EQ(toks.size(), 4u);
  EXPECT_EQ(toks[0].line, 1);
  EXPECT_EQ(toks[0].col, 1);
  EXPECT_EQ(toks[1].line, 2);
  EXPECT_EQ(toks[1].col, 3);
  EXPECT_EQ(toks[2].line, 3);
  EXPECT_EQ(toks[2].col, 7);
}

TEST(LexerTest, Comments) {
  using K = TokKind;
  EXPECT_EQ(Kinds("a // x\n b /*index=5*/ c"),
            (std::vector<K>{K::kIdent, K::kIdent, K::kIdent, K::kEof}));
  auto toks = LexAll("a /* unterminated");
  EXPECT_EQ(toks.back().kind, K::kError);
  EXPECT_EQ(toks.back().col, 3);
  EXPECT_EQ(LexAll("a / b")[1].kind, K::kError);
}

TEST(LexerTest, Numbers) {
  auto toks = LexAll("42 -7 1.5 1e5 2.5e-05 1. 18446744073709551615 -9223372036854775808");
  ASSERT_GE(toks.size(), 8u);
  EXPECT_EQ(toks[0].kind, TokKind::kInt);
  EXPECT_EQ(toks[0].int_value, 42);
  EXPECT_EQ(toks[1].int_value, -7);
  EXPECT_EQ(toks[2].kind, TokKind::kDecimal);
  EXPECT_DOUBLE_EQ(toks[2].dec_value, 1.5);
  EXPECT_DOUBLE_EQ(toks[3].dec_value, 1e5);
  EXPECT_DOUBLE_EQ(toks[4].dec_value, 2.5e-5);
  EXPECT_DOUBLE_EQ(toks[5].dec_value, 1.0);
  EXPECT_EQ(toks[6].kind, TokKind::kInt);
  EXPECT_TRUE(toks[6].int_is_big_unsigned);
  EXPECT_EQ(static_cast<uint64_t>(toks[6].int_value), UINT64_MAX);
  EXPECT_EQ(toks[7].int_value, INT64_MIN);
}

TEST(LexerTest, IntOverflowIsError) {
  EXPECT_EQ(LexAll("18446744073709551616")[0].kind, TokKind::kError);
  EXPECT_EQ(LexAll("-9223372036854775809")[0].kind, TokKind::kError);
  EXPECT_EQ(LexAll("1e999")[0].kind, TokKind::kError);
}

TEST(LexerTest, SpecialFloats) {
  auto toks = LexAll("inf -inf nan -nan nan(0x1f)");
  ASSERT_GE(toks.size(), 5u);
  EXPECT_TRUE(std::isinf(toks[0].dec_value) && toks[0].dec_value > 0);
  EXPECT_TRUE(std::isinf(toks[1].dec_value) && toks[1].dec_value < 0);
  EXPECT_TRUE(std::isnan(toks[2].dec_value));
  EXPECT_TRUE(std::isnan(toks[3].dec_value));
  EXPECT_EQ(toks[3].text, "-nan");
  EXPECT_EQ(toks[4].nan_payload, 0x1fu);
  EXPECT_EQ(LexAll("nan(0x0)")[0].kind, TokKind::kError);
  EXPECT_EQ(LexAll("nan(0x1ffffffffffffff)")[0].kind, TokKind::kError);
}

TEST(LexerTest, ContextualNumberForms) {
  auto toks = LexAll("3x3 0_1x2_2 -1_2_0 b01f_01io->b01f ?b01f_0?1io->b01?f bf_io->bf 5");
  ASSERT_GE(toks.size(), 7u);
  EXPECT_EQ(toks[0].kind, TokKind::kDxD);
  EXPECT_EQ(toks[1].kind, TokKind::kPad);
  EXPECT_EQ(toks[2].kind, TokKind::kPad);
  EXPECT_EQ(toks[3].kind, TokKind::kDimLabels);
  EXPECT_EQ(toks[4].kind, TokKind::kDimLabels);
  EXPECT_EQ(toks[5].kind, TokKind::kDimLabels);
  EXPECT_EQ(toks[6].kind, TokKind::kInt);
}

TEST(LexerTest, Strings) {
  std::vector<std::string> strs;
  auto toks = LexAll(R"("a\"b\n\x41\101" 'q')", &strs);
  ASSERT_GE(toks.size(), 2u);
  EXPECT_EQ(toks[0].kind, TokKind::kString);
  EXPECT_EQ(strs[0], "a\"b\nAA");
  EXPECT_EQ(strs[1], "q");
  EXPECT_EQ(LexAll("\"abc")[0].kind, TokKind::kError);
}

TEST(LexerTest, DictRescan) {
  Lexer lx(R"({"a": "}", "b": {1}} , x)");
  ASSERT_EQ(lx.Lex().kind, TokKind::kLbrace);
  ASSERT_TRUE(lx.LexDictAtCurrent());
  EXPECT_EQ(lx.str(), R"({"a": "}", "b": {1}})");
  EXPECT_EQ(lx.Lex().kind, TokKind::kComma);
  EXPECT_EQ(lx.Lex().kind, TokKind::kIdent);
}

TEST(LexerTest, PeekChar) {
  Lexer lx("a /* c */ (");
  lx.Lex();
  EXPECT_EQ(lx.PeekChar(), '(');
}

TEST(LexerTest, GarbageNeverCrashes) {
  std::string s;
  for (int i = 0; i < 256; ++i) s.push_back(static_cast<char>(i));
  Lexer lx(s);
  for (int i = 0; i < 1000; ++i) {
    TokKind k = lx.Lex().kind;
    if (k == TokKind::kEof) break;
  }
  SUCCEED();
}

}  // namespace
}  // namespace hlo
