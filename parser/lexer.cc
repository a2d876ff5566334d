#include "parser/lexer.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hlo {

namespace {

// Character classes for the hot loops.
enum : uint8_t {
  kBlank = 1,
  kIdentStartBit = 2,
  kIdentCharBit = 4,
  kDigitBit = 8,
  // Characters SkipBlanks has to look at: blanks, newline, '/' (comments).
  kSkipBit = 16,
};
struct CharTable {
  uint8_t t[256];
  constexpr CharTable() : t() {
    for (int c = 0; c < 256; ++c) {
      uint8_t v = 0;
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') v |= kBlank;
      bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
      bool digit = c >= '0' && c <= '9';
      if (alpha) v |= kIdentStartBit;
      if (alpha || digit || c == '.' || c == '-') v |= kIdentCharBit;
      if (digit) v |= kDigitBit;
      if ((v & kBlank) || c == '\n' || c == '/') v |= kSkipBit;
      t[c] = v;
    }
  }
};
constexpr CharTable kChars;
inline bool FastIdentChar(char c) { return kChars.t[static_cast<unsigned char>(c)] & kIdentCharBit; }
inline bool FastDigit(char c) { return kChars.t[static_cast<unsigned char>(c)] & kDigitBit; }
inline bool FastBlank(char c) { return kChars.t[static_cast<unsigned char>(c)] & kBlank; }
inline bool NeedsSkip(char c) { return kChars.t[static_cast<unsigned char>(c)] & kSkipBit; }

// First position in [q, end) holding `quote`, a backslash or a newline
// (the characters a string body stops at), or end.
const char* ScanStringRun(const char* q, const char* end, char quote) {
#if defined(__SSE2__)
  const __m128i vq = _mm_set1_epi8(quote);
  const __m128i vb = _mm_set1_epi8('\\');
  const __m128i vn = _mm_set1_epi8('\n');
  while (end - q >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    const __m128i hit =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, vq), _mm_cmpeq_epi8(x, vb)), _mm_cmpeq_epi8(x, vn));
    const int mask = _mm_movemask_epi8(hit);
    if (mask != 0) return q + __builtin_ctz(static_cast<unsigned>(mask));
    q += 16;
  }
#endif
  while (q < end && *q != quote && *q != '\\' && *q != '\n') ++q;
  return q;
}

}  // namespace

absl::string_view TokKindName(TokKind k) {
  switch (k) {
    case TokKind::kEof: return "end of file";
    case TokKind::kError: return "invalid token";
    case TokKind::kEqual: return "'='";
    case TokKind::kComma: return "','";
    case TokKind::kColon: return "':'";
    case TokKind::kStar: return "'*'";
    case TokKind::kQuestion: return "'?'";
    case TokKind::kHash: return "'#'";
    case TokKind::kPlus: return "'+'";
    case TokKind::kTilde: return "'~'";
    case TokKind::kLbracket: return "'['";
    case TokKind::kRbracket: return "']'";
    case TokKind::kLbrace: return "'{'";
    case TokKind::kRbrace: return "'}'";
    case TokKind::kLparen: return "'('";
    case TokKind::kRparen: return "')'";
    case TokKind::kArrow: return "'->'";
    case TokKind::kLeq: return "'<='";
    case TokKind::kDots: return "'...'";
    case TokKind::kName: return "name";
    case TokKind::kAttrName: return "attribute name";
    case TokKind::kParamName: return "parameter name";
    case TokKind::kIdent: return "identifier";
    case TokKind::kInt: return "integer";
    case TokKind::kDecimal: return "decimal";
    case TokKind::kDimLabels: return "dim labels";
    case TokKind::kDxD: return "DxD dimensions";
    case TokKind::kPad: return "padding";
    case TokKind::kString: return "string";
  }
  return "token";
}

Lexer::Lexer(absl::string_view buf)
    : buf_(buf), pos_(buf.data()), end_(buf.data() + buf.size()), line_start_(buf.data()) {
  tok_.begin = pos_;
}

