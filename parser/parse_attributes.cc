// Attribute values (spec §6): dispatch on AttrKind plus the structured
// forms (window, dim labels, padding, slices, replica groups, sharding,
// metadata, frontend attributes, statistics, aliasing, domain, accuracy).
#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "parser/parser_impl.h"

namespace hlo {
namespace parser_internal {

namespace {

bool EnumAllowed(absl::string_view allowed, absl::string_view v) {
  if (allowed.empty()) return true;
  for (absl::string_view a : absl::StrSplit(allowed, '|'))
    if (a == v) return true;
  return false;
}

std::string EnumList(absl::string_view allowed) {
  return absl::StrJoin(absl::StrSplit(allowed, '|'), ", ");
}

}  // namespace

absl::StatusOr<std::vector<bool>> Parser::ParseBoolList() {
  std::vector<bool> out;
  if (IsIdent("true") || IsIdent("false")) {
    HLO_PARSE_ASSIGN_OR_RETURN(bool b, ParseBool());
    out.push_back(b);
    return out;
  }
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start a list of booleans"));
  if (Accept(TokKind::kRbrace)) return out;
  while (true) {
    HLO_PARSE_ASSIGN_OR_RETURN(bool b, ParseBool());
    out.push_back(b);
    if (Accept(TokKind::kComma)) continue;
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "',' or '}' in a list of booleans"));
    return out;
  }
}

