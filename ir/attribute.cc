#include "ir/attribute.h"

#include <algorithm>

namespace hlo {

bool ConvolutionDimensionNumbers::operator==(const ConvolutionDimensionNumbers& o) const {
  return input_batch_dimension == o.input_batch_dimension &&
         input_feature_dimension == o.input_feature_dimension &&
         input_spatial_dimensions == o.input_spatial_dimensions &&
         kernel_input_feature_dimension == o.kernel_input_feature_dimension &&
         kernel_output_feature_dimension == o.kernel_output_feature_dimension &&
         kernel_spatial_dimensions == o.kernel_spatial_dimensions &&
         output_batch_dimension == o.output_batch_dimension &&
         output_feature_dimension == o.output_feature_dimension &&
         output_spatial_dimensions == o.output_spatial_dimensions && input_rank == o.input_rank &&
         kernel_rank == o.kernel_rank && output_rank == o.output_rank;
}

bool OpMetadata::operator==(const OpMetadata& o) const {
  return op_type == o.op_type && op_name == o.op_name && source_file == o.source_file &&
         deduplicated_name == o.deduplicated_name && scheduling_name == o.scheduling_name &&
         source_line == o.source_line && source_end_line == o.source_end_line &&
         source_column == o.source_column && source_end_column == o.source_end_column &&
         stack_frame_id == o.stack_frame_id && profile_type == o.profile_type;
}

bool Sharding::operator==(const Sharding& o) const {
  return kind == o.kind && device == o.device && tile_assignment_dims == o.tile_assignment_dims &&
         iota_devices == o.iota_devices && device_ids == o.device_ids && iota == o.iota &&
         last_tile_dim_replicate == o.last_tile_dim_replicate &&
         last_tile_dims == o.last_tile_dims && shard_group_kind == o.shard_group_kind &&
         shard_group_id == o.shard_group_id && metadata == o.metadata &&
         tuple_elements == o.tuple_elements && named_text == o.named_text;
}

std::string IotaDeviceList::Problem() const {
  constexpr int64_t kMaxDevices = int64_t{1} << 24;
  int64_t n = 1;
  for (int64_t d : reshape_dims) {
    if (d <= 0) return "non-positive reshape dimension";
    if (d > kMaxDevices / n) return "too many devices";
    n *= d;
  }
  int64_t m = 1;
  for (int64_t d : dims) {
    if (d < 0) return "negative dimension";
    if (d > 0 && m > n / d) return "the dimensions do not hold the reshaped device count";
    m *= d;
  }
  if (m != n) return "the dimensions do not hold the reshaped device count";
  if (!transpose_perm.empty()) {
    std::vector<int64_t> sorted = transpose_perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i] != static_cast<int64_t>(i) || sorted.size() != reshape_dims.size())
        return "the transpose is not a permutation of the reshape dimensions";
  }
  return "";
}

std::vector<int64_t> IotaDeviceList::Expand() const {
  int64_t n = 1;
  for (int64_t d : reshape_dims) n *= d;
  const int64_t rank = static_cast<int64_t>(reshape_dims.size());
  std::vector<int64_t> perm = transpose_perm;
  if (perm.empty())
    for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
  // Transposed dims and row-major strides of the untransposed array.
  std::vector<int64_t> tdims(rank), strides(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i) strides[i] = strides[i + 1] * reshape_dims[i + 1];
  for (int64_t i = 0; i < rank; ++i) tdims[i] = reshape_dims[perm[i]];
  std::vector<int64_t> out;
  out.reserve(n);
  std::vector<int64_t> idx(rank, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t src = 0;
    for (int64_t i = 0; i < rank; ++i) src += idx[i] * strides[perm[i]];
    out.push_back(src);
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++idx[i] < tdims[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

std::vector<std::vector<int64_t>> CollectiveDeviceList::ExpandedGroups() const {
  if (is_mesh) return mesh.Groups();
  if (!is_iota) return groups;
  std::vector<int64_t> ids = iota.Expand();
  std::vector<std::vector<int64_t>> out;
  if (iota.dims.size() != 2 || iota.dims[1] <= 0) return out;
  int64_t g = iota.dims[0], s = iota.dims[1];
  for (int64_t i = 0; i < g; ++i) {
    std::vector<int64_t> grp;
    for (int64_t j = 0; j < s && i * s + j < static_cast<int64_t>(ids.size()); ++j)
      grp.push_back(ids[i * s + j]);
    out.push_back(std::move(grp));
  }
  return out;
}

}  // namespace hlo
