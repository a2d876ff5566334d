#include "analysis/html_graph.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace hlo {
namespace {

std::string HtmlEscape(absl::string_view s) {
  return absl::StrReplaceAll(s, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

// A temporary file removed when it goes out of scope.
class TempFile {
 public:
  TempFile() {
    const char* dir = std::getenv("TMPDIR");
    path_ = absl::StrCat(dir != nullptr && *dir != '\0' ? dir : "/tmp", "/hlo-graph-XXXXXX");
    fd_ = mkstemp(path_.data());
  }
  ~TempFile() {
    if (fd_ >= 0) {
      close(fd_);
      unlink(path_.c_str());
    }
  }
  bool ok() const { return fd_ >= 0; }
  bool Write(const std::string& data) {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = write(fd_, data.data() + done, data.size() - done);
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// The page's script: the hover panel, a node count in data-node-count,
// and (with #selftest in the URL) a check that hovering every node shows
// its text, for the headless-browser test.
constexpr char kScript[] = R"JS(
(function () {
  var nodes = document.querySelectorAll('#graph g.node');
  var info = document.getElementById('info');
  function text(g) {
    var a = g.querySelector('a');
    var t = a && (a.getAttribute('xlink:title') || a.getAttribute('title'));
    return t || g.querySelector('title').textContent;
  }
  nodes.forEach(function (g) {
    g.addEventListener('mouseenter', function () { info.textContent = text(g); });
  });
  document.body.setAttribute('data-node-count', String(nodes.length));
  if (location.hash === '#selftest') {
    var ok = 0;
    nodes.forEach(function (g) {
      g.dispatchEvent(new MouseEvent('mouseenter'));
      if (info.textContent === text(g) && info.textContent.length > 0) ok++;
    });
    document.body.setAttribute('data-hover-ok', String(ok));
  }
})();
)JS";

}  // namespace

absl::StatusOr<std::string> RenderSvg(const std::string& dot_text) {
  TempFile input;
  if (!input.ok() || !input.Write(dot_text))
    return absl::InternalError("cannot write a temporary file for Graphviz");
  const char* env = std::getenv("HLO_DOT");
  const std::string program = env != nullptr && *env != '\0' ? env : "dot";
  // The program name is the user's own setting; the file name is ours
  // (no shell metacharacters in mkstemp's template).
  const std::string command = absl::StrCat("'", program, "' -Tsvg '", input.path(), "' 2>&1");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return absl::InternalError("cannot start Graphviz");
  std::string svg;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) svg.append(buf, n);
  const int status = pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
      return absl::FailedPreconditionError(absl::StrCat(
          "Graphviz '", program, "' not found: --emit=html needs it (Debian package graphviz)"));
    return absl::InternalError(absl::StrCat("Graphviz '", program, "' failed: ", svg));
  }
  // Inline SVG: drop the XML prolog and doctype before the <svg> element.
  const size_t start = svg.find("<svg");
  if (start == std::string::npos)
    return absl::InternalError(absl::StrCat("Graphviz '", program, "' printed no SVG"));
  return svg.substr(start);
}

absl::StatusOr<std::string> EmitHtml(const Module& module, const DotOptions& options) {
  absl::StatusOr<std::string> dot = EmitDot(module, options);
  if (!dot.ok()) return dot.status();
  absl::StatusOr<std::string> svg = RenderSvg(*dot);
  if (!svg.ok()) return svg.status();
  const std::string title = HtmlEscape(module.name());
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", title,
      "</title>\n<style>\n"
      "body { margin: 0; font-family: sans-serif; }\n"
      "header { padding: 6px 10px; background: #333; color: #fff; }\n"
      "#info { position: fixed; bottom: 0; left: 0; right: 0; margin: 0; padding: 6px 10px;\n"
      "        background: #ffffe0; border-top: 1px solid #999; white-space: pre-wrap;\n"
      "        font-family: monospace; font-size: 12px; max-height: 30vh; overflow: auto; }\n"
      "#graph { padding: 10px 10px 30vh 10px; overflow: auto; }\n"
      "g.node:hover polygon, g.node:hover path { stroke: #cc0000; stroke-width: 2; }\n"
      "</style>\n</head>\n<body>\n<header>HLO module ", title,
      " (hover a node for its instruction)</header>\n<div id=\"graph\">\n", *svg,
      "</div>\n<pre id=\"info\">hover a node to see its instruction</pre>\n<script>", kScript,
      "</script>\n</body>\n</html>\n");
}

}  // namespace hlo
