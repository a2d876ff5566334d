"""Writes a module whose entry is a chain of N scalar adds (default 230000,
about 8.3 MB of text): r = p * (N + 1) for parameter p."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 230000
out = ["HloModule big\nENTRY %main (p: f32[]) -> f32[] {\n  %p = f32[] parameter(0)\n",
       "  %a0 = f32[] add(%p, %p)\n"]
out += ["  %%a%d = f32[] add(%%a%d, %%p)\n" % (i, i - 1) for i in range(1, n)]
out.append("  ROOT %%r = f32[] copy(%%a%d)\n}\n" % (n - 1))
sys.stdout.write("".join(out))