absl::Status Parser::ParseAttrValue(const AttrSpec& spec, Opcode op, Scope* scope,
                                    AttrValue* out) {
  (void)op;
  DepthGuard guard(this);
  HLO_PARSE_RETURN_IF_ERROR(CheckDepth());
  const absl::string_view name = spec.name;
  switch (spec.kind) {
    case AttrKind::kBool: {
      HLO_PARSE_ASSIGN_OR_RETURN(bool b, ParseBool());
      *out = b;
      return absl::OkStatus();
    }
    case AttrKind::kInt: {
      HLO_PARSE_ASSIGN_OR_RETURN(int64_t v, ParseInt(name));
      *out = v;
      return absl::OkStatus();
    }
    case AttrKind::kFloat: {
      HLO_PARSE_ASSIGN_OR_RETURN(double v, ParseDouble(name));
      *out = v;
      return absl::OkStatus();
    }
    case AttrKind::kString: {
      HLO_PARSE_ASSIGN_OR_RETURN(std::string s, ParseString(name));
      *out = std::move(s);
      return absl::OkStatus();
    }
    case AttrKind::kEnum: {
      if (kind() != TokKind::kIdent && kind() != TokKind::kString)
        return Unexpected(absl::StrCat("a value for ", name,
                                       spec.enum_values.empty()
                                           ? std::string()
                                           : absl::StrCat(" (one of ", EnumList(spec.enum_values), ")")));
      std::string v = kind() == TokKind::kString ? lexer_.str() : std::string(tok().text);
      const bool legacy = name == "api_version" && v == "API_VERSION_UNSPECIFIED";
      if (!legacy && !EnumAllowed(spec.enum_values, v))
        return ErrorAtTok(absl::StrCat("unknown value '", v, "' for attribute ", name,
                                       "; allowed values: ", EnumList(spec.enum_values)));
      Next();
      *out = std::move(v);
      return absl::OkStatus();
    }
    case AttrKind::kIntList: {
      HLO_PARSE_ASSIGN_OR_RETURN(std::vector<int64_t> v, ParseIntList());
      *out = std::move(v);
      return absl::OkStatus();
    }
    case AttrKind::kIntListList: {
      HLO_PARSE_ASSIGN_OR_RETURN(auto v, ParseIntListList());
      *out = std::move(v);
      return absl::OkStatus();
    }
    case AttrKind::kBoolList: {
      HLO_PARSE_ASSIGN_OR_RETURN(std::vector<bool> v, ParseBoolList());
      *out = std::move(v);
      return absl::OkStatus();
    }
    case AttrKind::kEnumList: {
      std::vector<std::string> v;
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, absl::StrCat("'{' to start ", name)));
      if (!Accept(TokKind::kRbrace)) {
        while (true) {
          if (kind() != TokKind::kIdent) return Unexpected(absl::StrCat("a value for ", name));
          std::string e(tok().text);
          if (!EnumAllowed(spec.enum_values, e))
            return ErrorAtTok(absl::StrCat("unknown value '", e, "' for attribute ", name,
                                           "; allowed values: ", EnumList(spec.enum_values)));
          v.push_back(std::move(e));
          Next();
          if (Accept(TokKind::kComma)) continue;
          HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "',' or '}'"));
          break;
        }
      }
      *out = std::move(v);
      return absl::OkStatus();
    }
    case AttrKind::kWindow: {
      Window w;
      HLO_PARSE_RETURN_IF_ERROR(ParseWindow(&w));
      *out = std::move(w);
      return absl::OkStatus();
    }
    case AttrKind::kConvDimLabels: {
      ConvolutionDimensionNumbers d;
      HLO_PARSE_RETURN_IF_ERROR(ParseConvDimLabels(&d));
      *out = std::move(d);
      return absl::OkStatus();
    }
    case AttrKind::kPaddingConfig: {
      PaddingConfig pc;
      HLO_PARSE_RETURN_IF_ERROR(ParsePaddingConfig(&pc));
      *out = std::move(pc);
      return absl::OkStatus();
    }
    case AttrKind::kSliceRanges: {
      SliceRanges sr;
      HLO_PARSE_RETURN_IF_ERROR(ParseSliceRanges(&sr));
      *out = std::move(sr);
      return absl::OkStatus();
    }
    case AttrKind::kShape: {
      HLO_PARSE_ASSIGN_OR_RETURN(Shape s, ParseShape());
      *out = std::move(s);
      return absl::OkStatus();
    }
    case AttrKind::kShapeList: {
      std::vector<Shape> v;
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, absl::StrCat("'{' to start ", name)));
      if (!Accept(TokKind::kRbrace)) {
        while (true) {
          HLO_PARSE_ASSIGN_OR_RETURN(Shape s, ParseShape());
          v.push_back(std::move(s));
          if (Accept(TokKind::kComma)) continue;
          HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "',' or '}' in shape list"));
          break;
        }
      }
      *out = std::move(v);
      return absl::OkStatus();
    }
    case AttrKind::kComputation: {
      HLO_PARSE_ASSIGN_OR_RETURN(Computation * c, ParseComputationRef(scope));
      *out = c;
      return absl::OkStatus();
    }
    case AttrKind::kComputationList: {
      std::vector<Computation*> v;
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, absl::StrCat("'{' to start ", name)));
      if (!Accept(TokKind::kRbrace)) {
        while (true) {
          HLO_PARSE_ASSIGN_OR_RETURN(Computation * c, ParseComputationRef(scope));
          v.push_back(c);
          if (Accept(TokKind::kComma)) continue;
          HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "',' or '}' in computation list"));
          break;
        }
      }
      *out = std::move(v);
      return absl::OkStatus();
    }
    case AttrKind::kStringOrDict: {
      StringOrDict s;
      HLO_PARSE_RETURN_IF_ERROR(ParseStringOrDict(&s));
      *out = std::move(s);
      return absl::OkStatus();
    }
    case AttrKind::kLiteral: {
      HLO_PARSE_ASSIGN_OR_RETURN(Literal lit, ParseLiteralWithShape());
      *out = LiteralPtr(std::make_shared<const Literal>(std::move(lit)));
      return absl::OkStatus();
    }
    case AttrKind::kReplicaGroups: {
      CollectiveDeviceList l;
      HLO_PARSE_RETURN_IF_ERROR(ParseReplicaGroups(&l));
      *out = std::move(l);
      return absl::OkStatus();
    }
    case AttrKind::kSharding: {
      Sharding s;
      HLO_PARSE_RETURN_IF_ERROR(ParseSharding(&s));
      *out = std::move(s);
      return absl::OkStatus();
    }
    case AttrKind::kMetadata: {
      // Parsed straight into its box (every instruction of a dump has one).
      Boxed<OpMetadata> md;
      HLO_PARSE_RETURN_IF_ERROR(ParseMetadata(&md.get()));
      *out = std::move(md);
      return absl::OkStatus();
    }
    case AttrKind::kFrontendAttributes: {
      FrontendAttributes fa;
      HLO_PARSE_RETURN_IF_ERROR(ParseFrontendAttributes(&fa));
      *out = std::move(fa);
      return absl::OkStatus();
    }
    case AttrKind::kStatistics: {
      Statistics st;
      HLO_PARSE_RETURN_IF_ERROR(ParseStatistics(&st));
      *out = std::move(st);
      return absl::OkStatus();
    }
    case AttrKind::kOutputOperandAliasing: {
      std::vector<OutputOperandAlias> v;
      HLO_PARSE_RETURN_IF_ERROR(ParseOutputOperandAliasing(&v));
      *out = std::move(v);
      return absl::OkStatus();
    }
    case AttrKind::kDomain: {
      DomainSpec d;
      HLO_PARSE_RETURN_IF_ERROR(ParseDomain(&d));
      *out = std::move(d);
      return absl::OkStatus();
    }
    case AttrKind::kResultAccuracy: {
      ResultAccuracy ra;
      HLO_PARSE_RETURN_IF_ERROR(ParseResultAccuracy(&ra));
      *out = std::move(ra);
      return absl::OkStatus();
    }
    case AttrKind::kRaw: {
      RawText raw;
      HLO_PARSE_RETURN_IF_ERROR(ParseRaw(&raw));
      *out = std::move(raw);
      return absl::OkStatus();
    }
  }
  return ErrorAtTok("unsupported attribute kind");
}

