#include "parser/parser.h"

#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "parser/parser_test_util.h"

namespace hlo {
namespace {

std::unique_ptr<Module> MustParse(absl::string_view text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return nullptr;
  return std::move(m).value();
}

Instruction* Find(Computation* c, absl::string_view name) { return c->FindInstruction(name); }

constexpr absl::string_view kAdd = R"(
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %x, f32[] %y)
}
)";

// ---------------- shapes ----------------

TEST(ParseShapeTest, Arrays) {
  auto s = ParseShape("f32[2,3]");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->element_type(), PrimitiveType::F32);
  EXPECT_EQ(ToStdVector(s->dims()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(ToStdVector(s->layout().minor_to_major), (std::vector<int64_t>{1, 0}));  // default filled
  s = ParseShape("f32[2,3]{0,1}");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(ToStdVector(s->layout().minor_to_major), (std::vector<int64_t>{0, 1}));
}

// The builder's Python conv takes dim labels as text (docs/python.md).
TEST(ParseConvDimLabelsTest, LabelsAndErrors) {
  auto dn = ParseConvDimLabels("b01f_01io->b01f");
  ASSERT_TRUE(dn.ok()) << dn.status().message();
  EXPECT_EQ(dn->input_batch_dimension, 0);
  EXPECT_EQ(dn->input_feature_dimension, 3);
  EXPECT_EQ(dn->input_spatial_dimensions, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(dn->kernel_input_feature_dimension, 2);
  EXPECT_EQ(dn->kernel_output_feature_dimension, 3);
  EXPECT_EQ(dn->kernel_spatial_dimensions, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(dn->output_feature_dimension, 3);
  EXPECT_EQ(dn->input_rank, 4);
  auto bad = ParseConvDimLabels("b01f_01ii->b01f");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "expects unique 'i'")) << bad.status().message();
  EXPECT_FALSE(ParseConvDimLabels("b01f_01io->b01f extra").ok());
  EXPECT_FALSE(ParseConvDimLabels("").ok());
}

// Shapes the one-scan fast path reads and shapes it hands to the token
// path must come out the same as the token path would make them.
TEST(ParseShapeTest, FastAndTokenPathsAgree) {
  struct Case {
    const char* text;
    std::vector<int64_t> dims, m2m;
  };
  for (const Case& c : std::vector<Case>{
           {"f32[2,3]{0,1}", {2, 3}, {0, 1}},          // fast
           {"f32[2, 3]{0,1}", {2, 3}, {0, 1}},         // blank inside: token path
           {"f32[2,3] {0,1}", {2, 3}, {0, 1}},         // layout after a blank
           {"f32[2,3]{ 0, 1 }", {2, 3}, {0, 1}},       // blanks in the layout
           {"f32[]{}", {}, {}},                        // scalar with an empty layout
           {"f32[]", {}, {}},                          // scalar, default layout
           {"pred[7]", {7}, {0}},                      // default layout filled in
           {"u8[1,2,3,4,5,6]{5,4,3,2,1,0}", {1, 2, 3, 4, 5, 6}, {5, 4, 3, 2, 1, 0}},  // past inline size
           {"f32[4,128]{1,0:T(8,128)}", {4, 128}, {1, 0}},  // tail part: token path
       }) {
    SCOPED_TRACE(c.text);
    absl::StatusOr<Shape> s = ParseShape(c.text);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(ToStdVector(s->dims()), c.dims);
    EXPECT_EQ(ToStdVector(s->layout().minor_to_major), c.m2m);
    EXPECT_EQ(s->dynamic_dims().size(), c.dims.size());
  }
  // Errors are the token path's, whichever path looked first.
  for (const char* bad : {"f32[2,3]{0,0}", "f32[2,3]{0}", "f32[2,3]{2,0}", "f32[-1]", "f32[2,3"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(ParseShape(bad).ok());
  }
}

TEST(ParseShapeTest, DynamicDims) {
  auto s = ParseShape("s32[<=10,?,3]");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dim(0), 10);
  EXPECT_TRUE(s->is_dynamic_dim(0));
  EXPECT_EQ(s->dim(1), Shape::kUnboundedSize);
  EXPECT_TRUE(s->is_dynamic_dim(1));
  EXPECT_FALSE(s->is_dynamic_dim(2));
}

TEST(ParseShapeTest, TuplesTokenOpaqueBuffer) {
  auto s = ParseShape("(f32[1], (s32[], token[]), opaque[], ())");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(s->IsTuple());
  EXPECT_EQ(s->tuple_size(), 4);
  EXPECT_TRUE(s->tuple_shape(1).tuple_shape(1).IsToken());
  EXPECT_TRUE(s->tuple_shape(2).IsOpaque());
  EXPECT_EQ(s->tuple_shape(3).tuple_size(), 0);
  auto b = ParseShape("b(f32[8,16]{1,0})");
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->IsBuffer());
  EXPECT_FALSE(ParseShape("b()").ok());
  EXPECT_FALSE(ParseShape("b(s32[], f32[])").ok());
}

