#ifndef HLO_IR_NAMED_SHARDING_H_
#define HLO_IR_NAMED_SHARDING_H_

// A named (Shardy) sharding, the structure of the text the IR keeps
// verbatim (Sharding::named_text); hlo::ParseNamedSharding builds it, the
// proto writer turns it into XLA's NamedShardingProto.
//
//   {mesh['a'=2,'b'=4], [{'a'}, {'b':(2)2, ?}], replicated={'c'}, unreduced={'d'},
//    manual={'e'}, metadata={{op_name="x"}, {op_name="y"}}}
//   {mesh['a'=2,'b'=4], replicated}   {mesh['a'=2], unreduced}   {mesh['a'=2], manual}
//   {maximal_mesh[device_id=5]}       {mesh[], replicated}

#include <vector>

#include "ir/attribute.h"
#include "ir/mesh_axes.h"

namespace hlo {

struct NamedShardingSpec {
  // How a sharding without dimension shardings is written: the whole
  // tensor replicated, unreduced or manual over every axis.
  enum class Whole { kNone, kReplicated, kUnreduced, kManual };
  struct Dim {
    std::vector<MeshAxisRef> axes;  // major to minor
    bool closed = true;             // no trailing `?`
  };
  MeshAxesDeviceList mesh;  // its grouping axes unused
  Whole whole = Whole::kNone;
  std::vector<Dim> dims;
  std::vector<MeshAxisRef> replicated, unreduced, manual;
  std::vector<OpMetadata> metadata;
};

}  // namespace hlo

#endif  // HLO_IR_NAMED_SHARDING_H_
