#include "ir/mesh_axes.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "absl/strings/str_cat.h"

namespace hlo {
namespace {

constexpr int64_t kMaxDevices = int64_t{1} << 24;

// How one mesh axis is split so that each grouping sub-axis on it is a
// dimension of its own: the split sizes, and for each reference to the axis
// (in written order) the index of its dimension within the split.
struct AxisSplit {
  std::vector<int64_t> dims;
  std::vector<int64_t> grouped;
};

AxisSplit SplitAxis(int64_t axis_size, std::vector<MeshAxisRef> refs) {
  AxisSplit s;
  if (refs.empty()) {
    s.dims = {axis_size};
    return s;
  }
  if (refs.size() == 1 && !refs[0].is_sub_axis()) {
    s.dims = {axis_size};
    s.grouped = {0};
    return s;
  }
  // Sub-axes only (validated): walk them from the smallest pre_size (the
  // most major part of the axis), the gaps between them becoming dimensions
  // of their own.
  std::vector<size_t> order(refs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return refs[a].pre_size < refs[b].pre_size; });
  s.grouped.assign(refs.size(), 0);
  int64_t covered = 1;
  for (size_t k : order) {
    if (refs[k].pre_size != covered) {
      s.dims.push_back(refs[k].pre_size / covered);
      covered = refs[k].pre_size;
    }
    s.grouped[k] = static_cast<int64_t>(s.dims.size());
    s.dims.push_back(refs[k].size);
    covered *= refs[k].size;
  }
  if (covered != axis_size) s.dims.push_back(axis_size / covered);
  return s;
}

void AppendName(std::string* out, const std::string& name, bool quoted) {
  if (quoted) {
    absl::StrAppend(out, "'", name, "'");
  } else {
    out->append(name);
  }
}

}  // namespace

int64_t MeshAxesDeviceList::num_devices() const {
  if (maximal) return 1;
  int64_t n = 1;
  for (int64_t s : axis_sizes) n *= s;
  return n;
}

int64_t MeshAxesDeviceList::AxisRefSize(const MeshAxisRef& r) const {
  if (r.is_sub_axis()) return r.size;
  return r.axis >= 0 && r.axis < static_cast<int64_t>(axis_sizes.size()) ? axis_sizes[r.axis] : 0;
}

std::string MeshAxesDeviceList::Problem() const {
  if (maximal) {
    if (device_ids.size() != 1 || device_ids[0] < 0) return "a maximal mesh names exactly one device";
    if (!axes.empty()) return "a maximal mesh has no axes to group over";
    return "";
  }
  if (axis_names.empty()) return "the mesh has no axes";
  if (axis_names.size() != axis_sizes.size()) return "every mesh axis needs a size";
  std::set<std::string> names;
  int64_t n = 1;
  for (size_t i = 0; i < axis_names.size(); ++i) {
    if (!names.insert(axis_names[i]).second) return absl::StrCat("mesh axis '", axis_names[i], "' appears twice");
    if (axis_sizes[i] <= 0) return absl::StrCat("mesh axis '", axis_names[i], "' must have a positive size");
    if (axis_sizes[i] > kMaxDevices / n) return "the mesh has too many devices";
    n *= axis_sizes[i];
  }
  if (!device_ids.empty()) {
    if (static_cast<int64_t>(device_ids.size()) != n)
      return absl::StrCat("device_ids lists ", device_ids.size(), " devices but the mesh has ", n);
    std::vector<int64_t> sorted = device_ids;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < n; ++i)
      if (sorted[i] != i) return absl::StrCat("device_ids must be a permutation of 0..", n - 1);
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    const MeshAxisRef& r = axes[i];
    if (r.axis < 0 || r.axis >= static_cast<int64_t>(axis_sizes.size())) return "grouping axis out of range";
    const int64_t full = axis_sizes[r.axis];
    const std::string& name = axis_names[r.axis];
    if (r.is_sub_axis()) {
      if (r.size <= 1) return absl::StrCat("sub-axis of '", name, "' must have a size above 1");
      if (r.pre_size > full || r.size > full || full % (r.pre_size * r.size) != 0)
        return absl::StrCat("sub-axis ", name, ":(", r.pre_size, ")", r.size, " does not divide the axis size ", full);
      if (r.size >= full)
        return absl::StrCat("sub-axis ", name, ":(", r.pre_size, ")", r.size,
                            " must be smaller than the axis (size ", full, ")");
    }
    for (size_t j = 0; j < i; ++j) {
      const MeshAxisRef& o = axes[j];
      if (o.axis != r.axis) continue;
      if (!o.is_sub_axis() || !r.is_sub_axis()) return absl::StrCat("grouping axes overlap on '", name, "'");
      const int64_t r_next = r.pre_size * r.size, o_next = o.pre_size * o.size;
      if (r_next > o.pre_size && o_next > r.pre_size)
        return absl::StrCat("grouping axes overlap on '", name, "'");
      if (std::max(r.pre_size, o.pre_size) % std::min(r_next, o_next) != 0)
        return absl::StrCat("sub-axes of '", name, "' cannot coexist");
    }
    if (i > 0) {
      const MeshAxisRef& prev = axes[i - 1];
      if (prev.axis == r.axis && prev.is_sub_axis() && r.is_sub_axis() && prev.pre_size * prev.size == r.pre_size)
        return absl::StrCat("adjacent sub-axes of '", name, "' should be written as one");
    }
  }
  return "";
}

