#include "tools/npy_dir.h"

#include <sys/stat.h>
#include <unistd.h>

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

// `*created` tells whether the directory is new (removed again on failure).
absl::Status EnsureDirectory(const std::string& dir, const std::string& flag, bool* created) {
  struct stat st;
  *created = false;
  if (stat(dir.c_str(), &st) != 0) {
    if (mkdir(dir.c_str(), 0777) != 0)
      return absl::InvalidArgumentError(absl::StrCat("cannot create --", flag, " '", dir, "'"));
    *created = true;
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
  // A row-major leaf's data is written from its own buffer (no copy).
  struct File {
    std::string path;
    std::vector<absl::string_view> pieces;
  };
  std::vector<NpyEncoding> encoded;
  encoded.reserve(leaves.size());
  std::vector<File> files;
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i].leaf->shape().IsArray()) continue;  // tokens have no data: no file
    absl::StatusOr<NpyEncoding> npy = EncodeNpyParts(*leaves[i].leaf);
    if (!npy.ok()) return npy.status();
    encoded.push_back(*std::move(npy));
  }
  for (size_t i = 0, e = 0; i < leaves.size(); ++i) {
    if (!leaves[i].leaf->shape().IsArray()) continue;
    files.push_back({absl::StrCat(dir, "/", i, ".npy"), {encoded[e].header(), encoded[e].data()}});
    ++e;
  }
  const std::string sidecar_text = sidecar.empty() ? "" : Sidecar(leaves, value_key);
  if (!sidecar.empty()) files.push_back({absl::StrCat(dir, "/", sidecar), {sidecar_text}});
  bool created = false;
  absl::Status st = EnsureDirectory(dir, flag, &created);
  if (!st.ok()) return st;
  for (const File& file : files) {
    struct stat fst;
    if (stat(file.path.c_str(), &fst) == 0 && S_ISDIR(fst.st_mode))
      return absl::InvalidArgumentError(absl::StrCat("cannot write '", file.path, "': it is a directory"));
  }
  // All or nothing: a file that fails (e.g. its name is taken by a
  // directory) takes back the ones written before it, and a directory made
  // here goes too, so a failed run leaves no partial output.
  std::vector<std::string> written;
  for (const File& file : files) {
    st = WriteOutput(file.path, file.pieces);
    if (!st.ok()) {
      for (const std::string& w : written) unlink(w.c_str());
      if (created) rmdir(dir.c_str());
      return st;
    }
    written.push_back(file.path);
  }
  return absl::OkStatus();
}

}  // namespace hlo
