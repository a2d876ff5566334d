#!/usr/bin/env python3
"""check_html_chromium.py HLO_OPT MODULE NODES: renders MODULE with
`hlo-opt --emit=html` and opens the page in headless Chromium (Debian
package chromium): it must load, its script must set data-node-count=NODES
(one SVG node per instruction), hovering every node must show that node's
instruction text (the page's #selftest mode) and the console must show no
script error. A copy of the page with a script error injected must be
caught, so the check itself is known to work.

Exit 77 (ctest: skipped, with the reason printed) when chromium or
Graphviz's dot is not installed: chromium is not in scripts/common.sh's
package list (about 300 MB), so CI skips this test unless it is there."""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def find_chromium():
  for name in (os.environ.get('HLO_CHROMIUM', ''), 'chromium', 'chromium-browser'):
    if name and shutil.which(name):
      return shutil.which(name)
  return None


def load(chromium, page, workdir):
  """Returns (body tag attributes, console errors) of `page` after load."""
  cmd = [chromium, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
         '--user-data-dir=' + os.path.join(workdir, 'profile'), '--enable-logging=stderr',
         '--v=0', '--dump-dom', 'file://' + page + '#selftest']
  proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180)
  dom = proc.stdout.decode('utf-8', 'replace')
  err = proc.stderr.decode('utf-8', 'replace')
  if proc.returncode != 0:
    sys.exit('chromium failed (%d): %s' % (proc.returncode, err[-2000:]))
  body = re.search(r'<body([^>]*)>', dom)
  errors = [l for l in err.splitlines() if ':CONSOLE' in l and 'Uncaught' in l]
  return (body.group(1) if body else ''), errors


def main():
  if len(sys.argv) != 4:
    sys.exit(__doc__)
  hlo_opt, module, nodes = sys.argv[1], sys.argv[2], int(sys.argv[3])
  chromium = find_chromium()
  if not chromium:
    print('SKIP: chromium not installed (apt-get install chromium); the HTML page is not checked')
    return 77
  if not shutil.which(os.environ.get('HLO_DOT') or 'dot'):
    print('SKIP: Graphviz dot not installed (apt-get install graphviz)')
    return 77
  with tempfile.TemporaryDirectory() as tmp:
    page = os.path.join(tmp, 'graph.html')
    subprocess.run([hlo_opt, '--emit=html', module, '-o', page], check=True)
    body, errors = load(chromium, page, tmp)
    want = 'data-node-count="%d" data-hover-ok="%d"' % (nodes, nodes)
    if want not in body or errors:
      sys.exit('page check failed: body attributes %r (want %s), console errors %r' %
               (body, want, errors))
    # The check must be able to fail: a script error is reported.
    broken = os.path.join(tmp, 'broken.html')
    with open(page) as f, open(broken, 'w') as g:
      g.write(f.read().replace('<script>', '<script>undefinedFunction();', 1))
    body, errors = load(chromium, broken, tmp)
    if not errors or 'data-node-count' in body:
      sys.exit('a page with a script error was not caught: %r %r' % (body, errors))
  print('html ok: %d nodes, every hover shows its instruction, no script errors' % nodes)
  return 0


if __name__ == '__main__':
  sys.exit(main())
