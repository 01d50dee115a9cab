export interface Entry<V> {
  value: V;
  expires: number;
}

/** A cache with a time to live. */
export class TtlCache<V> {
  private items = new Map<string, Entry<V>>();

  get(key: string): V | undefined {
    return this.items.get(key)?.value;
  }
}

export function makeCache<V>(): TtlCache<V> {
  return new TtlCache<V>();
}
