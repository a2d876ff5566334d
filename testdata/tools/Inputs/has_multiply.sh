#!/bin/sh
# hlo-bisect predicate: a candidate is good while it still multiplies
# (exit 0), bad once the multiply is gone (grep's exit 1).
grep -q ' multiply(' "$1"