TEST(ParseShapeTest, LayoutTail) {
  auto s = ParseShape("f32[10,10]{1,0:D(D,C+~)T(8,128)(2,*)L(4)#(u32)*(u16)E(4)S(2)SC(0:3,5)M(8)}");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const Layout& l = s->layout();
  EXPECT_EQ(l.rare().dim_level_types, (std::vector<std::string>{"D", "C+~"}));
  ASSERT_EQ(l.tiles.size(), 2u);
  EXPECT_EQ(l.tiles[0].dims, (std::vector<int64_t>{8, 128}));
  EXPECT_EQ(l.tiles[1].dims[1], Tile::kCombineDimension);
  EXPECT_EQ(l.rare().tail_padding_alignment_in_elements, 4);
  EXPECT_EQ(l.rare().index_primitive_type, PrimitiveType::U32);
  EXPECT_EQ(l.rare().pointer_primitive_type, PrimitiveType::U16);
  EXPECT_EQ(l.element_size_in_bits, 4);
  EXPECT_EQ(l.memory_space, 2);
  ASSERT_EQ(l.rare().split_configs.size(), 1u);
  EXPECT_EQ(l.rare().split_configs[0].split_indices, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(l.rare().dynamic_shape_metadata_prefix_bytes, 8);
  auto scalar = ParseShape("f32[]{:S(1)}");
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  EXPECT_EQ(scalar->layout().memory_space, 1);
}

TEST(ParseShapeTest, Errors) {
  EXPECT_FALSE(ParseShape("f32[123,456]{foo}").ok());
  EXPECT_FALSE(ParseShape("f32[2,3]{0}").ok());
  EXPECT_FALSE(ParseShape("f32[2,3]{0,0}").ok());
  EXPECT_FALSE(ParseShape("f32[2]{0:S(1)T(2)}").ok());  // out of order
  EXPECT_FALSE(ParseShape("f32[2]{0:P(f32[2])}").ok());  // physical shape on dense
  EXPECT_FALSE(ParseShape("g32[]").ok());
  EXPECT_FALSE(ParseShape("f32[-1]").ok());
  EXPECT_FALSE(ParseShape("f32[2] extra").ok());
  auto e = ParseShape("f32[123,456,789]{1:T(2, * , 128)}");
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(absl::StrContains(e.status().message(), "Dimensions size is 3, but minor to major size is 1."));
}

TEST(ParseShapeTest, DeepTupleDoesNotOverflowStack) {
  std::string s(100000, '(');
  auto r = ParseShape(s);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "recursion"));
}

// ---------------- literals ----------------

TEST(ParseLiteralTest, ArraysAndTuples) {
  auto l = ParseLiteral("s32[2,3] {{1,2,3},{4,5,6}}");
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->GetInt(l->Slot({1, 2})), 6);
  EXPECT_EQ(l->GetInt(l->Slot({0, 1})), 2);
  auto t = ParseLiteral("(s32[], f32[2]) (1, {2, 3})");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_TRUE(t->IsTuple());
  EXPECT_DOUBLE_EQ(t->tuple_elements()[1].GetDouble(1), 3.0);
  auto t2 = ParseLiteral("( s32[4]{0} {4, 128, 128, 3}, pred[4]{0} {1, 0, 0, 0} )");
  ASSERT_TRUE(t2.ok()) << t2.status().message();
  EXPECT_EQ(t2->tuple_elements().size(), 2u);
  auto sc = ParseLiteral("f32[] 0.5");
  ASSERT_TRUE(sc.ok());
  EXPECT_DOUBLE_EQ(sc->GetDouble(0), 0.5);
}

TEST(ParseLiteralTest, RankOneValueIsNotALayout) {
  // A separated `{1, 2, 3}` is the value; a layout touches the `]`.
  auto spaced = ParseLiteral("f32[3] {1, 2, 3}");
  ASSERT_TRUE(spaced.ok()) << spaced.status();
  EXPECT_EQ(spaced->GetDouble(2), 3.0);
  auto with_layout = ParseLiteral("f32[3]{0} {4, 5, 6}");
  ASSERT_TRUE(with_layout.ok()) << with_layout.status();
  EXPECT_EQ(with_layout->GetDouble(0), 4.0);
  auto one = ParseLiteral("s32[1] {7}");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->GetInt(0), 7);
}

TEST(ParseLiteralTest, MinusZeroIsNegativeZeroForFloats) {
  auto l = ParseLiteral("f32[2] {-0, 0}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_TRUE(std::signbit(l->GetDouble(0)));
  EXPECT_FALSE(std::signbit(l->GetDouble(1)));
  auto i = ParseLiteral("s32[] -0");
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_EQ(i->GetInt(0), 0);
}

TEST(ParseLiteralTest, ColumnMajorLayoutStoresBySlot) {
  auto l = ParseLiteral("s32[2,2]{0,1} {{1,2},{3,4}}");
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->GetInt(l->Slot({0, 1})), 2);
  EXPECT_EQ(l->GetInt(l->Slot({1, 0})), 3);
  EXPECT_EQ(l->GetInt(1), 3);  // physical slot 1 is element (1,0) in column-major
}