void Lexer::MakeToken(TokKind k, const char* start, const char* end) {
  tok_.kind = k;
  tok_.begin = start;
  tok_.text = absl::string_view(start, static_cast<size_t>(end - start));
  tok_.line = line_;
  tok_.col = static_cast<int>(start - line_start_) + 1;
}

void Lexer::MakeError(const char* start, const char* end, std::string msg) {
  MakeToken(TokKind::kError, start, end);
  str_ = std::move(msg);
}

void Lexer::SkipBlanks() {
  blank_error_ = false;
  // Fast path: at most one space, then the next token.
  const char* p = pos_;
  if (p < end_ && *p == ' ') ++p;
  if (p < end_ && !NeedsSkip(*p)) {
    pos_ = p;
    return;
  }
  while (pos_ < end_) {
    char c = *pos_;
    if (c == '\n') {
      ++pos_;
      ++line_;
      line_start_ = pos_;
    } else if (FastBlank(c)) {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < end_ && pos_[1] == '*') {
      const char* start = pos_;
      int start_line = line_;
      const char* start_line_start = line_start_;
      pos_ += 2;
      bool closed = false;
      while (pos_ < end_) {
        if (*pos_ == '*' && pos_ + 1 < end_ && pos_[1] == '/') {
          pos_ += 2;
          closed = true;
          break;
        }
        if (*pos_ == '\n') {
          ++line_;
          line_start_ = pos_ + 1;
        }
        ++pos_;
      }
      if (!closed) {
        line_ = start_line;
        line_start_ = start_line_start;
        MakeError(start, start + 2, "unterminated /* comment");
        blank_error_ = true;
        pos_ = end_;
        return;
      }
    } else if (c == '/' && pos_ + 1 < end_ && pos_[1] == '/') {
      while (pos_ < end_ && *pos_ != '\n' && *pos_ != '\r') ++pos_;
    } else {
      return;
    }
  }
}

const Token& Lexer::Lex() {
  SkipBlanks();
  if (blank_error_) return tok_;
  LexToken();
  return tok_;
}

char Lexer::PeekChar() const {
  const char* p = pos_;
  while (p < end_) {
    char c = *p;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
      ++p;
    } else if (c == '/' && p + 1 < end_ && p[1] == '*') {
      p += 2;
      while (p < end_ && !(*p == '*' && p + 1 < end_ && p[1] == '/')) ++p;
      if (p >= end_) return '\0';
      p += 2;
    } else if (c == '/' && p + 1 < end_ && p[1] == '/') {
      while (p < end_ && *p != '\n' && *p != '\r') ++p;
    } else {
      return c;
    }
  }
  return '\0';
}

// [0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}
size_t Lexer::MatchDimLabels(const char* p) const {
  const char* s = p;
  auto run = [&](const char* q, const char* letters) {
    const char* r = q;
    while (r < end_ && (IsDigit(*r) || *r == '?' || (*r == letters[0]) || (*r == letters[1]))) ++r;
    return r;
  };
  const char* q = run(s, "bf");
  if (q - s < 2 || q >= end_ || *q != '_') return 0;
  const char* r = run(q + 1, "io");
  if (r - (q + 1) < 2 || r + 1 >= end_ || r[0] != '-' || r[1] != '>') return 0;
  const char* t = run(r + 2, "bf");
  if (t - (r + 2) < 2) return 0;
  if (t < end_ && IsIdentChar(*t)) return 0;
  return static_cast<size_t>(t - s);
}

// [0-9]+(x[0-9]+)+
size_t Lexer::MatchDxD(const char* p) const {
  const char* q = p;
  if (q >= end_ || !IsDigit(*q)) return 0;
  while (q < end_ && IsDigit(*q)) ++q;
  int groups = 0;
  while (q + 1 < end_ && *q == 'x' && IsDigit(q[1])) {
    ++q;
    while (q < end_ && IsDigit(*q)) ++q;
    ++groups;
  }
  if (groups == 0) return 0;
  return static_cast<size_t>(q - p);
}

