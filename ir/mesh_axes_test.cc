#include "ir/mesh_axes.h"

#include "ir/attribute.h"

#include <gtest/gtest.h>

namespace hlo {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

MeshAxesDeviceList Mesh(std::vector<std::string> names, std::vector<int64_t> sizes,
                        std::vector<MeshAxisRef> axes, std::vector<int64_t> device_ids = {}) {
  MeshAxesDeviceList m;
  m.axis_names = std::move(names);
  m.axis_sizes = std::move(sizes);
  m.axes = std::move(axes);
  m.device_ids = std::move(device_ids);
  return m;
}

MeshAxisRef Full(int64_t axis) { return MeshAxisRef{axis, 0, 0}; }
MeshAxisRef Sub(int64_t axis, int64_t pre, int64_t size) { return MeshAxisRef{axis, pre, size}; }

TEST(MeshAxes, WholeAxesOfATwoByTwoMesh) {
  // Devices [[0,1],[2,3]] over (x, y).
  EXPECT_EQ(Mesh({"x", "y"}, {2, 2}, {Full(1)}).Groups(), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(Mesh({"x", "y"}, {2, 2}, {Full(0)}).Groups(), (Groups{{0, 2}, {1, 3}}));
  // Both axes: one group, ordered by the axes in the written order.
  EXPECT_EQ(Mesh({"x", "y"}, {2, 2}, {Full(0), Full(1)}).Groups(), (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(Mesh({"x", "y"}, {2, 2}, {Full(1), Full(0)}).Groups(), (Groups{{0, 2, 1, 3}}));
  // No axes: every device alone.
  EXPECT_EQ(Mesh({"x", "y"}, {2, 2}, {}).Groups(), (Groups{{0}, {1}, {2}, {3}}));
}

TEST(MeshAxes, ThreeAxesGroupedOverTheMiddleOne) {
  // Devices of mesh[a=2,b=3,c=2] are a*6 + b*2 + c; groups vary b.
  EXPECT_EQ(Mesh({"a", "b", "c"}, {2, 3, 2}, {Full(1)}).Groups(),
            (Groups{{0, 2, 4}, {1, 3, 5}, {6, 8, 10}, {7, 9, 11}}));
}

TEST(MeshAxes, SubAxes) {
  // a:(1)2 is the major half of a=8: devices 4 apart.
  EXPECT_EQ(Mesh({"a"}, {8}, {Sub(0, 1, 2)}).Groups(), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  // a:(4)2 is the minor factor 2: neighbours.
  EXPECT_EQ(Mesh({"a"}, {8}, {Sub(0, 4, 2)}).Groups(), (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  // a:(2)2 is the middle factor of [2,2,2].
  EXPECT_EQ(Mesh({"a"}, {8}, {Sub(0, 2, 2)}).Groups(), (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  // Two sub-axes of one axis: [8] -> [2,2,2], grouped over parts 0 and 2.
  EXPECT_EQ(Mesh({"a"}, {8}, {Sub(0, 1, 2), Sub(0, 4, 2)}).Groups(), (Groups{{0, 1, 4, 5}, {2, 3, 6, 7}}));
  // Written the other way round, the minor part orders the group first.
  EXPECT_EQ(Mesh({"a"}, {8}, {Sub(0, 4, 2), Sub(0, 1, 2)}).Groups(), (Groups{{0, 4, 1, 5}, {2, 6, 3, 7}}));
}

TEST(MeshAxes, ExplicitDeviceIds) {
  // Device array [[0,2],[1,3]].
  EXPECT_EQ(Mesh({"x", "y"}, {2, 2}, {Full(1)}, {0, 2, 1, 3}).Groups(), (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(Mesh({"x", "y"}, {2, 2}, {Full(0)}, {0, 2, 1, 3}).Groups(), (Groups{{0, 1}, {2, 3}}));
}

TEST(MeshAxes, MaximalMesh) {
  MeshAxesDeviceList m;
  m.maximal = true;
  m.device_ids = {3};
  EXPECT_EQ(m.Groups(), (Groups{{3}}));
  std::string text;
  m.AppendText(&text);
  EXPECT_EQ(text, "maximal_mesh[device_id=3] {}");
}

// XLA's iota device form, device_ids=([4,2]T(1,0)): expanded, kept in
// XLA's canonical form (sizes of 1 dropped, dimensions that stay in order
// merged), printed back so; the identity leaves the plain mesh.
TEST(MeshAxes, DeviceIota) {
  MeshAxesDeviceList m = Mesh({"a", "b"}, {2, 4}, {Full(0)});
  m.quoted_names = true;
  EXPECT_EQ(m.SetDeviceIota({4, 2}, {1, 0}), "");
  EXPECT_EQ(m.device_ids, (std::vector<int64_t>{0, 2, 4, 6, 1, 3, 5, 7}));
  EXPECT_EQ(m.Groups(), (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  std::string text;
  m.AppendText(&text);
  EXPECT_EQ(text, "mesh['a'=2,'b'=4], device_ids=([4,2]T(1,0)) {'a'}");
  EXPECT_EQ(m.SetDeviceIota({4, 1, 2}, {2, 1, 0}), "");
  EXPECT_EQ(m.iota_reshape_dims, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(m.iota_transpose_perm, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(m.SetDeviceIota({2, 2, 2}, {0, 1, 2}), "");  // the identity
  EXPECT_TRUE(m.device_ids.empty());
  EXPECT_TRUE(m.iota_reshape_dims.empty());
  EXPECT_NE(m.SetDeviceIota({3, 2}, {1, 0}), "");     // 6 devices for 8
  EXPECT_NE(m.SetDeviceIota({4, 2}, {0, 0}), "");     // not a permutation
  EXPECT_NE(m.SetDeviceIota({4, 2}, {1, 0, 2}), "");  // longer than the dims
}

TEST(MeshAxes, Problems) {
  EXPECT_NE(Mesh({"x", "x"}, {2, 2}, {}).Problem(), "");
  EXPECT_NE(Mesh({"x"}, {0}, {}).Problem(), "");
  EXPECT_NE(Mesh({"x", "y"}, {2, 2}, {}, {0, 1, 2}).Problem(), "");     // too few ids
  EXPECT_NE(Mesh({"x", "y"}, {2, 2}, {}, {0, 1, 1, 3}).Problem(), "");  // not a permutation
  EXPECT_NE(Mesh({"a"}, {8}, {Sub(0, 1, 3)}).Problem(), "");            // 3 does not divide 8
  EXPECT_NE(Mesh({"a"}, {8}, {Sub(0, 1, 8)}).Problem(), "");            // not smaller than the axis
  EXPECT_NE(Mesh({"a"}, {8}, {Full(0), Sub(0, 1, 2)}).Problem(), "");   // overlap
  EXPECT_NE(Mesh({"a"}, {8}, {Sub(0, 1, 4), Sub(0, 2, 2)}).Problem(), "");  // overlap
  EXPECT_NE(Mesh({"a"}, {8}, {Sub(0, 1, 2), Sub(0, 2, 2)}).Problem(), "");  // mergeable
  EXPECT_NE(Mesh({"a"}, {8}, {Full(0), Full(0)}).Problem(), "");
  EXPECT_TRUE(Mesh({"a"}, {8}, {Sub(0, 1, 2), Sub(0, 2, 2)}).Groups().empty());
  EXPECT_EQ(Mesh({"a", "b"}, {8, 2}, {Sub(0, 1, 2), Full(1), Sub(0, 4, 2)}).Problem(), "");
}

TEST(MeshAxes, Text) {
  MeshAxesDeviceList m = Mesh({"x", "y"}, {2, 2}, {Full(1), Full(0)}, {0, 2, 1, 3});
  std::string text;
  m.AppendText(&text);
  EXPECT_EQ(text, "mesh[x=2,y=2], device_ids=(0,2,1,3) {y,x}");
  MeshAxesDeviceList q = Mesh({"a"}, {8}, {Sub(0, 1, 2)});
  q.quoted_names = true;
  text.clear();
  q.AppendText(&text);
  EXPECT_EQ(text, "mesh['a'=8] {'a':(1)2}");
}

TEST(MeshAxes, IotaDeviceIdsAreCheckedBeforeExpanding) {
  // device_ids=([4]<=[2,2]T(1,0)) is the order 0,2,1,3.
  IotaDeviceList ids{{4}, {2, 2}, {1, 0}};
  EXPECT_EQ(ids.Problem(), "");
  EXPECT_EQ(ids.Expand(), (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_NE((IotaDeviceList{{5}, {2, 2}, {}}).Problem(), "");      // 5 != 4 devices
  EXPECT_NE((IotaDeviceList{{4}, {2, 2}, {0, 0}}).Problem(), "");  // not a permutation
  EXPECT_NE((IotaDeviceList{{4}, {2, 2}, {1, 0, 2}}).Problem(), "");
  EXPECT_NE((IotaDeviceList{{0}, {0}, {}}).Problem(), "");         // non-positive reshape dim
}

}  // namespace
}  // namespace hlo
