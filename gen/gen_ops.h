// The op groups of hlo-gen: each adds one (or a few) shape-correct
// instructions to a computation, using values already there or fresh ones.
// A group returns false when it could not apply (the driver picks another).
#pragma once

#include <string>
#include <vector>

#include "gen/gen_builder.h"

namespace hlo::gen {

using OpFn = bool (*)(ModuleBuilder&, Comp&);
struct OpGroup {
  const char* name;
  OpFn fn;
};

// Every group, in a fixed order (the order is part of what a seed means).
const std::vector<OpGroup>& OpGroups();

// Random dims: mostly tiny, sometimes large enough to be split over threads.
std::vector<int64_t> RandomDims(Rng& rng, int max_rank = 3);
// A new or existing array value of a random type and shape.
Value AnyValue(ModuleBuilder& b, Comp& c);

bool GenUnary(ModuleBuilder& b, Comp& c);
bool GenBinary(ModuleBuilder& b, Comp& c);
bool GenCompareSelect(ModuleBuilder& b, Comp& c);
bool GenConvert(ModuleBuilder& b, Comp& c);
bool GenBitcastConvert(ModuleBuilder& b, Comp& c);
bool GenIota(ModuleBuilder& b, Comp& c);
bool GenBroadcast(ModuleBuilder& b, Comp& c);
bool GenReshape(ModuleBuilder& b, Comp& c);
bool GenTranspose(ModuleBuilder& b, Comp& c);
bool GenSlice(ModuleBuilder& b, Comp& c);
bool GenConcatenate(ModuleBuilder& b, Comp& c);
bool GenPad(ModuleBuilder& b, Comp& c);
bool GenReverse(ModuleBuilder& b, Comp& c);
bool GenCopyLayout(ModuleBuilder& b, Comp& c);
bool GenDynamicSlice(ModuleBuilder& b, Comp& c);
bool GenDynamicUpdateSlice(ModuleBuilder& b, Comp& c);
bool GenGather(ModuleBuilder& b, Comp& c);
bool GenScatter(ModuleBuilder& b, Comp& c);
bool GenReduce(ModuleBuilder& b, Comp& c);
bool GenReduceWindow(ModuleBuilder& b, Comp& c);
bool GenDot(ModuleBuilder& b, Comp& c);
bool GenConvolution(ModuleBuilder& b, Comp& c);
bool GenSort(ModuleBuilder& b, Comp& c);
bool GenWhile(ModuleBuilder& b, Comp& c);
bool GenConditional(ModuleBuilder& b, Comp& c);
bool GenTuple(ModuleBuilder& b, Comp& c);
bool GenMap(ModuleBuilder& b, Comp& c);
bool GenCall(ModuleBuilder& b, Comp& c);
bool GenReducePrecision(ModuleBuilder& b, Comp& c);
bool GenComplex(ModuleBuilder& b, Comp& c);
bool GenFft(ModuleBuilder& b, Comp& c);
bool GenSelectAndScatter(ModuleBuilder& b, Comp& c);
bool GenCollective(ModuleBuilder& b, Comp& c);

}  // namespace hlo::gen
