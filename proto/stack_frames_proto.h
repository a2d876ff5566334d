// The module's stack-frame tables and XLA's StackFrameIndexProto. The proto
// is positional (ids are 1-based positions); XLA's text prints a frame's
// parent one higher than the proto holds it (a root frame, parent 0 in the
// proto, shows `parent_frame_id=1`), and the tables here hold the text's
// numbers, so the conversion shifts parents by one both ways.
#pragma once

#include "ir/module.h"
#include "proto/hlo.pb.h"

namespace hlo::proto {

// False when the tables cannot be positional (ids not 1, 2, ... in order)
// or hold names that are not UTF-8; our field 1000 still carries them.
bool StackFramesToProto(const StackFrameTables& t, xla::StackFrameIndexProto* out);
StackFrameTables StackFramesFromProto(const xla::StackFrameIndexProto& p);

}  // namespace hlo::proto
