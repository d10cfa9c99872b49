/** Rows as left-aligned columns separated by three spaces (the first row is the header). */
export function tableLines(rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('   ')
      .trimEnd(),
  );
}
