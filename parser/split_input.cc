// hlo-opt --split-input-file support and the JSON-dict test used by
// backend_config.
#include "parser/parser.h"

#include "absl/strings/str_split.h"

namespace hlo {

std::vector<InputChunk> SplitInputFile(absl::string_view text) {
  std::vector<InputChunk> chunks;
  InputChunk current;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    absl::string_view trimmed = line;
    if (!trimmed.empty() && trimmed.back() == '\r') trimmed.remove_suffix(1);
    if (trimmed == "// -----") {
      chunks.push_back(std::move(current));
      current = InputChunk();
      current.first_line = line_no + 1;
      // Pad so that line numbers inside the chunk match the file.
      current.text.assign(line_no, '\n');
      continue;
    }
    current.text.append(line.data(), line.size());
    current.text.push_back('\n');
  }
  chunks.push_back(std::move(current));
  return chunks;
}

bool LexesAsJsonDict(absl::string_view text) {
  if (text.empty() || text.front() != '{') return false;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0) return i + 1 == text.size();
    }
  }
  return false;
}

}  // namespace hlo