// ---------------------------------------------------------------------------

namespace {

// Splits "1x2x3" (or "5") into ints.
bool SplitDxD(absl::string_view text, std::vector<int64_t>* out) {
  for (absl::string_view part : absl::StrSplit(text, 'x')) {
    int64_t v;
    if (!absl::SimpleAtoi(part, &v)) return false;
    out->push_back(v);
  }
  return true;
}

}  // namespace

absl::Status Parser::ParseWindow(Window* w) {
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start the window"));
  std::vector<int64_t> size, stride, lhs_dilate, rhs_dilate, reversal;
  std::vector<std::pair<int64_t, int64_t>> pad;
  absl::flat_hash_set<std::string> seen;
  SourceLoc start = TokLoc();
  while (kind() != TokKind::kRbrace) {
    if (kind() != TokKind::kAttrName)
      return Unexpected("a window field (size=, stride=, pad=, lhs_dilate=, rhs_dilate=, rhs_reversal=)");
    std::string field(tok().text);
    if (!seen.insert(field).second)
      return ErrorAtTok(absl::StrCat("window field ", field, "= given twice"));
    Next();
    if (field == "pad") {
      if (kind() != TokKind::kPad) return Unexpected("padding low_high[xlow_high...] for pad=");
      for (absl::string_view dim : absl::StrSplit(tok().text, 'x')) {
        std::vector<absl::string_view> parts = absl::StrSplit(dim, '_');
        int64_t lo, hi;
        if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &lo) || !absl::SimpleAtoi(parts[1], &hi))
          return ErrorAtTok("window pad= expects padding_low and padding_high separated by '_' "
                            "(low_high per dimension, no interior padding)");
        pad.emplace_back(lo, hi);
      }
      Next();
      continue;
    }
    std::vector<int64_t>* target = nullptr;
    if (field == "size") target = &size;
    else if (field == "stride") target = &stride;
    else if (field == "lhs_dilate") target = &lhs_dilate;
    else if (field == "rhs_dilate") target = &rhs_dilate;
    else if (field == "rhs_reversal") target = &reversal;
    else
      return ErrorAtTok(absl::StrCat("unknown window field '", field,
                                     "'; allowed: size, stride, pad, lhs_dilate, rhs_dilate, "
                                     "rhs_reversal"));
    if (kind() == TokKind::kInt) {
      target->push_back(tok().int_value);
    } else if (kind() == TokKind::kDxD) {
      if (!SplitDxD(tok().text, target)) return ErrorAtTok("malformed NxM value");
    } else {
      return Unexpected(absl::StrCat("an NxM value for ", field, "="));
    }
    Next();
  }
  Next();  // '}'
  if (size.empty() && (!stride.empty() || !pad.empty() || !lhs_dilate.empty() ||
                       !rhs_dilate.empty() || !reversal.empty()))
    return ErrorAt(start, "window needs size= when other fields are given");
  auto check = [&](size_t n, absl::string_view f) -> absl::Status {
    if (n != 0 && n != size.size())
      return ErrorAt(start, absl::StrCat("window field '", f, "=' must have the same number of "
                                         "dimensions as 'size=' (", size.size(), "), but has ", n));
    return absl::OkStatus();
  };
  HLO_PARSE_RETURN_IF_ERROR(check(stride.size(), "stride"));
  HLO_PARSE_RETURN_IF_ERROR(check(pad.size(), "pad"));
  HLO_PARSE_RETURN_IF_ERROR(check(lhs_dilate.size(), "lhs_dilate"));
  HLO_PARSE_RETURN_IF_ERROR(check(rhs_dilate.size(), "rhs_dilate"));
  HLO_PARSE_RETURN_IF_ERROR(check(reversal.size(), "rhs_reversal"));
  for (size_t i = 0; i < size.size(); ++i) {
    WindowDimension d;
    d.size = size[i];
    if (!stride.empty()) d.stride = stride[i];
    if (!pad.empty()) {
      d.padding_low = pad[i].first;
      d.padding_high = pad[i].second;
    }
    if (!lhs_dilate.empty()) d.base_dilation = lhs_dilate[i];
    if (!rhs_dilate.empty()) d.window_dilation = rhs_dilate[i];
    if (!reversal.empty()) {
      if (reversal[i] != 0 && reversal[i] != 1) return ErrorAt(start, "rhs_reversal entries must be 0 or 1");
      d.window_reversal = reversal[i] == 1;
    }
    w->dimensions.push_back(d);
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseConvDimLabels(ConvolutionDimensionNumbers* dn) {
  if (kind() != TokKind::kDimLabels) return Unexpected("dim labels like b01f_01io->b01f");
  absl::string_view text = tok().text;
  size_t us = text.find('_');
  size_t arrow = text.find("->");
  absl::string_view lhs = text.substr(0, us);
  absl::string_view rhs = text.substr(us + 1, arrow - us - 1);
  absl::string_view out = text.substr(arrow + 2);
  struct Group {
    absl::string_view labels;
    char a, b;  // the two letters
    int64_t* pa;
    int64_t* pb;
    std::vector<int64_t>* spatial;
    int64_t* rank;
  };
  Group groups[3] = {
      {lhs, 'b', 'f', &dn->input_batch_dimension, &dn->input_feature_dimension,
       &dn->input_spatial_dimensions, &dn->input_rank},
      {rhs, 'i', 'o', &dn->kernel_input_feature_dimension, &dn->kernel_output_feature_dimension,
       &dn->kernel_spatial_dimensions, &dn->kernel_rank},
      {out, 'b', 'f', &dn->output_batch_dimension, &dn->output_feature_dimension,
       &dn->output_spatial_dimensions, &dn->output_rank},
  };
  int64_t num_spatial = -1;
  std::string missing;
  for (Group& g : groups) {
    bool seen_a = false, seen_b = false;
    int64_t n_spatial = 0;
    for (char c : g.labels)
      if (IsDigit(c)) ++n_spatial;
    std::vector<int64_t> spatial(static_cast<size_t>(n_spatial), -1);
    for (size_t i = 0; i < g.labels.size(); ++i) {
      char c = g.labels[i];
      int64_t pos = static_cast<int64_t>(i);
      if (c == '?') continue;
      if (c == g.a || c == g.b) {
        bool& seen = c == g.a ? seen_a : seen_b;
        if (seen) return ErrorAtTok(absl::StrCat("dim labels '", g.labels, "': expects unique '",
                                                 std::string(1, c), "'"));
        seen = true;
        *(c == g.a ? g.pa : g.pb) = pos;
        continue;
      }
      if (IsDigit(c)) {
        int64_t d = c - '0';
        if (d >= n_spatial || spatial[static_cast<size_t>(d)] != -1)
          return ErrorAtTok(absl::StrCat("dim labels '", g.labels,
                                         "': spatial dimensions must be unique and numbered 0..",
                                         n_spatial - 1));
        spatial[static_cast<size_t>(d)] = pos;
        continue;
      }
      return ErrorAtTok(absl::StrCat("dim labels '", g.labels, "': unexpected label '",
                                     std::string(1, c), "', expects [0-9", std::string(1, g.a),
                                     std::string(1, g.b), "?]"));
    }
    if (num_spatial >= 0 && n_spatial != num_spatial)
      return ErrorAtTok(absl::StrCat("dim labels '", text, "': the three groups must have same "
                                     "number of spatial dimensions"));
    num_spatial = n_spatial;
    if ((!seen_a || !seen_b) && missing.empty())
      missing = absl::StrCat("dim labels '", g.labels, "' must contain both '",
                             std::string(1, g.a), "' and '", std::string(1, g.b), "'");
    *g.spatial = std::move(spatial);
    *g.rank = static_cast<int64_t>(g.labels.size());
  }
  if (!missing.empty()) return ErrorAtTok(missing);
  Next();
  return absl::OkStatus();
}

absl::StatusOr<ConvolutionDimensionNumbers> Parser::ParseConvDimLabelsTop() {
  Next();
  ConvolutionDimensionNumbers dn;
  HLO_PARSE_RETURN_IF_ERROR(ParseConvDimLabels(&dn));
  if (kind() != TokKind::kEof) return Unexpected("end of input after the dim labels");
  return dn;
}

absl::Status Parser::ParsePaddingConfig(PaddingConfig* pc) {
  if (kind() != TokKind::kPad)
    return Unexpected("padding low_high[_interior] per dimension joined by 'x' (e.g. 0_1x2_2_1)");
  for (absl::string_view dim : absl::StrSplit(tok().text, 'x')) {
    std::vector<absl::string_view> parts = absl::StrSplit(dim, '_');
    PaddingDimension d;
    if (parts.size() < 2 || parts.size() > 3 || !absl::SimpleAtoi(parts[0], &d.low) ||
        !absl::SimpleAtoi(parts[1], &d.high) ||
        (parts.size() == 3 && !absl::SimpleAtoi(parts[2], &d.interior)))
      return ErrorAtTok("expects padding_low and padding_high separated by '_'");
    if (d.interior < 0) return ErrorAtTok("interior padding must be non-negative");
    pc->push_back(d);
  }
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseSliceRanges(SliceRanges* sr) {
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start slice ranges"));
  if (Accept(TokKind::kRbrace)) return absl::OkStatus();
  while (true) {
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbracket, "'[' to start a slice range"));
    std::vector<int64_t> v;
    while (true) {
      HLO_PARSE_ASSIGN_OR_RETURN(int64_t x, ParseInt("slice bound"));
      v.push_back(x);
      if (Accept(TokKind::kColon)) continue;
      break;
    }
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbracket, "']' to end a slice range"));
    if (v.size() < 2 || v.size() > 3)
      return ErrorAtTok("a slice range is [start:limit] or [start:limit:stride]");
    SliceRange r;
    r.start = v[0];
    r.limit = v[1];
    if (v.size() == 3) r.stride = v[2];
    sr->push_back(r);
    if (Accept(TokKind::kComma)) continue;
    return Expect(TokKind::kRbrace, "',' or '}' in slice ranges");
  }
}

