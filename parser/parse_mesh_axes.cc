// The mesh-axes form of replica_groups (see ir/mesh_axes.h):
//   mesh['x'=2,'y'=4] {'y'}        mesh[x=2,y=2], device_ids=(0,2,1,3) {x}
//   mesh[a=8] {a:(1)2, a:(4)2}     maximal_mesh[device_id=3] {}
// Axis names may be quoted or bare; device_ids may be a flat list, a nested
// brace list, XLA's iota form ([2,2]T(1,0): reshape dims and permutation,
// kept as such) or ours ([4]<=[2,2]T(1,0), expanded).

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "parser/parser_impl.h"

namespace hlo {
namespace parser_internal {
namespace {

int64_t FindAxis(const MeshAxesDeviceList& m, absl::string_view name) {
  auto it = std::find(m.axis_names.begin(), m.axis_names.end(), name);
  return it == m.axis_names.end() ? -1 : static_cast<int64_t>(it - m.axis_names.begin());
}

}  // namespace

absl::Status Parser::ParseMeshHeader(MeshAxesDeviceList* out) {
  const SourceLoc loc = TokLoc();
  if (IsIdent("maximal_mesh")) {
    out->maximal = true;
    Next();
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbracket, "'[' after maximal_mesh"));
    if (kind() != TokKind::kAttrName || tok().text != "device_id") return Unexpected("device_id=");
    Next();
    HLO_PARSE_ASSIGN_OR_RETURN(int64_t id, ParseInt("device id"));
    out->device_ids = {id};
    return Expect(TokKind::kRbracket, "']' after the device id");
  }
  if (!IsIdent("mesh")) return Unexpected("mesh[...] or maximal_mesh[...]");
  Next();  // mesh
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbracket, "'[' after mesh"));
  while (kind() != TokKind::kRbracket) {
    if (kind() == TokKind::kString) {
      out->quoted_names = true;
      out->axis_names.push_back(lexer_.str());
      Next();
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'=' after a mesh axis name"));
    } else if (kind() == TokKind::kAttrName) {
      out->axis_names.emplace_back(tok().text);
      Next();
    } else {
      return Unexpected("a mesh axis (name=size)");
    }
    HLO_PARSE_ASSIGN_OR_RETURN(int64_t size, ParseInt("mesh axis size"));
    out->axis_sizes.push_back(size);
    if (!Accept(TokKind::kComma) && kind() != TokKind::kRbracket) return Unexpected("',' or ']' in a mesh");
  }
  Next();  // ]
  // `, device_ids=(...)`: the comma is shared with the attribute list, so
  // look ahead for the name before taking it.
  Lexer::State st = lexer_.Save();
  if (!Accept(TokKind::kComma) || kind() != TokKind::kAttrName || tok().text != "device_ids") {
    lexer_.Restore(st);
    return absl::OkStatus();
  }
  Next();
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after device_ids="));
  if (kind() == TokKind::kLbracket) {
    IotaDeviceList iota;
    HLO_PARSE_ASSIGN_OR_RETURN(iota.dims, ParseBracketIntList());
    if (kind() == TokKind::kLeq) {
      HLO_PARSE_RETURN_IF_ERROR(ParseIotaReshape("iota device ids", &iota));
      std::string problem = iota.Problem();
      if (!problem.empty()) return ErrorAt(loc, absl::StrCat("iota device ids: ", problem));
      out->device_ids = iota.Expand();
    } else {
      // XLA's form: [reshape dims]T(permutation) over the mesh's devices.
      std::vector<int64_t> perm;
      if (IsIdent("T")) {
        Next();
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after T"));
        while (true) {
          HLO_PARSE_ASSIGN_OR_RETURN(int64_t p, ParseInt("transpose permutation"));
          perm.push_back(p);
          if (Accept(TokKind::kComma)) continue;
          HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "',' or ')'"));
          break;
        }
      } else {
        for (size_t i = 0; i < iota.dims.size(); ++i) perm.push_back(static_cast<int64_t>(i));
      }
      std::string problem = out->SetDeviceIota(iota.dims, perm);
      if (!problem.empty()) return ErrorAt(loc, absl::StrCat("iota device ids: ", problem));
    }
  } else {
    int depth = 0;
    while (kind() != TokKind::kRparen || depth > 0) {
      if (kind() == TokKind::kLbrace) {
        ++depth;
      } else if (kind() == TokKind::kRbrace) {
        if (--depth < 0) return Unexpected("a device id");
      } else if (kind() == TokKind::kInt) {
        out->device_ids.push_back(tok().int_value);
      } else if (kind() != TokKind::kComma) {
        return Unexpected("a device id");
      }
      Next();
    }
  }
  return Expect(TokKind::kRparen, "')' after the device ids");
}

