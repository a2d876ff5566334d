// hlo.ops: the builder calls of the operation-semantics document as Python
// functions (snake_case of the document's names), each a thin wrapper over
// its client/ops.h function. Non-op operands (Python scalars, NumPy arrays)
// become constants of the element type of the call's first op.
#include <pybind11/stl.h>

#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "parser/parser.h"
#include "python/builder_py_internal.h"
#include "python/numpy_convert.h"
#include "python/py_common.h"

namespace py = pybind11;

namespace hlo::python {

using client::XlaOp;

namespace {

using BinFn = XlaOp (*)(XlaOp, XlaOp, absl::Span<const int64_t>);
using UnFn = XlaOp (*)(XlaOp);
using Pairs = std::vector<std::pair<int64_t, int64_t>>;

const PyOp& AsOp(const char* call, const py::handle& v) {
  if (!py::isinstance<PyOp>(v)) throw py::type_error(absl::StrCat(call, ": expected an hlo.Op"));
  return v.cast<const PyOp&>();
}

// Operands given as one op or a sequence of them.
std::vector<PyOp> OpList(const char* call, const py::handle& v) {
  std::vector<PyOp> out;
  if (py::isinstance<PyOp>(v)) {
    out.push_back(v.cast<const PyOp&>());
    return out;
  }
  for (const py::handle& e : v) out.push_back(AsOp(call, e));
  if (out.empty()) throw py::value_error(absl::StrCat(call, ": needs at least one operand"));
  return out;
}

std::vector<XlaOp> Raw(const std::vector<PyOp>& ops) {
  std::vector<XlaOp> out;
  for (const PyOp& o : ops) out.push_back(o.op);
  return out;
}

Shape ScalarOf(const PyOp& x) { return Shape::Scalar(x.shape().element_type()); }

// (low, high) padding per spatial dimension: "SAME"/"VALID" over the
// (dilated) window, or explicit pairs.
Pairs SpatialPadding(const py::object& padding, const std::vector<int64_t>& in, const std::vector<int64_t>& window,
                     const std::vector<int64_t>& strides, const std::vector<int64_t>& window_dilation) {
  if (!py::isinstance<py::str>(padding)) return padding.cast<Pairs>();
  std::vector<int64_t> effective = window;
  for (size_t i = 0; i < effective.size() && i < window_dilation.size(); ++i)
    effective[i] = (window[i] - 1) * window_dilation[i] + 1;
  if (in.size() != effective.size() || (!strides.empty() && strides.size() != in.size()))
    throw py::value_error("padding: the window, strides and input must have the same number of dimensions");
  std::vector<int64_t> s = strides.empty() ? std::vector<int64_t>(in.size(), 1) : strides;
  return client::MakePadding(in, effective, s, PaddingArg(padding.cast<std::string>()));
}

// The keys of a dimension-numbers dict: XLA's ConvolutionDimensionNumbers
// field names, each with the operand whose rank bounds it (0 lhs, 1 rhs,
// 2 output, which has the lhs's rank).
struct ConvDimField {
  const char* key;
  int operand;
  int64_t ConvolutionDimensionNumbers::*scalar;
  std::vector<int64_t> ConvolutionDimensionNumbers::*spatial;
};
constexpr ConvDimField kConvDimFields[] = {
    {"input_batch_dimension", 0, &ConvolutionDimensionNumbers::input_batch_dimension, nullptr},
    {"input_feature_dimension", 0, &ConvolutionDimensionNumbers::input_feature_dimension, nullptr},
    {"input_spatial_dimensions", 0, nullptr, &ConvolutionDimensionNumbers::input_spatial_dimensions},
    {"kernel_input_feature_dimension", 1, &ConvolutionDimensionNumbers::kernel_input_feature_dimension, nullptr},
    {"kernel_output_feature_dimension", 1, &ConvolutionDimensionNumbers::kernel_output_feature_dimension, nullptr},
    {"kernel_spatial_dimensions", 1, nullptr, &ConvolutionDimensionNumbers::kernel_spatial_dimensions},
    {"output_batch_dimension", 2, &ConvolutionDimensionNumbers::output_batch_dimension, nullptr},
    {"output_feature_dimension", 2, &ConvolutionDimensionNumbers::output_feature_dimension, nullptr},
    {"output_spatial_dimensions", 2, nullptr, &ConvolutionDimensionNumbers::output_spatial_dimensions},
};

// conv's dimension_numbers: None (the default numbering), dim labels text
// ("b01f_01io->b01f", parsed as the text format's dim_labels=) or a dict
// with every field of kConvDimFields. Every dimension is checked against
// its operand's rank here: SAME padding indexes the operands' shapes with
// them before the builder sees the numbering.
ConvolutionDimensionNumbers ConvDimsArg(const py::object& v, const PyOp& lhs, const PyOp& rhs) {
  const int64_t ranks[3] = {lhs.shape().rank(), rhs.shape().rank(), lhs.shape().rank()};
  ConvolutionDimensionNumbers dn;
  if (v.is_none()) {
    dn = client::CreateDefaultConvDimensionNumbers(static_cast<int>(std::max<int64_t>(0, ranks[0] - 2)));
  } else if (py::isinstance<py::str>(v)) {
    dn = ValueOrRaise(ParseConvDimLabels(v.cast<std::string>()));
    if (dn.input_rank != ranks[0] || dn.kernel_rank != ranks[1])
      throw py::value_error(absl::StrCat("conv: dim labels \"", v.cast<std::string>(), "\" are for ranks ",
                                         dn.input_rank, " and ", dn.kernel_rank, ", the operands have ranks ",
                                         ranks[0], " and ", ranks[1]));
  } else if (py::isinstance<py::dict>(v)) {
    py::dict d = v.cast<py::dict>();
    for (const ConvDimField& f : kConvDimFields) {
      if (!d.contains(f.key)) throw py::value_error(absl::StrCat("conv: dimension_numbers lacks \"", f.key, "\""));
      if (f.scalar) dn.*f.scalar = d[f.key].cast<int64_t>();
      else dn.*f.spatial = d[f.key].cast<std::vector<int64_t>>();
    }
    if (d.size() != std::size(kConvDimFields))
      throw py::value_error("conv: dimension_numbers has keys that are not ConvolutionDimensionNumbers fields");
  } else {
    throw py::type_error("conv: dimension_numbers must be None, dim labels text or a dict");
  }
  for (const ConvDimField& f : kConvDimFields) {
    std::vector<int64_t> dims = f.scalar ? std::vector<int64_t>{dn.*f.scalar} : dn.*f.spatial;
    for (int64_t d : dims)
      if (d < 0 || d >= ranks[f.operand])
        throw py::value_error(absl::StrCat("conv: ", f.key, " ", d, " is out of range for rank ", ranks[f.operand]));
  }
  if (dn.input_spatial_dimensions.size() != dn.kernel_spatial_dimensions.size() ||
      dn.input_spatial_dimensions.size() != dn.output_spatial_dimensions.size())
    throw py::value_error("conv: input, kernel and output need the same number of spatial dimensions");
  return dn;
}

// The default sort comparator: the first operand's lhs < rhs.
client::XlaComputation LessThan(const BuilderRef& b, const std::vector<PyOp>& operands) {
  auto sub = std::make_shared<PyBuilder>();
  sub->b = b->b->CreateSubBuilder("less_than");
  sub->parent = b;
  std::vector<XlaOp> params;
  for (size_t i = 0; i < operands.size(); ++i)
    for (int side = 0; side < 2; ++side)
      params.push_back(client::Parameter(sub->b.get(), static_cast<int64_t>(params.size()), ScalarOf(operands[i]),
                                         absl::StrCat(side ? "rhs" : "lhs", i)));
  Wrap(sub, client::Lt(params[0], params[1]));
  return ValueOrRaise(sub->b->Build());
}

void RegisterElementwise(py::module_& m) {
  const std::pair<const char*, BinFn> binaries[] = {
      {"add", client::Add},       {"sub", client::Sub},
      {"mul", client::Mul},       {"div", client::Div},
      {"rem", client::Rem},       {"max", client::Max},
      {"min", client::Min},       {"pow", client::Pow},
      {"atan2", client::Atan2},   {"complex", client::Complex},
      {"and_", client::And},      {"or_", client::Or},
      {"xor", client::Xor},       {"shift_left", client::ShiftLeft},
      {"shift_right_arithmetic", client::ShiftRightArithmetic},
      {"shift_right_logical", client::ShiftRightLogical},
      {"eq", client::Eq},         {"ne", client::Ne},
      {"ge", client::Ge},         {"gt", client::Gt},
      {"le", client::Le},         {"lt", client::Lt},
  };
  for (const auto& [name, fn] : binaries) {
    m.def(
        name,
        [name = name, fn = fn](py::object lhs, py::object rhs, std::vector<int64_t> broadcast_dimensions) {
          const PyOp& like = FirstOp(name, {lhs, rhs});
          XlaOp l = ToOp(lhs, like), r = ToOp(rhs, like);
          return Wrap(like.builder, fn(l, r, broadcast_dimensions));
        },
        py::arg("lhs"), py::arg("rhs"), py::arg("broadcast_dimensions") = std::vector<int64_t>{},
        "Element-wise, with the seeds' broadcasting (broadcast_dimensions for a lower-rank operand).");
  }
  m.def(
      "compare",
      [](py::object lhs, py::object rhs, const std::string& direction, std::vector<int64_t> broadcast_dimensions) {
        static const char* const kDirections[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
        if (std::find(std::begin(kDirections), std::end(kDirections), direction) == std::end(kDirections))
          throw py::value_error(absl::StrCat("compare: direction must be one of EQ, NE, GE, GT, LE, LT, not \"",
                                             direction, "\""));
        const PyOp& like = FirstOp("compare", {lhs, rhs});
        return Wrap(like.builder,
                    client::Compare(ToOp(lhs, like), ToOp(rhs, like), broadcast_dimensions, direction));
      },
      py::arg("lhs"), py::arg("rhs"), py::arg("direction"), py::arg("broadcast_dimensions") = std::vector<int64_t>{},
      "Compare(lhs, rhs, broadcast_dimensions, direction): eq/ne/... with the direction as an argument.");
  const std::pair<const char*, UnFn> unaries[] = {
      {"abs", client::Abs},       {"neg", client::Neg},
      {"not_", client::Not},      {"sign", client::Sign},
      {"ceil", client::Ceil},     {"floor", client::Floor},
      {"round", client::Round},   {"round_nearest_even", client::RoundNearestEven},
      {"exp", client::Exp},       {"expm1", client::Expm1},
      {"log", client::Log},       {"log1p", client::Log1p},
      {"logistic", client::Logistic}, {"sqrt", client::Sqrt},
      {"rsqrt", client::Rsqrt},   {"cbrt", client::Cbrt},
      {"tanh", client::Tanh},     {"sin", client::Sin},
      {"cos", client::Cos},       {"tan", client::Tan},
      {"erf", client::Erf},       {"is_finite", client::IsFinite},
      {"real", client::Real},     {"imag", client::Imag},
      {"clz", client::Clz},       {"population_count", client::PopulationCount},
      {"square", client::Square}, {"reciprocal", client::Reciprocal},
  };
  for (const auto& [name, fn] : unaries) {
    m.def(
        name,
        [name = name, fn = fn](py::object x) {
          const PyOp& op = AsOp(name, x);
          return Wrap(op.builder, fn(op.op));
        },
        py::arg("x"));
  }
  m.def(
      "select",
      [](py::object pred, py::object on_true, py::object on_false) {
        const PyOp& like = FirstOp("select", {on_true, on_false});
        XlaOp p = ConstantOf(like.builder, pred, PrimitiveType::PRED);
        XlaOp t = ToOp(on_true, like), f = ToOp(on_false, like);
        return Wrap(like.builder, client::Select(p, t, f));
      },
      py::arg("pred"), py::arg("on_true"), py::arg("on_false"));
  m.def(
      "clamp",
      [](py::object min, py::object x, py::object max) {
        const PyOp& like = FirstOp("clamp", {x, min, max});
        XlaOp lo = ToOp(min, like), v = ToOp(x, like), hi = ToOp(max, like);
        return Wrap(like.builder, client::Clamp(lo, v, hi));
      },
      py::arg("min"), py::arg("x"), py::arg("max"));
  m.def(
      "convert",
      [](const PyOp& x, py::object dtype) {
        return Wrap(x.builder, client::ConvertElementType(x.op, ElementTypeOf(dtype)));
      },
      py::arg("x"), py::arg("dtype"));
  m.def(
      "bitcast_convert",
      [](const PyOp& x, py::object dtype) {
        return Wrap(x.builder, client::BitcastConvertType(x.op, ElementTypeOf(dtype)));
      },
      py::arg("x"), py::arg("dtype"));
  m.def(
      "reduce_precision",
      [](const PyOp& x, int64_t exponent_bits, int64_t mantissa_bits) {
        return Wrap(x.builder, client::ReducePrecision(x.op, exponent_bits, mantissa_bits));
      },
      py::arg("x"), py::arg("exponent_bits"), py::arg("mantissa_bits"));
}

void RegisterShapeOps(py::module_& m) {
  m.def(
      "broadcast",
      [](const PyOp& x, std::vector<int64_t> sizes) { return Wrap(x.builder, client::Broadcast(x.op, sizes)); },
      py::arg("x"), py::arg("sizes"), "New leading dimensions of `sizes`.");
  m.def(
      "broadcast_in_dim",
      [](const PyOp& x, std::vector<int64_t> shape, std::vector<int64_t> broadcast_dimensions) {
        return Wrap(x.builder, client::BroadcastInDim(x.op, shape, broadcast_dimensions));
      },
      py::arg("x"), py::arg("shape"), py::arg("broadcast_dimensions"));
  m.def(
      "reshape",
      [](const PyOp& x, std::vector<int64_t> sizes) { return Wrap(x.builder, client::Reshape(x.op, sizes)); },
      py::arg("x"), py::arg("sizes"));
  m.def(
      "collapse",
      [](const PyOp& x, std::vector<int64_t> dims) { return Wrap(x.builder, client::Collapse(x.op, dims)); },
      py::arg("x"), py::arg("dimensions"));
  m.def(
      "transpose",
      [](const PyOp& x, std::vector<int64_t> perm) { return Wrap(x.builder, client::Transpose(x.op, perm)); },
      py::arg("x"), py::arg("permutation"));
  m.def(
      "rev", [](const PyOp& x, std::vector<int64_t> dims) { return Wrap(x.builder, client::Rev(x.op, dims)); },
      py::arg("x"), py::arg("dimensions"));
  m.def(
      "slice",
      [](const PyOp& x, std::vector<int64_t> start, std::vector<int64_t> limit, std::vector<int64_t> strides) {
        if (strides.empty()) strides.assign(start.size(), 1);
        return Wrap(x.builder, client::Slice(x.op, start, limit, strides));
      },
      py::arg("x"), py::arg("start_indices"), py::arg("limit_indices"),
      py::arg("strides") = std::vector<int64_t>{});
  m.def(
      "slice_in_dim",
      [](const PyOp& x, int64_t start, int64_t limit, int64_t stride, int64_t dimno) {
        return Wrap(x.builder, client::SliceInDim(x.op, start, limit, stride, dimno));
      },
      py::arg("x"), py::arg("start_index"), py::arg("limit_index"), py::arg("stride") = 1, py::arg("dimno") = 0);
  m.def(
      "dynamic_slice",
      [](const PyOp& x, std::vector<py::object> starts, std::vector<int64_t> sizes) {
        std::vector<XlaOp> s;
        for (const py::object& v : starts) s.push_back(ConstantOf(x.builder, v, PrimitiveType::S32));
        return Wrap(x.builder, client::DynamicSlice(x.op, s, sizes));
      },
      py::arg("x"), py::arg("start_indices"), py::arg("slice_sizes"),
      "start_indices: scalar ops or ints (s32 constants).");
  m.def(
      "dynamic_update_slice",
      [](const PyOp& x, py::object update, std::vector<py::object> starts) {
        std::vector<XlaOp> s;
        for (const py::object& v : starts) s.push_back(ConstantOf(x.builder, v, PrimitiveType::S32));
        return Wrap(x.builder, client::DynamicUpdateSlice(x.op, ToOp(update, x), s));
      },
      py::arg("x"), py::arg("update"), py::arg("start_indices"));
  m.def(
      "concat",
      [](py::object operands, int64_t dimension) {
        std::vector<PyOp> ops = OpList("concat", operands);
        return Wrap(ops[0].builder, client::ConcatInDim(ops[0].builder->b.get(), Raw(ops), dimension));
      },
      py::arg("operands"), py::arg("dimension"));
  m.def(
      "pad",
      [](const PyOp& x, py::object value, std::vector<std::vector<int64_t>> config) {
        PaddingConfig pc;
        for (const std::vector<int64_t>& d : config) {
          if (d.size() != 2 && d.size() != 3)
            throw py::value_error("pad: each dimension is (low, high) or (low, high, interior)");
          pc.push_back(PaddingDimension{d[0], d[1], d.size() == 3 ? d[2] : 0});
        }
        return Wrap(x.builder, client::Pad(x.op, ToOp(value, x), pc));
      },
      py::arg("x"), py::arg("padding_value"), py::arg("padding_config"));
  m.def(
      "tuple",
      [](py::object elements) {
        std::vector<PyOp> ops = OpList("tuple", elements);
        return Wrap(ops[0].builder, client::Tuple(ops[0].builder->b.get(), Raw(ops)));
      },
      py::arg("elements"));
  m.def(
      "get_tuple_element",
      [](const PyOp& t, int64_t index) { return Wrap(t.builder, client::GetTupleElement(t.op, index)); },
      py::arg("tuple"), py::arg("index"));
  m.def(
      "optimization_barrier",
      [](py::object x) {
        // An op as it is; a list or tuple of ops becomes a tuple first.
        if (py::isinstance<PyOp>(x)) {
          const PyOp& op = x.cast<const PyOp&>();
          return Wrap(op.builder, client::OptimizationBarrier(op.op));
        }
        std::vector<PyOp> ops = OpList("optimization_barrier", x);
        const BuilderRef& b = ops[0].builder;
        return Wrap(b, client::OptimizationBarrier(client::Tuple(b->b.get(), Raw(ops))));
      },
      py::arg("x"), "opt-barrier: x unchanged (a tuple for a list of ops); passes move nothing across it.");
}

void RegisterComputeOps(py::module_& m) {
  m.def(
      "dot", [](const PyOp& a, py::object b) { return Wrap(a.builder, client::Dot(a.op, ToOp(b, a))); },
      py::arg("lhs"), py::arg("rhs"), "Contracts lhs's last dimension with rhs's first (ranks 1 and 2).");
  m.def(
      "dot_general",
      [](const PyOp& a, py::object b, std::vector<int64_t> lc, std::vector<int64_t> rc, std::vector<int64_t> lb,
         std::vector<int64_t> rb) {
        client::DotDimensionNumbers dn{lc, rc, lb, rb};
        return Wrap(a.builder, client::DotGeneral(a.op, ToOp(b, a), dn));
      },
      py::arg("lhs"), py::arg("rhs"), py::arg("lhs_contracting_dimensions"), py::arg("rhs_contracting_dimensions"),
      py::arg("lhs_batch_dimensions") = std::vector<int64_t>{},
      py::arg("rhs_batch_dimensions") = std::vector<int64_t>{});
  m.def(
      "conv",
      [](const PyOp& lhs, const PyOp& rhs, std::vector<int64_t> strides, py::object padding,
         std::vector<int64_t> lhs_dilation, std::vector<int64_t> rhs_dilation, int64_t feature_group_count,
         int64_t batch_group_count, py::object dimension_numbers) {
        const ConvolutionDimensionNumbers dn = ConvDimsArg(dimension_numbers, lhs, rhs);
        // SAME/VALID padding is computed over the spatial dimensions the
        // numbering names (ConvDimsArg checked they are in range).
        std::vector<int64_t> in, win;
        for (int64_t d : dn.input_spatial_dimensions) in.push_back(lhs.shape().dim(d));
        for (int64_t d : dn.kernel_spatial_dimensions) win.push_back(rhs.shape().dim(d));
        Pairs pads = SpatialPadding(padding, in, win, strides, rhs_dilation);
        return Wrap(lhs.builder, client::ConvGeneralDilated(lhs.op, rhs.op, strides, pads, lhs_dilation,
                                                            rhs_dilation, dn, feature_group_count,
                                                            batch_group_count));
      },
      py::arg("lhs"), py::arg("rhs"), py::arg("window_strides"), py::arg("padding") = "VALID",
      py::arg("lhs_dilation") = std::vector<int64_t>{}, py::arg("rhs_dilation") = std::vector<int64_t>{},
      py::arg("feature_group_count") = 1, py::arg("batch_group_count") = 1,
      py::arg("dimension_numbers") = py::none(),
      "Convolution; padding \"SAME\", \"VALID\" or (low, high) pairs; dimension_numbers: None (bf01_oi01->bf01), "
      "dim labels such as \"b01f_01io->b01f\", or a dict of XLA's ConvolutionDimensionNumbers fields.");
  m.def(
      "reduce",
      [](py::object operands, py::object init_values, py::object computation, std::vector<int64_t> dimensions) {
        std::vector<PyOp> ops = OpList("reduce", operands);
        std::vector<py::object> inits;
        if (py::isinstance<py::list>(init_values) || py::isinstance<py::tuple>(init_values)) {
          for (const py::handle& v : init_values) inits.push_back(py::reinterpret_borrow<py::object>(v));
        } else {
          inits.push_back(init_values);
        }
        if (inits.size() != ops.size()) throw py::value_error("reduce: one init value per operand");
        std::vector<XlaOp> init_ops;
        std::vector<Shape> params;
        for (size_t i = 0; i < ops.size(); ++i) {
          init_ops.push_back(ToOp(inits[i], ops[i]));
          params.push_back(ScalarOf(ops[i]));
        }
        // (accumulators..., values...): the scalars twice.
        const std::vector<Shape> values = params;
        params.insert(params.end(), values.begin(), values.end());
        const BuilderRef& b = ops[0].builder;
        client::XlaComputation comp = ComputationArg(b, computation, "reducer", params);
        return Wrap(b, client::Reduce(b->b.get(), Raw(ops), init_ops, comp, dimensions));
      },
      py::arg("operands"), py::arg("init_values"), py::arg("computation"), py::arg("dimensions"),
      "computation: an hlo.Computation, a function of (accumulators..., values...) or \"add\", \"mul\", "
      "\"max\", \"min\", \"and\", \"or\".");
  using IL = std::vector<int64_t>;
  m.def(
      "gather",
      [](const PyOp& x, py::object start_indices, IL offset_dims, IL collapsed_slice_dims, IL start_index_map,
         int64_t index_vector_dim, IL slice_sizes, IL operand_batching_dims, IL start_indices_batching_dims,
         bool indices_are_sorted) {
        client::GatherDimensionNumbers dn{offset_dims,     collapsed_slice_dims,  start_index_map,
                                          index_vector_dim, operand_batching_dims, start_indices_batching_dims};
        XlaOp idx = ConstantOf(x.builder, start_indices, PrimitiveType::S32);
        return Wrap(x.builder, client::Gather(x.op, idx, dn, slice_sizes, indices_are_sorted));
      },
      py::arg("x"), py::arg("start_indices"), py::kw_only(), py::arg("offset_dims"),
      py::arg("collapsed_slice_dims"), py::arg("start_index_map"), py::arg("index_vector_dim"),
      py::arg("slice_sizes"), py::arg("operand_batching_dims") = IL{},
      py::arg("start_indices_batching_dims") = IL{}, py::arg("indices_are_sorted") = false,
      "The document's Gather; start_indices: an op or an int array (s32 constant).");
  m.def(
      "scatter",
      [](const PyOp& x, py::object scatter_indices, py::object updates, py::object computation,
         IL update_window_dims, IL inserted_window_dims, IL scatter_dims_to_operand_dims, int64_t index_vector_dim,
         IL input_batching_dims, IL scatter_indices_batching_dims, bool indices_are_sorted, bool unique_indices) {
        client::ScatterDimensionNumbers dn{update_window_dims,  inserted_window_dims, scatter_dims_to_operand_dims,
                                           index_vector_dim,    input_batching_dims,  scatter_indices_batching_dims};
        XlaOp idx = ConstantOf(x.builder, scatter_indices, PrimitiveType::S32);
        XlaOp upd = ToOp(updates, x);
        client::XlaComputation comp = ComputationArg(x.builder, computation, "update", {ScalarOf(x), ScalarOf(x)});
        return Wrap(x.builder, client::Scatter(x.op, idx, upd, comp, dn, indices_are_sorted, unique_indices));
      },
      py::arg("x"), py::arg("scatter_indices"), py::arg("updates"), py::arg("computation"), py::kw_only(),
      py::arg("update_window_dims"), py::arg("inserted_window_dims"), py::arg("scatter_dims_to_operand_dims"),
      py::arg("index_vector_dim"), py::arg("input_batching_dims") = IL{},
      py::arg("scatter_indices_batching_dims") = IL{}, py::arg("indices_are_sorted") = false,
      py::arg("unique_indices") = false,
      "The document's Scatter; computation combines (current, update), e.g. \"add\" or a function.");
  m.def(
      "select_and_scatter",
      [](const PyOp& x, py::object select, IL window_dimensions, IL window_strides, py::object padding,
         py::object source, py::object init, py::object scatter) {
        const std::vector<int64_t> in(x.shape().dims().begin(), x.shape().dims().end());
        Pairs pads = SpatialPadding(padding, in, window_dimensions, window_strides, {});
        if (window_strides.empty()) window_strides.assign(in.size(), 1);
        client::XlaComputation sel = ComputationArg(x.builder, select, "select", {ScalarOf(x), ScalarOf(x)});
        client::XlaComputation sca = ComputationArg(x.builder, scatter, "scatter", {ScalarOf(x), ScalarOf(x)});
        return Wrap(x.builder, client::SelectAndScatterWithGeneralPadding(x.op, sel, window_dimensions,
                                                                          window_strides, pads, ToOp(source, x),
                                                                          ToOp(init, x), sca));
      },
      py::arg("x"), py::arg("select"), py::arg("window_dimensions"), py::arg("window_strides"),
      py::arg("padding"), py::arg("source"), py::arg("init_value"), py::arg("scatter"),
      "select: a function (a, b) -> pred choosing a; scatter: \"add\" or a function.");
  m.def(
      "reduce_window",
      [](const PyOp& x, py::object init, py::object computation, std::vector<int64_t> window_dimensions,
         std::vector<int64_t> window_strides, py::object padding, std::vector<int64_t> base_dilations,
         std::vector<int64_t> window_dilations) {
        const std::vector<int64_t> in(x.shape().dims().begin(), x.shape().dims().end());
        Pairs pads = SpatialPadding(padding, in, window_dimensions, window_strides, window_dilations);
        if (window_strides.empty()) window_strides.assign(in.size(), 1);
        client::XlaComputation comp = ComputationArg(x.builder, computation, "reducer", {ScalarOf(x), ScalarOf(x)});
        return Wrap(x.builder, client::ReduceWindowWithGeneralPadding(x.op, ToOp(init, x), comp, window_dimensions,
                                                                      window_strides, base_dilations,
                                                                      window_dilations, pads));
      },
      py::arg("x"), py::arg("init_value"), py::arg("computation"), py::arg("window_dimensions"),
      py::arg("window_strides") = std::vector<int64_t>{}, py::arg("padding") = "VALID",
      py::arg("base_dilations") = std::vector<int64_t>{}, py::arg("window_dilations") = std::vector<int64_t>{});
  m.def(
      "map",
      [](py::object operands, py::object computation, std::optional<std::vector<int64_t>> dimensions) {
        std::vector<PyOp> ops = OpList("map", operands);
        std::vector<Shape> params;
        for (const PyOp& o : ops) params.push_back(ScalarOf(o));
        std::vector<int64_t> dims;
        if (dimensions.has_value()) {
          dims = *dimensions;
        } else {
          for (int64_t i = 0; i < ops[0].shape().rank(); ++i) dims.push_back(i);
        }
        const BuilderRef& b = ops[0].builder;
        client::XlaComputation comp = ComputationArg(b, computation, "mapped", params);
        return Wrap(b, client::Map(b->b.get(), Raw(ops), comp, dims));
      },
      py::arg("operands"), py::arg("computation"), py::arg("dimensions") = py::none());
  m.def(
      "sort",
      [](py::object operands, py::object comparator, int64_t dimension, bool is_stable) {
        std::vector<PyOp> ops = OpList("sort", operands);
        const BuilderRef& b = ops[0].builder;
        client::XlaComputation comp;
        if (comparator.is_none()) {
          comp = LessThan(b, ops);
        } else {
          std::vector<Shape> params;
          for (const PyOp& o : ops) {
            params.push_back(ScalarOf(o));
            params.push_back(ScalarOf(o));
          }
          comp = ComputationArg(b, comparator, "comparator", params);
        }
        return Wrap(b, client::Sort(Raw(ops), comp, dimension, is_stable));
      },
      py::arg("operands"), py::arg("comparator") = py::none(), py::arg("dimension") = -1,
      py::arg("is_stable") = false,
      "comparator: a function of (lhs0, rhs0, lhs1, rhs1, ...) -> pred; default: lhs0 < rhs0.");
}

void RegisterControlOps(py::module_& m) {
  m.def(
      "call",
      [](py::object computation, py::args operands) {
        std::vector<PyOp> ops = OpList("call", operands);
        std::vector<Shape> params;
        for (const PyOp& o : ops) params.push_back(o.shape());
        const BuilderRef& b = ops[0].builder;
        client::XlaComputation comp = ComputationArg(b, computation, "called", params);
        return Wrap(b, client::Call(b->b.get(), comp, Raw(ops)));
      },
      py::arg("computation"));
  m.def(
      "while_loop",
      [](py::object condition, py::object body, const PyOp& init) {
        client::XlaComputation cond = ComputationArg(init.builder, condition, "condition", {init.shape()});
        client::XlaComputation bod = ComputationArg(init.builder, body, "body", {init.shape()});
        return Wrap(init.builder, client::While(cond, bod, init.op));
      },
      py::arg("condition"), py::arg("body"), py::arg("init"),
      "While(condition, body, init); condition and body take the loop state.");
  m.def(
      "conditional",
      [](py::object pred, const PyOp& true_operand, py::object true_computation, const PyOp& false_operand,
         py::object false_computation) {
        const BuilderRef& b = true_operand.builder;
        XlaOp p = ConstantOf(b, pred, PrimitiveType::PRED);
        client::XlaComputation t = ComputationArg(b, true_computation, "on_true", {true_operand.shape()});
        client::XlaComputation f = ComputationArg(b, false_computation, "on_false", {false_operand.shape()});
        return Wrap(b, client::Conditional(p, true_operand.op, t, false_operand.op, f));
      },
      py::arg("pred"), py::arg("true_operand"), py::arg("true_computation"), py::arg("false_operand"),
      py::arg("false_computation"));
  // XLA's other Conditional: branch_computations[branch_index] runs on
  // branch_operands[branch_index] (an out-of-range index runs the last
  // branch, as HLO's conditional does).
  m.def(
      "conditional",
      [](py::object branch_index, py::sequence branch_computations, py::sequence branch_operands) {
        std::vector<PyOp> operands = OpList("conditional", branch_operands);
        if (py::len(branch_computations) != operands.size())
          throw py::value_error(absl::StrCat("conditional: ", py::len(branch_computations),
                                             " branch computations for ", operands.size(), " branch operands"));
        const BuilderRef& b = operands[0].builder;
        XlaOp index = ConstantOf(b, branch_index, PrimitiveType::S32);
        std::vector<client::XlaComputation> comps;
        for (size_t i = 0; i < operands.size(); ++i)
          comps.push_back(ComputationArg(b, branch_computations[i], absl::StrCat("branch_", i),
                                         {operands[i].shape()}));
        std::vector<const client::XlaComputation*> ptrs;
        for (const client::XlaComputation& c : comps) ptrs.push_back(&c);
        return Wrap(b, client::Conditional(index, ptrs, Raw(operands)));
      },
      py::arg("branch_index"), py::arg("branch_computations"), py::arg("branch_operands"),
      "conditional(branch_index, [computations], [operands]): runs branch branch_index (s32) on its operand.");
  using RngFn = XlaOp (*)(XlaOp, XlaOp, const Shape&);
  for (const auto& [name, fn] : {std::pair<const char*, RngFn>{"rng_uniform", client::RngUniform},
                                 std::pair<const char*, RngFn>{"rng_normal", client::RngNormal}}) {
    m.def(
        name,
        [name = name, fn = fn](py::object a, py::object b, std::vector<int64_t> dims) {
          const PyOp& like = FirstOp(name, {a, b});
          XlaOp p0 = ToOp(a, like), p1 = ToOp(b, like);
          return Wrap(like.builder, fn(p0, p1, Shape::Array(like.shape().element_type(), dims)));
        },
        py::arg("a"), py::arg("b"), py::arg("dims"),
        "rng_uniform(a, b, dims): uniform in [a, b); rng_normal(mu, sigma, dims).");
  }
}

}  // namespace

void RegisterOps(py::module_& ops) {
  RegisterElementwise(ops);
  RegisterShapeOps(ops);
  RegisterComputeOps(ops);
  RegisterControlOps(ops);
  RegisterDeviceOps(ops);
}

}  // namespace hlo::python
