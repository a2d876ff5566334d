// Hand-written lexer for the HLO text format (spec §2). It scans the whole
// buffer on demand, one token at a time; tokens carry 1-based line/column
// and a view into the buffer. Context-sensitive token kinds (`name=`,
// `name:`, dim labels, DxD, pad) are recognised here.
#pragma once

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "ir/shape.h"

namespace hlo {

enum class TokKind : uint8_t {
  kEof,
  kError,      // text() = offending text, error() = message
  kEqual,      // =
  kComma,      // ,
  kColon,      // :
  kStar,       // *
  kQuestion,   // ?
  kHash,       // #
  kPlus,       // +
  kTilde,      // ~
  kLbracket,   // [
  kRbracket,   // ]
  kLbrace,     // {
  kRbrace,     // }
  kLparen,     // (
  kRparen,     // )
  kArrow,      // ->
  kLeq,        // <=
  kDots,       // ...
  kName,       // %name        text() excludes the '%'
  kAttrName,   // name=        text() excludes the '='
  kParamName,  // name:        text() excludes the ':'
  kIdent,      // identifiers, keywords, primitive types, opcodes
  kInt,        // -?[0-9]+
  kDecimal,    // floats incl. inf / nan / nan(0x..)
  kDimLabels,  // b01f_01io->b01f
  kDxD,        // 3x3
  kPad,        // 0_1x2_2
  kString,     // "..." (decoded value in str())
};

absl::string_view TokKindName(TokKind k);

struct Token {
  TokKind kind = TokKind::kEof;
  absl::string_view text;  // the token's characters (see TokKind notes)
  const char* begin = nullptr;  // first character of the token in the buffer
  int line = 1;
  int col = 1;
  // kInt: value; values in (2^63, 2^64) are bit-cast (int_is_big_unsigned).
  int64_t int_value = 0;
  bool int_is_big_unsigned = false;
  // kDecimal: value; nan_payload != 0 when written as nan(0x..).
  double dec_value = 0;
  uint64_t nan_payload = 0;
};

class Lexer {
 public:
  explicit Lexer(absl::string_view buf);

  // Advances to the next token and returns it.
  const Token& Lex();
  const Token& tok() const { return tok_; }
  TokKind kind() const { return tok_.kind; }
  // Decoded string value of the current kString token; the error message of
  // a kError token.
  const std::string& str() const { return str_; }

  // The first non-blank, non-comment character after the current token
  // ('\0' at end of input). Does not move the lexer.
  char PeekChar() const;

  // Re-scans the current token, which must be `{`, as a balanced JSON-ish
  // dict (quotes respected). On success the current token becomes a
  // kString whose str() is the dict verbatim including its braces.
  bool LexDictAtCurrent();
  // Re-scans from the current token start to the matching close of the
  // bracket the current token opens ( `{`, `(` or `[` ), respecting quotes;
  // sets the current token to kString with the raw text. Used for
  // attributes carried verbatim.
  bool LexBalancedAtCurrent();
  // Re-scans from the current token start up to the next blank, ',' or an
  // unmatched closing bracket; sets the current token to kString with the
  // raw text (e.g. `L.1@2:4_R.0@2:4`).
  bool LexWordAtCurrent();

  // Fast path for the common array shape as XLA prints it, read straight
  // from the characters after the current token (the element type): `[` +
  // plain non-negative sizes separated by `,` + `]`, then optionally a
  // minor-to-major list `{d,...}` touching the `]` that is a permutation of
  // the dimensions. No blanks, comments, dynamic sizes or layout tail
  // parts: for anything else it returns false and changes nothing, and the
  // parser reads the shape token by token. On success the lexer moves past
  // the shape and lexes the next token.
  bool ScanPlainArrayShape(DimVector* dims, DimVector* minor_to_major, bool* has_layout);

  struct State {
    const char* pos;
    const char* line_start;
    int line;
    Token tok;
    std::string str;
  };
  State Save() const { return State{pos_, line_start_, line_, tok_, str_}; }
  void Restore(const State& s) {
    pos_ = s.pos;
    line_start_ = s.line_start;
    line_ = s.line;
    tok_ = s.tok;
    str_ = s.str;
  }

  absl::string_view buffer() const { return buf_; }

 private:
  void SkipBlanks();  // whitespace + comments; may set an error token
  void LexToken();
  void LexIdentifierOrKeyword(const char* start);
  void LexNumber(const char* start);
  void LexString(const char* start, char quote);
  void MakeToken(TokKind k, const char* start, const char* end);
  void MakeError(const char* start, const char* end, std::string msg);
  size_t MatchDimLabels(const char* p) const;
  size_t MatchDxD(const char* p) const;
  size_t MatchPad(const char* p) const;
  size_t MatchDecimal(const char* p) const;

  absl::string_view buf_;
  const char* pos_;
  const char* end_;
  const char* line_start_;
  int line_ = 1;
  Token tok_;
  std::string str_;
  bool blank_error_ = false;
};

// Helpers shared with the parser.
inline bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsIdentChar(char c) {
  return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace hlo
