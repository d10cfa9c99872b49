/**
 * The command or topic a mistyped one most likely meant, or none: only a name within a
 * few edits of what was typed is a suggestion worth making (`skiff tsk` -> `task`,
 * `skiff task stat` -> `task start`); `skiff frobnicate` is near nothing.
 */
export function nearestCommand(typed: string, candidates: readonly string[]): string | undefined {
  const words = typed.split(':');
  // Edits allowed: a third of the last word typed (the part most likely mistyped), at least one.
  const allowed = Math.max(1, Math.floor(words[words.length - 1].length / 3));
  let best: string | undefined;
  let bestDistance = allowed + 1;
  for (const candidate of candidates) {
    // The distance is at least the difference of the lengths: a candidate that cannot be
    // nearer is not measured (a long word typed would cost length x length for each).
    if (Math.abs(typed.length - candidate.length) >= bestDistance) continue;
    const distance = editDistance(typed, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Levenshtein distance with a swap of two neighbouring letters as one edit (the optimal
 * string alignment distance): `hepl` is one edit from `help`.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
      }
    }
  }
  return rows[a.length][b.length];
}