// -?\d+_-?\d+(_\d+)?(x-?\d+_-?\d+(_\d+)?)*
size_t Lexer::MatchPad(const char* p) const {
  auto num = [&](const char* q, bool allow_neg) -> const char* {
    if (allow_neg && q < end_ && *q == '-') ++q;
    if (q >= end_ || !IsDigit(*q)) return nullptr;
    while (q < end_ && IsDigit(*q)) ++q;
    return q;
  };
  auto entry = [&](const char* q) -> const char* {
    q = num(q, true);
    if (!q || q >= end_ || *q != '_') return nullptr;
    q = num(q + 1, true);
    if (!q) return nullptr;
    if (q < end_ && *q == '_') {
      const char* r = num(q + 1, false);
      if (r) q = r;
    }
    return q;
  };
  const char* q = entry(p);
  if (!q) return 0;
  while (q < end_ && *q == 'x') {
    const char* r = entry(q + 1);
    if (!r) break;
    q = r;
  }
  return static_cast<size_t>(q - p);
}

// -?(\d+|\d+\.\d*|\d*\.\d+)[eE][+-]?\d+  or  -?(\d+\.\d*|\d*\.\d+)
size_t Lexer::MatchDecimal(const char* p) const {
  const char* q = p;
  if (q < end_ && *q == '-') ++q;
  const char* int_start = q;
  while (q < end_ && IsDigit(*q)) ++q;
  bool has_int = q > int_start;
  bool has_dot = false, has_frac = false;
  if (q < end_ && *q == '.') {
    // Not "..." and need digits on at least one side.
    const char* f = q + 1;
    while (f < end_ && IsDigit(*f)) ++f;
    has_frac = f > q + 1;
    if (has_int || has_frac) {
      has_dot = true;
      q = f;
    }
  }
  if (!has_int && !has_frac) return 0;
  bool has_exp = false;
  if (q < end_ && (*q == 'e' || *q == 'E')) {
    const char* e = q + 1;
    if (e < end_ && (*e == '+' || *e == '-')) ++e;
    if (e < end_ && IsDigit(*e)) {
      while (e < end_ && IsDigit(*e)) ++e;
      q = e;
      has_exp = true;
    }
  }
  if (!has_dot && !has_exp) return 0;
  return static_cast<size_t>(q - p);
}

