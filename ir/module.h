// A module: its header attributes and the computations it owns (callees
// before callers in text order; the entry computation is usually last).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "ir/attribute.h"
#include "ir/computation.h"

namespace hlo {

// input_output_alias={ {out}: (param, {param_idx}, may-alias), ... }
struct InputOutputAlias {
  std::vector<int64_t> output_index;
  int64_t parameter = 0;
  std::vector<int64_t> parameter_index;
  bool must_alias = false;
};

// buffer_donor={ (param, {param_idx}), ... }
struct BufferDonor {
  int64_t parameter = 0;
  std::vector<int64_t> parameter_index;
};

// FileNames / FunctionNames / FileLocations / StackFrames tables, kept as
// parsed so they print back.
struct StackFrameTables {
  std::vector<std::pair<int64_t, std::string>> file_names;
  std::vector<std::pair<int64_t, std::string>> function_names;
  struct FileLocation {
    int64_t id = 0, file_name_id = 0, function_name_id = 0, line = 0, end_line = 0, column = 0,
            end_column = 0;
  };
  std::vector<FileLocation> file_locations;
  struct Frame {
    int64_t id = 0, file_location_id = 0, parent_frame_id = 0;
  };
  std::vector<Frame> frames;
  bool empty() const {
    return file_names.empty() && function_names.empty() && file_locations.empty() && frames.empty();
  }
};

struct ModuleHeader {
  bool is_scheduled = false;
  std::optional<ProgramShape> entry_computation_layout;  // as written (or derived)
  std::vector<InputOutputAlias> input_output_alias;
  bool has_input_output_alias = false;
  std::vector<BufferDonor> buffer_donor;
  bool has_buffer_donor = false;
  std::optional<bool> alias_passthrough_params;
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  FrontendAttributes frontend_attributes;
  std::vector<bool> allow_spmd_sharding_propagation_to_parameters;  // empty = not given
  std::vector<bool> allow_spmd_sharding_propagation_to_output;
  std::optional<RawText> origin_recovery_table;
  StackFrameTables stack_frames;
};

class Module {
 public:
  explicit Module(std::string name) : name_(std::move(name)) {}
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  ModuleHeader& header() { return header_; }
  const ModuleHeader& header() const { return header_; }

  Computation* AddComputation(std::unique_ptr<Computation> comp);
  // Removes a computation no instruction calls any more.
  absl::Status RemoveComputation(Computation* comp);
  // Removes every computation of `comps` at once (one scan of the module,
  // so removing many is linear): fails, removing nothing, if the entry is
  // among them or a computation outside the set still calls one of them.
  absl::Status RemoveComputations(const absl::flat_hash_set<const Computation*>& comps);
  std::vector<Computation*> computations() const;
  Computation* FindComputation(absl::string_view name) const;
  Computation* entry() const { return entry_; }
  void set_entry(Computation* c) {
    entry_ = c;
    InvalidateCallGraph();
  }
  // Callees before callers (post-order of the call graph from every root),
  // entry last. Cached until the call graph changes.
  std::vector<Computation*> MakeComputationPostOrder() const;
  // Drops the cached computation order: called when computations are added
  // or removed and when an instruction that calls computations is added,
  // removed or has its computation attributes changed.
  void InvalidateCallGraph() { ++call_graph_generation_; }

  // Where the module came from, for diagnostics after parsing (verifier
  // messages point at the source line).
  const std::string& source_name() const { return source_name_; }
  const std::string& source_text() const {
    static const std::string* const kEmpty = new std::string();
    return source_text_ != nullptr ? *source_text_ : *kEmpty;
  }
  // The text is shared, not copied: a module parsed from a 50 MB file
  // would otherwise hold a second copy of it.
  void set_source(std::string name, std::shared_ptr<const std::string> text) {
    source_name_ = std::move(name);
    source_text_ = std::move(text);
  }

 private:
  std::string name_;
  ModuleHeader header_;
  std::vector<std::unique_ptr<Computation>> computations_;
  Computation* entry_ = nullptr;
  std::string source_name_;
  std::shared_ptr<const std::string> source_text_;
  std::vector<Computation*> ComputeComputationPostOrder() const;
  uint64_t call_graph_generation_ = 0;
  mutable std::mutex order_mu_;
  mutable std::vector<Computation*> order_cache_;
  mutable uint64_t order_generation_ = ~uint64_t{0};
};

}  // namespace hlo