TEST(ParseLiteralTest, ConstantsInModules) {
  auto m = MustParse(R"(
HloModule m
ENTRY e {
  a = pred[3] constant({true, 0, 1})
  b = c64[2] constant({(1, -2), (3.5, 0)})
  c = f32[4] constant({nan, inf, -inf, -nan})
  d = f32[1000] constant({...})
  e = (f32[2], s8[]) constant(({1, 2}, -128))
  f = f32[0] constant({})
  g = f32[2,0] constant({ {}, {} })
  h = u64[] constant(18446744073709551615)
  i = f32[1,1,1,1] constant({ { /*i0=0*/ { /*i1=0*/ {7} } } })
  ROOT t = tuple(a, b, c, d, e, f, g, h, i)
}
)");
  ASSERT_NE(m, nullptr);
  Computation* c = m->entry();
  const Literal& b = Find(c, "b")->literal();
  EXPECT_EQ(b.GetComplex(1), std::complex<double>(3.5, 0));
  const Literal& cl = Find(c, "c")->literal();
  EXPECT_TRUE(std::isnan(cl.GetDouble(0)));
  EXPECT_TRUE(std::isinf(cl.GetDouble(2)) && cl.GetDouble(2) < 0);
  EXPECT_TRUE(Find(c, "d")->literal().elided());
  EXPECT_EQ(Find(c, "e")->literal().tuple_elements()[1].GetInt(0), -128);
  EXPECT_EQ(static_cast<uint64_t>(Find(c, "h")->literal().GetInt(0)), UINT64_MAX);
  EXPECT_DOUBLE_EQ(Find(c, "i")->literal().GetDouble(0), 7);
}

TEST(ParseLiteralTest, Errors) {
  EXPECT_TRUE(absl::StrContains(
      ParseError("HloModule m\nENTRY e {\n  ROOT c = s8[] constant(300)\n}\n"),
      "out of range for literal's primitive type S8 namely [-128, 127]"));
  EXPECT_TRUE(absl::StrContains(
      ParseError("HloModule m\nENTRY e {\n  ROOT c = f32[2,3] constant({1,2,3})\n}\n"),
      "t.hlo:3:"));
  EXPECT_TRUE(absl::StrContains(
      ParseError("HloModule m\nENTRY e {\n  ROOT c = f32[2] constant({1,2,3})\n}\n"), "t.hlo:3:"));
  EXPECT_TRUE(absl::StrContains(
      ParseError("HloModule m\nENTRY e {\n  ROOT c = f32[2] constant({{1},{2}})\n}\n"),
      "nested array"));
  EXPECT_FALSE(ParseModule("ENTRY e {\n ROOT c = f32[] constant((1, 2))\n}").ok());
  EXPECT_FALSE(ParseModule("ENTRY e {\n ROOT c = bf16[] constant(1e100)\n}").ok());
  EXPECT_FALSE(ParseModule("ENTRY e {\n ROOT c = f8e4m3fn[] constant(nan(0x1))\n}").ok());
  EXPECT_FALSE(ParseModule("ENTRY e {\n ROOT c = bf16[] constant(nan(0x3ff))\n}").ok());
  EXPECT_TRUE(ParseModule("ENTRY e {\n ROOT c = bf16[] constant(nan(0x3f))\n}").ok());
  EXPECT_FALSE(ParseModule("ENTRY e {\n ROOT c = u4[] constant(16)\n}").ok());
  EXPECT_FALSE(ParseModule("ENTRY e {\n ROOT c = s32[] constant(1.5)\n}").ok());
}

TEST(ParseLiteralTest, NanPayloadKeepsBits) {
  auto m = MustParse("ENTRY e {\n ROOT c = f32[] constant(-nan(0x7f))\n}");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry()->root()->literal().GetRaw<uint32_t>(0), 0xff80007fu);
}

// ---------------- module structure ----------------

TEST(ParseModuleTest, Basic) {
  auto m = MustParse(absl::StrCat("HloModule mod, is_scheduled=true, replica_count=2\n", kAdd, R"(
ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %c = f32[] constant(1)
  %b = f32[4]{0} broadcast(f32[] %c), dimensions={}
  ROOT %r = f32[4]{0} add(f32[4]{0} %p, f32[4]{0} %b)
}
)"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name(), "mod");
  EXPECT_TRUE(m->header().is_scheduled);
  EXPECT_EQ(m->header().replica_count, 2);
  ASSERT_EQ(m->computations().size(), 2u);
  EXPECT_EQ(m->entry()->name(), "main");
  EXPECT_EQ(m->entry()->root()->name(), "r");
  EXPECT_EQ(m->entry()->root()->loc().line, 13);
  EXPECT_EQ(m->entry()->root()->loc().col, 8);
  ASSERT_TRUE(m->header().entry_computation_layout.has_value());
  EXPECT_EQ(m->header().entry_computation_layout->parameters.size(), 1u);
  EXPECT_EQ(m->source_name(), "<stdin>");
  EXPECT_FALSE(m->source_text().empty());
}

