"""print_npy.py FILE...: one line per .npy file, `NAME DESCR SHAPE [values]`,
read with the standard library only (format 1.0, little-endian i4/u4/f4/i8/u8/f8),
so that lit tests can check written arrays by value without NumPy."""
import ast
import os
import struct
import sys

CODES = {'<i4': 'i', '<u4': 'I', '<f4': 'f', '<i8': 'q', '<u8': 'Q', '<f8': 'd'}

for path in sys.argv[1:]:
  with open(path, 'rb') as f:
    data = f.read()
  if data[:6] != b'\x93NUMPY':
    sys.exit('%s: not a .npy file' % path)
  header_len = struct.unpack('<H', data[8:10])[0]
  header = ast.literal_eval(data[10:10 + header_len].decode('latin1'))
  code = CODES[header['descr']]
  count = 1
  for d in header['shape']:
    count *= d
  values = struct.unpack('<%d%s' % (count, code), data[10 + header_len:])
  print(os.path.basename(path), header['descr'], header['shape'], list(values))