void Lexer::LexNumber(const char* start) {
  // Special floats: -inf, -nan.
  if (*start == '-' && start + 1 < end_ && IsIdentStart(start[1])) {
    const char* q = start + 1;
    while (q < end_ && IsIdentChar(*q)) ++q;
    absl::string_view word(start + 1, static_cast<size_t>(q - start - 1));
    if (word == "inf" || word == "nan") {
      pos_ = start + 1;
      LexIdentifierOrKeyword(start + 1);
      if (tok_.kind == TokKind::kDecimal) {
        tok_.dec_value = -tok_.dec_value;
        MakeToken(TokKind::kDecimal, start, pos_);
      }
      return;
    }
    MakeError(start, start + 1, "unexpected character '-'");
    pos_ = start + 1;
    return;
  }
  {
    // Fast path: a plain integer (the common case) is digits followed by a
    // character that cannot continue a decimal, dim-labels, DxD or pad token.
    const char* q = start + (*start == '-' ? 1 : 0);
    const char* d = q;
    uint64_t v = 0;
    while (q < end_ && FastDigit(*q) && q - d < 18) {
      v = v * 10 + static_cast<uint64_t>(*q - '0');
      ++q;
    }
    if (q > d && (q >= end_ || !(FastDigit(*q) || *q == '.' || *q == 'e' || *q == 'E' ||
                                 *q == 'x' || *q == '_' || *q == 'b' || *q == 'f' ||
                                 *q == '?'))) {
      pos_ = q;
      MakeToken(TokKind::kInt, start, q);
      tok_.int_is_big_unsigned = false;
      tok_.int_value = *start == '-' ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
      return;
    }
  }
  if (size_t n = MatchDecimal(start)) {
    pos_ = start + n;
    char small[64];
    std::string big;
    const char* cstr;
    if (n < sizeof(small)) {
      std::memcpy(small, start, n);
      small[n] = '\0';
      cstr = small;
    } else {
      big.assign(start, n);
      cstr = big.c_str();
    }
    errno = 0;
    char* endp = nullptr;
    double v = std::strtod(cstr, &endp);
    MakeToken(TokKind::kDecimal, start, pos_);
    tok_.dec_value = v;
    tok_.nan_payload = 0;
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL)) {
      MakeError(start, pos_, absl::StrCat("decimal value ", absl::string_view(start, n),
                                          " is out of the range of a 64-bit float"));
    }
    return;
  }
  if (IsDigit(*start)) {
    if (size_t n = MatchDimLabels(start)) {
      pos_ = start + n;
      MakeToken(TokKind::kDimLabels, start, pos_);
      return;
    }
    if (size_t n = MatchDxD(start)) {
      pos_ = start + n;
      MakeToken(TokKind::kDxD, start, pos_);
      return;
    }
  }
  if (size_t n = MatchPad(start)) {
    pos_ = start + n;
    MakeToken(TokKind::kPad, start, pos_);
    return;
  }
  const char* q = start;
  bool neg = false;
  if (*q == '-') {
    neg = true;
    ++q;
  }
  if (q >= end_ || !IsDigit(*q)) {
    MakeError(start, q, "unexpected character '-'");
    pos_ = q;
    return;
  }
  uint64_t v = 0;
  bool overflow = false;
  while (q < end_ && IsDigit(*q)) {
    uint64_t d = static_cast<uint64_t>(*q - '0');
    if (v > (UINT64_MAX - d) / 10) overflow = true;
    if (!overflow) v = v * 10 + d;
    ++q;
  }
  pos_ = q;
  if (!overflow && neg && v > (uint64_t{1} << 63)) overflow = true;
  if (overflow) {
    MakeError(start, q,
              absl::StrCat("integer ", absl::string_view(start, static_cast<size_t>(q - start)),
                           " does not fit in 64 bits"));
    return;
  }
  MakeToken(TokKind::kInt, start, q);
  tok_.int_is_big_unsigned = !neg && v > static_cast<uint64_t>(INT64_MAX);
  tok_.int_value = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

void Lexer::LexIdentifierOrKeyword(const char* start) {
  // Dim labels may start with b / f.
  if ((*start == 'b' || *start == 'f')) {
    if (size_t n = MatchDimLabels(start)) {
      pos_ = start + n;
      MakeToken(TokKind::kDimLabels, start, pos_);
      return;
    }
  }
  const char* q = start;
  while (q < end_ && FastIdentChar(*q)) ++q;
  absl::string_view word(start, static_cast<size_t>(q - start));
  pos_ = q;
  if (q < end_ && *q == '=' && !(q + 1 < end_ && q[1] == '=')) {
    ++pos_;
    MakeToken(TokKind::kAttrName, start, pos_);
    tok_.text = word;
    return;
  }
  if (q < end_ && *q == ':') {
    ++pos_;
    MakeToken(TokKind::kParamName, start, pos_);
    tok_.text = word;
    return;
  }
  if (word == "inf") {
    MakeToken(TokKind::kDecimal, start, q);
    tok_.dec_value = HUGE_VAL;
    tok_.nan_payload = 0;
    return;
  }
  if (word == "nan") {
    tok_.nan_payload = 0;
    const char* end = q;
    uint64_t payload = 0;
    if (q < end_ && *q == '(') {
      const char* r = q + 1;
      if (r + 1 < end_ && r[0] == '0' && (r[1] == 'x' || r[1] == 'X')) {
        r += 2;
        const char* hex_start = r;
        bool overflow = false;
        while (r < end_ && std::isxdigit(static_cast<unsigned char>(*r))) {
          int d = IsDigit(*r) ? *r - '0' : (std::tolower(static_cast<unsigned char>(*r)) - 'a' + 10);
          if (payload >> 60) overflow = true;
          payload = (payload << 4) | static_cast<uint64_t>(d);
          ++r;
        }
        if (r == hex_start || r >= end_ || *r != ')') {
          MakeError(start, r, "malformed NaN payload; expected nan(0x<hex digits>)");
          pos_ = r;
          return;
        }
        end = r + 1;
        constexpr uint64_t kMantissaMask = (uint64_t{1} << 52) - 1;
        if (overflow || payload == 0 || (payload & ~kMantissaMask) != 0) {
          MakeError(start, end, "NaN payload must be non-zero and fit in 52 bits");
          pos_ = end;
          return;
        }
      } else {
        MakeError(start, r, "malformed NaN payload; expected nan(0x<hex digits>)");
        pos_ = r;
        return;
      }
    }
    pos_ = end;
    MakeToken(TokKind::kDecimal, start, end);
    tok_.dec_value = std::numeric_limits<double>::quiet_NaN();
    tok_.nan_payload = payload;
    return;
  }
  MakeToken(TokKind::kIdent, start, q);
}

