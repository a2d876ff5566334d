# lit configuration of the golden tests (see testdata/README.md).
#
# Parameters (--param NAME=VALUE), all set by testdata/CMakeLists.txt:
#   hlo_opt         path of the hlo-opt binary (required)
#   hlo_run         path of the hlo-run binary (required)
#   hlo_bisect      path of hlo-bisect (default: beside hlo-opt)
#   llvm_tools_dir  directory with FileCheck and not (default /usr/lib/llvm-14/bin)
#   shared_dir      the ../shared directory beside the checkout (optional);
#                   tests that read it say `REQUIRES: shared-corpus` and are
#                   reported UNSUPPORTED when it is absent
#   exec_root       where lit puts Output/ (temporary files); default: a
#                   directory under the system temp dir, never the source tree
import os
import shutil
import sys
import tempfile

import lit.formats

config.name = 'hlo'
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = ['.hlo', '.test']
config.excludes = ['examples', 'Inputs', 'install', 'fuzz', 'CMakeLists.txt', 'README.md']
config.test_source_root = os.path.dirname(os.path.abspath(__file__))


def param(name, default=None):
  value = lit_config.params.get(name, default)
  return value


hlo_opt = param('hlo_opt')
if not hlo_opt:
  lit_config.fatal('missing --param hlo_opt=/path/to/hlo-opt')
hlo_opt = os.path.abspath(hlo_opt)
if not os.access(hlo_opt, os.X_OK):
  lit_config.fatal('hlo-opt not found or not executable: %s' % hlo_opt)

hlo_run = param('hlo_run')
if not hlo_run:
  lit_config.fatal('missing --param hlo_run=/path/to/hlo-run')
hlo_run = os.path.abspath(hlo_run)

llvm_tools_dir = os.path.abspath(param('llvm_tools_dir', '/usr/lib/llvm-14/bin'))
for tool in ('FileCheck', 'not'):
  if not os.access(os.path.join(llvm_tools_dir, tool), os.X_OK):
    lit_config.fatal('%s not found in %s (Debian package llvm-14-tools)' % (tool, llvm_tools_dir))

config.test_exec_root = os.path.abspath(
    param('exec_root', os.path.join(tempfile.gettempdir(), 'hlo-lit')))

# Tools are found through PATH (LLVM tools first); hlo-opt by its absolute path.
config.environment['PATH'] = os.pathsep.join(
    [llvm_tools_dir, config.environment.get('PATH', os.environ.get('PATH', ''))])
# Sanitizer reports must abort (a signal), so that `not` cannot hide them.
config.environment.setdefault('ASAN_OPTIONS', 'abort_on_error=1')
config.environment.setdefault('UBSAN_OPTIONS', 'print_stacktrace=1:halt_on_error=1:abort_on_error=1')

# hlo-bisect sits beside hlo-opt (the same build directory).
hlo_bisect = os.path.abspath(param('hlo_bisect', os.path.join(os.path.dirname(hlo_opt), 'hlo-bisect')))

python = sys.executable
config.substitutions.append(('%hlo_opt', hlo_opt))
config.substitutions.append(('%hlo_run', hlo_run))
config.substitutions.append(('%hlo_bisect', hlo_bisect))
config.substitutions.append(('%python', python))
config.substitutions.append(
    ('%expect_exit', '%s %s' % (python, os.path.join(config.test_source_root, 'cli', 'Inputs',
                                                     'expect_exit.py'))))
config.substitutions.append(('%examples', os.path.join(config.test_source_root, 'examples')))

shared_dir = param('shared_dir', '')
shared_dir = os.path.abspath(shared_dir) if shared_dir else ''
if shared_dir and os.path.isdir(os.path.join(shared_dir, 'corpus')):
  config.available_features.add('shared-corpus')
else:
  lit_config.note('shared corpus not found (shared_dir=%r): tests that need it are UNSUPPORTED'
                  % shared_dir)
config.substitutions.append(('%shared_dir', shared_dir or '/nonexistent-shared-dir'))

# Protobuf support (HLO_WITH_PROTO): tests of proto inputs and outputs say
# `REQUIRES: proto`.
if param('with_proto', '0') == '1':
  config.available_features.add('proto')
else:
  lit_config.note('built without protobuf: tests that need it are UNSUPPORTED')

# Graphviz (Debian graphviz) renders hlo-opt --emit=html; tests that need it
# say `REQUIRES: graphviz`.
if shutil.which('dot'):
  config.available_features.add('graphviz')
else:
  lit_config.note('Graphviz dot not found: tests that need it are UNSUPPORTED')
