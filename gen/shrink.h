// Delta reduction of a failing module: instructions of the entry
// computation are replaced by parameters of their shape (their operands
// then die and go), and the root by one of its operands (the entry's
// result shape may change), as long as
// the module still fails the same way.
#pragma once

#include <functional>
#include <string>

namespace hlo::gen {

// `still_fails(text)` says whether a candidate still shows the failure.
// Returns the smallest module text found (the input if nothing smaller fails).
std::string ShrinkModule(const std::string& text, const std::function<bool(const std::string&)>& still_fails);

}  // namespace hlo::gen