void Lexer::LexString(const char* start, char quote) {
  str_.clear();
  const char* q = start + 1;
  while (true) {
    if (q >= end_ || *q == '\n') {
      MakeError(start, q, "unterminated string");
      pos_ = q;
      return;
    }
    char c = *q;
    if (c == quote) {
      ++q;
      break;
    }
    if (c != '\\') {
      const char* run = q;
      q = ScanStringRun(q, end_, quote);
      str_.append(run, static_cast<size_t>(q - run));
      continue;
    }
    ++q;
    if (q >= end_) {
      MakeError(start, q, "unterminated string");
      pos_ = q;
      return;
    }
    char e = *q++;
    switch (e) {
      case 'n': str_.push_back('\n'); break;
      case 't': str_.push_back('\t'); break;
      case 'r': str_.push_back('\r'); break;
      case 'a': str_.push_back('\a'); break;
      case 'b': str_.push_back('\b'); break;
      case 'f': str_.push_back('\f'); break;
      case 'v': str_.push_back('\v'); break;
      case '\\': str_.push_back('\\'); break;
      case '"': str_.push_back('"'); break;
      case '\'': str_.push_back('\''); break;
      case '?': str_.push_back('?'); break;
      case 'x': {
        int v = 0, n = 0;
        while (q < end_ && n < 2 && std::isxdigit(static_cast<unsigned char>(*q))) {
          v = v * 16 + (IsDigit(*q) ? *q - '0' : std::tolower(static_cast<unsigned char>(*q)) - 'a' + 10);
          ++q;
          ++n;
        }
        if (n == 0) {
          MakeError(q - 2, q, "\\x escape needs hex digits");
          pos_ = q;
          return;
        }
        str_.push_back(static_cast<char>(v));
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0', n = 1;
          while (q < end_ && n < 3 && *q >= '0' && *q <= '7') {
            v = v * 8 + (*q - '0');
            ++q;
            ++n;
          }
          if (v > 255) {
            MakeError(q - n - 1, q, "octal escape out of range");
            pos_ = q;
            return;
          }
          str_.push_back(static_cast<char>(v));
        } else {
          MakeError(q - 2, q, absl::StrCat("unknown escape sequence \\", std::string(1, e)));
          pos_ = q;
          return;
        }
    }
  }
  pos_ = q;
  MakeToken(TokKind::kString, start, q);
}