absl::Status Parser::ParseMeshAxisRef(const MeshAxesDeviceList& mesh, MeshAxisRef* ref) {
  const SourceLoc axis_loc = TokLoc();
  std::string name;
  bool sub_axis = false;
  if (kind() == TokKind::kString) {
    name = lexer_.str();
    Next();
    sub_axis = Accept(TokKind::kColon);
  } else if (kind() == TokKind::kIdent || kind() == TokKind::kParamName) {
    name = std::string(tok().text);
    sub_axis = kind() == TokKind::kParamName;
    Next();
  } else {
    return Unexpected("a mesh axis name");
  }
  ref->axis = FindAxis(mesh, name);
  if (ref->axis < 0) return ErrorAt(axis_loc, absl::StrCat("'", name, "' is not an axis of the mesh"));
  if (sub_axis) {
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' before a sub-axis pre-size"));
    HLO_PARSE_ASSIGN_OR_RETURN(ref->pre_size, ParseInt("sub-axis pre-size"));
    if (ref->pre_size <= 0) return ErrorAt(axis_loc, "a sub-axis pre-size must be positive");
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after a sub-axis pre-size"));
    HLO_PARSE_ASSIGN_OR_RETURN(ref->size, ParseInt("sub-axis size"));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseMeshAxes(MeshAxesDeviceList* out) {
  const SourceLoc loc = TokLoc();
  HLO_PARSE_RETURN_IF_ERROR(ParseMeshHeader(out));
  // The grouping axes.
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' with the axes to group over"));
  while (kind() != TokKind::kRbrace) {
    MeshAxisRef ref;
    HLO_PARSE_RETURN_IF_ERROR(ParseMeshAxisRef(*out, &ref));
    out->axes.push_back(ref);
    if (!Accept(TokKind::kComma) && kind() != TokKind::kRbrace) return Unexpected("',' or '}' after a mesh axis");
  }
  Next();  // }
  std::string problem = out->Problem();
  if (!problem.empty()) return ErrorAt(loc, absl::StrCat("invalid mesh-axes replica_groups: ", problem));
  return absl::OkStatus();
}

absl::StatusOr<NamedShardingSpec> Parser::ParseNamedShardingTop() {
  using Whole = NamedShardingSpec::Whole;
  Next();
  NamedShardingSpec out;
  const SourceLoc loc = TokLoc();
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start a named sharding"));
  HLO_PARSE_RETURN_IF_ERROR(ParseMeshHeader(&out.mesh));
  auto axis_list = [&](std::vector<MeshAxisRef>* list) -> absl::Status {
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' with mesh axes"));
    while (kind() != TokKind::kRbrace) {
      MeshAxisRef ref;
      HLO_PARSE_RETURN_IF_ERROR(ParseMeshAxisRef(out.mesh, &ref));
      list->push_back(ref);
      if (!Accept(TokKind::kComma) && kind() != TokKind::kRbrace) return Unexpected("',' or '}' after a mesh axis");
    }
    Next();
    return absl::OkStatus();
  };
  while (Accept(TokKind::kComma)) {
    if (kind() == TokKind::kIdent && out.whole == Whole::kNone && out.dims.empty() &&
        (tok().text == "replicated" || tok().text == "unreduced" || tok().text == "manual")) {
      out.whole = tok().text == "replicated" ? Whole::kReplicated
                  : tok().text == "unreduced" ? Whole::kUnreduced
                                              : Whole::kManual;
      Next();
    } else if (kind() == TokKind::kLbracket) {
      Next();
      while (kind() != TokKind::kRbracket) {
        NamedShardingSpec::Dim dim;
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' with a dimension's axes"));
        while (kind() != TokKind::kRbrace) {
          if (Accept(TokKind::kQuestion)) {
            dim.closed = false;
          } else {
            MeshAxisRef ref;
            HLO_PARSE_RETURN_IF_ERROR(ParseMeshAxisRef(out.mesh, &ref));
            dim.axes.push_back(ref);
          }
          if (!Accept(TokKind::kComma) && kind() != TokKind::kRbrace) return Unexpected("',' or '}' in a dimension");
        }
        Next();
        out.dims.push_back(std::move(dim));
        if (!Accept(TokKind::kComma) && kind() != TokKind::kRbracket) return Unexpected("',' or ']'");
      }
      Next();
    } else if (kind() == TokKind::kAttrName && tok().text == "replicated") {
      Next();
      HLO_PARSE_RETURN_IF_ERROR(axis_list(&out.replicated));
    } else if (kind() == TokKind::kAttrName && tok().text == "unreduced") {
      Next();
      HLO_PARSE_RETURN_IF_ERROR(axis_list(&out.unreduced));
    } else if (kind() == TokKind::kAttrName && tok().text == "manual") {
      Next();
      HLO_PARSE_RETURN_IF_ERROR(axis_list(&out.manual));
    } else if (kind() == TokKind::kAttrName && tok().text == "metadata") {
      Next();
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' with the sharding's metadata"));
      while (kind() != TokKind::kRbrace) {
        OpMetadata md;
        HLO_PARSE_RETURN_IF_ERROR(ParseMetadata(&md));
        out.metadata.push_back(std::move(md));
        if (!Accept(TokKind::kComma) && kind() != TokKind::kRbrace) return Unexpected("',' or '}' in metadata");
      }
      Next();
    } else {
      return Unexpected("a named sharding part ([dims], replicated, unreduced, manual, metadata=)");
    }
  }
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' to end the named sharding"));
  if (kind() != TokKind::kEof) return Unexpected("end of input after the named sharding");
  if (!out.mesh.axis_names.empty() || out.mesh.maximal) {
    std::string problem = out.mesh.Problem();
    if (!problem.empty()) return ErrorAt(loc, absl::StrCat("invalid mesh: ", problem));
  }
  return out;
}

}  // namespace parser_internal
}  // namespace hlo