TEST(ParseModuleTest, HeaderAttributes) {
  auto m = MustParse(R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {1}, must-alias) }, buffer_donor={ (0, {}) }, alias_passthrough_params=true, num_partitions=4, frontend_attributes={a="b",c={x=1}}, allow_spmd_sharding_propagation_to_parameters={true,false}, allow_spmd_sharding_propagation_to_output=true, entry_computation_layout={(f32[2]{0}, (f32[], s32[2]{0}))->(f32[2]{0}, f32[])}

ENTRY e {
  p0 = f32[2] parameter(0)
  p1 = (f32[], s32[2]) parameter(1)
  g = f32[] get-tuple-element(p1), index=0
  ROOT t = (f32[2], f32[]) tuple(p0, g)
}
)");
  ASSERT_NE(m, nullptr);
  const ModuleHeader& h = m->header();
  ASSERT_EQ(h.input_output_alias.size(), 2u);
  EXPECT_TRUE(h.input_output_alias[1].must_alias);
  EXPECT_EQ(h.input_output_alias[1].parameter_index, (std::vector<int64_t>{1}));
  EXPECT_EQ(h.buffer_donor.size(), 1u);
  EXPECT_EQ(h.alias_passthrough_params, true);
  EXPECT_EQ(h.num_partitions, 4);
  EXPECT_TRUE(h.frontend_attributes.at("c").is_dict);
  EXPECT_EQ(h.allow_spmd_sharding_propagation_to_parameters, (std::vector<bool>{true, false}));
  EXPECT_EQ(h.allow_spmd_sharding_propagation_to_output, (std::vector<bool>{true}));
  EXPECT_EQ(h.entry_computation_layout->parameters.size(), 2u);
}

TEST(ParseModuleTest, DerivedEntryLayout) {
  auto m = MustParse("HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n  ROOT n = f32[2,3] negate(a)\n}\n");
  ASSERT_NE(m, nullptr);
  const ProgramShape& ps = *m->header().entry_computation_layout;
  ASSERT_EQ(ps.parameters.size(), 1u);
  EXPECT_EQ(ToStdVector(ps.parameters[0].layout().minor_to_major), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ToStdVector(ps.result.dims()), (std::vector<int64_t>{2, 3}));
}