bool Lexer::ScanPlainArrayShape(DimVector* dims, DimVector* minor_to_major, bool* has_layout) {
  // Reads a list of plain integers (at most 18 digits each) up to `close`;
  // returns the position after `close`, or null.
  auto int_list = [this](const char* p, char close, DimVector* out) -> const char* {
    out->clear();
    if (p < end_ && *p == close) return p + 1;
    while (true) {
      const char* d = p;
      int64_t v = 0;
      while (p < end_ && FastDigit(*p) && p - d < 18) v = v * 10 + (*p++ - '0');
      if (p == d || p >= end_) return nullptr;
      out->push_back(v);
      if (*p == ',') {
        ++p;
        continue;
      }
      return *p == close ? p + 1 : nullptr;
    }
  };
  const char* p = pos_;
  if (p >= end_ || *p != '[') return false;
  p = int_list(p + 1, ']', dims);
  if (p == nullptr) return false;
  *has_layout = false;
  if (p < end_ && *p == '{') {
    const char* q = int_list(p + 1, '}', minor_to_major);
    if (q == nullptr || minor_to_major->size() != dims->size()) return false;
    uint64_t seen = 0;
    if (dims->size() > 64) return false;
    for (int64_t d : *minor_to_major) {
      if (d >= static_cast<int64_t>(dims->size()) || (seen >> d & 1)) return false;
      seen |= uint64_t{1} << d;
    }
    *has_layout = true;
    p = q;
  }
  // The shape must end here: a following character that could continue it
  // sends it the slow way, and so does a `{` after blanks when no layout
  // was read (whether that is a layout depends on the context).
  if (p < end_ && (*p == '{' || *p == '[' || FastIdentChar(*p))) return false;
  if (!*has_layout) {
    const char* saved = pos_;
    pos_ = p;
    const bool brace_follows = PeekChar() == '{';
    pos_ = saved;
    if (brace_follows) return false;
  }
  pos_ = p;
  Lex();
  return true;
}

void Lexer::LexToken() {
  if (pos_ >= end_) {
    MakeToken(TokKind::kEof, end_, end_);
    return;
  }
  const char* start = pos_;
  char c = *pos_;
  auto single = [&](TokKind k) {
    pos_ = start + 1;
    MakeToken(k, start, pos_);
  };
  switch (c) {
    case '=': return single(TokKind::kEqual);
    case ',': return single(TokKind::kComma);
    case ':': return single(TokKind::kColon);
    case '*': return single(TokKind::kStar);
    case '#': return single(TokKind::kHash);
    case '+': return single(TokKind::kPlus);
    case '~': return single(TokKind::kTilde);
    case '[': return single(TokKind::kLbracket);
    case ']': return single(TokKind::kRbracket);
    case '{': return single(TokKind::kLbrace);
    case '}': return single(TokKind::kRbrace);
    case '(': return single(TokKind::kLparen);
    case ')': return single(TokKind::kRparen);
    case '?':
      if (size_t n = MatchDimLabels(start)) {
        pos_ = start + n;
        MakeToken(TokKind::kDimLabels, start, pos_);
        return;
      }
      return single(TokKind::kQuestion);
    case '<':
      if (start + 1 < end_ && start[1] == '=') {
        pos_ = start + 2;
        MakeToken(TokKind::kLeq, start, pos_);
        return;
      }
      pos_ = start + 1;
      MakeError(start, pos_, "unexpected character '<' (did you mean '<='?)");
      return;
    case '.':
      if (start + 2 < end_ && start[1] == '.' && start[2] == '.') {
        pos_ = start + 3;
        MakeToken(TokKind::kDots, start, pos_);
        return;
      }
      pos_ = start + 1;
      MakeError(start, pos_, "unexpected character '.' (a number may not start with '.')");
      return;
    case '/':
      pos_ = start + 1;
      MakeError(start, pos_, "unexpected '/' (comments are // or /* */)");
      return;
    case '-':
      if (start + 1 < end_ && start[1] == '>') {
        pos_ = start + 2;
        MakeToken(TokKind::kArrow, start, pos_);
        return;
      }
      LexNumber(start);
      return;
    case '"':
    case '\'':
      LexString(start, c);
      return;
    case '%': {
      const char* q = start + 1;
      if (q >= end_ || !IsIdentStart(*q)) {
        pos_ = q;
        MakeError(start, q, "expected a name after '%'");
        return;
      }
      while (q < end_ && FastIdentChar(*q)) ++q;
      pos_ = q;
      MakeToken(TokKind::kName, start, q);
      tok_.text = absl::string_view(start + 1, static_cast<size_t>(q - start - 1));
      return;
    }
    default:
      break;
  }
  if (IsDigit(c)) {
    LexNumber(start);
    return;
  }
  if (IsIdentStart(c)) {
    LexIdentifierOrKeyword(start);
    return;
  }
  pos_ = start + 1;
  unsigned char uc = static_cast<unsigned char>(c);
  if (uc >= 0x20 && uc < 0x7f) {
    MakeError(start, pos_, absl::StrCat("unexpected character '", std::string(1, c), "'"));
  } else {
    MakeError(start, pos_, absl::StrCat("unexpected byte 0x", absl::Hex(uc, absl::kZeroPad2)));
  }
}

