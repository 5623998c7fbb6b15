// Plain text tables of the CLI: columns padded to their widest cell, two spaces apart, the
// last column left as it is (so a long last cell never pads the others).

/** The table's lines, each ending in a newline. */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd()
  return `${[head, ...rows].map(line).join('\n')}\n`
}
