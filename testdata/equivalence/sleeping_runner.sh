#!/bin/sh
# Stands in for hlo-run in the equivalence/timeout_is_failure test: never finishes in time.
exec sleep 30
