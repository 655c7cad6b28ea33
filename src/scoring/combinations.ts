/**
 * Every k-element subset of `items`, each in the items' order, listed lexicographically by
 * position: for [short, medium, long] and k = 2, [short, medium], [short, long], [medium, long].
 * Empty when k is out of range, so a caller never loops over phantom subsets.
 */
export function combinations<T>(items: readonly T[], k: number): T[][] {
  const out: T[][] = [];
  if (!Number.isInteger(k) || k < 1 || k > items.length) return out;
  const pick: T[] = [];
  const walk = (from: number): void => {
    if (pick.length === k) {
      out.push(pick.slice());
      return;
    }
    for (let i = from; i <= items.length - (k - pick.length); i++) {
      pick.push(items[i] as T);
      walk(i + 1);
      pick.pop();
    }
  };
  walk(0);
  return out;
}