TEST(ParseModuleTest, HeaderlessAndDefaultRootAndEntry) {
  auto m = MustParse(R"(
comp {
  a = f32[] parameter(0)
  ROOT b = f32[] negate(a)
}
main {
  x = f32[] parameter(0)
  y = f32[] call(x), to_apply=comp
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry()->name(), "main");
  EXPECT_EQ(m->entry()->root()->name(), "y");
  EXPECT_EQ(m->name(), "module_main");
}

TEST(ParseModuleTest, ExecutionThreadAndStackFrames) {
  auto m = MustParse(R"(HloModule m

FileNames
1 "a.py"
FunctionNames
1 "f"
FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}
StackFrames
1 {file_location_id=1 parent_frame_id=0}

%t {
  a = f32[] parameter(0)
  ROOT b = f32[] negate(a)
}, execution_thread="host"

ENTRY e {
  ROOT c = f32[] constant(1), metadata={op_name="x" stack_frame_id=1}
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->FindComputation("t")->execution_thread(), "host");
  EXPECT_EQ(m->header().stack_frames.file_locations.size(), 1u);
  EXPECT_EQ(m->header().stack_frames.frames.size(), 1u);
}

TEST(ParseModuleTest, SingleInstructionMode) {
  auto m = MustParse("%multiply = f32[2,4]{1,0} multiply(f32[2,4]{1,0} %broadcast, f32[2,4]{1,0} %x)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry()->num_parameters(), 2);
  EXPECT_EQ(m->entry()->root()->opcode(), Opcode::kMultiply);
  auto m2 = MustParse("f32[10] add(f32[10], f32[10])");
  ASSERT_NE(m2, nullptr);
  EXPECT_EQ(m2->entry()->num_parameters(), 2);
  EXPECT_FALSE(ParseModule("%m = f32[2] multiply(%a, %b)").ok());
  EXPECT_FALSE(ParseModule("a = f32[] parameter(0)\nb = f32[] parameter(1)").ok());
}

// XLA reads a single instruction as `name = ...` unless it starts with a
// shape: an opcode first (no name, no result shape) is an error there, with
// or without operand shapes, and must be one here, located at the opcode.
TEST(ParseModuleTest, SingleInstructionNeedsNameOrShape) {
  for (absl::string_view text : {"multiply(f32[2,4]{1,0} %a, f32[2,4]{1,0} %b)",
                                 "multiply(f32[2,4], f32[2,4])", "ROOT add(f32[] x, f32[] y)"}) {
    std::string e = ParseError(text);
    EXPECT_TRUE(absl::StrContains(e, "expects '=' in instruction")) << text << "\n" << e;
  }
  std::string e = ParseError("  multiply(f32[2,4] %a, f32[2,4] %b)");
  EXPECT_TRUE(absl::StrContains(e, "t.hlo:1:3: error:")) << e;
  // Each accepted form of XLA's SingleOp tests still parses.
  for (absl::string_view text : {"%r = f32[2,4] multiply(f32[2,4] %a, f32[2,4] %b)",
                                 "%r = multiply(f32[2,4] %a, f32[2,4] %b)",
                                 "f32[2,4]{1,0} multiply(f32[2,4]{1,0}, f32[2,4]{1,0})",
                                 "%r = f32[2,4]{1,0} multiply(f32[2,4]{1,0}, f32[2,4]{1,0})"}) {
    auto m = ParseModule(text);
    ASSERT_TRUE(m.ok()) << text << "\n" << m.status().message();
    EXPECT_EQ((*m)->entry()->root()->opcode(), Opcode::kMultiply) << text;
    EXPECT_EQ((*m)->entry()->num_parameters(), 2) << text;
  }
}

TEST(ParseModuleTest, NestedAnonymousInstructions) {
  auto m = MustParse(R"(HloModule test
ENTRY test {
    ROOT root = f32[10] add(f32[10] parameter(0), multiply(f32[10] parameter(1), f32[10] parameter(2)))
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry()->instruction_count(), 5);
  EXPECT_NE(Find(m->entry(), "parameter.anon.2"), nullptr);
  EXPECT_NE(Find(m->entry(), "multiply.anon"), nullptr);
}

TEST(ParseModuleTest, InlineComputation) {
  auto m = MustParse(R"(HloModule m
ENTRY e {
  p = f32[10] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT s = f32[] add(a, b)
  }
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->computations().size(), 2u);
  Computation* const* called = m->entry()->root()->GetAttr<Computation*>("to_apply");
  ASSERT_NE(called, nullptr);
  EXPECT_EQ((*called)->root()->opcode(), Opcode::kAdd);
}

TEST(ParseModuleTest, ControlPredecessorsAreEdges) {
  auto m = MustParse(R"(HloModule m
ENTRY e {
  a = f32[] parameter(0)
  b = f32[] negate(a)
  ROOT c = f32[] exponential(a), control-predecessors={b}
}
)");
  ASSERT_NE(m, nullptr);
  Instruction* c = m->entry()->root();
  ASSERT_EQ(c->control_predecessors().size(), 1u);
  EXPECT_EQ(c->control_predecessors()[0]->name(), "b");
  EXPECT_FALSE(c->HasAttr("control-predecessors"));
}

TEST(ParseModuleTest, AsyncSugar) {
  auto m = MustParse(R"(HloModule m
ENTRY %Entry (p0: f32[10]) -> f32[20] {
  %p0 = f32[10]{0} parameter(0)
  %s = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-start(f32[10]{0} %p0), custom_call_target="foo"
  %u = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-update(%s)
  ROOT %d = f32[20]{0} custom-call-done(%u)
}
)");
  ASSERT_NE(m, nullptr);
  Instruction* s = Find(m->entry(), "s");
  Instruction* d = m->entry()->root();
  EXPECT_EQ(s->opcode(), Opcode::kAsyncStart);
  EXPECT_EQ(d->opcode(), Opcode::kAsyncDone);
  Computation* const* calls = s->GetAttr<Computation*>("calls");
  ASSERT_NE(calls, nullptr);
  EXPECT_EQ((*calls)->root()->opcode(), Opcode::kCustomCall);
  EXPECT_EQ((*calls)->num_parameters(), 1);
  EXPECT_EQ((*calls)->root()->AttrOr<std::string>("custom_call_target", ""), "foo");
  EXPECT_EQ(*d->GetAttr<Computation*>("calls"), *calls);
  EXPECT_EQ(m->computations().size(), 2u);

  // Universal attributes reach the wrapped instruction; errors for bad chains.
  auto m2 = MustParse(R"(HloModule test
ENTRY main {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  add-start = ((s32[], s32[]), s32[], s32[]) add-start(a, b), metadata={op_name="x"}, backend_config="cfg"
  ROOT add-done = s32[] add-done(add-start)
}
)");
  ASSERT_NE(m2, nullptr);
  Computation* w = *m2->entry()->root()->GetAttr<Computation*>("calls");
  EXPECT_EQ(w->root()->opcode(), Opcode::kAdd);
  EXPECT_TRUE(w->root()->HasAttr("metadata"));
  EXPECT_TRUE(w->root()->HasAttr("backend_config"));
  EXPECT_FALSE(ParseModule("ENTRY e {\n p = f32[2] parameter(0)\n ROOT d = f32[2] custom-call-done(p)\n}").ok());
}

TEST(ParseModuleTest, Attributes) {
  auto m = MustParse(absl::StrCat("HloModule m\n", kAdd, R"(
ENTRY e {
  p = f32[1,4,4,2] parameter(0)
  k = f32[3,3,2,2] parameter(1)
  c = f32[1,4,4,2] convolution(p, k), window={size=3x3 pad=1_1x1_1 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f, sharding={devices=[1,2,1,1]<=[2]}
  z = f32[] constant(0)
  pd = f32[1,6,4,2] pad(c, z), padding=0_0x1_1x0_0_0x0_0
  sl = f32[1,3,4,2] slice(pd), slice={[0:1], [0:6:2], [0:4], [0:2]}
  ar = f32[1,3,4,2] all-reduce(sl), replica_groups=[2,1]<=[2], to_apply=%add, channel_id=3
  cc = f32[2] custom-call(ar), custom_call_target="x", backend_config={"a": {"b": 1}}, api_version=API_VERSION_TYPED_FFI, frontend_attributes={k="v"}, metadata={op_type="t" op_name="n" source_line=3}
  ROOT cmp = pred[2] compare(cc, cc), direction=LT, type=TOTALORDER
}
)"));
  ASSERT_NE(m, nullptr);
  Computation* e = m->entry();
  const Window* w = Find(e, "c")->GetAttr<Window>("window");
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->dimensions.size(), 2u);
  EXPECT_EQ(w->dimensions[0].padding_low, 1);
  EXPECT_TRUE(w->dimensions[0].window_reversal);
  const ConvolutionDimensionNumbers* dn = Find(e, "c")->GetAttr<ConvolutionDimensionNumbers>("dim_labels");
  ASSERT_NE(dn, nullptr);
  EXPECT_EQ(dn->input_feature_dimension, 3);
  EXPECT_EQ(dn->kernel_output_feature_dimension, 3);
  EXPECT_EQ(dn->input_spatial_dimensions, (std::vector<int64_t>{1, 2}));
  const Sharding* sh = Find(e, "c")->GetAttr<Sharding>("sharding");
  ASSERT_NE(sh, nullptr);
  EXPECT_EQ(sh->kind, Sharding::Kind::kTiled);
  EXPECT_TRUE(sh->iota_devices);
  const PaddingConfig* pc = Find(e, "pd")->GetAttr<PaddingConfig>("padding");
  ASSERT_NE(pc, nullptr);
  EXPECT_EQ(pc->size(), 4u);
  EXPECT_EQ((*pc)[1].high, 1);
  const SliceRanges* sr = Find(e, "sl")->GetAttr<SliceRanges>("slice");
  ASSERT_NE(sr, nullptr);
  EXPECT_EQ((*sr)[1].stride, 2);
  const CollectiveDeviceList* rg = Find(e, "ar")->GetAttr<CollectiveDeviceList>("replica_groups");
  ASSERT_NE(rg, nullptr);
  EXPECT_TRUE(rg->is_iota);
  EXPECT_EQ(Find(e, "ar")->AttrOr<int64_t>("channel_id", 0), 3);
  const StringOrDict* bc = Find(e, "cc")->GetAttr<StringOrDict>("backend_config");
  ASSERT_NE(bc, nullptr);
  EXPECT_TRUE(bc->is_dict);
  EXPECT_EQ(bc->text, R"({"a": {"b": 1}})");
  const OpMetadata* md = Find(e, "cc")->GetAttr<OpMetadata>("metadata");
  ASSERT_NE(md, nullptr);
  EXPECT_EQ(md->source_line, 3);
  EXPECT_EQ(e->root()->AttrOr<std::string>("direction", ""), "LT");
}

TEST(ParseModuleTest, ShardingForms) {
  const char* kForms[] = {
      "{replicated}", "{maximal device=1}", "{manual}", "{unknown}", "{devices=[2,1]0,1}",
      "{devices=[4,1,2]<=[8] last_tile_dim_replicate}",
      "{devices=[2,2,2]<=[2,2,2]T(2,1,0) last_tile_dims={manual, replicated}}",
      "{{manual}, {maximal device=0}}", "{}", "{replicated metadata={op_name=\"a\"}}",
      "{devices=[2,1]0,1 shard_as 3}", "{mesh[a=2,b=4], [{a}, {}]}",
  };
  for (const char* f : kForms) {
    auto m = ParseModule(absl::StrCat("ENTRY e {\n ROOT p = f32[8] parameter(0), sharding=", f, "\n}"));
    EXPECT_TRUE(m.ok()) << f << ": " << m.status().message();
  }
  EXPECT_FALSE(ParseModule("ENTRY e {\n ROOT p = f32[8] parameter(0), sharding={devices=[2,2]0,1}\n}").ok());
  EXPECT_FALSE(ParseModule("ENTRY e {\n ROOT p = f32[8] parameter(0), sharding={maximal}\n}").ok());
}


TEST(ParseModuleTest, MiscSemantics) {
  // broadcast of a scalar without dimensions= gets an empty list.
  auto m = MustParse("ENTRY e {\n  a = f32[] parameter(0)\n  ROOT b = f32[2,3] broadcast(a)\n}");
  ASSERT_NE(m, nullptr);
  const std::vector<int64_t>* dims = m->entry()->root()->GetAttr<std::vector<int64_t>>("dimensions");
  ASSERT_NE(dims, nullptr);
  EXPECT_TRUE(dims->empty());
  EXPECT_FALSE(ParseModule("ENTRY e {\n  a = f32[3] parameter(0)\n  ROOT b = f32[2,3] broadcast(a)\n}").ok());
  // A named single instruction may leave its result shape to inference.
  auto s = ParseModule("s = add(f32[10] x, f32[10] y)");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->entry()->root()->opcode(), Opcode::kAdd);
  EXPECT_EQ(ToStdVector((*s)->entry()->root()->shape().dims()), (std::vector<int64_t>{10}));
  // Layout filling can be turned off.
  ParseOptions no_fill;
  no_fill.fill_missing_layouts = false;
  auto nf = ParseModule("ENTRY e {\n  ROOT a = f32[2,3] parameter(0)\n}", no_fill);
  ASSERT_TRUE(nf.ok()) << nf.status().message();
  EXPECT_FALSE((*nf)->entry()->root()->shape().has_layout());
  // Parameter numbers with gaps are left to the verifier (no crash here).
  auto gap = ParseModule("ENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] parameter(2)\n  ROOT r = f32[] add(a, b)\n}");
  ASSERT_TRUE(gap.ok()) << gap.status().message();
  EXPECT_EQ((*gap)->header().entry_computation_layout->parameters.size(), 2u);
  // Aliasing is checked against the entry computation.
  std::string e = ParseError(
      "HloModule m, input_output_alias={ {1}: (0, {}) }\nENTRY e {\n  ROOT a = f32[2] parameter(0)\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "t.hlo:1:")) << e;
  EXPECT_TRUE(ParseModule(
      "HloModule m, input_output_alias={ {}: (0, {}) }, buffer_donor={ (0, {}) }\nENTRY e {\n  ROOT a = f32[2] parameter(0)\n}\n").ok());
  // Operand shapes in single-instruction mode become parameters with the given names.
  auto so = MustParse("%r = f32[10] add(f32[10] %x, f32[10] %y)");
  ASSERT_NE(so, nullptr);
  EXPECT_EQ(so->entry()->parameter(1)->name(), "y");
}


TEST(ParseModuleTest, MoreAttributeForms) {
  auto m = MustParse(R"(HloModule m
%f (a: f32[2], b: f32[2]) -> f32[2] {
  %a = f32[2] parameter(0)
  %b = f32[2] parameter(1)
  ROOT %r = f32[2] add(%a, %b)
}
ENTRY e {
  p = f32[2] parameter(0), origin={{"v1"}}
  q = f32[2] exponential(p), result_accuracy={tolerance={atol=0.1,rtol=0,ulps=2}}, statistics={visualizing_index=1,stat-1=33,stat-2=0.5}
  l = f32[2] log(q), result_accuracy={mode=highest}
  d = f32[2] domain(l), domain={kind="sharding", entry={maximal device=0}, exit={replicated}}
  fu = f32[2] fusion(d, p), kind=kLoop, calls=%f, output_to_operand_aliasing={{}: (0, {})}
  dt = f32[] dot(fu, fu), lhs_contracting_dims={0}, rhs_contracting_dims={0}, sparsity=L.0@2:4
  ROOT c = f32[] custom-call(dt), custom_call_target="t", frontend_attributes={composite.name="a.b",composite.attributes={n = 1 : i32}}, schedule=SCHEDULE_LATEST
}
)");
  ASSERT_NE(m, nullptr);
  Computation* e = m->entry();
  EXPECT_EQ(Find(e, "p")->GetAttr<RawText>("origin")->text, R"({{"v1"}})");
  const ResultAccuracy* ra = Find(e, "q")->GetAttr<ResultAccuracy>("result_accuracy");
  ASSERT_NE(ra, nullptr);
  EXPECT_EQ(ra->ulps, 2);
  EXPECT_DOUBLE_EQ(ra->atol, 0.1);
  EXPECT_EQ(Find(e, "l")->GetAttr<ResultAccuracy>("result_accuracy")->mode, "highest");
  const Statistics* st = Find(e, "q")->GetAttr<Statistics>("statistics");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->stats.size(), 2u);
  EXPECT_EQ(Find(e, "d")->GetAttr<DomainSpec>("domain")->exit.kind, Sharding::Kind::kReplicated);
  EXPECT_EQ(Find(e, "fu")->GetAttr<std::vector<OutputOperandAlias>>("output_to_operand_aliasing")->size(), 1u);
  EXPECT_EQ(Find(e, "dt")->GetAttr<RawText>("sparsity")->text, "L.0@2:4");
  const FrontendAttributes* fa = e->root()->GetAttr<FrontendAttributes>("frontend_attributes");
  ASSERT_NE(fa, nullptr);
  EXPECT_EQ(fa->at("composite.attributes").text, "{n = 1 : i32}");
  EXPECT_EQ(fa->at("composite.name").text, "a.b");
}

TEST(ParseErrorTest, AttributeValueErrors) {
  auto bad = [](absl::string_view instr) {
    return ParseModule(absl::StrCat(
        "HloModule m\nadd {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\n"
        "ENTRY e {\n p = f32[4,4] parameter(0)\n k = f32[4,4] parameter(1)\n z = f32[] constant(0)\n ROOT r = ",
        instr, "\n}\n"));
  };
  EXPECT_TRUE(bad("f32[4,4] reduce-window(p, z), window={size=2x2 stride=1}, to_apply=add").ok() == false);
  EXPECT_FALSE(bad("f32[4,4] reduce-window(p, z), window={size=2x2 bogus=1}, to_apply=add").ok());
  EXPECT_FALSE(bad("f32[4,4] reduce-window(p, z), window={size=2x2}, to_apply=nothere").ok());
  EXPECT_FALSE(bad("f32[4,4] convolution(p, k), dim_labels=bf_io->bfx").ok());
  EXPECT_FALSE(bad("f32[4,4] convolution(p, k), dim_labels=b0f_00io->b0f").ok());
  EXPECT_FALSE(bad("f32[4,4] pad(p, z), padding=0_0_-1x0_0").ok());
  EXPECT_FALSE(bad("f32[4,4] slice(p), slice={[0:4:1:1], [0:4]}").ok());
  EXPECT_FALSE(bad("f32[4,4] all-reduce(p), replica_groups=[2,3]<=[4], to_apply=add").ok());
  EXPECT_FALSE(bad("f32[4,4] negate(p), metadata={op_name=1}").ok());
  EXPECT_FALSE(bad("f32[4,4] negate(p), frontend_attributes={a=}").ok());
  EXPECT_FALSE(bad("f32[4,4] negate(p), backend_config={\"a\"").ok());
  EXPECT_TRUE(bad("f32[4,4] reduce-window(p, z), window={size=2x2 pad=0_1x1_0 rhs_reversal=1x0}, to_apply=add").ok());
}

// ---------------- errors ----------------

TEST(ParseErrorTest, LocationsAndMessages) {
  std::string e = ParseError("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT b = f32[] add(a, c)\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "t.hlo:4:")) << e;
  EXPECT_TRUE(absl::StrContains(e, "instruction does not exist: c")) << e;
  EXPECT_TRUE(absl::StrContains(e, "^")) << e;

  e = ParseError("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT b = f32[] negate(a), foo=1\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "unexpected attribute \"foo\"")) << e;
  e = ParseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] reverse(a)\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "attribute dimensions is expected but not seen")) << e;
  e = ParseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] reverse(a), dimensions={0}, dimensions={0}\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "already exists")) << e;
  e = ParseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] negate(a, a)\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "expects 1 operand")) << e;
  e = ParseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = compare(a, a), direction=XX\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "XX")) << e;
  e = ParseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = reshape(a)\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "cannot infer shape for opcode: reshape")) << e;
  e = ParseError("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[3] negate(f32[3] a)\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "not compatible")) << e;
  e = ParseError("HloModule m\nc {\n ROOT a = f32[] parameter(0)\n}\nc {\n ROOT a = f32[] parameter(0)\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "t.hlo:5:")) << e;
  EXPECT_TRUE(absl::StrContains(e, "t.hlo:2:")) << e;
  e = ParseError("HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0)\n  ROOT b = f32[] parameter(1)\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "t.hlo:4:")) << e;
  e = ParseError("");
  EXPECT_TRUE(absl::StrContains(e, "t.hlo:1:")) << e;
}

TEST(ParseErrorTest, HugeSizesAreErrorsNotCrashes) {
  EXPECT_FALSE(ParseModule("ENTRY e {\n ROOT c = f32[100000,100000,100000] constant({...})\n}").ok());
  EXPECT_FALSE(ParseModule("ENTRY e {\n ROOT c = f32[4611686018427387904,4] constant({...})\n}").ok());
  EXPECT_FALSE(ParseModule("ENTRY e {\n ROOT p = f32[] parameter(9223372036854775807)\n}").ok());
  EXPECT_FALSE(ParseLiteral("f32[100000,100000,100000] {...}").ok());
}

TEST(ParseErrorTest, NoCrashOnDeepNesting) {
  std::string text = "HloModule m\nENTRY e {\n  ROOT r = f32[] add(";
  for (int i = 0; i < 5000; ++i) text += "negate(";
  auto m = ParseModule(text);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "recursion depth")) << m.status().message();
}

TEST(ParseErrorTest, TruncatedInputsNeverCrash) {
  std::string text = absl::StrCat("HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n", kAdd, R"(
ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %c = f32[4] constant({1, 2, 3, 4}), sharding={devices=[2]0,1}, metadata={op_name="x"}
  ROOT %r = f32[4]{0} add(f32[4]{0} %p, f32[4]{0} %c), backend_config={"a":"}"}
}
)");
  for (size_t n = 0; n < text.size(); ++n) {
    auto m = ParseModule(absl::string_view(text.data(), n));
    (void)m;
  }
  SUCCEED();
}

}  // namespace
}  // namespace hlo