std::vector<std::vector<int64_t>> MeshAxesDeviceList::Groups() const {
  if (!Problem().empty()) return {};
  if (maximal) return {{device_ids[0]}};
  // Split every axis so that each grouping (sub-)axis is one dimension.
  std::vector<int64_t> dims, grouped;
  std::vector<int64_t> first_dim(axis_sizes.size());
  std::vector<AxisSplit> splits(axis_sizes.size());
  for (size_t a = 0; a < axis_sizes.size(); ++a) {
    std::vector<MeshAxisRef> refs;
    for (const MeshAxisRef& r : axes)
      if (r.axis == static_cast<int64_t>(a)) refs.push_back(r);
    splits[a] = SplitAxis(axis_sizes[a], refs);
    first_dim[a] = static_cast<int64_t>(dims.size());
    dims.insert(dims.end(), splits[a].dims.begin(), splits[a].dims.end());
  }
  std::vector<size_t> used(axis_sizes.size(), 0);
  for (const MeshAxisRef& r : axes) grouped.push_back(first_dim[r.axis] + splits[r.axis].grouped[used[r.axis]++]);
  // Ungrouped dimensions first (they number the groups), grouped ones last
  // in written order (they order the devices within a group).
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d)
    if (std::find(grouped.begin(), grouped.end(), d) == grouped.end()) perm.push_back(d);
  perm.insert(perm.end(), grouped.begin(), grouped.end());

  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  int64_t group_size = 1;
  for (const MeshAxisRef& r : axes) group_size *= AxisRefSize(r);
  const int64_t n = num_devices();
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(n / group_size));
  std::vector<int64_t> idx(rank, 0);  // index in the transposed order
  for (int64_t k = 0; k < n; ++k) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d) src += idx[d] * strides[perm[d]];
    out[k / group_size].push_back(device_ids.empty() ? src : device_ids[src]);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < dims[perm[d]]) break;
      idx[d] = 0;
    }
  }
  return out;
}