absl::Status Parser::ParseIotaReshape(absl::string_view what, IotaDeviceList* iota) {
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLeq, absl::StrCat("'<=' in ", what)));
  HLO_PARSE_ASSIGN_OR_RETURN(iota->reshape_dims, ParseBracketIntList());
  if (!IsIdent("T")) return absl::OkStatus();
  Next();
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after T"));
  while (true) {
    HLO_PARSE_ASSIGN_OR_RETURN(int64_t p, ParseInt("transpose permutation"));
    iota->transpose_perm.push_back(p);
    if (Accept(TokKind::kComma)) continue;
    return Expect(TokKind::kRparen, "',' or ')'");
  }
}

absl::Status Parser::ParseReplicaGroups(CollectiveDeviceList* out) {
  if (kind() == TokKind::kLbracket) {
    out->is_iota = true;
    SourceLoc loc = TokLoc();
    HLO_PARSE_ASSIGN_OR_RETURN(out->iota.dims, ParseBracketIntList());
    if (out->iota.dims.size() != 2)
      return ErrorAt(loc, "the iota replica group list must be 2-dimensional: [groups,size]");
    HLO_PARSE_RETURN_IF_ERROR(ParseIotaReshape("iota replica groups", &out->iota));
    int64_t prod_dims = 1, prod_reshape = 1;
    for (int64_t d : out->iota.dims) {
      if (d < 0 || (d > 0 && prod_dims > (int64_t{1} << 40) / d))
        return ErrorAt(loc, "iota replica group dimensions out of range");
      prod_dims *= d;
    }
    for (int64_t d : out->iota.reshape_dims) {
      if (d < 0 || (d > 0 && prod_reshape > (int64_t{1} << 40) / d))
        return ErrorAt(loc, "iota reshape dimensions out of range");
      prod_reshape *= d;
    }
    if (prod_dims != prod_reshape)
      return ErrorAt(loc, "iota replica groups: the group dimensions and the reshape dimensions "
                          "must have the same number of devices");
    std::vector<int64_t> perm = out->iota.transpose_perm;
    if (!perm.empty()) {
      std::sort(perm.begin(), perm.end());
      for (size_t i = 0; i < perm.size(); ++i)
        if (perm[i] != static_cast<int64_t>(i) || perm.size() != out->iota.reshape_dims.size())
          return ErrorAt(loc, "iota transpose must be a permutation of the reshape dimensions");
    }
    return absl::OkStatus();
  }
  if (IsIdent("mesh") || IsIdent("maximal_mesh")) {
    out->is_mesh = true;
    return ParseMeshAxes(&out->mesh);
  }
  HLO_PARSE_ASSIGN_OR_RETURN(out->groups, ParseIntListList());
  return absl::OkStatus();
}

