#include "proto/stack_frames_proto.h"

#include "proto/typed_fields.h"

namespace hlo::proto {
namespace {

template <typename Rows>
bool Positional(const Rows& rows) {
  int64_t want = 1;
  for (const auto& r : rows)
    if (r.id != want++) return false;
  return true;
}

bool PositionalNames(const std::vector<std::pair<int64_t, std::string>>& rows) {
  int64_t want = 1;
  for (const auto& [id, name] : rows)
    if (id != want++ || !IsUtf8(name)) return false;
  return true;
}

}  // namespace

bool StackFramesToProto(const StackFrameTables& t, xla::StackFrameIndexProto* out) {
  if (!PositionalNames(t.file_names) || !PositionalNames(t.function_names) || !Positional(t.file_locations) ||
      !Positional(t.frames))
    return false;
  for (const auto& [id, name] : t.file_names) out->add_file_names(name);
  for (const auto& [id, name] : t.function_names) out->add_function_names(name);
  for (const auto& l : t.file_locations) {
    auto* p = out->add_file_locations();
    p->set_file_name_id(static_cast<int32_t>(l.file_name_id));
    p->set_function_name_id(static_cast<int32_t>(l.function_name_id));
    p->set_line(static_cast<int32_t>(l.line));
    p->set_column(static_cast<int32_t>(l.column));
    p->set_end_line(static_cast<int32_t>(l.end_line));
    p->set_end_column(static_cast<int32_t>(l.end_column));
  }
  for (const auto& f : t.frames) {
    auto* p = out->add_stack_frames();
    p->set_file_location_id(static_cast<int32_t>(f.file_location_id));
    p->set_parent_frame_id(static_cast<int32_t>(f.parent_frame_id > 0 ? f.parent_frame_id - 1 : 0));
  }
  return true;
}

StackFrameTables StackFramesFromProto(const xla::StackFrameIndexProto& p) {
  StackFrameTables t;
  int64_t id = 0;
  for (const std::string& n : p.file_names()) t.file_names.push_back({++id, n});
  id = 0;
  for (const std::string& n : p.function_names()) t.function_names.push_back({++id, n});
  id = 0;
  for (const auto& l : p.file_locations())
    t.file_locations.push_back({++id, l.file_name_id(), l.function_name_id(), l.line(), l.end_line(), l.column(),
                                l.end_column()});
  id = 0;
  for (const auto& f : p.stack_frames())
    t.frames.push_back({++id, f.file_location_id(), static_cast<int64_t>(f.parent_frame_id()) + 1});
  return t;
}

}  // namespace hlo::proto