std::string MeshAxesDeviceList::SetDeviceIota(std::vector<int64_t> reshape_dims,
                                              std::vector<int64_t> transpose_perm) {
  const int64_t n = num_devices();
  int64_t prod = 1;
  for (int64_t d : reshape_dims) {
    if (d <= 0 || d > kMaxDevices / prod) return "iota reshape dims must be positive (at most 2^24 devices)";
    prod *= d;
  }
  if (prod != n) return absl::StrCat("the iota holds ", prod, " devices but the mesh has ", n);
  std::vector<int64_t> sorted = transpose_perm;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.size() != reshape_dims.size()) return "the transpose must be as long as the reshape dims";
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int64_t>(i)) return "the transpose must be a permutation of the reshape dims";
  // XLA's canonical form: dimensions of size 1 dropped, dimensions that
  // stay adjacent and in order after the transpose merged.
  while (true) {
    std::vector<int64_t> dims, perm, new_index(reshape_dims.size(), -1);
    for (size_t i = 0; i < reshape_dims.size(); ++i)
      if (reshape_dims[i] != 1) new_index[i] = static_cast<int64_t>(dims.size()), dims.push_back(reshape_dims[i]);
    for (int64_t p : transpose_perm)
      if (new_index[p] >= 0) perm.push_back(new_index[p]);
    bool merged = false;
    for (size_t k = 0; k + 1 < perm.size() && !merged; ++k) {
      if (perm[k + 1] != perm[k] + 1) continue;
      dims[perm[k]] *= dims[perm[k + 1]];
      dims[perm[k + 1]] = 1;
      merged = true;
    }
    reshape_dims = std::move(dims);
    transpose_perm = std::move(perm);
    if (!merged) break;
  }
  iota_reshape_dims.clear();
  iota_transpose_perm.clear();
  device_ids.clear();
  if (reshape_dims.size() <= 1) return "";  // the identity: the mesh's default devices
  // Device k of the mesh (row-major) is the element at k of the transposed
  // array, i.e. iota at the index whose transposed coordinates are k's.
  const size_t rank = reshape_dims.size();
  std::vector<int64_t> strides(rank, 1), tdims(rank), idx(rank, 0);
  for (size_t d = rank - 1; d > 0; --d) strides[d - 1] = strides[d] * reshape_dims[d];
  for (size_t d = 0; d < rank; ++d) tdims[d] = reshape_dims[transpose_perm[d]];
  for (int64_t k = 0; k < n; ++k) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d) src += idx[d] * strides[transpose_perm[d]];
    device_ids.push_back(src);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < tdims[d]) break;
      idx[d] = 0;
    }
  }
  iota_reshape_dims = std::move(reshape_dims);
  iota_transpose_perm = std::move(transpose_perm);
  return "";
}

void MeshAxesDeviceList::AppendMeshText(std::string* out) const {
  if (maximal) {
    absl::StrAppend(out, "maximal_mesh[device_id=", device_ids.empty() ? 0 : device_ids[0], "]");
    return;
  }
  out->append("mesh[");
  for (size_t i = 0; i < axis_names.size(); ++i) {
    if (i) out->push_back(',');
    AppendName(out, axis_names[i], quoted_names);
    absl::StrAppend(out, "=", i < axis_sizes.size() ? axis_sizes[i] : 0);
  }
  out->push_back(']');
  if (!iota_reshape_dims.empty()) {
    out->append(", device_ids=([");
    for (size_t i = 0; i < iota_reshape_dims.size(); ++i) absl::StrAppend(out, i ? "," : "", iota_reshape_dims[i]);
    out->append("]T(");
    for (size_t i = 0; i < iota_transpose_perm.size(); ++i) absl::StrAppend(out, i ? "," : "", iota_transpose_perm[i]);
    out->append("))");
  } else if (!device_ids.empty()) {
    out->append(", device_ids=(");
    for (size_t i = 0; i < device_ids.size(); ++i) absl::StrAppend(out, i ? "," : "", device_ids[i]);
    out->push_back(')');
  }
}

void MeshAxesDeviceList::AppendAxisText(const MeshAxisRef& r, std::string* out) const {
  const bool known = r.axis >= 0 && r.axis < static_cast<int64_t>(axis_names.size());
  AppendName(out, known ? axis_names[r.axis] : "?", quoted_names);
  if (r.is_sub_axis()) absl::StrAppend(out, ":(", r.pre_size, ")", r.size);
}

void MeshAxesDeviceList::AppendText(std::string* out) const {
  AppendMeshText(out);
  out->append(" {");
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i) out->push_back(',');
    AppendAxisText(axes[i], out);
  }
  out->push_back('}');
}

}  // namespace hlo
