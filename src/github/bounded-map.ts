/**
 * A map for what the process remembers only to save work (node ids, label
 * patterns, checks already made): it forgets everything once it holds `max`
 * entries, so memory stays bounded; what is forgotten is worked out again,
 * never answered wrong.
 */
export class BoundedMap<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  set(key: string, value: V): void {
    if (this.map.size >= this.max && !this.map.has(key)) this.map.clear();
    this.map.set(key, value);
  }
  delete(key: string): boolean {
    return this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
}
