// hlo.ops for the calls of client/ops_collective.cc and ops_linalg.cc:
// collectives, tokens, send/recv, infeed/outfeed, custom calls, FFT, linear algebra, batch
// norm, top-k, dimension sizes and random bits.
#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "parser/parser.h"
#include "python/builder_py_internal.h"
#include "python/numpy_convert.h"
#include "python/py_common.h"

namespace py = pybind11;

namespace hlo::python {

using client::XlaOp;

namespace {

using Groups = std::vector<std::vector<int64_t>>;
using Pairs = std::vector<std::pair<int64_t, int64_t>>;

// A shape argument: "f32[2,3]" (tuples too) or (dtype, dims).
Shape ShapeArg(const py::object& shape) {
  if (py::isinstance<py::str>(shape)) return ValueOrRaise(ParseShape(shape.cast<std::string>()));
  auto [dtype, dims] = shape.cast<std::pair<py::object, std::vector<int64_t>>>();
  return Shape::Array(ElementTypeOf(dtype), dims);
}

std::optional<client::ChannelHandle> Channel(std::optional<int64_t> channel_id) {
  if (!channel_id.has_value()) return std::nullopt;
  return client::ChannelHandle{*channel_id};
}

// An enum argument by its HLO spelling.
template <typename E, size_t N>
E EnumArg(const char* what, const std::string& value, const char* const (&names)[N]) {
  for (size_t i = 0; i < N; ++i)
    if (value == names[i]) return static_cast<E>(i);
  std::string all;
  for (size_t i = 0; i < N; ++i) absl::StrAppend(&all, i ? ", " : "", names[i]);
  throw py::value_error(absl::StrCat(what, " must be one of ", all, ", not \"", value, "\""));
}

client::XlaComputation Reducer(const PyOp& x, const py::object& computation) {
  const Shape scalar = Shape::Scalar(x.shape().element_type());
  return ComputationArg(x.builder, computation, "reducer", {scalar, scalar});
}

void RegisterCollectives(py::module_& m) {
  m.def(
      "replica_id", [](const BuilderRef& b) { return Wrap(b, client::ReplicaId(b->b.get())); }, py::arg("builder"),
      "The u32 id of the replica running the computation.");
  m.def(
      "partition_id", [](const BuilderRef& b) { return Wrap(b, client::PartitionId(b->b.get())); },
      py::arg("builder"), "The u32 id of the partition running the computation.");
  m.def(
      "all_gather",
      [](const PyOp& x, int64_t dimension, int64_t shard_count, Groups groups, std::optional<int64_t> channel_id) {
        return Wrap(x.builder, client::AllGather(x.op, dimension, shard_count, groups, Channel(channel_id)));
      },
      py::arg("x"), py::arg("all_gather_dimension"), py::arg("shard_count"), py::arg("replica_groups") = Groups{},
      py::arg("channel_id") = py::none());
  m.def(
      "all_reduce",
      [](const PyOp& x, py::object computation, Groups groups, std::optional<int64_t> channel_id) {
        return Wrap(x.builder, client::AllReduce(x.op, Reducer(x, computation), groups, Channel(channel_id)));
      },
      py::arg("x"), py::arg("computation") = "add", py::arg("replica_groups") = Groups{},
      py::arg("channel_id") = py::none());
  m.def(
      "cross_replica_sum",
      [](const PyOp& x, Groups groups) { return Wrap(x.builder, client::CrossReplicaSum(x.op, groups)); },
      py::arg("x"), py::arg("replica_groups") = Groups{}, "all_reduce with a sum (or for pred).");
  m.def(
      "reduce_scatter",
      [](const PyOp& x, int64_t dimension, int64_t shard_count, py::object computation, Groups groups,
         std::optional<int64_t> channel_id) {
        return Wrap(x.builder, client::ReduceScatter(x.op, Reducer(x, computation), dimension, shard_count, groups,
                                                     Channel(channel_id)));
      },
      py::arg("x"), py::arg("scatter_dimension"), py::arg("shard_count"), py::arg("computation") = "add",
      py::arg("replica_groups") = Groups{}, py::arg("channel_id") = py::none());
  m.def(
      "all_to_all",
      [](const PyOp& x, int64_t split_dimension, int64_t concat_dimension, int64_t split_count, Groups groups) {
        return Wrap(x.builder, client::AllToAll(x.op, split_dimension, concat_dimension, split_count, groups));
      },
      py::arg("x"), py::arg("split_dimension"), py::arg("concat_dimension"), py::arg("split_count"),
      py::arg("replica_groups") = Groups{});
  m.def(
      "collective_permute",
      [](const PyOp& x, std::vector<std::pair<int64_t, int64_t>> pairs, std::optional<int64_t> channel_id) {
        return Wrap(x.builder, client::CollectivePermute(x.op, pairs, Channel(channel_id)));
      },
      py::arg("x"), py::arg("source_target_pairs"), py::arg("channel_id") = py::none());
  m.def(
      "infeed",
      [](const BuilderRef& b, py::object shape, const std::string& config) {
        return Wrap(b, client::Infeed(b->b.get(), ShapeArg(shape), config));
      },
      py::arg("builder"), py::arg("shape"), py::arg("config") = "", "The next infeed value (its own token).");
  m.def(
      "outfeed",
      [](const PyOp& x, const std::string& config) {
        return Wrap(x.builder, client::Outfeed(x.op, x.shape(), config));
      },
      py::arg("x"), py::arg("config") = "", "Sends x to the outfeed; returns the token.");
}

// Tokens as values: after-all orders side effects, and the *_with_token
// forms thread a token from one side effect to the next (the forms above
// make a fresh token each).
void RegisterTokenOps(py::module_& m) {
  m.def(
      "create_token", [](const BuilderRef& b) { return Wrap(b, client::CreateToken(b->b.get())); },
      py::arg("builder"), "A fresh token: after-all() of nothing.");
  m.def(
      "after_all",
      [](const BuilderRef& b, std::vector<PyOp> tokens) {
        std::vector<XlaOp> ops;
        for (const PyOp& t : tokens) ops.push_back(t.op);
        return Wrap(b, client::AfterAll(b->b.get(), ops));
      },
      py::arg("builder"), py::arg("tokens"), "A token after every token of `tokens`.");
  m.def(
      "infeed_with_token",
      [](const PyOp& token, py::object shape, const std::string& config) {
        return Wrap(token.builder, client::InfeedWithToken(token.op, ShapeArg(shape), config));
      },
      py::arg("token"), py::arg("shape"), py::arg("config") = "", "The next infeed value after `token`: (data, token).");
  m.def(
      "outfeed_with_token",
      [](const PyOp& x, const PyOp& token, const std::string& config) {
        return Wrap(x.builder, client::OutfeedWithToken(x.op, token.op, x.shape(), config));
      },
      py::arg("x"), py::arg("token"), py::arg("config") = "", "Sends x to the outfeed after `token`; returns a token.");
  // source_target_pairs: None (each device's send reaches its own recv) or
  // [(source, target), ...] between devices, as the
  // _xla_send_recv_source_target_pairs attribute (client/ops.h).
  m.def(
      "send",
      [](const PyOp& x, int64_t channel_id, std::optional<Pairs> pairs) {
        const client::ChannelHandle ch{channel_id};
        return Wrap(x.builder, pairs ? client::Send(x.op, ch, *pairs) : client::Send(x.op, ch));
      },
      py::arg("x"), py::arg("channel_id"), py::arg("source_target_pairs") = py::none(),
      "send + send-done on a channel (a fresh token); returns send-done's token.");
  m.def(
      "send_with_token",
      [](const PyOp& x, const PyOp& token, int64_t channel_id, std::optional<Pairs> pairs) {
        const client::ChannelHandle ch{channel_id};
        return Wrap(x.builder, pairs ? client::SendWithToken(x.op, token.op, ch, *pairs)
                                     : client::SendWithToken(x.op, token.op, ch));
      },
      py::arg("x"), py::arg("token"), py::arg("channel_id"), py::arg("source_target_pairs") = py::none(),
      "send + send-done after `token`; returns a token.");
  m.def(
      "recv",
      [](const BuilderRef& b, py::object shape, int64_t channel_id, std::optional<Pairs> pairs) {
        const client::ChannelHandle ch{channel_id};
        const Shape s = ShapeArg(shape);
        return Wrap(b, pairs ? client::Recv(b->b.get(), s, ch, *pairs) : client::Recv(b->b.get(), s, ch));
      },
      py::arg("builder"), py::arg("shape"), py::arg("channel_id"), py::arg("source_target_pairs") = py::none(),
      "recv + recv-done (a fresh token); the data.");
  m.def(
      "recv_with_token",
      [](const PyOp& token, py::object shape, int64_t channel_id, std::optional<Pairs> pairs) {
        const client::ChannelHandle ch{channel_id};
        const Shape s = ShapeArg(shape);
        return Wrap(token.builder, pairs ? client::RecvWithToken(token.op, s, ch, *pairs)
                                         : client::RecvWithToken(token.op, s, ch));
      },
      py::arg("token"), py::arg("shape"), py::arg("channel_id"), py::arg("source_target_pairs") = py::none(),
      "recv + recv-done after `token`: (data, token).");
}

void RegisterLinalg(py::module_& m) {
  m.def(
      "custom_call",
      [](const BuilderRef& b, const std::string& target, std::vector<PyOp> operands, py::object shape,
         const std::string& opaque, bool has_side_effect) {
        std::vector<XlaOp> ops;
        for (const PyOp& o : operands) ops.push_back(o.op);
        return Wrap(b, client::CustomCall(b->b.get(), target, ops, ShapeArg(shape), opaque, has_side_effect));
      },
      py::arg("builder"), py::arg("target"), py::arg("operands"), py::arg("shape"), py::arg("opaque") = "",
      py::arg("has_side_effect") = false);
  m.def(
      "fft",
      [](const PyOp& x, const std::string& fft_type, std::vector<int64_t> fft_length) {
        static const char* const kTypes[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
        return Wrap(x.builder,
                    client::Fft(x.op, EnumArg<client::FftType>("fft_type", fft_type, kTypes), fft_length));
      },
      py::arg("x"), py::arg("fft_type"), py::arg("fft_length"));
  m.def(
      "cholesky", [](const PyOp& a, bool lower) { return Wrap(a.builder, client::Cholesky(a.op, lower)); },
      py::arg("a"), py::arg("lower") = true);
  m.def(
      "triangular_solve",
      [](const PyOp& a, py::object b, bool left_side, bool lower, bool unit_diagonal, const std::string& transpose_a) {
        static const char* const kTranspose[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
        const auto t = EnumArg<client::TriangularSolveOptions::Transpose>("transpose_a", transpose_a, kTranspose);
        return Wrap(a.builder, client::TriangularSolve(a.op, ToOp(b, a), left_side, lower, unit_diagonal, t));
      },
      py::arg("a"), py::arg("b"), py::arg("left_side") = true, py::arg("lower") = true,
      py::arg("unit_diagonal") = false, py::arg("transpose_a") = "NO_TRANSPOSE");
  m.def(
      "batch_norm_training",
      [](const PyOp& x, py::object scale, py::object offset, float epsilon, int64_t feature_index) {
        return Wrap(x.builder, client::BatchNormTraining(x.op, ToOp(scale, x), ToOp(offset, x), epsilon,
                                                         feature_index));
      },
      py::arg("x"), py::arg("scale"), py::arg("offset"), py::arg("epsilon"), py::arg("feature_index"));
  m.def(
      "batch_norm_inference",
      [](const PyOp& x, py::object scale, py::object offset, py::object mean, py::object variance, float epsilon,
         int64_t feature_index) {
        return Wrap(x.builder, client::BatchNormInference(x.op, ToOp(scale, x), ToOp(offset, x), ToOp(mean, x),
                                                          ToOp(variance, x), epsilon, feature_index));
      },
      py::arg("x"), py::arg("scale"), py::arg("offset"), py::arg("mean"), py::arg("variance"), py::arg("epsilon"),
      py::arg("feature_index"));
  m.def(
      "batch_norm_grad",
      [](const PyOp& x, py::object scale, py::object mean, py::object variance, py::object grad_output,
         float epsilon, int64_t feature_index) {
        return Wrap(x.builder, client::BatchNormGrad(x.op, ToOp(scale, x), ToOp(mean, x), ToOp(variance, x),
                                                     ToOp(grad_output, x), epsilon, feature_index));
      },
      py::arg("x"), py::arg("scale"), py::arg("mean"), py::arg("variance"), py::arg("grad_output"),
      py::arg("epsilon"), py::arg("feature_index"));
  m.def(
      "top_k", [](const PyOp& x, int64_t k, bool largest) { return Wrap(x.builder, client::TopK(x.op, k, largest)); },
      py::arg("x"), py::arg("k"), py::arg("largest") = true, "(values, s32 indices) along the last dimension.");
  m.def(
      "get_dimension_size",
      [](const PyOp& x, int64_t dimension) { return Wrap(x.builder, client::GetDimensionSize(x.op, dimension)); },
      py::arg("x"), py::arg("dimension"));
  m.def(
      "set_dimension_size",
      [](const PyOp& x, py::object size, int64_t dimension) {
        // The size is an s32 scalar: an hlo.Op as it is, a Python int as a
        // constant.
        const client::XlaOp s =
            py::isinstance<PyOp>(size) ? size.cast<PyOp>().op : ConstantOf(x.builder, size, PrimitiveType::S32);
        return Wrap(x.builder, client::SetDimensionSize(x.op, s, dimension));
      },
      py::arg("x"), py::arg("size"), py::arg("dimension"),
      "The same data with dimension `dimension` marked dynamic, its size `size` (an s32 scalar).");
  m.def(
      "rng_bit_generator",
      [](const PyOp& state, py::object shape, const std::string& algorithm) {
        static const char* const kAlgorithms[] = {"rng_default", "rng_three_fry", "rng_philox"};
        const auto a = EnumArg<client::RandomAlgorithm>("algorithm", algorithm, kAlgorithms);
        return Wrap(state.builder, client::RngBitGenerator(a, state.op, ShapeArg(shape)));
      },
      py::arg("initial_state"), py::arg("shape"), py::arg("algorithm") = "rng_default",
      "(new state, random bits of shape).");
}

}  // namespace

void RegisterDeviceOps(py::module_& ops) {
  RegisterCollectives(ops);
  RegisterTokenOps(ops);
  RegisterLinalg(ops);
}

}  // namespace hlo::python
