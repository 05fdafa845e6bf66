// A line diff of two texts (two versions of a template's definition), by longest common subsequence: small
// definitions only, so the quadratic table is fine.

export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
  /** The line's number in the older text (removed, same) and in the newer one (added, same). */
  before: number | null;
  after: number | null;
}

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // common[i][j]: the length of the longest common subsequence of a[i..] and b[j..]
  const common = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i], before: i + 1, after: j + 1 });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || common[i + 1][j] >= common[i][j + 1])) {
      // of a change, the old line shows first
      lines.push({ kind: 'removed', text: a[i], before: i + 1, after: null });
      i++;
    } else {
      lines.push({ kind: 'added', text: b[j], before: null, after: j + 1 });
      j++;
    }
  }
  return lines;
}
