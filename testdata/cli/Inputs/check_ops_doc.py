"""check_ops_doc.py OPCODE_H OPS_MD: every opcode name in the opcode table
has a row in the coverage document; exits 1 naming the missing ones."""
import re
import sys

names = re.findall(r'V\(k\w+, "([^"]+)"', open(sys.argv[1]).read())
doc = open(sys.argv[2]).read()
rows = set(re.findall(r'^\| `([^`]+)` \|', doc, re.M))
missing = [n for n in names if n not in rows]
if len(names) < 100:
  sys.exit('found only %d opcodes in %s' % (len(names), sys.argv[1]))
if missing:
  sys.exit('docs/ops.md lacks rows for: ' + ', '.join(missing))
print('%d opcodes documented' % len(names))
