#ifndef HLO_IR_MESH_AXES_H_
#define HLO_IR_MESH_AXES_H_

// The mesh-axes form of replica_groups (newer XLA dumps):
//
//   replica_groups=mesh['x'=2,'y'=4] {'y'}
//   replica_groups=mesh[x=2,y=2], device_ids=(0,2,1,3) {x}
//   replica_groups=mesh[a=8] {a:(1)2, a:(4)2}
//   replica_groups=mesh['a'=2,'b'=2], device_ids=([2,2]T(1,0)) {'a'}
//
// The devices of a named mesh (row-major over the axes; iota unless
// device_ids lists them) are grouped over the listed axes: a group is the set
// of devices that differ only in their coordinates along those axes, ordered
// by those coordinates in the order the axes are listed. `name:(p)s` names a
// sub-axis: the axis split as [p, s, size/(p*s)], the middle part taken.

#include <cstdint>
#include <string>
#include <vector>

namespace hlo {

struct MeshAxisRef {
  int64_t axis = 0;      // index into MeshAxesDeviceList::axis_names
  int64_t pre_size = 0;  // 0: the whole axis; else the sub-axis "(pre_size)size"
  int64_t size = 0;
  bool is_sub_axis() const { return pre_size > 0; }
  bool operator==(const MeshAxisRef& o) const {
    return axis == o.axis && pre_size == o.pre_size && size == o.size;
  }
};

struct MeshAxesDeviceList {
  bool maximal = false;      // maximal_mesh[device_id=N]: one device, no axes
  bool quoted_names = false; // names were written 'x' (printed back the same way)
  std::vector<std::string> axis_names;
  std::vector<int64_t> axis_sizes;
  std::vector<int64_t> device_ids;  // empty: iota over the mesh
  // device_ids=([4,16]T(1,0)), XLA's form of a mesh whose devices are an iota
  // reshaped and transposed (MeshProto's iota_transform): kept, canonical,
  // to print back so; device_ids holds the devices expanded.
  std::vector<int64_t> iota_reshape_dims;
  std::vector<int64_t> iota_transpose_perm;
  std::vector<MeshAxisRef> axes;    // the grouping axes, in written order

  bool operator==(const MeshAxesDeviceList& o) const {
    return maximal == o.maximal && quoted_names == o.quoted_names && axis_names == o.axis_names &&
           axis_sizes == o.axis_sizes && device_ids == o.device_ids && iota_reshape_dims == o.iota_reshape_dims &&
           iota_transpose_perm == o.iota_transpose_perm && axes == o.axes;
  }

  // Sets the devices to iota(prod(reshape_dims)) reshaped to reshape_dims and
  // transposed by transpose_perm (after the axes are set). Returns what is
  // wrong (not as many devices as the mesh, not a permutation), else "".
  // An identity transform leaves the mesh's default (iota) devices.
  std::string SetDeviceIota(std::vector<int64_t> reshape_dims, std::vector<int64_t> transpose_perm);

  int64_t num_devices() const;
  int64_t AxisRefSize(const MeshAxisRef& r) const;

  // Empty when the list is well formed, else what is wrong (XLA's rules: axis
  // sizes positive, names unique, device ids a permutation of the devices,
  // sub-axes dividing their axis, grouping axes neither overlapping nor
  // mergeable neighbours).
  std::string Problem() const;

  // The explicit groups; empty when Problem() is not empty.
  std::vector<std::vector<int64_t>> Groups() const;

  // XLA's text form (without the leading "replica_groups=").
  void AppendText(std::string* out) const;
  // The mesh alone: `mesh['x'=2,'y'=2], device_ids=(...)` or
  // `maximal_mesh[device_id=N]` (also the head of a named sharding).
  void AppendMeshText(std::string* out) const;
  // A grouping or sharding axis: `'x'` or `'x':(2)2`.
  void AppendAxisText(const MeshAxisRef& r, std::string* out) const;
};

}  // namespace hlo

#endif  // HLO_IR_MESH_AXES_H_