absl::Status Parser::ParseSharding(Sharding* out) {
  DepthGuard guard(this);
  HLO_PARSE_RETURN_IF_ERROR(CheckDepth());
  if (kind() != TokKind::kLbrace) return Unexpected("'{' to start a sharding");
  char c = lexer_.PeekChar();
  if (c == '{' || c == '}') {
    // Tuple sharding (or the empty tuple sharding {}).
    out->kind = Sharding::Kind::kTuple;
    Next();
    if (Accept(TokKind::kRbrace)) return absl::OkStatus();
    while (true) {
      Sharding e;
      HLO_PARSE_RETURN_IF_ERROR(ParseSingleSharding(&e));
      out->tuple_elements.push_back(std::move(e));
      if (Accept(TokKind::kComma)) continue;
      return Expect(TokKind::kRbrace, "',' or '}' in a tuple sharding");
    }
  }
  return ParseSingleSharding(out);
}

absl::Status Parser::ParseSingleSharding(Sharding* out) {
  if (kind() != TokKind::kLbrace) return Unexpected("'{' to start a sharding");
  {
    // Named (Shardy) sharding: kept verbatim.
    Lexer::State st = lexer_.Save();
    Next();
    bool named = IsIdent("mesh") || IsIdent("maximal_mesh");
    lexer_.Restore(st);
    if (named) {
      if (!lexer_.LexBalancedAtCurrent()) return ErrorAtTok("unbalanced braces in named sharding");
      out->kind = Sharding::Kind::kNamed;
      out->named_text = lexer_.str();
      Next();
      return absl::OkStatus();
    }
  }
  SourceLoc loc = TokLoc();
  Next();
  bool have_kind = false;
  bool have_devices = false;
  while (kind() != TokKind::kRbrace) {
    if (kind() == TokKind::kComma) {
      Next();
      continue;
    }
    if (kind() == TokKind::kIdent) {
      absl::string_view w = tok().text;
      if (w == "replicated" || w == "manual" || w == "unknown" || w == "unreduced" ||
          w == "maximal") {
        if (have_kind) return ErrorAtTok("sharding kind given twice");
        have_kind = true;
        out->kind = w == "replicated"  ? Sharding::Kind::kReplicated
                    : w == "manual"    ? Sharding::Kind::kManual
                    : w == "unknown"   ? Sharding::Kind::kUnknown
                    : w == "unreduced" ? Sharding::Kind::kUnreduced
                                       : Sharding::Kind::kMaximal;
        Next();
        continue;
      }
      if (w == "last_tile_dim_replicate") {
        out->last_tile_dim_replicate = true;
        Next();
        continue;
      }
      if (w == "shard_as" || w == "shard_like") {
        out->shard_group_kind = std::string(w);
        Next();
        HLO_PARSE_ASSIGN_OR_RETURN(out->shard_group_id, ParseInt("shard group id"));
        continue;
      }
      return ErrorAtTok(absl::StrCat("unknown sharding keyword '", w, "'"));
    }
    if (kind() != TokKind::kAttrName) return Unexpected("a sharding field");
    std::string field(tok().text);
    Next();
    if (field == "device") {
      HLO_PARSE_ASSIGN_OR_RETURN(out->device, ParseInt("device"));
    } else if (field == "devices") {
      have_devices = true;
      HLO_PARSE_ASSIGN_OR_RETURN(out->tile_assignment_dims, ParseBracketIntList());
      if (kind() == TokKind::kLeq) {
        out->iota_devices = true;
        out->iota.dims = out->tile_assignment_dims;
        HLO_PARSE_RETURN_IF_ERROR(ParseIotaReshape("iota devices", &out->iota));
      } else {
        while (kind() == TokKind::kInt) {
          out->device_ids.push_back(tok().int_value);
          Next();
          if (kind() == TokKind::kComma && lexer_.PeekChar() >= '0' && lexer_.PeekChar() <= '9') {
            Next();
            continue;
          }
          break;
        }
        if (out->device_ids.empty()) return Unexpected("device ids or '<=[...]' after devices=[...]");
      }
    } else if (field == "last_tile_dims") {
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' after last_tile_dims="));
      while (kind() != TokKind::kRbrace) {
        if (kind() != TokKind::kIdent) return Unexpected("a sharding type in last_tile_dims");
        out->last_tile_dims.emplace_back(tok().text);
        Next();
        if (!Accept(TokKind::kComma)) break;
      }
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' after last_tile_dims"));
    } else if (field == "metadata") {
      if (kind() == TokKind::kLbrace && lexer_.PeekChar() == '{') {
        Next();
        while (kind() == TokKind::kLbrace) {
          OpMetadata md;
          HLO_PARSE_RETURN_IF_ERROR(ParseMetadata(&md));
          out->metadata.push_back(std::move(md));
          if (!Accept(TokKind::kComma)) break;
        }
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' after sharding metadata"));
      } else {
        OpMetadata md;
        HLO_PARSE_RETURN_IF_ERROR(ParseMetadata(&md));
        out->metadata.push_back(std::move(md));
      }
    } else {
      return ErrorAtTok(absl::StrCat("unknown sharding field '", field, "'"));
    }
  }
  Next();  // '}'
  if (have_devices) {
    if (have_kind) return ErrorAt(loc, "a tiled sharding (devices=) cannot also be replicated/maximal/manual");
    out->kind = Sharding::Kind::kTiled;
    int64_t n = 1;
    for (int64_t d : out->tile_assignment_dims) {
      if (d <= 0 || n > (int64_t{1} << 40) / d) return ErrorAt(loc, "invalid tile assignment dimensions");
      n *= d;
    }
    if (!out->iota_devices && static_cast<int64_t>(out->device_ids.size()) != n)
      return ErrorAt(loc, absl::StrCat("the tile assignment has ", n, " entries, but ",
                                       out->device_ids.size(), " device ids are given"));
    if (out->iota_devices) {
      int64_t m = 1;
      for (int64_t d : out->iota.reshape_dims) {
        if (d <= 0 || m > (int64_t{1} << 40) / d) return ErrorAt(loc, "invalid iota dimensions");
        m *= d;
      }
      if (m != n) return ErrorAt(loc, "iota device count does not match the tile assignment");
    }
  } else if (!have_kind) {
    return ErrorAt(loc, "expects a sharding kind (replicated, maximal, manual, unknown, unreduced) "
                        "or devices=");
  } else if (out->kind == Sharding::Kind::kMaximal && out->device < 0) {
    return ErrorAt(loc, "maximal sharding needs device=N");
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseMetadata(OpMetadata* md) {
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start metadata"));
  static constexpr absl::string_view kFields[] = {
      "op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name", "source_line",
      "source_end_line", "source_column", "source_end_column", "stack_frame_id", "profile_type"};
  uint32_t seen = 0;
  while (kind() != TokKind::kRbrace) {
    if (kind() == TokKind::kComma) {
      Next();
      continue;
    }
    if (kind() != TokKind::kAttrName) return Unexpected("a metadata field (e.g. op_name=)");
    absl::string_view f = tok().text;
    for (uint32_t i = 0; i < sizeof(kFields) / sizeof(kFields[0]); ++i) {
      if (kFields[i] != f) continue;
      if (seen & (1u << i)) return ErrorAtTok(absl::StrCat("metadata field ", f, " given twice"));
      seen |= 1u << i;
    }
    Next();
    if (f == "op_type") {
      HLO_PARSE_RETURN_IF_ERROR(ParseStringInto(f, &md->op_type));
    } else if (f == "op_name") {
      HLO_PARSE_RETURN_IF_ERROR(ParseStringInto(f, &md->op_name));
    } else if (f == "source_file") {
      HLO_PARSE_RETURN_IF_ERROR(ParseStringInto(f, &md->source_file));
    } else if (f == "deduplicated_name") {
      HLO_PARSE_RETURN_IF_ERROR(ParseStringInto(f, &md->deduplicated_name));
    } else if (f == "scheduling_name") {
      HLO_PARSE_RETURN_IF_ERROR(ParseStringInto(f, &md->scheduling_name));
    } else if (f == "source_line") {
      HLO_PARSE_ASSIGN_OR_RETURN(md->source_line, ParseInt(f));
    } else if (f == "source_end_line") {
      HLO_PARSE_ASSIGN_OR_RETURN(md->source_end_line, ParseInt(f));
    } else if (f == "source_column") {
      HLO_PARSE_ASSIGN_OR_RETURN(md->source_column, ParseInt(f));
    } else if (f == "source_end_column") {
      HLO_PARSE_ASSIGN_OR_RETURN(md->source_end_column, ParseInt(f));
    } else if (f == "stack_frame_id") {
      HLO_PARSE_ASSIGN_OR_RETURN(md->stack_frame_id, ParseInt(f));
    } else if (f == "profile_type") {
      HLO_PARSE_ASSIGN_OR_RETURN(md->profile_type, ParseIntList());
    } else {
      return ErrorAtTok(absl::StrCat("unknown metadata field '", f,
                                     "'; allowed: op_type, op_name, source_file, source_line, "
                                     "source_end_line, source_column, source_end_column, "
                                     "stack_frame_id, profile_type, deduplicated_name, "
                                     "scheduling_name"));
    }
  }
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseStringOrDict(StringOrDict* out) {
  if (kind() == TokKind::kString) {
    out->text = lexer_.str();
    out->is_dict = false;
    Next();
    return absl::OkStatus();
  }
  if (kind() == TokKind::kLbrace) {
    if (!lexer_.LexDictAtCurrent()) return ErrorAtTok("unbalanced '{' in dictionary value");
    out->text = lexer_.str();
    out->is_dict = true;
    Next();
    return absl::OkStatus();
  }
  return Unexpected("a quoted string or a {...} dictionary");
}

absl::Status Parser::ParseFrontendAttributes(FrontendAttributes* fa) {
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start frontend_attributes"));
  while (kind() != TokKind::kRbrace) {
    if (kind() != TokKind::kAttrName) return Unexpected("an attribute key followed by '='");
    std::string key(tok().text);
    Next();
    StringOrDict v;
    HLO_PARSE_RETURN_IF_ERROR(ParseStringOrDict(&v));
    (*fa)[key] = std::move(v);
    if (!Accept(TokKind::kComma)) break;
  }
  return Expect(TokKind::kRbrace, "',' or '}' in frontend_attributes");
}

absl::Status Parser::ParseStatistics(Statistics* st) {
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start statistics"));
  bool first = true;
  while (kind() != TokKind::kRbrace) {
    if (kind() != TokKind::kAttrName) return Unexpected("a statistic name followed by '='");
    std::string key(tok().text);
    Next();
    if (first) {
      if (key != "visualizing_index")
        return ErrorAtTok("statistics must start with visualizing_index=");
      HLO_PARSE_ASSIGN_OR_RETURN(st->visualizing_index, ParseInt(key));
    } else {
      HLO_PARSE_ASSIGN_OR_RETURN(double v, ParseDouble(key));
      st->stats.emplace_back(std::move(key), v);
    }
    first = false;
    if (!Accept(TokKind::kComma)) break;
  }
  return Expect(TokKind::kRbrace, "',' or '}' in statistics");
}

absl::Status Parser::ParseOutputOperandAliasing(std::vector<OutputOperandAlias>* out) {
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start output_to_operand_aliasing"));
  if (Accept(TokKind::kRbrace)) return absl::OkStatus();
  while (true) {
    OutputOperandAlias a;
    HLO_PARSE_ASSIGN_OR_RETURN(a.output_index, ParseShapeIndex());
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kColon, "':' after the output shape index"));
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' before the operand number"));
    HLO_PARSE_ASSIGN_OR_RETURN(a.operand, ParseInt("operand number"));
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' after the operand number"));
    HLO_PARSE_ASSIGN_OR_RETURN(a.operand_index, ParseShapeIndex());
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' to end the alias"));
    out->push_back(std::move(a));
    if (Accept(TokKind::kComma)) continue;
    return Expect(TokKind::kRbrace, "',' or '}' in output_to_operand_aliasing");
  }
}

absl::Status Parser::ParseDomain(DomainSpec* d) {
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start the domain"));
  bool have_kind = false, have_entry = false, have_exit = false;
  SourceLoc loc = TokLoc();
  while (kind() != TokKind::kRbrace) {
    if (kind() != TokKind::kAttrName) return Unexpected("kind=, entry= or exit=");
    std::string f(tok().text);
    Next();
    if (f == "kind") {
      HLO_PARSE_ASSIGN_OR_RETURN(d->kind, ParseString("domain kind"));
      have_kind = true;
    } else if (f == "entry") {
      HLO_PARSE_RETURN_IF_ERROR(ParseSharding(&d->entry));
      have_entry = true;
    } else if (f == "exit") {
      HLO_PARSE_RETURN_IF_ERROR(ParseSharding(&d->exit));
      have_exit = true;
    } else {
      return ErrorAtTok(absl::StrCat("unknown domain field '", f, "'"));
    }
    if (!Accept(TokKind::kComma)) break;
  }
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' to end the domain"));
  if (!have_kind || !have_entry || !have_exit)
    return ErrorAt(loc, "domain needs kind=, entry= and exit=");
  if (d->kind != "sharding")
    return ErrorAt(loc, absl::StrCat("unsupported domain kind \"", d->kind, "\" (only \"sharding\")"));
  return absl::OkStatus();
}

absl::Status Parser::ParseResultAccuracy(ResultAccuracy* ra) {
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start result_accuracy"));
  if (kind() != TokKind::kAttrName) return Unexpected("mode= or tolerance=");
  std::string f(tok().text);
  Next();
  if (f == "mode") {
    if (kind() != TokKind::kIdent) return Unexpected("a result accuracy mode (default or highest)");
    std::string m(tok().text);
    if (m != "default" && m != "highest")
      return ErrorAtTok(absl::StrCat("unknown result accuracy mode '", m,
                                     "'; expects default or highest"));
    ra->mode = std::move(m);
    Next();
  } else if (f == "tolerance") {
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start tolerance"));
    absl::flat_hash_set<std::string> seen;
    while (kind() != TokKind::kRbrace) {
      if (kind() != TokKind::kAttrName) return Unexpected("atol=, rtol= or ulps=");
      std::string t(tok().text);
      if (!seen.insert(t).second) return ErrorAtTok(absl::StrCat(t, " given twice"));
      Next();
      if (t == "atol") {
        HLO_PARSE_ASSIGN_OR_RETURN(ra->atol, ParseDouble(t));
      } else if (t == "rtol") {
        HLO_PARSE_ASSIGN_OR_RETURN(ra->rtol, ParseDouble(t));
      } else if (t == "ulps") {
        HLO_PARSE_ASSIGN_OR_RETURN(ra->ulps, ParseInt(t));
      } else {
        return ErrorAtTok(absl::StrCat("unknown tolerance field '", t, "'; allowed: atol, rtol, ulps"));
      }
      if (!Accept(TokKind::kComma)) break;
    }
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' to end tolerance"));
  } else {
    return ErrorAtTok(absl::StrCat("unknown result_accuracy field '", f, "'; expects mode= or tolerance="));
  }
  return Expect(TokKind::kRbrace, "'}' to end result_accuracy");
}

absl::Status Parser::ParseRaw(RawText* raw) {
  if (kind() == TokKind::kLbrace || kind() == TokKind::kLparen || kind() == TokKind::kLbracket) {
    if (!lexer_.LexBalancedAtCurrent()) return ErrorAtTok("unbalanced brackets in attribute value");
    raw->text = lexer_.str();
    Next();
    return absl::OkStatus();
  }
  if (kind() == TokKind::kEof || kind() == TokKind::kComma || kind() == TokKind::kRbrace)
    return Unexpected("an attribute value");
  // A bare word such as `highest` or `L.1@2:4_R.0@2:4`: everything up to the
  // next separator.
  if (!lexer_.LexWordAtCurrent()) return ErrorAtTok("malformed attribute value");
  raw->text = lexer_.str();
  Next();
  return absl::OkStatus();
}

}  // namespace parser_internal
}  // namespace hlo
