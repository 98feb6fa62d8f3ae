/** A FIFO with O(1) amortized push/shift (an array with a moving head, compacted now and then). */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head += 1;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Keeps only the items `keep` accepts, in order. */
  retain(keep: (item: T) => boolean): void {
    this.items = (this.items.slice(this.head) as T[]).filter(keep);
    this.head = 0;
  }

  /** Removes and returns every item, oldest first. */
  drain(): T[] {
    const rest = this.items.slice(this.head) as T[];
    this.items = [];
    this.head = 0;
    return rest;
  }
}
