'use strict';
// Small helpers shared by the benchmarks: medians and a uniform result line.

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 0 ? (sorted[mid - 1] + sorted[mid]) / 2 : sorted[mid];
}

/**
 * Prints "<name>: <ratio>x (<figure> vs <baseline>) target <op> <target>  PASS|MISS".
 * `op` is '<=' (lower is better) or '>=' (higher is better).
 */
function report(name, ratio, detail, op, target) {
  const ok = op === '<=' ? ratio <= target : ratio >= target;
  console.log(`${name}: ${ratio.toFixed(2)}x (${detail})  target ${op} ${target}x  ${ok ? 'PASS' : 'MISS'}`);
  return ok;
}

module.exports = { median, report };