bool Lexer::LexDictAtCurrent() {
  if (tok_.kind != TokKind::kLbrace) return false;
  const char* start = tok_.begin;
  int save_line = line_;
  const char* save_ls = line_start_;
  int tok_line = tok_.line, tok_col = tok_.col;
  const char* p = start;
  int depth = 0;
  bool in_str = false;
  while (p < end_) {
    char c = *p;
    if (c == '\n') {
      ++line_;
      line_start_ = p + 1;
    }
    if (in_str) {
      if (c == '\\' && p + 1 < end_) {
        ++p;
      } else if (c == '"') {
        in_str = false;
      }
    } else if (c == '"') {
      in_str = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0) {
        ++p;
        pos_ = p;
        tok_.kind = TokKind::kString;
        tok_.begin = start;
        tok_.text = absl::string_view(start, static_cast<size_t>(p - start));
        tok_.line = tok_line;
        tok_.col = tok_col;
        str_.assign(start, static_cast<size_t>(p - start));
        return true;
      }
    }
    ++p;
  }
  line_ = save_line;
  line_start_ = save_ls;
  return false;
}

bool Lexer::LexBalancedAtCurrent() {
  char open;
  char close;
  switch (tok_.kind) {
    case TokKind::kLbrace: open = '{'; close = '}'; break;
    case TokKind::kLparen: open = '('; close = ')'; break;
    case TokKind::kLbracket: open = '['; close = ']'; break;
    default: return false;
  }
  const char* start = tok_.begin;
  int save_line = line_;
  const char* save_ls = line_start_;
  int tok_line = tok_.line, tok_col = tok_.col;
  const char* p = start;
  int depth = 0;
  char in_str = 0;
  while (p < end_) {
    char c = *p;
    if (c == '\n') {
      ++line_;
      line_start_ = p + 1;
    }
    if (in_str) {
      if (c == '\\' && p + 1 < end_) {
        ++p;
      } else if (c == in_str) {
        in_str = 0;
      }
    } else if (c == '"' || c == '\'') {
      in_str = c;
    } else if (c == open) {
      ++depth;
    } else if (c == close) {
      if (--depth == 0) {
        ++p;
        pos_ = p;
        tok_.kind = TokKind::kString;
        tok_.begin = start;
        tok_.text = absl::string_view(start, static_cast<size_t>(p - start));
        tok_.line = tok_line;
        tok_.col = tok_col;
        str_.assign(start, static_cast<size_t>(p - start));
        return true;
      }
    }
    ++p;
  }
  line_ = save_line;
  line_start_ = save_ls;
  return false;
}

bool Lexer::LexWordAtCurrent() {
  const char* start = tok_.begin;
  const char* p = start;
  int depth = 0;
  while (p < end_) {
    char c = *p;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') break;
    if (depth == 0 && c == ',') break;
    if (c == '{' || c == '(' || c == '[') ++depth;
    if (c == '}' || c == ')' || c == ']') {
      if (depth == 0) break;
      --depth;
    }
    ++p;
  }
  if (p == start) return false;
  pos_ = p;
  tok_.kind = TokKind::kString;
  tok_.text = absl::string_view(start, static_cast<size_t>(p - start));
  str_.assign(start, static_cast<size_t>(p - start));
  return true;
}

}  // namespace hlo
