#include "tools/npy_dir.h"

#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/element_type.h"
#include "ir/printer.h"
#include "tools/file_io.h"
#include "tools/npy.h"

namespace hlo {
namespace {

void Flatten(const Literal& value, int64_t value_index, std::vector<int64_t>* path,
             std::vector<LiteralLeaf>* out) {
  if (value.IsTuple()) {
    const std::vector<Literal>& elements = value.tuple_elements();
    for (size_t i = 0; i < elements.size(); ++i) {
      path->push_back(static_cast<int64_t>(i));
      Flatten(elements[i], value_index, path, out);
      path->pop_back();
    }
    return;
  }
  out->push_back(LiteralLeaf{value_index, *path, &value});
}

absl::Status EnsureDirectory(const std::string& dir, const std::string& flag) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    if (mkdir(dir.c_str(), 0777) != 0)
      return absl::InvalidArgumentError(absl::StrCat("cannot create --", flag, " '", dir, "'"));
  } else if (!S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, " '", dir, "' is not a directory"));
  }
  return absl::OkStatus();
}

std::string Sidecar(const std::vector<LiteralLeaf>& leaves, const std::string& value_key) {
  std::string json = "{\n  \"leaves\": [";
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Shape& shape = leaves[i].leaf->shape();
    const bool array = shape.IsArray();
    absl::StrAppend(&json, i ? ",\n" : "\n", "    {\"file\": ",
                    array ? absl::StrCat("\"", i, ".npy\"") : "null", ", \"", value_key,
                    "\": ", leaves[i].value_index, ", \"tuple_index\": [",
                    absl::StrJoin(leaves[i].tuple_index, ", "), "], \"element_type\": \"",
                    PrimitiveTypeName(shape.element_type()), "\", \"shape\": \"",
                    ShapeToString(shape), "\"}");
  }
  absl::StrAppend(&json, "\n  ]\n}\n");
  return json;
}

}  // namespace

std::vector<LiteralLeaf> FlattenLeaves(const std::vector<const Literal*>& values) {
  std::vector<LiteralLeaf> leaves;
  std::vector<int64_t> path;
  for (size_t i = 0; i < values.size(); ++i)
    Flatten(*values[i], static_cast<int64_t>(i), &path, &leaves);
  return leaves;
}

absl::Status WriteNpyDir(const std::string& dir, const std::vector<LiteralLeaf>& leaves,
                         const std::string& flag, const std::string& sidecar,
                         const std::string& value_key) {
  // Encode every leaf first, so that an unencodable leaf writes nothing.
  std::vector<std::string> encoded;
  for (const LiteralLeaf& leaf : leaves) {
    if (!leaf.leaf->shape().IsArray()) {
      encoded.emplace_back();  // tokens have no data: no file
      continue;
    }
    absl::StatusOr<std::string> bytes = EncodeNpy(*leaf.leaf);
    if (!bytes.ok()) return bytes.status();
    encoded.push_back(*std::move(bytes));
  }
  absl::Status st = EnsureDirectory(dir, flag);
  if (!st.ok()) return st;
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i].leaf->shape().IsArray()) continue;
    st = WriteOutput(absl::StrCat(dir, "/", i, ".npy"), encoded[i]);
    if (!st.ok()) return st;
  }
  if (!sidecar.empty()) st = WriteOutput(absl::StrCat(dir, "/", sidecar), Sidecar(leaves, value_key));
  return st;
}

}  // namespace hlo
