// The mesh-axes form of replica_groups (see ir/mesh_axes.h):
//   mesh['x'=2,'y'=4] {'y'}        mesh[x=2,y=2], device_ids=(0,2,1,3) {x}
//   mesh[a=8] {a:(1)2, a:(4)2}     maximal_mesh[device_id=3] {}
// Axis names may be quoted or bare; device_ids may be a flat list, a nested
// brace list or an iota form ([4]<=[2,2]T(1,0)).

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

absl::Status Parser::ParseMeshAxes(MeshAxesDeviceList* out) {
  const SourceLoc loc = TokLoc();
  if (IsIdent("maximal_mesh")) {
    out->maximal = true;
    Next();
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbracket, "'[' after maximal_mesh"));
    if (kind() != TokKind::kAttrName || tok().text != "device_id") return Unexpected("device_id=");
    Next();
    HLO_PARSE_ASSIGN_OR_RETURN(int64_t id, ParseInt("device id"));
    out->device_ids = {id};
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbracket, "']' after the device id"));
  } else {
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
    if (Accept(TokKind::kComma) && kind() == TokKind::kAttrName && tok().text == "device_ids") {
      Next();
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after device_ids="));
      if (kind() == TokKind::kLbracket) {
        IotaDeviceList iota;
        HLO_PARSE_ASSIGN_OR_RETURN(iota.dims, ParseBracketIntList());
        HLO_PARSE_RETURN_IF_ERROR(ParseIotaReshape("iota device ids", &iota));
        std::string problem = iota.Problem();
        if (!problem.empty()) return ErrorAt(loc, absl::StrCat("iota device ids: ", problem));
        out->device_ids = iota.Expand();
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
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after the device ids"));
    } else {
      lexer_.Restore(st);
    }
  }
  // The grouping axes.
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' with the axes to group over"));
  while (kind() != TokKind::kRbrace) {
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
    MeshAxisRef ref;
    ref.axis = FindAxis(*out, name);
    if (ref.axis < 0) return ErrorAt(axis_loc, absl::StrCat("'", name, "' is not an axis of the mesh"));
    if (sub_axis) {
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' before a sub-axis pre-size"));
      HLO_PARSE_ASSIGN_OR_RETURN(ref.pre_size, ParseInt("sub-axis pre-size"));
      if (ref.pre_size <= 0) return ErrorAt(axis_loc, "a sub-axis pre-size must be positive");
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after a sub-axis pre-size"));
      HLO_PARSE_ASSIGN_OR_RETURN(ref.size, ParseInt("sub-axis size"));
    }
    out->axes.push_back(ref);
    if (!Accept(TokKind::kComma) && kind() != TokKind::kRbrace) return Unexpected("',' or '}' after a mesh axis");
  }
  Next();  // }
  std::string problem = out->Problem();
  if (!problem.empty()) return ErrorAt(loc, absl::StrCat("invalid mesh-axes replica_groups: ", problem));
  return absl::OkStatus();
}

}  // namespace parser_internal
}  // namespace hlo
