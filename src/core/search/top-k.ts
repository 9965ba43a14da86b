/**
 * The k best of many scored documents without sorting them all: a bounded min-heap
 * ordered by score, then by document number (lower first), so ties are deterministic.
 * Document numbers follow id order, which makes the tie-break the id.
 */

/** Is (scoreA, docA) ranked below (scoreB, docB)? */
function below(scoreA: number, docA: number, scoreB: number, docB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && docA > docB);
}

/**
 * The best `k` of `docs` by `scores[doc]`, best first. `accept`, if given, is asked only
 * about documents that would enter the current best `k` (so a costly filter runs on few).
 */
export function topK(docs: ArrayLike<number>, scores: ArrayLike<number>, k: number, accept?: (doc: number) => boolean): number[] {
  if (k <= 0) return [];
  const heap: number[] = [];
  const worse = (i: number, j: number): boolean => below(scores[heap[i]!]!, heap[i]!, scores[heap[j]!]!, heap[j]!);
  const swap = (i: number, j: number): void => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  const siftDown = (start: number): void => {
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(l, m)) m = l;
      if (r < heap.length && worse(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  for (let n = 0; n < docs.length; n++) {
    const doc = docs[n]!;
    if (heap.length < k) {
      if (accept !== undefined && !accept(doc)) continue;
      heap.push(doc);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!worse(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (below(scores[heap[0]!]!, heap[0]!, scores[doc]!, doc) && (accept === undefined || accept(doc))) {
      heap[0] = doc;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => scores[b]! - scores[a]! || a - b);
}
