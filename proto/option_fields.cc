#include "proto/option_fields.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "ir/attr_spec.h"
#include "ir/printer.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/numbers.h"
#include "proto/original_value_proto.h"
#include "proto/shape_literal_proto.h"
#include "proto/sharding_proto.h"
#include "proto/typed_fields.h"

namespace hlo::proto {
namespace {

// Text enums and proto enums differ in case and sometimes in a prefix
// (`dot_bf16_bf16_f32` is ALG_DOT_BF16_BF16_F32): these parse the proto name
// built from the text one, and build the text one from the proto name.
template <typename Enum>
bool ParseUpper(bool (*parse)(const std::string&, Enum*), absl::string_view prefix, const std::string& text,
                Enum* out) {
  return parse(absl::StrCat(prefix, absl::AsciiStrToUpper(text)), out);
}

// The text name of proto enum value `v`, or an error for a value the enum
// does not have (proto3 enums keep unknown numbers).
absl::StatusOr<std::string> TextName(const google::protobuf::EnumDescriptor* d, int v, absl::string_view prefix,
                                     bool lower) {
  const google::protobuf::EnumValueDescriptor* ev = d->FindValueByNumber(v);
  if (ev == nullptr) return absl::InvalidArgumentError(absl::StrCat(d->name(), ": unknown value ", v));
  std::string name = ev->name().substr(std::min(prefix.size(), ev->name().size()));
  return lower ? absl::AsciiStrToLower(name) : name;
}

std::vector<int64_t> Ints(const google::protobuf::RepeatedField<int64_t>& f) { return {f.begin(), f.end()}; }

bool DotLike(Opcode op) {
  return op == Opcode::kDot || op == Opcode::kConvolution || op == Opcode::kCustomCall ||
         op == Opcode::kScaledDot || op == Opcode::kRaggedDot;
}

// `sparsity=L.1@2:4_R.0@2:4` (older XLA's sparse dot) as SparsityDescriptors;
// false (nothing added) when the text is not of that form.
bool SparsityToProto(absl::string_view text, xla::HloInstructionProto* p) {
  google::protobuf::RepeatedPtrField<xla::SparsityDescriptor> out;
  for (absl::string_view item : absl::StrSplit(text, '_')) {
    std::vector<absl::string_view> at = absl::StrSplit(item, '@');
    if (at.size() != 2 || at[0].size() < 3 || (at[0][0] != 'L' && at[0][0] != 'R') || at[0][1] != '.') return false;
    std::vector<absl::string_view> nm = absl::StrSplit(at[1], ':');
    int32_t dim = 0, n = 0, m = 0;
    if (nm.size() != 2 || !absl::SimpleAtoi(at[0].substr(2), &dim) || !absl::SimpleAtoi(nm[0], &n) ||
        !absl::SimpleAtoi(nm[1], &m) || dim < 0 || n < 1 || m <= n)
      return false;
    xla::SparsityDescriptor* d = out.Add();
    d->set_type(xla::SPARSITY_STRUCTURED_N_M);
    d->set_index(at[0][0] == 'L' ? 0 : 1);
    d->set_dimension(dim);
    d->set_n(n);
    d->set_m(m);
  }
  *p->mutable_dot_sparsity() = std::move(out);
  return true;
}

absl::StatusOr<std::string> SparsityText(const xla::HloInstructionProto& p) {
  std::vector<std::string> items;
  for (const xla::SparsityDescriptor& d : p.dot_sparsity()) {
    if (d.type() != xla::SPARSITY_STRUCTURED_N_M || (d.index() != 0 && d.index() != 1) || d.dimension() < 0 ||
        d.n() < 1 || d.m() <= d.n())
      return absl::InvalidArgumentError(absl::StrCat("dot_sparsity: not a structured N:M sparsity of operand 0 or 1 (",
                                                     d.ShortDebugString(), ")"));
    items.push_back(absl::StrCat(d.index() == 0 ? "L." : "R.", d.dimension(), "@", d.n(), ":", d.m()));
  }
  return absl::StrJoin(items, "_");
}

bool IsPermute(Opcode op) { return op == Opcode::kCollectivePermute || op == Opcode::kCollectivePermuteStart; }

}  // namespace

bool OptionAttrToProto(const Instruction& inst, const std::string& name, const AttrValue& value,
                       xla::HloInstructionProto* p) {
  const auto* b = AttrGet<bool>(value);
  const auto* i = AttrGet<int64_t>(value);
  const auto* s = AttrGet<std::string>(value);
  const Opcode op = inst.opcode();
  if (name == "sharding") {
    if (const auto* sh = AttrGet<Sharding>(value); sh && !ShardingToProto(*sh, p->mutable_sharding()))
      p->clear_sharding();
  } else if (name == "domain") {
    if (const auto* d = AttrGet<DomainSpec>(value); d && d->kind == "sharding") {
      if (!ShardingToProto(d->entry, p->mutable_domain_entry_sharding()) ||
          !ShardingToProto(d->exit, p->mutable_domain_exit_sharding())) {
        p->clear_domain_entry_sharding();
        p->clear_domain_exit_sharding();
      }
    }
  } else if (name == "operand_precision") {
    if (const auto* v = AttrGet<std::vector<std::string>>(value))
      for (const std::string& text : *v) {
        xla::PrecisionConfig::Precision pr;
        if (ParseUpper(&xla::PrecisionConfig::Precision_Parse, "", text, &pr))
          p->mutable_precision_config()->add_operand_precision(pr);
      }
  } else if (name == "algorithm" && s && DotLike(op)) {
    xla::PrecisionConfig::Algorithm a;
    if (ParseUpper(&xla::PrecisionConfig::Algorithm_Parse, "ALG_", *s, &a)) p->mutable_precision_config()->set_algorithm(a);
  } else if (name == "algorithm" && s && op == Opcode::kRngBitGenerator) {
    xla::RandomAlgorithm a;
    if (ParseUpper(&xla::RandomAlgorithm_Parse, "", *s, &a)) p->set_rng_algorithm(a);
  } else if (name == "distribution" && s) {
    xla::RandomDistribution d;
    if (ParseUpper(&xla::RandomDistribution_Parse, "", *s, &d)) p->set_distribution(d);
  } else if (name == "source_target_pairs") {
    if (const auto* v = AttrGet<std::vector<std::vector<int64_t>>>(value))
      for (const std::vector<int64_t>& pair : *v) {
        if (pair.size() != 2) continue;  // the verifier rejects these
        auto* st = p->add_source_target_pairs();
        st->set_source(pair[0]);
        st->set_target(pair[1]);
      }
  } else if (name == "output_to_operand_aliasing") {
    if (const auto* v = AttrGet<std::vector<OutputOperandAlias>>(value))
      for (const OutputOperandAlias& a : *v) {
        auto* e = p->add_output_operand_aliasing();
        for (int64_t x : a.output_index) e->add_output_shape_index(x);
        e->set_operand_index(a.operand);
        for (int64_t x : a.operand_index) e->add_operand_shape_index(x);
      }
  } else if (name == "api_version" && s) {
    xla::CustomCallApiVersion v;
    if (xla::CustomCallApiVersion_Parse(*s, &v)) p->set_custom_call_api_version(v);
  } else if (name == "schedule" && s) {
    xla::CustomCallSchedule v;
    if (xla::CustomCallSchedule_Parse(*s, &v)) p->set_custom_call_schedule(v);
  } else if (name == "padding_type" && s) {
    xla::PaddingType v;
    if (xla::PaddingType_Parse(*s, &v)) p->set_padding_type(v);
  } else if (name == "operand_layout_constraints") {
    // XLA marks a custom call with operand layouts as layout-constrained.
    if (const auto* v = AttrGet<std::vector<Shape>>(value)) {
      p->set_constrain_layout(true);
      for (const Shape& sh : *v)
        if (!ShapeToProto(sh, p->add_operand_shapes_with_layout()).ok()) p->clear_operand_shapes_with_layout();
    }
  } else if (name == "constrain_layout" && b) {
    p->set_constrain_layout(*b);
  } else if (name == "is_host_transfer" && b) {
    p->set_is_host_transfer(*b);
  } else if ((name == "left_side" || name == "unit_diagonal" || name == "lower") && b) {
    if (op == Opcode::kCholesky) {
      p->mutable_cholesky_options()->set_lower(*b);
    } else if (name == "left_side") {
      p->mutable_triangular_solve_options()->set_left_side(*b);
    } else if (name == "lower") {
      p->mutable_triangular_solve_options()->set_lower(*b);
    } else {
      p->mutable_triangular_solve_options()->set_unit_diagonal(*b);
    }
  } else if (name == "transpose_a" && s) {
    xla::TriangularSolveOptions::Transpose t;
    if (xla::TriangularSolveOptions::Transpose_Parse(*s, &t)) p->mutable_triangular_solve_options()->set_transpose_a(t);
  } else if (name == "delta" && i) {
    p->set_delta(*i);
  } else if (name == "infeed_config" && s) {
    p->set_infeed_config(*s);
  } else if (name == "outfeed_config" && s) {
    p->set_outfeed_config(*s);
  } else if (name == "outfeed_shape") {
    if (const auto* sh = AttrGet<Shape>(value); sh && !ShapeToProto(*sh, p->mutable_outfeed_shape()).ok())
      p->clear_outfeed_shape();
  } else if (name == "async_execution_thread" && s && IsUtf8(*s)) {
    p->set_async_execution_thread(*s);
  } else if (name == "cross_program_prefetch_index" && i) {
    p->set_cross_program_prefetch_index(static_cast<int32_t>(*i));
  } else if (name == "parameter_replication") {
    if (const auto* v = AttrGet<std::vector<bool>>(value))
      for (bool r : *v) p->mutable_parameter_replication()->add_replicated_at_leaf_buffers(r);
  } else if (name == "statistics") {
    if (const auto* st = AttrGet<Statistics>(value)) {
      for (const auto& stat : st->stats)
        if (!IsUtf8(stat.first)) return true;  // our field 1000 carries it
      p->mutable_statistics_viz()->set_stat_index_to_visualize(st->visualizing_index);
      for (const auto& [n, v] : st->stats) {
        auto* e = p->mutable_statistics_viz()->add_statistics();
        e->set_stat_name(n);
        e->set_stat_val(v);
      }
    }
  } else if (name == "literal" && op == Opcode::kCustomCall) {
    // XLA keeps a custom call's literal in the constant's field.
    if (const auto* l = AttrGet<LiteralPtr>(value); l && *l && !LiteralToProto(**l, p->mutable_literal()).ok())
      p->clear_literal();
  } else if (name == "conv_kind" && s) {
    xla::ConvolutionKind k;
    if (ParseUpper(&xla::ConvolutionKind_Parse, "CONVOLUTION_KIND_", *s, &k)) p->set_conv_kind(k);
  } else if (name == "sparsity") {
    if (const auto* r = AttrGet<RawText>(value); r && !SparsityToProto(r->text, p)) p->clear_dot_sparsity();
  } else if (name == "origin") {
    // Text of another form (the IR keeps it verbatim) has no typed field;
    // our field 1000 carries it.
    if (const auto* r = AttrGet<RawText>(value); r && !OriginalValueToProto(r->text, p->mutable_original_value()))
      p->clear_original_value();
  } else if (name == "slice_sizes" && IsPermute(op)) {
    // XLA keeps the in-place collective-permute's slice sizes flattened
    // (one list per input buffer, each as long as the buffer's rank).
    if (const auto* v = AttrGet<std::vector<std::vector<int64_t>>>(value))
      for (const std::vector<int64_t>& sizes : *v)
        for (int64_t x : sizes) p->add_dynamic_slice_sizes(x);
  } else if (name == "result_accuracy") {
    if (const auto* r = AttrGet<ResultAccuracy>(value)) {
      xla::ResultAccuracy::Mode m;
      if (!r->mode.empty()) {
        if (xla::ResultAccuracy::Mode_Parse(absl::AsciiStrToUpper(r->mode), &m)) p->mutable_result_accuracy()->set_mode(m);
      } else {
        auto* t = p->mutable_result_accuracy()->mutable_tolerance();
        t->set_atol(r->atol);
        t->set_rtol(r->rtol);
        t->set_ulps(r->ulps);
      }
    }
  } else {
    return false;
  }
  return true;
}

absl::Status OptionFieldsToText(const xla::HloInstructionProto& p, Opcode op, const AddAttr& add) {
  auto accepts = [&](absl::string_view name) { return FindAttrSpec(op, name) != nullptr; };
  auto print = [](const AttrValue& v, AttrKind k = AttrKind::kRaw) { return AttrValueToString(v, k); };
  if (p.has_sharding()) {
    absl::StatusOr<Sharding> s = ShardingFromProto(p.sharding());
    if (!s.ok()) return s.status();
    add("sharding", print(Boxed<Sharding>(*std::move(s))));
  }
  if (op == Opcode::kDomain && p.has_domain_entry_sharding() && p.has_domain_exit_sharding()) {
    absl::StatusOr<Sharding> entry = ShardingFromProto(p.domain_entry_sharding());
    if (!entry.ok()) return entry.status();
    absl::StatusOr<Sharding> exit = ShardingFromProto(p.domain_exit_sharding());
    if (!exit.ok()) return exit.status();
    add("domain", print(Boxed<DomainSpec>(DomainSpec{"sharding", *entry, *exit})));
  }
  if (p.has_precision_config()) {
    const xla::PrecisionConfig& pc = p.precision_config();
    std::vector<std::string> precisions;
    for (int v : pc.operand_precision()) {
      absl::StatusOr<std::string> n = TextName(xla::PrecisionConfig::Precision_descriptor(), v, "", true);
      if (!n.ok()) return n.status();
      precisions.push_back(*n);
    }
    if (!precisions.empty()) add("operand_precision", print(precisions, AttrKind::kEnumList));
    if (pc.algorithm() != xla::PrecisionConfig::ALG_UNSET) {
      absl::StatusOr<std::string> n = TextName(xla::PrecisionConfig::Algorithm_descriptor(), pc.algorithm(), "ALG_", true);
      if (!n.ok()) return n.status();
      add("algorithm", *n);
    }
  }
  if (op == Opcode::kRngBitGenerator) {
    absl::StatusOr<std::string> n = TextName(xla::RandomAlgorithm_descriptor(), p.rng_algorithm(), "", true);
    if (!n.ok()) return n.status();
    add("algorithm", *n);
  }
  if (p.distribution() != xla::RNG_INVALID) {
    absl::StatusOr<std::string> n = TextName(xla::RandomDistribution_descriptor(), p.distribution(), "", true);
    if (!n.ok()) return n.status();
    add("distribution", *n);
  }
  if (p.source_target_pairs_size() > 0 || accepts("source_target_pairs")) {
    std::vector<std::vector<int64_t>> pairs;
    for (const xla::SourceTarget& st : p.source_target_pairs()) pairs.push_back({st.source(), st.target()});
    add("source_target_pairs", print(pairs));
  }
  if (p.output_operand_aliasing_size() > 0) {
    std::vector<OutputOperandAlias> v;
    for (const auto& a : p.output_operand_aliasing())
      v.push_back({Ints(a.output_shape_index()), a.operand_index(), Ints(a.operand_shape_index())});
    add("output_to_operand_aliasing", print(v));
  }
  auto enum_field = [&](absl::string_view name, const google::protobuf::EnumDescriptor* d, int v) -> absl::Status {
    if (v == 0) return absl::OkStatus();  // unset (or the default, which the text omits too)
    absl::StatusOr<std::string> n = TextName(d, v, "", false);
    if (!n.ok()) return n.status();
    add(name, *n);
    return absl::OkStatus();
  };
  if (accepts("api_version"))
    if (absl::Status st = enum_field("api_version", xla::CustomCallApiVersion_descriptor(), p.custom_call_api_version()); !st.ok())
      return st;
  if (accepts("schedule"))
    if (absl::Status st = enum_field("schedule", xla::CustomCallSchedule_descriptor(), p.custom_call_schedule()); !st.ok())
      return st;
  if (accepts("padding_type"))
    if (absl::Status st = enum_field("padding_type", xla::PaddingType_descriptor(), p.padding_type()); !st.ok()) return st;
  if (p.operand_shapes_with_layout_size() > 0 && accepts("operand_layout_constraints")) {
    std::vector<Shape> shapes;
    for (const xla::ShapeProto& sp : p.operand_shapes_with_layout()) {
      absl::StatusOr<Shape> sh = ShapeFromProto(sp, "operand_shapes_with_layout");
      if (!sh.ok()) return sh.status();
      shapes.push_back(*std::move(sh));
    }
    add("operand_layout_constraints", print(shapes));
  }
  if (p.constrain_layout() && op != Opcode::kCustomCall) add("constrain_layout", "true");
  if (p.is_host_transfer()) add("is_host_transfer", "true");
  if (op == Opcode::kTriangularSolve && p.has_triangular_solve_options()) {
    const auto& t = p.triangular_solve_options();
    if (t.left_side()) add("left_side", "true");
    if (t.lower()) add("lower", "true");
    if (t.unit_diagonal()) add("unit_diagonal", "true");
    if (absl::Status st = enum_field("transpose_a", xla::TriangularSolveOptions::Transpose_descriptor(), t.transpose_a());
        !st.ok())
      return st;
  }
  if (op == Opcode::kCholesky && p.cholesky_options().lower()) add("lower", "true");
  if (accepts("delta")) add("delta", absl::StrCat(p.delta()));
  if (!p.infeed_config().empty()) add("infeed_config", print(p.infeed_config(), AttrKind::kString));
  if (!p.outfeed_config().empty()) add("outfeed_config", print(p.outfeed_config(), AttrKind::kString));
  if (p.has_outfeed_shape() && accepts("outfeed_shape")) {
    absl::StatusOr<std::string> sh = ShapeProtoToText(p.outfeed_shape());
    if (!sh.ok()) return sh.status();
    add("outfeed_shape", *sh);
  }
  if (!p.async_execution_thread().empty()) add("async_execution_thread", print(p.async_execution_thread(), AttrKind::kString));
  if (p.has_cross_program_prefetch_index())
    add("cross_program_prefetch_index", absl::StrCat(p.cross_program_prefetch_index()));
  if (p.parameter_replication().replicated_at_leaf_buffers_size() > 0) {
    const auto& r = p.parameter_replication().replicated_at_leaf_buffers();
    add("parameter_replication", print(std::vector<bool>(r.begin(), r.end())));
  }
  // XLA writes an empty StatisticsViz on every instruction and prints
  // `statistics=` only when it holds statistics.
  if (p.statistics_viz().statistics_size() > 0) {
    Statistics st;
    st.visualizing_index = p.statistics_viz().stat_index_to_visualize();
    for (const auto& e : p.statistics_viz().statistics()) st.stats.push_back({e.stat_name(), e.stat_val()});
    add("statistics", print(st));
  }
  if (op == Opcode::kCustomCall && p.has_literal()) {
    absl::StatusOr<Literal> lit = LiteralFromProto(p.literal(), "custom-call literal");
    if (!lit.ok()) return lit.status();
    add("literal", LiteralToString(*lit));
  }
  if (p.conv_kind() != xla::CONVOLUTION_KIND_UNSET) {
    absl::StatusOr<std::string> n = TextName(xla::ConvolutionKind_descriptor(), p.conv_kind(), "CONVOLUTION_KIND_", true);
    if (!n.ok()) return n.status();
    add("conv_kind", *n);
  }
  if (p.dot_sparsity_size() > 0) {
    absl::StatusOr<std::string> t = SparsityText(p);
    if (!t.ok()) return t.status();
    add("sparsity", *t);
  }
  // XLA writes an empty one on every convolution.
  if (p.sparsity_config().has_lhs() || p.sparsity_config().has_rhs())
    return absl::InvalidArgumentError(
        "sparsity_config (field 98, newer XLA's sparse dot) is not supported: the dot would read as a dense one");
  if (p.has_original_value()) {
    absl::StatusOr<std::string> t = OriginalValueText(p.original_value(), p.shape());
    if (!t.ok()) return t.status();
    add("origin", *t);
  }
  if (p.has_result_accuracy()) {
    ResultAccuracy r;
    if (p.result_accuracy().has_tolerance()) {
      r.atol = p.result_accuracy().tolerance().atol();
      r.rtol = p.result_accuracy().tolerance().rtol();
      r.ulps = p.result_accuracy().tolerance().ulps();
    } else {
      absl::StatusOr<std::string> n =
          TextName(xla::ResultAccuracy::Mode_descriptor(), p.result_accuracy().mode(), "", true);
      if (!n.ok()) return n.status();
      r.mode = *n;
    }
    add("result_accuracy", print(r));
  }
  return absl::OkStatus();
}

}  // namespace hlo::proto
