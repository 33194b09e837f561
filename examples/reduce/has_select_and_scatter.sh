#!/bin/sh
# An interestingness test for hlokit-reduce: the candidate ($1) still contains a stablehlo.select_and_scatter.
grep -q 'stablehlo.select_and_scatter' "$1"
