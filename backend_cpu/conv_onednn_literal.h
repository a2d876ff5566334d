// The bridge between a convolution instruction's literals and the oneDNN
// f32 convolution (conv_onednn.h): which instructions go there, and how
// operands of other element types or with batch groups are brought into the
// f32 problem oneDNN runs.
//
//   * f32, bf16 and f16 operands: narrow operands are converted to f32 in
//     parallel blocks (ew_narrow_blocks.h, exact), keeping their layout;
//     a narrow result is rounded once (nearest even) from the f32
//     accumulation, as XLA:CPU does (it runs bf16 convolutions in f32).
//     With the batch outermost, a few images are converted per oneDNN
//     call, so the f32 copies stay a few MB.
//   * feature groups (grouped, depthwise): oneDNN groups directly.
//   * batch groups (weight gradients): output feature group g reads input
//     batch slice g, which is a grouped convolution over an input whose
//     features are (batch slice, feature); that input is packed once.
// Everything else (lhs dilation, window reversal, negative padding, other
// types, both group kinds at once) returns false: the im2col path runs.
#pragma once

#include <cstdint>

#include "ir/attribute.h"
#include "ir/instruction.h"
#include "ir/literal.h"

namespace hlo::cpu {

// Computes the convolution `instr` of the untiled literals `lhs` and `ker`
// into *result (instr's shape) and returns true, or returns false (result
// untouched) when oneDNN does not run it.
bool TryOneDnnConvolutionLiterals(const Instruction& instr, const ConvolutionDimensionNumbers& dn,
                                  const Window& window, const Literal& lhs, const Literal& ker,
                                  int64_t feature_groups, int64_t batch_groups, Literal* result);

}  // namespace hlo::cpu
